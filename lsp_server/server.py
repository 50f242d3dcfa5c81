"""The KernelPro language server: state shared by the feature modules, publishing, status."""
from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from kernelpro.profilers.profile import ProfileReport

from . import convert
from .profiling import Outcome, Scheduler, Snapshot, is_cuda
from .settings import Settings

log = logging.getLogger(__name__)
NAME = "kernelpro"
VERSION = "0.1.0"
STATUS = "kernelpro/status"
COMMANDS = ("kernelpro.optimize", "kernelpro.profileGpu", "kernelpro.createSpec")


@dataclass
class DocState:
    uri: str
    path: str
    dirty: bool = False  # changed in the editor since the last open/save
    report: ProfileReport | None = None
    report_version: int | None = None  # document version the report was made from
    published_version: int | None = None
    problem: str | None = None
    last_key: tuple | None = None  # (text, generation, version) of the last submitted snapshot
    typing_timer: asyncio.TimerHandle | None = None
    measured: dict[str, dict[str, Any]] = field(default_factory=dict)  # kernel -> measured row (GPU)


class KernelProServer(LanguageServer):
    def __init__(self):
        super().__init__(NAME, VERSION, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.settings = Settings.from_json({})
        self.generation = 0
        self.docs: dict[str, DocState] = {}
        self.scheduler: Scheduler | None = None
        self.watcher = None
        self.optimizer_runs: dict[str, Any] = {}  # progress token -> OptimizerRun
        self.told: set[str] = set()  # messages shown once
        self.state = "idle"
        self.closed = False

    # --- helpers ---------------------------------------------------------
    @property
    def encoding(self) -> str:
        enc = self.workspace.position_encoding if self.protocol.client_capabilities else None
        return str(getattr(enc, "value", enc) or "utf-16")

    def get_scheduler(self) -> Scheduler:
        if self.scheduler is None:
            self.scheduler = Scheduler(self.on_outcome)
        return self.scheduler

    def doc_state(self, uri: str) -> DocState | None:
        return self.docs.get(uri)

    def path_of(self, uri: str) -> str:
        p = to_fs_path(uri)
        if p is None:  # untitled: or another scheme: profile from the buffer under a temp name
            import tempfile

            p = str(Path(tempfile.gettempdir()) / "kernelpro-untitled" / (Path(uri.split(":", 1)[-1]).name or "untitled.cu"))
        return str(Path(p).absolute())

    def text_of(self, uri: str) -> tuple[str, int | None]:
        doc = self.workspace.get_text_document(uri)
        return doc.source, doc.version

    def log(self, message: str, kind: types.MessageType = types.MessageType.Log) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def show(self, message: str, kind: types.MessageType = types.MessageType.Info, once: str | None = None) -> None:
        """window/showMessage; with `once`, only the first time for that key (later: the log)."""
        if once is not None:
            if once in self.told:
                self.log(message, kind)
                return
            self.told.add(once)
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))
        self.log(message, kind)

    def status(self, state: str, message: str = "", percentage: float | None = None) -> None:
        self.state = state
        body: dict[str, Any] = {"state": state, "message": message}
        if percentage is not None:
            body["percentage"] = round(percentage, 1)
        self.protocol.notify(STATUS, body)

    def idle_status(self) -> None:
        if self.optimizer_runs:
            return
        if self.scheduler is not None and self.scheduler.busy:
            self.status("profiling", f"profiling {len(self.scheduler.running)} file(s)")
        elif self.state != "error":
            self.status("idle", "")

    # --- profiling -------------------------------------------------------
    def schedule(self, uri: str, text: str | None = None, version: int | None = None, force: bool = False) -> None:
        """Profile a document's current text (or `text`, read from disk) in the background."""
        st = self.docs.get(uri)
        if st is None or self.closed or not is_cuda(st.path):
            return
        if text is None:
            text, version = self.text_of(uri)
        key = (text, self.generation, version)
        if not force and st.last_key == key:
            return  # the same text of the same version with the same settings is (being) profiled
        st.last_key = key
        snap = Snapshot(uri, st.path, version, text, self.generation, self.settings)
        self.get_scheduler().submit(snap)
        self.status("profiling", f"profiling {Path(st.path).name}")

    def current(self, snap: Snapshot) -> bool:
        st = self.docs.get(snap.uri)
        if st is None or snap.generation != self.generation:
            return False
        try:
            _, version = self.text_of(snap.uri)
        except Exception:
            return False
        return version == snap.version

    def on_outcome(self, out: Outcome) -> None:
        snap = out.snapshot
        if not self.current(snap):
            log.debug("dropped the profile of %s version %s (outdated)", snap.uri, snap.version)
            self.idle_status()
            return
        st = self.docs[snap.uri]
        lines = snap.text.split("\n")
        diags: list[types.Diagnostic] = []
        st.problem = out.problem
        if out.report is None:
            sev = types.DiagnosticSeverity.Information if out.kind == "too-large" else types.DiagnosticSeverity.Error
            diags.append(types.Diagnostic(range=convert.line_range(lines, 1, 1, encoding=self.encoding),
                                          message=out.problem or "not profiled", severity=sev, source=convert.SOURCE,
                                          code=out.kind))
            if out.kind in ("toolchain", "internal"):
                self.show(out.problem or "", types.MessageType.Error, once=out.problem)
                self.status("error", out.problem or "")
            st.report, st.report_version = None, snap.version
        else:
            rep = out.report
            st.report, st.report_version = rep, snap.version
            headers = rep.artifact.headers if rep.artifact else []
            diags += convert.compiler_diagnostics(rep.diagnostics, snap.path, lines, rep.source.includes, headers, self.encoding)
            diags += [convert.advice_diagnostic(a, lines, snap.uri, self.encoding) for a in rep.advice
                      if convert._same_file(a.file, snap.path)]
            for note in rep.notes:
                self.log(f"{Path(snap.path).name}: {note}")
            self.log(f"profiled {Path(snap.path).name} v{snap.version} in {out.duration_s:.2f} s: "
                     f"{len(rep.advice)} advice, {len(rep.errors)} errors")
            if self.state == "error":
                self.state = "idle"
        st.published_version = snap.version
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=snap.uri, diagnostics=diags,
                                                                              version=snap.version))
        self.idle_status()
        self.refresh_lenses()

    def refresh_lenses(self) -> None:
        caps = self.protocol.client_capabilities
        ws = caps.workspace if caps else None
        if ws and ws.code_lens and ws.code_lens.refresh_support:
            self.protocol.send_request(types.WORKSPACE_CODE_LENS_REFRESH, None)

    def reprofile_all(self) -> None:
        for uri in list(self.docs):
            self.schedule(uri, force=True)

    def close(self) -> None:
        """Stop watching, end every child process (compiles, optimizers)."""
        if self.closed:
            return
        self.closed = True
        if self.watcher is not None:
            self.watcher.stop()
        for run in list(self.optimizer_runs.values()):
            run.kill()
        if self.scheduler is not None:
            self.scheduler.close()
        else:
            from .profiling import kill_children

            kill_children()


def create_server() -> KernelProServer:
    from . import actions, documents, hover, lenses

    server = KernelProServer()
    for module in (documents, hover, lenses, actions):
        module.setup(server)
    return server
