"""Second-pass features through the real server: project flags, SASS, inlay hints, GPU-first actions."""
from __future__ import annotations

import asyncio
import json
import sys

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from kernelpro.lsp_server.gpu import gpu_problem
from lsp_fixtures.helpers import HERE, client, diagnostics_for, line_of, open_doc, wait_until  # noqa: F401 (client: the fixture)

FAKE = str(HERE / "fake_optimizer.py")
NO_GPU = gpu_problem()


KERNEL = """#include "tile.cuh"
#ifndef USE_TILE
#error "built without -DUSE_TILE: the flags did not arrive"
#endif
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * TILE + threadIdx.x;
    if (i < n) out[i] = in[i] * 0.1;
}
"""


@pytest.mark.asyncio
async def test_cmake_project_flags_come_from_compile_commands(client: LanguageClient):
    """No settings: the include path and the defines of the CMake build reach nvcc."""
    root = client.ws / "proj"
    (root / "include").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "build").mkdir()
    (root / "include" / "tile.cuh").write_text("#define TILE 128\n")
    src = root / "src" / "k.cu"
    src.write_text(KERNEL)
    uri = open_doc(client, src)
    diags = await diagnostics_for(client, uri, version=1)
    assert any("tile.cuh" in d.message for d in diags), [d.message for d in diags]  # without the project: no header
    mark = len(client.published)
    command = (f"/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -DUSE_TILE -I{root}/include -O3 -DNDEBUG "
               f"--generate-code=arch=compute_80,code=[compute_80,sm_80] -x cu -c {src} -o CMakeFiles/k.dir/src/k.cu.o")
    (root / "build" / "compile_commands.json").write_text(json.dumps(
        [{"directory": str(root / "build"), "command": command, "file": str(src)}]))
    diags = await diagnostics_for(client, uri, after=mark)  # the watcher sees the new database
    assert not [d for d in diags if d.severity == types.DiagnosticSeverity.Error], [d.message for d in diags]
    fp64 = [d for d in diags if d.code == "fp64-in-float-kernel"]
    assert fp64 and fp64[0].range.start.line == line_of(KERNEL, "0.1") - 1, [(d.code, d.message) for d in diags]
    h = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=fp64[0].range.start))
    assert "sm\\_80" in h.contents.value  # the project's architecture, not the default sm_90


@pytest.mark.asyncio
async def test_sass_command_and_inlay_hints(client: LanguageClient):
    path = client.ws / "defects.cu"
    text = path.read_text()
    uri = open_doc(client, path)
    await diagnostics_for(client, uri, version=1)
    res = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="kernelpro.sass", arguments=[uri]))
    assert res["ok"] and res["version"] == 1 and set(res["kernels"]) == {"scale", "taps", "warp_softmax"}
    out = res["text"].split("\n")
    line = line_of(text, "in[i] * 2.0")
    mine = [b for b in res["blocks"] if b["line"] == line]
    assert mine and all(out[b["start"]].startswith(f"// defects.cu:{line} ") for b in mine)
    assert any("DADD" in out[i] or "DMUL" in out[i] or "F2F" in out[i]
               for b in mine for i in range(b["start"] + 1, b["end"] + 1))
    hints = await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(0, 0), end=types.Position(len(text.split("\n")), 0))))
    by_line = {h.position.line: h.label for h in hints}
    assert "FP64" in by_line[line - 1] and "LDG.32" in by_line[line - 1]
    row = text.split("\n")[line - 1]
    assert hints[0].padding_left and by_line and all(0 < h.position.character for h in hints)
    assert [h.position.character for h in hints if h.position.line == line - 1] == [len(row.rstrip())]
    # after an edit above, the hints and the SASS blocks follow the text
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text="// new first line\n" + text)]))
    hints = await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(0, 0), end=types.Position(100, 0))))
    assert "FP64" in {h.position.line: h.label for h in hints}[line]
    res = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="kernelpro.sass", arguments=[uri]))
    assert res["version"] == 2 and [b for b in res["blocks"] if b["line"] == line + 1]


@pytest.mark.skipif(NO_GPU is None, reason="this machine has a GPU")
@pytest.mark.asyncio
async def test_gpu_actions_without_a_gpu_say_that_first_at_every_click(client: LanguageClient):
    """Not a git repository and no launch spec either: the GPU is what is said, at every click (issue 29,
    item 11: five clicks, one toast, looked broken), and the status bar does not turn red; the lenses say
    it before anyone clicks."""
    uri = open_doc(client, client.ws / "defects.cu")
    await diagnostics_for(client, uri, version=1)
    clicks = ["kernelpro.optimize", "kernelpro.profileGpu", "kernelpro.optimize", "kernelpro.optimize",
              "kernelpro.profileGpu"]
    for command in clicks:
        res = await client.workspace_execute_command_async(types.ExecuteCommandParams(
            command=command, arguments=[uri, "scale"]))
        assert res["ok"] is False and "no NVIDIA driver" in res["reason"]
    await wait_until(lambda: len(client.messages) >= len(clicks), 5, "an answer to every click")
    shown = [m.message for m in client.messages]
    assert len(shown) == len(clicks), shown
    for command, message in zip(clicks, shown):
        action = "Optimize" if command == "kernelpro.optimize" else "Profile on GPU"
        assert message.startswith(f"KernelPro: {action} needs a GPU: ") and "no NVIDIA driver" in message, message
        assert "pip install" not in message
    assert not [m for m in shown if "spec" in m or "git" in m]
    assert not [s for s in client.statuses if getattr(s, "state", None) == "error"]
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    titles = {l.command.title for l in lenses}
    assert {"Optimize (needs a GPU)", "Profile on GPU (needs a GPU)"} <= titles


@pytest.mark.parametrize("settings", [{"optimizerCommand": [sys.executable, FAKE]}])
@pytest.mark.asyncio
async def test_optimize_without_a_spec_infers_it_and_starts_when_accepted(client: LanguageClient, settings):
    """Issue 28: Optimize on a kernel without a spec writes the inferred one (the kernel as it is now as the
    reference), opens it with its guesses marked, and starts only when the user accepts."""
    answers = ["Not now", "Optimize with it"]
    asked = []

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def request(params: types.ShowMessageRequestParams):
        asked.append(params)
        return next(a for a in params.actions if a.title == answers[len(asked) - 1])

    uri = open_doc(client, client.ws / "defects.cu")
    res = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="kernelpro.optimize", arguments=[uri, "scale"]))
    (q,) = asked
    assert "inferred a launch spec for scale" in q.message and "GUESS" in q.message
    assert [a.title for a in q.actions] == ["Optimize with it", "Not now"]
    spec = client.ws / "defects.kernelpro.toml"
    snapshot = client.ws / "defects.scale.reference.cu"
    assert res["ok"] is False and "token" not in res and res["uri"] == spec.as_uri() and res["guessed"]
    text = spec.read_text()
    assert 'kernel = "scale"' in text and "GUESS" in text and f'file = "{snapshot.name}"' in text
    assert snapshot.read_text() == (client.ws / "defects.cu").read_text()
    assert [d.uri for d in client.shown_documents] == [spec.as_uri()]
    from kernelpro.profilers.runtime.spec import load_spec

    assert load_spec(spec).reference["kernel"] == "scale"
    # inferred again (the spec removed) and accepted: the optimizer starts
    spec.unlink()
    res = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="kernelpro.optimize", arguments=[uri, "scale"]))
    assert len(asked) == 2 and "token" in res and spec.is_file()
    await wait_until(lambda: not client.progress_reports or any(
        isinstance(r, types.WorkDoneProgressEnd) for r in client.progress_reports.get(res["token"], [])), what="the end")
    await asyncio.sleep(0.1)
