"""The real server over stdio on messages it cannot use (issue 29, item 14): every request gets an answer
(InvalidParams -32602, InvalidRequest -32600), deep nesting reaches no RecursionError, a change to a
document never opened is logged (no error shown to the user), and `exit` during a profile cancels it."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from lsp_raw import SERVER, RawLsp, wait_for

SMALL = "__global__ void k(float* x) { x[threadIdx.x] = 1.f; }\n"


@pytest.fixture
def lsp(tmp_path):
    (tmp_path / "a.cu").write_text(SMALL)
    s = RawLsp(tmp_path)
    s.initialize(tmp_path)
    try:
        yield s
    finally:
        s.close()


def answer(s: RawLsp, message: dict, timeout: float = 30) -> dict:
    s.send(message)
    with s.lock:
        assert s.lock.wait_for(lambda: message["id"] in s.responses or s.closed, timeout), \
            f"no answer to {message!r:.200}"
        return s.responses.pop(message["id"])


def shown(s: RawLsp, after: int) -> list[str]:
    return [n["params"]["message"] for n in s.notes[after:] if n["method"] == "window/showMessage"]


def test_a_request_whose_params_do_not_deserialize_gets_invalid_params(lsp):
    r = answer(lsp, {"jsonrpc": "2.0", "id": 101, "method": "textDocument/hover",
                     "params": {"textDocument": 5, "position": "top"}})
    assert r["error"]["code"] == -32602 and "textDocument/hover" in r["error"]["message"]


@pytest.mark.parametrize("message", [
    {"jsonrpc": "2.0", "id": 102, "method": 5, "params": {}},
    {"id": 102, "method": "textDocument/hover", "params": {}},
    {"jsonrpc": "1.0", "id": 102, "method": "textDocument/hover", "params": {}},
], ids=["method-not-a-string", "no-jsonrpc", "jsonrpc-1.0"])
def test_a_malformed_request_gets_invalid_request(lsp, message):
    r = answer(lsp, message)
    assert r["id"] == 102 and r["error"]["code"] == -32600


@pytest.mark.parametrize("depth", [100, 600, 900])
def test_deep_nesting_under_the_framers_limit_is_refused_not_a_recursion_error(lsp, tmp_path, depth):
    deep = json.loads("[" * depth + "]" * depth)
    mark = len(lsp.notes)
    r = answer(lsp, {"jsonrpc": "2.0", "id": 201, "method": "workspace/executeCommand",
                     "params": {"command": "kernelpro.sass", "arguments": [deep]}})
    assert r["error"]["code"] == -32602 and "nested" in r["error"]["message"]
    lsp.notify("workspace/didChangeConfiguration", {"settings": {"kernelpro": {"profileOn": deep}}})
    lsp.notify("initialized", {"deep": deep})
    uri = lsp.open(tmp_path / "a.cu")
    assert lsp.diagnostics(uri) is not None  # still serving
    assert "error" not in lsp.hover(uri, 0, 16)
    assert not [m for m in shown(lsp, mark) if "Recursion" in m or "Error in server" in m]
    assert "RecursionError" not in "".join(lsp.stderr)


def test_did_change_for_an_unopened_document_is_logged_not_shown(lsp, tmp_path):
    mark = len(lsp.notes)
    ghost = (tmp_path / "never_opened.cu").as_uri()
    lsp.notify("textDocument/didChange", {"textDocument": {"uri": ghost, "version": 2},
                                          "contentChanges": [{"text": "int x;"}]})
    uri = lsp.open(tmp_path / "a.cu")
    lsp.diagnostics(uri)
    assert "error" not in lsp.hover(uri, 0, 16)
    logged = [n["params"]["message"] for n in lsp.notes[mark:] if n["method"] == "window/logMessage"]
    assert any("never_opened.cu" in m and "not opened" in m for m in logged), logged
    assert shown(lsp, mark) == [], shown(lsp, mark)


def many_kernels(n: int) -> str:
    return "".join(f"__global__ void k{i}(float* x, int n) {{ int j = blockIdx.x * blockDim.x + threadIdx.x; "
                   f"if (j < n) x[j] = x[j] * 2.f + {i}.f; }}\n" for i in range(n))


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_exit_during_the_analysis_cancels_it(tmp_path):
    path = tmp_path / "many.cu"
    path.write_text(many_kernels(800))
    log = tmp_path / "server.log"
    s = RawLsp(tmp_path, command=[*SERVER, "--log-file", str(log), "--log-level", "INFO"])
    try:
        s.initialize(tmp_path)
        s.open(path)
        # the compile done, the rules start: 800 kernels are seconds of analysis
        wait_for(lambda: log.exists() and "analysing 800 kernel(s) of many.cu" in log.read_text(), 600,
                 "the analysis to start")
        s.request("shutdown", None, timeout=60)
        s.notify("exit", None)
        s.proc.wait(120)  # a bound for a hung server, not a timing
        text = log.read_text()
        assert "the profile of many.cu was cancelled" in text, text[-3000:]
        assert s.proc.returncode == 0
    finally:
        s.close()


def test_the_scheduler_does_not_hold_exit_for_a_profile_that_does_not_stop():
    """A rules pass in flight (one chunk of many kernels) is not joined at exit: drain says it still runs,
    and __main__ then ends the process instead of waiting for the pool's thread."""
    import asyncio
    import threading

    from kernelpro.lsp_server.profiling import Outcome, Scheduler, Snapshot
    from kernelpro.lsp_server.settings import Settings

    started, release = threading.Event(), threading.Event()

    def stuck(snap):
        started.set()
        release.wait(60)
        return Outcome(snap, problem="released", kind="internal")

    async def go():
        sched = Scheduler(lambda out: None, run=stuck)
        sched.submit(Snapshot("file:///x.cu", "/x.cu", 1, "", 0, Settings.from_json({})))
        await asyncio.get_running_loop().run_in_executor(None, started.wait, 30)
        sched.close()
        assert sched.running and not sched.drain(0.2)  # still in its pass: not waited for
        release.set()
        assert sched.drain(30)  # and once it returns, nothing is left
    asyncio.run(go())
