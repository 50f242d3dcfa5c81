"""GPU profiling (through the CLI in a child process) and launch-spec creation.

Both depend on modules of the GPU runtime that may be missing: they are imported lazily
and their absence is reported once, clearly; the static advice stays. Whether this machine
can run kernels at all is asked once per server (`gpu_reason`) and the lenses say so.
"""
from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from lsprotocol import types

from kernelpro.profilers.advice import Advice
from kernelpro.profilers.cachekey import MAX_SOURCE_BYTES, read_bounded
from kernelpro.profilers.children import child_env, python_command

from . import convert
from .lenses import find_spec, spec_path
from .project import ProjectError
from .state import GPU_SOURCE, KernelProServer


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


async def gpu_reason(ls: KernelProServer) -> str:
    """Why this machine cannot run kernels ("" when it can); asked once, off the event loop."""
    if ls.gpu_reason is None:
        ls.gpu_reason = await asyncio.get_running_loop().run_in_executor(None, gpu_problem) or ""
        if ls.gpu_reason:
            ls.refresh_lenses()
    return ls.gpu_reason


def no_gpu(ls: KernelProServer, action: str, reason: str, quiet: bool = False) -> dict[str, Any]:
    """Every click answers (a click that shows nothing looks broken); `quiet` (a run on save) says it once."""
    ls.show(f"KernelPro: {action} needs a GPU: {reason}. The static advice works without one.",
            types.MessageType.Warning, once=f"no-gpu:{action}" if quiet else None)
    return {"ok": False, "reason": reason}


def untrusted(ls: KernelProServer, action: str, quiet: bool = False) -> dict[str, Any] | None:
    """A refusal when the workspace is not trusted: GPU actions run the launch spec's Python
    reference and build flags from the workspace, so they wait for the user's trust. Said at every
    click; `quiet` (a run on save): once."""
    if ls.trusted:
        return None
    ls.show(f"KernelPro: {action} runs code from this workspace (the launch spec's reference, its build flags); "
            "trust the folder first (VS Code: Manage Workspace Trust). The static advice works in Restricted Mode.",
            types.MessageType.Warning, once=f"untrusted:{action}" if quiet else None)
    return {"ok": False, "reason": "untrusted workspace"}


async def profile_gpu(ls: KernelProServer, uri: str, kernel: str | None, quiet: bool = False) -> dict[str, Any]:
    refused = untrusted(ls, "Profile on GPU", quiet)
    if refused:
        return refused
    problem = await gpu_reason(ls)
    if problem:
        return no_gpu(ls, "Profile on GPU", problem, quiet)
    st = ls.docs.get(uri)
    path = ls.path_of(uri)
    if find_spec(path, kernel) is None:
        return await ask_for_spec(ls, uri, kernel, "Profile on GPU")
    buffer = ls.text_of(uri)[0] if st is not None else None
    state, disk = await asyncio.get_running_loop().run_in_executor(None, disk_state, buffer, path)  # file I/O off the loop
    if state == "missing":
        ls.failed(f"KernelPro: save {Path(path).name} first: the GPU run measures the file on disk")
        return {"ok": False, "reason": "not saved"}
    if state == "unsaved":
        ls.show(f"KernelPro: {Path(path).name} has unsaved changes; the GPU run measures the saved file "
                "(save to include them)", types.MessageType.Warning)
    try:
        opts = ls.settings.compile_options(path, trusted=ls.trusted, roots=ls.roots)
    except ProjectError as e:
        ls.failed(f"KernelPro: {e}")
        return {"ok": False, "reason": str(e)}
    argv = profile_argv(path, kernel, opts, ls.settings.toolchain_settings().get("nvcc"))
    ls.status("profiling", f"GPU run of {kernel or Path(path).name}")
    proc = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.PIPE, start_new_session=True,
                                                cwd=os.path.expanduser("~"), env=child_env())
    out, err = await proc.communicate()
    ls.idle_status()
    if err:
        ls.log("GPU profile: " + err.decode(errors="replace").strip())
    try:
        data = json.loads(out.decode(errors="replace"))
    except json.JSONDecodeError:
        last = (err.decode(errors="replace").strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
        ls.failed(f"KernelPro: the GPU profile of {Path(path).name} failed: {last}")
        return {"ok": False, "reason": "no JSON"}
    if isinstance(data, dict) and data.get("not_measured"):  # the static report came, no measurement
        ls.failed(f"KernelPro: the GPU profile of {Path(path).name} measured nothing: {data['not_measured']}")
        return {"ok": False, "reason": str(data["not_measured"])}
    rows = measured_rows(data.get("measured"))
    if st is not None:
        st.measured.update(rows)
        keep_measured(ls, uri, disk, data)
        ls.refresh_lenses()
    if not quiet:
        ls.show(f"KernelPro: GPU profile of {kernel or Path(path).name} done", types.MessageType.Info)
    return {"ok": True, "measured": rows, "unsaved": state == "unsaved", "findings": len(st.gpu) if st else 0}


def profile_argv(path: str, kernel: str | None, opts, nvcc: str | None) -> list[str]:
    """`kernelpro profile --run --json` as a child: -P (the working directory is not on sys.path),
    --parent (it ends when this server dies), the compile options as flags."""
    argv = python_command("kernelpro.profilers.cli", "--parent", str(os.getpid()),
                          "profile", path, "--run", "--json", "--arch", opts.arch)
    if kernel:
        argv += ["--kernel", kernel]
    if nvcc and os.path.isabs(nvcc):
        argv += ["--nvcc", nvcc]
    for p in opts.include_paths:
        argv += ["-I", p]
    for d in opts.defines:
        argv += ["-D", d]
    for f in opts.extra_flags:
        argv += [f"--flag={f}"]
    return argv


def keep_measured(ls: KernelProServer, uri: str, disk_text: str, data: dict) -> None:
    """The run's measured findings become diagnostics of source kernelpro-gpu (kept apart from the
    static ones until the file changes) and its per-line counters feed the inlay hints."""
    st = ls.docs[uri]
    path = ls.path_of(uri)
    advice = []
    for a in data.get("measured_advice") or []:
        try:
            adv = Advice.from_json(a)
        except (TypeError, ValueError, KeyError):
            continue
        if convert._same_file(adv.file, path):
            advice.append(adv)
    lines = disk_text.split("\n")
    st.gpu_text, st.gpu_advice = disk_text, advice
    st.gpu = convert.advice_diagnostics(advice, lines, uri, ls.encoding, source=GPU_SOURCE)
    st.gpu_lines = {}
    for row in data.get("lines") or []:
        if isinstance(row, dict) and isinstance(row.get("line"), int) and row.get("text"):
            st.gpu_lines[row["line"]] = str(row["text"])
    ls.publish(uri)


def disk_state(buffer: str | None, path: str) -> tuple[str, str]:
    """("missing" | "unsaved" | "saved", the file's text): can the GPU run measure what is shown?"""
    try:
        disk = read_bounded(path, MAX_SOURCE_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return "missing", ""
    if buffer is None:
        return "saved", disk
    same = disk.replace("\r\n", "\n") == buffer.replace("\r\n", "\n")
    return ("saved" if same else "unsaved"), disk


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


def spec_problem(path: str, kernel: str) -> str | None:
    """Why "Create launch spec" cannot run for this kernel, or None."""
    if find_spec(path, kernel) is not None:
        return f"{find_spec(path, kernel).name} exists already"
    try:
        from kernelpro.profilers.runtime.spec import init_spec  # noqa: F401
    except ImportError as e:
        return f"the launch-spec generator is not available ({e})"
    return None


async def ask_for_spec(ls: KernelProServer, uri: str, kernel: str | None, action: str) -> dict[str, Any]:
    """No launch spec: offer to create it (the lens row's action) instead of naming a shell command."""
    name = kernel or "this kernel"
    message = f"KernelPro: {action} needs a launch spec for {name} (sizes, arguments, reference)."
    caps = ls.protocol.client_capabilities
    if kernel and caps and caps.window and caps.window.show_message:
        try:
            choice = await ls.window_show_message_request_async(types.ShowMessageRequestParams(
                type=types.MessageType.Warning, message=message,
                actions=[types.MessageActionItem(title="Create launch spec")]))
        except Exception:
            choice = None
        if choice is not None and choice.title == "Create launch spec":
            return {**await create_spec(ls, uri, kernel), "reason": "no launch spec"}
        return {"ok": False, "reason": "no launch spec"}
    ls.show(message + " Use \"Create launch spec\" above the kernel.", types.MessageType.Warning)
    return {"ok": False, "reason": "no launch spec"}


async def create_spec(ls: KernelProServer, uri: str, kernel: str) -> dict[str, Any]:
    """Write <stem>.kernelpro.toml beside the file (saved, so Optimize can use it at once) and open it."""
    path = ls.path_of(uri)
    target = spec_path(path)
    why = spec_problem(path, kernel)
    if why is None:  # the inferred spec and the kernel-as-reference snapshot, never over an existing file
        from .inferred import write_inferred

        plan, why = write_inferred(ls, uri, kernel, target)
        if plan is None and "exists already" not in why:
            ls.failed(f"KernelPro: {why}")
            return {"ok": False, "reason": why}
    existing = find_spec(path, kernel)
    if why is not None and existing is None:
        ls.failed(f"KernelPro: {why}")
        return {"ok": False, "reason": why}
    shown = existing or target
    await show_document(ls, shown)
    if why is None:
        ls.show(f"KernelPro: created {shown.name}; check its sizes and reference", types.MessageType.Info)
        ls.refresh_lenses()
    return {"ok": why is None, "uri": shown.as_uri(), **({"reason": why} if why else {})}


async def show_document(ls: KernelProServer, path: Path) -> None:
    caps = ls.protocol.client_capabilities
    if not (caps and caps.window and caps.window.show_document and caps.window.show_document.support):
        return
    try:
        await ls.window_show_document_async(types.ShowDocumentParams(uri=path.as_uri(), take_focus=True))
    except Exception as e:
        ls.log(f"could not open {path}: {e!r}", types.MessageType.Warning)
