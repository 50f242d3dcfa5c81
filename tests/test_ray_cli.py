"""`kernelpro optimize --workers` end to end through the command line, over a local Ray instance with
CPU-only actors and the stand-in GPU (tests/ray_standin.py): the run, several kernels at once, and no
process left behind after the command, after Ctrl-C too.

Every process the command starts inherits a marker in its environment; after the command no process
may carry it (Ray's own processes, the actors and their GPU worker processes alike).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import git
import pytest
from ray_standin import standin_env, standin_project
from test_interrupt import interruptible

pytest.importorskip("ray")
pytestmark = pytest.mark.slow


def marked_pids(mark: str) -> dict[int, str]:
    """{pid: command line} of the processes whose environment holds the marker."""
    out = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            if f"KERNELPRO_TEST_MARK={mark}".encode() in (d / "environ").read_bytes():
                out[int(d.name)] = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:120]
        except OSError:  # gone, or not ours
            continue
    return out


def marked(mark: str) -> list[str]:
    return list(marked_pids(mark).values())


def gone(mark: str, within_s: float = 20.0) -> list[str]:
    deadline = time.monotonic() + within_s
    while (left := marked(mark)) and time.monotonic() < deadline:
        time.sleep(0.5)
    return left


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    standin_project(root)
    standin_project(root, "other", "standin_other")
    r = git.Repo.init(root)
    r.git.config("user.name", "Test")
    r.git.config("user.email", "t@example.com")
    r.git.add(".")
    r.git.commit("-m", "kernels")
    mark = uuid.uuid4().hex
    env = {**os.environ, **standin_env(tmp_path / "standin"), "KERNELPRO_RAY_GPUS_PER_WORKER": "0",
           "KERNELPRO_TEST_MARK": mark, "PYTHONUNBUFFERED": "1"}
    yield root, env, mark
    for pid in marked_pids(mark):  # a failed test leaves nothing running either (the tests check there is none)
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _optimize(*args, env):
    return subprocess.Popen([sys.executable, "-P", "-m", "kernelpro.profilers.cli", "optimize", *args, "--json-events",
                             "--no-energy"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, preexec_fn=interruptible)


def test_optimize_a_directory_with_workers_then_nothing_is_left(project):
    root, env, mark = project
    p = _optimize(str(root), "--workers", "2", "--budget", "3", "--max-branches", "0", env=env)
    out, err = p.communicate(timeout=240)
    assert p.returncode == 0, err[-3000:]
    events = [json.loads(line) for line in out.splitlines()]  # stdout holds JSON lines only
    done = [e for e in events if e["type"] == "done"]
    assert sorted(e["kernel"] for e in done) == ["standin_add", "standin_other"]
    assert all(e["evaluations"] == 3 and e["stopped_by"] == "evaluations" for e in done)
    notes = [e["message"] for e in events if e["type"] == "note"]
    assert any(n.startswith("2 worker(s) on 1 node(s) of a local Ray instance") for n in notes), notes
    assert any("must not be compared" in n for n in notes)  # CPU-only actors are said to be no timing
    assert gone(mark) == []


def test_ctrl_c_stops_the_run_and_leaves_no_process(project):
    root, env, mark = project
    p = _optimize(str(root / "standin.cu"), "--kernel", "standin_add", "--workers", "4", "--budget", "60", env=env)
    seen = 0
    lines = []
    deadline = time.monotonic() + 240
    while not seen and time.monotonic() < deadline:
        line = p.stdout.readline()
        if not line:
            break
        lines.append(line)
        e = json.loads(line)
        seen += e["type"] == "evaluated"
    assert seen, "".join(lines) + p.stderr.read()[-3000:]
    assert len(marked(mark)) > 4  # Ray's processes, the actors and their workers are up
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130, err[-3000:]
    assert json.loads(out.splitlines()[-1]) == {"type": "cancelled"}
    assert "optimization interrupted" in err
    assert gone(mark) == []
