"""`kernelpro.optimize`: the optimizer as a child process, its JSON events as work-done progress.

The child prints one JSON event per line on stdout ({"type", "evaluations", "budget":
{"evaluations"}, ...}); its stderr goes to the log. Cancel: SIGINT, then SIGTERM after
5 s, then SIGKILL after 5 s more, sent to the child's process group.
"""
from __future__ import annotations

import asyncio
import json
import os
import signal
import uuid
from pathlib import Path
from typing import Any

from lsprotocol import types

from kernelpro.profilers.children import child_env
from kernelpro.profilers.contracts import Done, Evaluated, Event, NewBest, Start, Tuned
from kernelpro.profilers.contracts import parse as parse_event

from .state import KernelProServer

GRACE_S = 5.0
LINE_LIMIT = 16 * 1024 * 1024  # one JSON event per line; asyncio's default 64 KiB is too small


class OptimizerRun:
    def __init__(self, ls: KernelProServer, uri: str, kernel: str, argv: list[str]):
        self.ls, self.uri, self.kernel, self.argv = ls, uri, kernel, argv
        self.token = f"kernelpro-optimize-{uuid.uuid4().hex[:12]}"
        self.proc: asyncio.subprocess.Process | None = None
        self.cancelled = False
        self.final: Event | None = None  # the "done" or "error" event
        self.percentage = 0
        self.stderr_tail: list[str] = []

    # --- signals ---------------------------------------------------------
    def _signal(self, sig: int) -> None:
        if self.proc is None or self.proc.returncode is not None:
            return
        try:
            os.killpg(self.proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            try:
                self.proc.send_signal(sig)
            except ProcessLookupError:
                pass

    def cancel(self) -> None:
        if self.cancelled:
            return
        self.cancelled = True
        self._signal(signal.SIGINT)
        loop = asyncio.get_running_loop()
        loop.call_later(GRACE_S, self._signal, signal.SIGTERM)
        loop.call_later(2 * GRACE_S, self._signal, signal.SIGKILL)

    def kill(self) -> None:
        self.cancelled = True
        self._signal(signal.SIGKILL)

    # --- the run ---------------------------------------------------------
    def report(self, message: str) -> None:
        self.ls.work_done_progress.report(self.token, types.WorkDoneProgressReport(
            message=message, percentage=self.percentage, cancellable=True))
        self.ls.status("optimizing", f"{self.kernel}: {message}", self.percentage)

    def on_event(self, raw: dict[str, Any]) -> None:
        ev = parse_event(raw)
        total = (ev.budget or {}).get("evaluations")
        done = ev.evaluations
        if isinstance(total, (int, float)) and total > 0:
            self.percentage = max(0, min(100, int(100 * done / total)))
        n = f"{done}/{total}" if total else f"{done or 0}"
        if isinstance(ev, Start):
            self.report(f"started (budget {total} evaluations)")
        elif isinstance(ev, Evaluated):
            what = f"{float(ev.speedup):.2f}x" if ev.ok and ev.speedup is not None else \
                f"failed ({ev.failure_kind or 'incorrect'}): {ev.failure or 'incorrect'}"
            self.report(f"{n} {ev.description or 'candidate'}: {what}")
        elif isinstance(ev, Tuned):
            knobs = ", ".join(f"{k}={v}" for k, v in ev.knobs.items())
            self.report(f"{n} tuned {knobs}: {float(ev.speedup or 0):.2f}x" + (" (kept)" if ev.better else ""))
        elif isinstance(ev, NewBest):
            self.report(f"{n} new best {float(ev.speedup or 0):.2f}x")
        elif ev.type in ("done", "error"):
            self.final = ev
        else:
            self.report(f"{n} {ev.type}")

    async def run(self) -> None:
        ls = self.ls
        try:
            await ls.work_done_progress.create_async(self.token)
        except Exception as e:
            ls.log(f"the client refused a progress token: {e!r}", types.MessageType.Warning)
        ls.work_done_progress.begin(self.token, types.WorkDoneProgressBegin(
            title=f"KernelPro: optimizing {self.kernel}", cancellable=True, percentage=0))
        ls.status("optimizing", f"optimizing {self.kernel}", 0)
        ls.log("optimizer: " + " ".join(self.argv))
        end = await self._drive()
        ls.optimizer_runs.pop(self.token, None)
        if end[1] == types.MessageType.Error:
            ls.failed(end[0])  # shown once; the status bar goes back to idle
        else:
            ls.show(end[0], end[1])
            ls.state = "idle"
            ls.idle_status()
        # last, so a client that sees the progress end has seen the message and the status too
        ls.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=end[0]))

    async def _drive(self) -> tuple[str, types.MessageType]:
        path = self.ls.path_of(self.uri)
        cwd = str(Path(path).parent) if Path(path).parent.is_dir() else None
        try:
            self.proc = await asyncio.create_subprocess_exec(
                *self.argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                stdin=asyncio.subprocess.DEVNULL, cwd=cwd, start_new_session=True,
                limit=LINE_LIMIT, env=child_env())
        except OSError as e:
            return f"KernelPro: cannot start the optimizer ({self.argv[0]}): {e.strerror or e}", types.MessageType.Error
        if self.cancelled:  # cancelled while starting
            self._signal(signal.SIGINT)
        err_task = asyncio.ensure_future(self._read_stderr())
        assert self.proc.stdout is not None
        while True:
            raw = await self.proc.stdout.readline()
            if not raw:
                break
            line = raw.decode("utf-8", errors="replace").strip()
            if not line:
                continue
            try:
                ev = json.loads(line)
            except json.JSONDecodeError:
                self.ls.log(f"optimizer: {line}")
                continue
            if isinstance(ev, dict):
                self.on_event(ev)
        rc = await self.proc.wait()
        await asyncio.wait([err_task], timeout=2)
        return self.outcome(rc)

    async def _read_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        while True:
            raw = await self.proc.stderr.readline()
            if not raw:
                return
            text = raw.decode("utf-8", errors="replace").rstrip()
            self.stderr_tail = (self.stderr_tail + [text])[-5:]
            self.ls.log(f"optimizer stderr: {text}")

    def outcome(self, rc: int) -> tuple[str, types.MessageType]:
        ev = self.final
        if self.cancelled and not isinstance(ev, Done):
            return f"KernelPro: optimization of {self.kernel} cancelled", types.MessageType.Warning
        if isinstance(ev, Done):
            stats = f"after {ev.evaluations} evaluations ({ev.failures} failed)"
            if ev.best_branch:
                sp = f"{float(ev.speedup):.2f}x" if isinstance(ev.speedup, (int, float)) else "unknown speedup"
                return (f"KernelPro: best candidate for {self.kernel} is branch {ev.best_branch} ({sp}) {stats}",
                        types.MessageType.Info)
            return f"KernelPro: no candidate for {self.kernel} beat the original {stats}", types.MessageType.Info
        if ev is not None and ev.type == "error":
            return f"KernelPro: the optimizer failed: {getattr(ev, 'message', '') or 'unknown error'}", types.MessageType.Error
        tail = "; ".join(self.stderr_tail[-2:])
        return f"KernelPro: the optimizer exited with code {rc} without a result" + (f": {tail}" if tail else ""), types.MessageType.Error


async def start(ls: KernelProServer, uri: str, kernel: str) -> dict[str, Any]:
    """What can be checked here is checked in the order that saves the user the most: the GPU
    first (nothing else matters without one; not with an `optimizerCommand`, which may run
    elsewhere, nor with `optimize.workers`, whose Ray workers find their GPUs and say when there
    are none), then the launch spec (inferred, shown and started when the user accepts); the optimizer
    checks the rest (git) and says so in its error event."""
    from .gpu import gpu_reason, no_gpu, untrusted
    from .lenses import find_spec

    refused = untrusted(ls, "Optimize")
    if refused:
        return refused

    elsewhere = ls.settings.raw.get("optimizerCommand") or str(ls.settings.get("optimize.workers") or "").strip()
    reason = "" if elsewhere else await gpu_reason(ls)
    if reason:
        return no_gpu(ls, "Optimize", reason)
    path = ls.path_of(uri)
    if find_spec(path, kernel) is None:  # inferred, shown, started when the user accepts (inferred.py)
        from .inferred import offer

        return await offer(ls, uri, kernel)
    from .project import ProjectError

    try:  # the file's compile options, as the static profile uses them: -I, -D and the architecture
        opts = ls.settings.compile_options(path, trusted=ls.trusted, roots=ls.roots)
    except ProjectError as e:
        ls.failed(f"KernelPro: {e}")
        return {"ok": False, "reason": str(e)}
    argv = ls.settings.optimizer_argv(path, kernel) + ["--arch", opts.arch]
    for inc in opts.include_paths:
        argv += ["-I", inc]
    for d in opts.defines:
        argv += ["-D", d]
    run = OptimizerRun(ls, uri, kernel, argv)
    ls.optimizer_runs[run.token] = run
    task = asyncio.ensure_future(run.run())
    task.add_done_callback(lambda t: t.cancelled() or t.exception() and ls.log(f"optimizer task failed: {t.exception()!r}", types.MessageType.Error))
    return {"token": run.token}


def cancel(ls: KernelProServer, token) -> bool:
    run = ls.optimizer_runs.get(str(token))
    if run is None:
        return False
    run.cancel()
    return True
