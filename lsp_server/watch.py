"""Files changed outside the editor: .cu/.cuh sources and *.kernelpro.toml launch specs."""
from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from lsprotocol import types
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from kernelpro.profilers.compile import CompileError, read_source

from .profiling import is_profiled
from .results import Known

log = logging.getLogger(__name__)
SPEC_SUFFIX = ".kernelpro.toml"
PROJECT_FILE = "compile_commands.json"
DELETE_GRACE_S = 0.5  # git checkout and many editors replace a file: deleted, then created again
PROJECT_SETTLE_S = 0.3  # a build writes compile_commands.json in steps (created empty, then filled)


def interesting(path: str) -> bool:
    return path.endswith((".cu", ".cuh", SPEC_SUFFIX)) or Path(path).name == PROJECT_FILE


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: "Watcher"):
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory or event.event_type in ("opened", "closed_no_write"):
            return
        for p in (event.src_path, getattr(event, "dest_path", "")):
            p = p.decode() if isinstance(p, bytes) else p
            if p and interesting(p):
                kind = "deleted" if event.event_type == "deleted" or (event.event_type == "moved" and p == event.src_path) else "modified"
                self.watcher.loop.call_soon_threadsafe(on_disk_change, self.watcher.server, p, kind)


class Watcher:
    def __init__(self, server, paths: list[str], loop: asyncio.AbstractEventLoop):
        self.server, self.loop = server, loop
        self.observer = Observer()
        self.observer.daemon = True
        for p in paths:
            self.observer.schedule(_Handler(self), p, recursive=True)

    def start(self) -> None:
        self.observer.start()

    def stop(self) -> None:
        try:
            self.observer.stop()
            self.observer.join(timeout=2)
        except RuntimeError:
            pass


def on_disk_change(server, path: str, kind: str) -> None:
    """Re-profile the open files a changed file affects (runs on the event loop)."""
    if server.closed:
        return
    path = str(Path(path).absolute())
    resolved = str(Path(path).resolve())
    if Path(path).name == PROJECT_FILE:  # the project's flags changed: every open file may compile differently
        # once the events of one write have settled, so a half-written database is never read
        pending = getattr(server, "_project_settle", None)
        if pending is not None:
            pending.cancel()
        server._project_settle = asyncio.get_running_loop().call_later(PROJECT_SETTLE_S, server.reprofile_all)
        return
    for uri, st in list(server.docs.items()):
        if not is_profiled(st.path):
            continue
        if st.path == path or str(Path(st.path).resolve()) == resolved:
            if kind == "deleted":
                asyncio.get_running_loop().call_later(DELETE_GRACE_S, _confirm_deleted, server, path)
                continue
            try:
                text = read_source(Path(path))
            except CompileError as e:
                server.log(str(e), types.MessageType.Warning)
                continue
            server.clear_measured(uri)
            buffer, _ = server.text_of(uri)
            if text == buffer or not st.dirty:  # the editor reloaded it already, or will
                server.schedule(uri, text=text)
        elif path.endswith(SPEC_SUFFIX):
            if Path(path).parent == Path(st.path).parent and Path(path).name == Path(st.path).stem + SPEC_SUFFIX:
                st.known = Known()  # the results of earlier texts used the old spec
                server.schedule(uri, force=True)
        elif path.endswith((".cuh", ".h", ".hpp")) and _includes(st, resolved):
            st.known = Known()  # and the old header
            server.schedule(uri, force=True)
    if path.endswith((SPEC_SUFFIX, ".cuh", ".h", ".hpp")):
        server.closed_results.clear()


def _confirm_deleted(server, path: str) -> None:
    """Still gone after the grace period: warn once and keep profiling the editor's text."""
    if server.closed or Path(path).exists():
        if not server.closed:
            on_disk_change(server, path, "modified")
        return
    for uri, st in list(server.docs.items()):
        if st.path == path:
            server.show(f"{Path(path).name} was deleted on disk; KernelPro keeps profiling the editor's text",
                        types.MessageType.Warning, once=f"deleted:{path}")
            server.schedule(uri, force=True)


def _includes(st, header: str) -> bool:
    rep = st.report
    if rep is not None and rep.artifact is not None and header in rep.artifact.headers:
        return True
    name = Path(header).name
    return rep is not None and any(Path(i.header).name == name for i in rep.source.includes)
