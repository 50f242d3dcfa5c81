"""GPU profiling (through the CLI in a child process) and launch-spec creation.

Both depend on modules of the GPU runtime that may be missing: they are imported lazily
and their absence is reported once, clearly; the static advice stays.
"""
from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types

from .lenses import spec_path
from .server import KernelProServer


def gpu_problem() -> str | None:
    """Why GPU runs are impossible here, or None."""
    try:
        from kernelpro.profilers.runtime.measure import gpu_problem as problem
    except ImportError as e:
        return f"the GPU runtime is not installed ({e})"
    try:
        return problem()
    except Exception as e:
        return f"the GPU check failed: {e!r}"


async def profile_gpu(ls: KernelProServer, uri: str, kernel: str | None, quiet: bool = False) -> dict[str, Any]:
    problem = await asyncio.get_running_loop().run_in_executor(None, gpu_problem)
    if problem:
        msg = f"KernelPro: no GPU profiling here: {problem}. The static advice stays."
        ls.show(msg, types.MessageType.Warning, once="no-gpu")
        return {"ok": False, "reason": problem}
    st = ls.docs.get(uri)
    path = ls.path_of(uri)
    buffer = ls.text_of(uri)[0] if st is not None else None
    state = await asyncio.get_running_loop().run_in_executor(None, disk_state, buffer, path)  # file I/O off the loop
    if state == "missing":
        msg = f"KernelPro: save {Path(path).name} first: the GPU run measures the file on disk"
        ls.show(msg, types.MessageType.Warning)
        return {"ok": False, "reason": "not saved"}
    if state == "unsaved":
        ls.show(f"KernelPro: {Path(path).name} has unsaved changes; the GPU run measures the saved file "
                "(save to include them)", types.MessageType.Warning)
    s = ls.settings
    argv = [sys.executable, "-m", "kernelpro.profilers.cli", "profile", path, "--run", "--json", "--arch",
            s.compile_options().arch]
    if kernel:
        argv += ["--kernel", kernel]
    if s.raw.get("nvccPath"):
        argv += ["--nvcc", str(s.raw["nvccPath"])]
    for p in s.compile_options().include_paths:
        argv += ["-I", p]
    for d in s.compile_options().defines:
        argv += ["-D", d]
    ls.status("profiling", f"GPU run of {kernel or Path(path).name}")
    proc = await asyncio.create_subprocess_exec(*argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                                                start_new_session=True)
    out, err = await proc.communicate()
    ls.idle_status()
    if err:
        ls.log("GPU profile: " + err.decode(errors="replace").strip())
    try:
        data = json.loads(out.decode(errors="replace"))
    except json.JSONDecodeError:
        ls.show(f"KernelPro: the GPU profile of {Path(path).name} failed (exit code {proc.returncode}); see the log",
                types.MessageType.Error)
        return {"ok": False, "reason": "no JSON"}
    rows = measured_rows(data.get("measured"))
    if st is not None:
        st.measured.update(rows)
        ls.refresh_lenses()
    if not quiet:
        ls.show(f"KernelPro: GPU profile of {kernel or Path(path).name} done", types.MessageType.Info)
    return {"ok": True, "measured": rows, "unsaved": state == "unsaved"}


def disk_state(buffer: str | None, path: str) -> str:
    """"missing" (no file to run), "unsaved" (the buffer differs from the file) or "saved"."""
    try:
        disk = Path(path).read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return "missing"
    if buffer is None:
        return "saved"
    return "saved" if disk.replace("\r\n", "\n") == buffer.replace("\r\n", "\n") else "unsaved"


def measured_rows(measured: Any) -> dict[str, dict[str, Any]]:
    """kernel -> its row at the largest size (the last one listed) that ran correctly, from the
    "measured" list; a kernel none of whose sizes passed keeps its last (failed) row."""
    if not isinstance(measured, list):
        return {}
    out: dict[str, dict[str, Any]] = {}
    for r in measured:
        if isinstance(r, dict) and r.get("kernel"):
            k = str(r["kernel"])
            if r.get("ok") is not False or k not in out or out[k].get("ok") is False:
                out[k] = r
    return out


def spec_edit(ls: KernelProServer, uri: str, kernel: str) -> tuple[types.WorkspaceEdit | None, str]:
    """A WorkspaceEdit that creates <stem>.kernelpro.toml beside the file, or why not."""
    path = ls.path_of(uri)
    target = spec_path(path)
    if target.exists():
        return None, f"{target.name} exists already"
    try:
        from kernelpro.profilers.runtime.spec import init_spec
    except ImportError as e:
        return None, f"the launch-spec generator is not available ({e})"
    text, _ = ls.text_of(uri) if uri in ls.docs else (None, None)
    try:
        body = init_spec(path, kernel, text=text)
    except Exception as e:  # SpecError: no such kernel, unreadable file
        return None, f"cannot create a launch spec for {kernel}: {e}"
    new_uri = target.as_uri()
    doc = types.OptionalVersionedTextDocumentIdentifier(uri=new_uri, version=None)
    insert = types.TextEdit(range=types.Range(start=types.Position(line=0, character=0),
                                              end=types.Position(line=0, character=0)), new_text=str(body))
    edit = types.WorkspaceEdit(document_changes=[
        types.CreateFile(uri=new_uri, options=types.CreateFileOptions(overwrite=False, ignore_if_exists=True)),
        types.TextDocumentEdit(text_document=doc, edits=[insert]),
    ])
    return edit, f"created {target.name}"


async def create_spec(ls: KernelProServer, uri: str, kernel: str) -> dict[str, Any]:
    edit, why = spec_edit(ls, uri, kernel)
    if edit is None:
        ls.show(f"KernelPro: {why}", types.MessageType.Warning)
        return {"ok": False, "reason": why}
    try:
        res = await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(edit=edit, label="Create launch spec"))
    except Exception as e:  # the client does not support workspace/applyEdit
        ls.show(f"KernelPro: could not create the launch spec: {e}", types.MessageType.Error)
        return {"ok": False, "reason": str(e)}
    ok = bool(res and res.applied)
    ls.show(f"KernelPro: {why}" if ok else f"KernelPro: the editor refused to create the spec: {res.failure_reason if res else ''}",
            types.MessageType.Info if ok else types.MessageType.Warning)
    return {"ok": ok, "uri": edit.document_changes[0].uri}
