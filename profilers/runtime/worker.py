"""A worker process per GPU, spoken to in JSON lines; killed after a timeout and restarted.

The worker (`python -m kernelpro.profilers.runtime.runner --serve`) reads one request per line
on stdin, `{"id": N, "job": {...}}`, and answers one line on its protocol channel (its stdout;
the runner moves its own fd 1 to stderr so a kernel's printf cannot corrupt it):
`{"id": N, "ok": true, "result": {...}, "fatal": false}` or `{"id": N, "ok": false, "error": "..."}`.
`fatal` means the CUDA context is poisoned (a sticky error): the worker exits and the pool starts a
fresh one for the next job. A hang, a crash or garbage on the channel is a failed result, never an
exception, and the next job gets a new worker.
"""
from __future__ import annotations

import atexit
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from ..children import python_command


@dataclass
class SizeResult:
    size: str
    ok: bool
    time_s: float = 0.0  # median of the timed launches (0 when not timed)
    spread: float = 0.0  # IQR / median
    times: list[float] = field(default_factory=list)  # seconds, every timed launch
    check: dict = field(default_factory=dict)  # correctness.Check as a dict
    bytes: int = 0
    flops: int | None = None
    failure: str | None = None
    checked: int = 0  # timed launches whose outputs were checked
    sets: int = 0  # input sets with distinct values the timed launches rotated over
    variants: list[str] = field(default_factory=list)  # input distributions checked
    memory: dict = field(default_factory=dict)  # buffers_bytes, device_peak_bytes
    device_state: list[str] = field(default_factory=list)  # device variables reset before every launch
    notes: list[str] = field(default_factory=list)
    check_only: bool = False  # an off-by-one size: checked, not timed

    @classmethod
    def from_json(cls, d: dict) -> "SizeResult":
        names = cls.__dataclass_fields__
        return cls(**{k: v for k, v in d.items() if k in names})


@dataclass
class RunResult:
    ok: bool
    failure: str | None = None
    sizes: list[SizeResult] = field(default_factory=list)
    energy: dict | None = None
    device: dict = field(default_factory=dict)
    wall_s: float = 0.0  # parent-side time of the whole job
    seed: int | None = None  # the inputs' seed (measure.evaluate draws a fresh one per run)
    check_sizes: list[SizeResult] = field(default_factory=list)  # off-by-one sizes: checked, not timed
    checks: dict = field(default_factory=dict)  # {"array": "cupy" | "numpy"}: where outputs were checked

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict) -> "RunResult":
        return cls(ok=bool(d.get("ok")), failure=d.get("failure"),
                   sizes=[SizeResult.from_json(s) for s in d.get("sizes", [])],
                   energy=d.get("energy"), device=d.get("device") or {}, wall_s=float(d.get("wall_s") or 0.0),
                   seed=d.get("seed"), check_sizes=[SizeResult.from_json(s) for s in d.get("check_sizes", [])],
                   checks=d.get("checks") or {})

    @classmethod
    def failed(cls, reason: str, device: dict | None = None) -> "RunResult":
        return cls(ok=False, failure=reason, device=device or {})


class WorkerFailure(Exception):
    """The worker hung, died or spoke garbage; str(e) is the reason for the user."""


def default_command() -> list[str]:
    return python_command("kernelpro.profilers.runtime.runner", "--serve")


class WorkerPool:
    """One worker process for one GPU; jobs run one at a time (a lock serialises callers)."""

    def __init__(self, device: int = 0, timeout_s: float = 60.0, command: list[str] | None = None,
                 env: dict[str, str] | None = None):
        self.device = device
        self.timeout_s = timeout_s
        self.command = list(command) if command else default_command()
        self.env = env
        self.restarts = 0  # workers started after the first
        self._proc: subprocess.Popen | None = None
        self._stderr = None
        self._buf = b""
        self._next_id = 0
        self._started = 0
        self._lock = threading.Lock()

    # --- public ----------------------------------------------------------
    def run(self, job: dict, timeout_s: float | None = None) -> RunResult:
        """Run one job; every failure comes back as RunResult(ok=False, failure=reason)."""
        t0 = time.perf_counter()
        try:
            res = RunResult.from_json(self.call(job, timeout_s))
        except WorkerFailure as e:
            res = RunResult.failed(str(e))
        res.wall_s = time.perf_counter() - t0
        return res

    def call(self, job: dict, timeout_s: float | None = None) -> dict:
        """Send a job and return the worker's result dict; raise WorkerFailure with the reason."""
        limit = self.timeout_s if timeout_s is None else timeout_s
        job = dict(job)
        job.setdefault("device", self.device)
        with self._lock:
            self._ensure()
            self._next_id += 1
            rid = self._next_id
            err_mark = self._stderr_size()
            try:
                self._proc.stdin.write((json.dumps({"id": rid, "job": job}) + "\n").encode())
                self._proc.stdin.flush()
            except (BrokenPipeError, OSError):
                raise self._died(err_mark) from None
            reply = self._read_reply(rid, limit, err_mark)
            if reply.get("fatal"):
                self._kill()  # the context is poisoned: the next job gets a fresh worker
            if not reply.get("ok"):
                raise WorkerFailure(str(reply.get("error") or "the worker reported an unnamed error"))
            result = reply.get("result")
            if not isinstance(result, dict):
                raise WorkerFailure("worker protocol error: the reply has no result object")
            return result

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc and self._proc.poll() is None else None

    def close(self) -> None:
        with self._lock:
            if self._proc and self._proc.poll() is None:
                try:
                    self._proc.stdin.close()  # a clean worker exits at end of input
                    self._proc.wait(timeout=5)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            self._kill()
            if self._stderr:
                self._stderr.close()
                self._stderr = None

    def __enter__(self) -> "WorkerPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self._kill()
        except Exception:
            pass

    # --- process management ----------------------------------------------
    def _ensure(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            return
        self._kill()
        if self._stderr is None:
            self._stderr = tempfile.TemporaryFile(prefix="kernelpro-worker-")
        env = dict(os.environ if self.env is None else self.env)
        env.setdefault("PYTHONUNBUFFERED", "1")
        env["PYTHONSAFEPATH"] = "1"  # no working directory on the worker's sys.path (docs/security.md)
        try:
            self._proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=self._stderr, bufsize=0, env=env, start_new_session=True)
        except OSError as e:
            self._proc = None
            raise WorkerFailure(f"cannot start the GPU worker {self.command[0]}: {e}") from None
        self._buf = b""
        if self._started:
            self.restarts += 1
        self._started += 1

    def _kill(self) -> None:
        p, self._proc = self._proc, None
        if p is None:
            return
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)  # the whole group: the worker and anything it started
            except (ProcessLookupError, PermissionError):
                p.kill()
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        for f in (p.stdin, p.stdout):
            try:
                f.close()
            except OSError:
                pass

    def _read_reply(self, rid: int, limit: float, err_mark: int) -> dict:
        deadline = time.monotonic() + limit
        fd = self._proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while True:
                while b"\n" in self._buf:
                    line, self._buf = self._buf.split(b"\n", 1)
                    if not line.strip():
                        continue
                    try:
                        msg = json.loads(line)
                    except ValueError:
                        msg = None
                    if not isinstance(msg, dict) or "id" not in msg:
                        self._kill()
                        shown = line[:120].decode("utf-8", errors="replace")
                        raise WorkerFailure(f"worker protocol error: not a reply line: {shown!r}")
                    if msg["id"] == rid:
                        return msg
                    # a late answer to an earlier, abandoned request: skip it
                left = deadline - time.monotonic()
                if left <= 0:
                    self._kill()
                    raise WorkerFailure(f"timeout: kernel did not finish within {limit:g} s")
                if not sel.select(timeout=min(left, 1.0)):
                    if self._proc.poll() is not None:
                        raise self._died(err_mark)
                    continue
                chunk = os.read(fd, 1 << 16)
                if not chunk:  # end of file: the worker is gone
                    try:
                        self._proc.wait(timeout=5)
                    except subprocess.TimeoutExpired:
                        pass
                    raise self._died(err_mark)
                self._buf += chunk

    def _died(self, err_mark: int) -> WorkerFailure:
        p = self._proc
        rc = p.poll() if p else None
        tail = self._stderr_tail(err_mark)
        self._kill()
        if rc is not None and rc < 0:
            try:
                name = signal.Signals(-rc).name
            except ValueError:
                name = "?"
            why = f"worker died with signal {-rc} ({name})"
        elif rc is not None:
            why = f"worker exited with status {rc}"
        else:
            why = "worker closed its output"
        return WorkerFailure(why + (f": {tail}" if tail else ""))

    def _stderr_size(self) -> int:
        if not self._stderr:
            return 0
        self._stderr.seek(0, os.SEEK_END)
        return self._stderr.tell()

    def _stderr_tail(self, mark: int, limit: int = 400) -> str:
        if not self._stderr:
            return ""
        self._stderr.seek(mark)
        text = self._stderr.read().decode("utf-8", errors="replace")
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        return " | ".join(lines[-3:])[-limit:]


_POOLS: dict[int, WorkerPool] = {}


@atexit.register
def _close_pools() -> None:
    for p in list(_POOLS.values()):
        p.close()


def shared_pool(device: int = 0, timeout_s: float = 60.0) -> WorkerPool:
    """One pool per device for the whole process (the CLI, the optimizer and the server share it)."""
    pool = _POOLS.get(device)
    if pool is None:
        pool = _POOLS[device] = WorkerPool(device, timeout_s)
    pool.timeout_s = timeout_s
    return pool
