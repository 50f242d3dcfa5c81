"""kernelpro.optimize against a stand-in optimizer; shutdown ends every child process."""
from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from kernelpro.lsp_server.profiling import child_pids
from lsp_fixtures.helpers import CONFIG, HERE, diagnostics_for, open_doc, start, wait_until, workspace

FAKE = str(HERE / "fake_optimizer.py")


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient, request):
    tmp = request.getfixturevalue("tmp_path")
    ws = workspace(tmp)
    lsp_client.ws, lsp_client.pid_file = ws, tmp / "optimizer.pid"
    from kernelpro.profilers.runtime.spec import init_spec

    (ws / "defects.kernelpro.toml").write_text(init_spec(ws / "defects.cu", "scale"))  # Optimize asks for a spec
    callspec = getattr(request.node, "callspec", None)
    extra = list(callspec.params.get("extra", [])) if callspec else []
    await start(lsp_client, ws, {
        "optimizerCommand": [sys.executable, FAKE, "--pid-file", str(lsp_client.pid_file), *extra],
        "optimize": {"budget": 5, "objective": "energy"},
        "llm": {"baseUrl": "http://127.0.0.1:9/v1", "model": "test-model"},
        "includePaths": [str(ws / "include")], "defines": ["KP_TEST=1"],
    })
    lsp_client.done = False
    yield
    if not lsp_client.done:
        await lsp_client.shutdown_session()


async def run_optimize(client, kernel="scale"):
    uri = open_doc(client, client.ws / "defects.cu")
    res = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="kernelpro.optimize", arguments=[uri, kernel]))
    return uri, res["token"]


def ended(client, token):
    return [r for r in client.progress_reports.get(token, []) if isinstance(r, types.WorkDoneProgressEnd)]


@pytest.mark.parametrize("extra", [["--delay", "0.05"]])
@pytest.mark.asyncio
async def test_optimize_streams_progress_and_names_the_best(client: LanguageClient, extra):
    uri, token = await run_optimize(client)
    (end,) = await wait_until(lambda: ended(client, token), what="the end of the progress")
    reports = client.progress_reports[token]
    assert isinstance(reports[0], types.WorkDoneProgressBegin) and reports[0].cancellable
    pcts = [r.percentage for r in reports if isinstance(r, types.WorkDoneProgressReport)]
    assert pcts == sorted(pcts) and pcts[-1] == 100 and 20 in pcts
    assert "kernelpro/scale/run1-5" in end.message and "1.50x" in end.message
    assert any("kernelpro/scale/run1-5" in m.message for m in client.messages)
    argv = json.loads(Path(str(client.pid_file) + ".argv").read_text())
    assert argv[argv.index("optimize") + 1] == str((client.ws / "defects.cu").resolve())
    for a, b in [("--kernel", "scale"), ("--budget", "5"), ("--objective", "energy"),
                 ("--llm-model", "test-model"), ("--llm-base-url", "http://127.0.0.1:9/v1")]:
        assert argv[argv.index(a) + 1] == b
    assert "--json-events" in argv
    # the file's compile options reach the optimizer as they reach the static profile (issue 29, item 13)
    incs = (str(client.ws / "include"), str((client.ws / "include").resolve()))
    assert argv[argv.index("-I") + 1] in incs and argv[argv.index("-D") + 1] == "KP_TEST=1", argv
    assert argv[argv.index("--arch") + 1] == "sm_90"
    assert any("fake optimizer starting" in m.message for m in client.log_messages)  # stderr -> log
    states = [getattr(s, "state", None) for s in client.statuses]
    assert "optimizing" in states
    await wait_until(lambda: getattr(client.statuses[-1], "state", None) == "idle", what="idle status")
    assert any(getattr(s, "percentage", None) == 100 for s in client.statuses)


@pytest.mark.parametrize("extra", [["--delay", "1.0"]])
@pytest.mark.asyncio
async def test_optimize_can_be_cancelled(client: LanguageClient, extra):
    uri, token = await run_optimize(client)
    await wait_until(lambda: client.pid_file.exists() and len(client.progress_reports.get(token, [])) >= 2,
                     what="the optimizer to start")
    pid = int(client.pid_file.read_text())
    assert alive(pid)
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    (end,) = await wait_until(lambda: ended(client, token), timeout=5, what="the end after cancel")
    assert "cancelled" in end.message
    await wait_until(lambda: not alive(pid), timeout=3, what="the optimizer to exit")


@pytest.mark.parametrize("extra", [["--delay", "3.0", "--ignore-sigint"]])
@pytest.mark.asyncio
async def test_cancel_escalates_to_sigterm(client: LanguageClient, extra):
    uri, token = await run_optimize(client)
    await wait_until(lambda: client.pid_file.exists(), what="the optimizer to start")
    pid = int(client.pid_file.read_text())
    t0 = time.monotonic()
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    await asyncio.sleep(1.5)
    assert alive(pid)  # SIGINT ignored
    (end,) = await wait_until(lambda: ended(client, token), timeout=10, what="the end after SIGTERM")
    assert 4.5 < time.monotonic() - t0 < 9 and "cancelled" in end.message
    assert not alive(pid)


@pytest.mark.parametrize("extra", [["--fail", "no launch spec for scale"]])
@pytest.mark.asyncio
async def test_optimizer_error_is_shown(client: LanguageClient, extra):
    uri, token = await run_optimize(client)
    (end,) = await wait_until(lambda: ended(client, token), what="the end")
    assert "no launch spec for scale" in end.message
    shown = [m for m in client.messages if "no launch spec" in m.message]
    assert len(shown) == 1 and shown[0].type == types.MessageType.Error  # said once
    # after the message the status bar goes back to idle (it stayed red for a minute), the error in its tooltip
    last = await wait_until(lambda: client.statuses and client.statuses[-1], what="a status")
    assert last.state == "idle" and "no launch spec" in last.message
    assert not [s for s in client.statuses if getattr(s, "state", None) == "error"]


@pytest.mark.parametrize("extra", [["--delay", "1.0"]])
@pytest.mark.asyncio
async def test_shutdown_ends_every_child(client: LanguageClient, extra):
    server_pid = client._server.pid
    uri, token = await run_optimize(client)
    await wait_until(lambda: client.pid_file.exists(), what="the optimizer to start")
    opt_pid = int(client.pid_file.read_text())
    # a compile in flight too: a fresh file nobody compiled
    src = client.ws / "fresh.cu"
    src.write_text((client.ws / "defects.cu").read_text().replace("scale(", "scale_fresh("))
    open_doc(client, src)
    kids = await wait_until(lambda: [p for p in child_pids(server_pid) if p != opt_pid], timeout=10,
                            what="a compile child")
    client.done = True
    await client.shutdown_session()
    assert client._server.returncode == 0
    await wait_until(lambda: not alive(opt_pid) and not any(alive(p) for p in kids), timeout=3,
                     what="every child to end")


@pytest.mark.parametrize("extra", [["--delay", "0.01", "--long-event", "300000"]])
@pytest.mark.asyncio
async def test_an_event_line_longer_than_64k_is_relayed(client: LanguageClient, extra):
    uri, token = await run_optimize(client)
    (end,) = await wait_until(lambda: ended(client, token), timeout=10, what="the end of the progress")
    assert "kernelpro/scale/run1-5" in end.message
