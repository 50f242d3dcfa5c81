"""Background static profiles: a snapshot (uri, version, text) goes to a worker thread.

One run per document at a time; a newer snapshot waits in a one-slot queue (replacing any
older waiting one), and the result of a run whose snapshot is outdated is dropped by the
caller. nvcc runs as a subprocess, so the worker threads leave the event loop free.
"""
from __future__ import annotations

import asyncio
import logging
import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Awaitable, Callable

from kernelpro.profilers.cachekey import MAX_HEADER_BYTES, read_bounded
from kernelpro.profilers.compile import Cancelled, CompileError
from kernelpro.profilers.profile import ProfileReport, profile_file
from kernelpro.profilers.toolchain import ToolchainError, discover

from .project import ProjectError
from .settings import Settings

log = logging.getLogger(__name__)
MAX_BYTES = 2 * 1024 * 1024
CUDA_SUFFIXES = (".cu",)
HEADER_SUFFIXES = (".cuh",)  # profiled on their own as nvcc's main file (`-x cu`), like `kernelpro profile`
WATCHED_SUFFIXES = (".cu", ".cuh")


@dataclass(frozen=True)
class Snapshot:
    uri: str
    path: str
    version: int | None  # the buffer's version the text was taken at; None: the file's text on disk
    text: str
    generation: int  # settings generation: a settings change outdates every running snapshot
    settings: Settings
    trusted: bool = True  # the workspace is trusted: its compile_commands.json may be read
    roots: tuple[str, ...] = ()  # the workspace folders: no compile_commands.json is looked for above them
    # set when a newer text of the file arrives or the server closes: its nvcc is killed
    cancel: threading.Event = field(default_factory=threading.Event, compare=False, repr=False)


@dataclass
class Outcome:
    snapshot: Snapshot
    report: ProfileReport | None = None
    problem: str | None = None  # why there is no report
    kind: str = ""  # "toolchain", "too-large", "binary", "unreadable", "project", "internal", "cancelled"
    duration_s: float = 0.0
    # the text of each project header with kernels that the compiled file includes (resolved path -> text)
    headers: dict[str, str] = field(default_factory=dict)


def is_cuda(path: str) -> bool:
    """A translation unit of its own (.cu)."""
    return path.endswith(CUDA_SUFFIXES)


def is_header(path: str) -> bool:
    return path.endswith(HEADER_SUFFIXES)


def is_profiled(path: str) -> bool:
    """A file the server profiles when it is open: a .cu, or a .cuh compiled as its own translation unit."""
    return is_cuda(path) or is_header(path)


def header_texts(rep: ProfileReport) -> dict[str, str]:
    """The project headers with kernels that a compiled profile analysed, read as the profile read them."""
    out: dict[str, str] = {}
    for h in rep.artifact.headers if rep.artifact is not None and rep.artifact.ok else []:
        try:
            text = read_bounded(h, MAX_HEADER_BYTES).decode(errors="replace")
        except OSError:
            continue
        if "__global__" in text:
            out[str(Path(h).resolve())] = text
    return out


def _step(snap: Snapshot, done: int, total: int) -> None:
    """profile_file's progress, between chunks of kernels: a cancelled snapshot (a newer text, the
    server closing) stops its analysis too, not only its compile, so `exit` does not wait for the
    rules of a large file."""
    if done == 0:
        log.info("analysing %d kernel(s) of %s", total, Path(snap.path).name)
    if snap.cancel.is_set():
        raise Cancelled("the analysis was cancelled")


def run_static(snap: Snapshot) -> Outcome:
    """The static profile of a snapshot; every failure becomes an Outcome with a problem."""
    t0 = time.perf_counter()
    size = len(snap.text.encode("utf-8", errors="replace"))
    if size > MAX_BYTES:
        return Outcome(snap, problem=f"{Path(snap.path).name} is {size / 1e6:.1f} MB, over the {MAX_BYTES // (1024 * 1024)} MB "
                       "limit: KernelPro does not profile it", kind="too-large")
    if "\0" in snap.text[:8192]:
        return Outcome(snap, problem=f"{Path(snap.path).name} is a binary file, not CUDA source: nothing to profile",
                       kind="binary")
    s = snap.settings
    try:
        options = s.compile_options(snap.path, trusted=snap.trusted, roots=snap.roots)
    except ProjectError as e:
        return Outcome(snap, problem=str(e), kind="project")
    try:
        tc = discover(s.toolchain_settings())
        tc.path("nvcc")
        rep = profile_file(snap.path, options, text=snap.text, toolchain=tc, use_cache=s.use_cache, cancel=snap.cancel,
                           progress=lambda done, total: _step(snap, done, total))
    except Cancelled:
        log.info("the profile of %s was cancelled", Path(snap.path).name)
        return Outcome(snap, problem="cancelled: a newer text of the file is profiled instead", kind="cancelled")
    except ToolchainError as e:
        return Outcome(snap, problem=f"KernelPro cannot compile: {e}", kind="toolchain")
    except CompileError as e:
        return Outcome(snap, problem=str(e), kind="unreadable")
    except Exception as e:  # a bug must not take the server down
        log.exception("profile of %s failed", snap.path)
        return Outcome(snap, problem=f"KernelPro internal error while profiling: {e!r}", kind="internal")
    return Outcome(snap, report=rep, duration_s=time.perf_counter() - t0, headers=header_texts(rep))


class Scheduler:
    """Runs at most one profile per uri; keeps only the newest waiting snapshot."""

    def __init__(self, on_done: Callable[[Outcome], Awaitable[None] | None], workers: int = 2,
                 run: Callable[[Snapshot], Outcome] = run_static):
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kernelpro-profile")
        self.on_done = on_done
        self.run = run
        self.running: dict[str, Snapshot] = {}
        self.waiting: dict[str, Snapshot] = {}
        self.tasks: set[asyncio.Task] = set()
        self.futures: set = set()  # the pool's futures of the profiles running now
        self.closed = False

    @property
    def busy(self) -> bool:
        return bool(self.running or self.waiting)

    def submit(self, snap: Snapshot) -> None:
        if self.closed:
            return
        if snap.uri in self.running:
            self.waiting[snap.uri] = snap  # replaces an older waiting snapshot
            self.running[snap.uri].cancel.set()  # and the running one is stale: its nvcc stops now
            return
        self._start(snap)

    def _start(self, snap: Snapshot) -> None:
        self.running[snap.uri] = snap
        task = asyncio.get_running_loop().create_task(self._run(snap))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _run(self, snap: Snapshot) -> None:
        loop = asyncio.get_running_loop()
        fut = None
        try:
            fut = self.pool.submit(self.run, snap)
            self.futures.add(fut)
            outcome = await asyncio.wrap_future(fut, loop=loop)
        except RuntimeError as e:  # pool shut down
            outcome = Outcome(snap, problem=str(e), kind="internal")
        finally:
            self.futures.discard(fut)
            self.running.pop(snap.uri, None)
        nxt = self.waiting.pop(snap.uri, None)
        if nxt is not None and not self.closed:
            self._start(nxt)
        if not self.closed:
            res = self.on_done(outcome)
            if asyncio.iscoroutine(res):
                await res

    def drain(self, timeout: float) -> bool:
        """After close(): wait up to `timeout` s for the profiles in flight to stop (a cancelled compile
        removes its temp folder; the analysis stops at its next chunk of kernels). True when none runs."""
        from concurrent.futures import wait

        pending = [f for f in list(self.futures) if not f.done()]
        return not pending or not wait(pending, timeout).not_done

    def close(self) -> None:
        self.closed = True
        self.waiting.clear()
        for snap in list(self.running.values()):
            snap.cancel.set()
        self.pool.shutdown(wait=False, cancel_futures=True)
        kill_children()


def child_pids(pid: int | None = None) -> list[int]:
    """Direct children of a process, read from /proc (Linux); empty elsewhere."""
    pid = pid or os.getpid()
    out = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return out
    for e in entries:
        if not e.isdigit():
            continue
        try:
            with open(f"/proc/{e}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 1 and fields[1] == str(pid):
            out.append(int(e))
    return out


def kill_children(sig: int = signal.SIGKILL) -> None:
    """End every child of this process with its process group (nvcc runs cicc/ptxas in its own)."""
    for pid in child_pids():
        try:
            os.killpg(pid, sig)  # a child that leads its own group (nvcc, the optimizer)
            continue
        except (ProcessLookupError, PermissionError):
            pass
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
