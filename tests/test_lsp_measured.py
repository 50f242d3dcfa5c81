"""Measured findings (Profile on GPU) in the editor: their own diagnostic source, kept apart from the
static ones, shown in hovers and hints, cleared when the file changes.

Without a GPU here, the run's output is the one `kernelpro profile --run --json` printed on the H200
(docs/gpu-runs); the server is the real one, in this process, behind a writer that records what it sends.
The `gpu` test at the end runs the whole way on a GPU.
"""
from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from kernelpro.lsp_server.gpu import keep_measured
from kernelpro.lsp_server.server import GPU_SOURCE, create_server
from kernelpro.profilers.tools import static_tools

ROOT = Path(__file__).resolve().parents[1]
RUN = ROOT / "docs" / "gpu-runs" / "2026-12-02-evening" / "run_a_naive_transpose.json"


class Capture:
    """A pygls writer that keeps the messages the server sends."""

    def __init__(self):
        self.sent: list[dict] = []

    def write(self, data: bytes) -> None:
        body = data.split(b"\r\n\r\n", 1)[1]
        self.sent.append(json.loads(body))

    def close(self) -> None:
        pass

    def publishes(self, uri):
        return [m["params"] for m in self.sent if m.get("method") == "textDocument/publishDiagnostics"
                and m["params"]["uri"] == uri]


def recorded_run(path: Path) -> dict:
    """The H200 run of this example, its paths moved to `path` and its measured advice apart."""
    data = json.loads(RUN.read_text().replace(json.loads(RUN.read_text())["file"], str(path)))
    static = {r for t in static_tools() for r in t.rules}
    data["measured_advice"] = [a for a in data["advice"] if a["rule"] not in static]
    data["lines"] = [{"line": 12, "text": "62% of stalls (long_scoreboard) · 75% excess sectors"}]
    return data


async def wait_for(pred, timeout=60):
    for _ in range(int(timeout / 0.05)):
        v = pred()
        if v:
            return v
        await asyncio.sleep(0.05)
    raise AssertionError("timed out")


@pytest.mark.asyncio
async def test_measured_findings_kept_apart_and_cleared_on_change(tmp_path):
    src = tmp_path / "a_naive_transpose.cu"
    shutil.copy(ROOT / "examples" / "a_naive_transpose.cu", src)
    text = src.read_text()
    uri = src.as_uri()
    ls = create_server()
    cap = Capture()
    ls.protocol.set_writer(cap)

    def send(obj):
        ls.protocol.handle_message(json.loads(json.dumps({"jsonrpc": "2.0", **obj}),
                                              object_hook=ls.protocol.structure_message))

    try:
        send({"id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}})
        send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "cuda-cpp", "version": 1, "text": text}}})
        first = (await wait_for(lambda: cap.publishes(uri)))[0]
        assert {d.get("source") for d in first["diagnostics"]} == {"kernelpro"}

        keep_measured(ls, uri, text, recorded_run(src))
        pub = cap.publishes(uri)[-1]
        measured = [d for d in pub["diagnostics"] if d["source"] == GPU_SOURCE]
        static = [d for d in pub["diagnostics"] if d["source"] == "kernelpro"]
        assert static == first["diagnostics"]  # the static findings stay as they were
        assert {d["code"] for d in measured} >= {"uncoalesced-global", "warp-stall", "roofline"}
        line12 = [d for d in measured if d["range"]["start"]["line"] == 11]
        assert line12 and all(len(d["message"]) <= 160 for d in measured)

        send({"id": 2, "method": "textDocument/hover", "params": {"textDocument": {"uri": uri},
                                                                  "position": {"line": 11, "character": 4}}})
        hover = await wait_for(lambda: next((m for m in cap.sent if m.get("id") == 2), None))
        assert "uncoalesced-global" in hover["result"]["contents"]["value"]  # measured evidence in the hover
        send({"id": 3, "method": "textDocument/inlayHint", "params": {"textDocument": {"uri": uri}, "range": {
            "start": {"line": 0, "character": 0}, "end": {"line": 40, "character": 0}}}})
        hints = await wait_for(lambda: next((m for m in cap.sent if m.get("id") == 3), None))
        assert any("62% of stalls" in h["label"] and h["position"]["line"] == 11 for h in hints["result"])

        # the file changes: the measurement no longer describes it
        send({"method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": 2},
                                                             "contentChanges": [{"text": "// edited\n" + text}]}})
        pub = cap.publishes(uri)[-1]
        assert pub["version"] == 2 and not [d for d in pub["diagnostics"] if d["source"] == GPU_SOURCE]
        assert [d["range"]["start"]["line"] for d in pub["diagnostics"]] == [
            d["range"]["start"]["line"] + 1 for d in first["diagnostics"]]  # the static ones moved with the text
    finally:
        ls.close()


@pytest.mark.gpu
@pytest.mark.slow
def test_profile_on_gpu_publishes_measured_findings_end_to_end(tmp_path):
    """On a GPU: kernelpro.profileGpu on the naive transpose through the real server process."""
    import sys

    from lsprotocol import types

    async def run():
        from pygls.lsp.client import BaseLanguageClient

        shutil.copy(ROOT / "examples" / "a_naive_transpose.cu", tmp_path / "t.cu")
        shutil.copy(ROOT / "examples" / "a_naive_transpose.kernelpro.toml", tmp_path / "t.kernelpro.toml")
        shutil.copy(ROOT / "examples" / "refs.py", tmp_path / "refs.py")  # the spec's reference
        c = BaseLanguageClient("test", "0")
        pubs = []
        c.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(lambda p: pubs.append(p))
        for m in ("kernelpro/status", types.WINDOW_LOG_MESSAGE, types.WINDOW_SHOW_MESSAGE):
            c.feature(m)(lambda p: None)
        await c.start_io(sys.executable, "-m", "kernelpro.lsp_server")
        await c.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                        root_uri=tmp_path.as_uri()))
        c.initialized(types.InitializedParams())
        uri = (tmp_path / "t.cu").as_uri()
        c.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=uri, language_id="cuda-cpp", version=1, text=(tmp_path / "t.cu").read_text())))
        res = await c.workspace_execute_command_async(types.ExecuteCommandParams(
            command="kernelpro.profileGpu", arguments=[uri, "transpose"]))
        assert res["ok"] and res["findings"] > 0, res
        assert [d for d in pubs[-1].diagnostics if d.source == GPU_SOURCE]
        await c.shutdown_async(None)
        c.exit(None)
        await c.stop()

    asyncio.run(run())
