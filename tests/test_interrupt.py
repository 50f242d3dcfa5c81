"""Ctrl-C and SIGTERM stop nvcc and its children and leave no temporary files (issue 11, item 9)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


def slow_source(lines: int = 12000) -> str:
    body = [f"    a = fmaf(a, b, {i}.5f); b = a * b - {i}.25f; if (a > b) a = b + 1.0f;" for i in range(lines)]
    return "\n".join(["__global__ void slow(float* out, const float* in) {",
                      "    float a = in[threadIdx.x], b = in[threadIdx.x + 1];", *body,
                      "    out[threadIdx.x] = a + b;", "}", ""])


def processes_mentioning(text: str) -> list[tuple[int, str]]:
    """(pid, command) of live processes whose command line contains `text`."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = next((l for l in (d / "status").read_text().splitlines() if l.startswith("State:")), "")
        except OSError:
            continue
        if text in cmd and "zombie" not in state:
            out.append((int(d.name), cmd))
    return out


def start(tmp_path: Path, *args: str) -> tuple[subprocess.Popen, Path]:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp), "KERNELPRO_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.Popen([sys.executable, "-P", "-m", "kernelpro.profilers.cli", "profile", *args],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=interruptible)
    return proc, tmp


def interruptible() -> None:
    """In the child before it runs: SIGINT back to its default (a test run started as a background job, `cmd &` in a
    script, passes SIGINT ignored to its children, and Python then never raises KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_for(pred, limit: float = 120.0):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.05)
    return pred()


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_kills_the_compiler_group_and_cleans_up(tmp_path, sig):
    src = tmp_path / "slow.cu"
    src.write_text(slow_source())
    proc, tmp = start(tmp_path, str(src), "--no-cache")
    # the compiler's own children (cicc, then ptxas) read files in our temp folder
    tools = wait_for(lambda: [p for p in processes_mentioning(str(tmp)) if Path(p[1].split()[0]).name in ("cicc", "ptxas")])
    assert tools, "cicc or ptxas never started"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == (130 if sig == signal.SIGINT else 128 + signal.SIGTERM), err
    assert "Traceback" not in err
    wait_for(lambda: not processes_mentioning(str(tmp_path)), 3)  # killed processes take a moment to go (the compile alone takes much longer)
    left = processes_mentioning(str(tmp_path))
    assert not left, f"still running after the interrupt: {left}"
    assert sorted(p.name for p in tmp.iterdir()) == []  # no kernelpro-*, no tmpxft_*


def test_no_cache_run_leaves_no_temporary_folder(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }\n")
    proc, tmp = start(tmp_path, str(src), "--no-cache", "--json")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert sorted(p.name for p in tmp.iterdir()) == []
