"""The KernelPro language server's state: documents, publishing, status, the stdio transport.

The feature modules (documents, hover, lenses, actions, hints, gpu, optimize) import this module;
it imports none of them. They are registered on a server by the entry point, `server.create_server`
(as pygls's example servers and ruff's server do), which no module here imports."""
from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.uris import to_fs_path

from .profiling import Outcome, Scheduler, Snapshot, is_header, is_profiled
from .results import DocState, Known, Result, resolved, result_of
from .settings import Settings

log = logging.getLogger(__name__)
NAME = "kernelpro"
VERSION = "0.1.0"
STATUS = "kernelpro/status"
GPU_SOURCE = "kernelpro-gpu"  # diagnostics of the last GPU run, kept apart from the static ones
COMMANDS = ("kernelpro.optimize", "kernelpro.profileGpu", "kernelpro.createSpec", "kernelpro.sass")


_UNREAD = object()  # a message answered (or logged) where it failed to deserialize: nothing to handle
MAX_DEPTH = 64  # LSP's own messages nest a dozen levels; deeper ones would reach Python's recursion limit
# in code that walks them (cattrs, copy.deepcopy of settings, repr in a log line, json.dumps of an answer)


def _too_deep(value, limit: int = MAX_DEPTH) -> bool:
    """Whether a decoded JSON value nests more than `limit` arrays and objects (iteratively: no recursion)."""
    stack = [(value, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            items = v.values()
        elif isinstance(v, list):
            items = v
        else:
            continue
        if d >= limit:
            return True
        stack.extend((x, d + 1) for x in items if isinstance(x, (dict, list)))
    return False


def _request_id(data) -> int | str | None:
    """The id to answer a request with: its own where JSON-RPC allows one, else null."""
    i = data.get("id") if isinstance(data, dict) else None
    return i if isinstance(i, (int, str)) and not isinstance(i, bool) else None


class KernelProProtocol(LanguageServerProtocol):
    """pygls' protocol with answers where pygls only logs (LSP: every request gets a response):

    - a request that fails to deserialize gets InvalidParams (-32602) when it is a well-formed
      request whose params do not fit the method, else InvalidRequest (-32600); a RecursionError
      while structuring (params nested too deeply) counts the same; a notification is logged;
    - a message that is not JSON-RPC 2.0 (no or another `jsonrpc`) gets InvalidRequest when it
      carries an id;
    - `didChange` for a document that was never opened is logged and ignored (pygls raises a
      KeyError, which its default error report shows to the user)."""

    def structure_message(self, data):
        if not isinstance(data, dict) or "jsonrpc" not in data:
            return data  # a nested object (pygls structures only the top level), or handled below
        try:
            if _too_deep(data):
                raise JsonRpcInvalidParams(message=f"nested more than {MAX_DEPTH} levels deep")
            return super().structure_message(data)
        except (JsonRpcException, RecursionError) as e:
            method = data.get("method")
            if "id" not in data or method is None:
                log.warning("dropped a message that does not deserialize (%s): %s", type(e).__name__, method)
                return _UNREAD
            well_formed = (isinstance(method, str) and data.get("jsonrpc") == self.VERSION
                           and _request_id(data) is not None)
            why = f" ({e.message})" if isinstance(e, JsonRpcException) and e.message and e.message != e.MESSAGE else ""
            error = (JsonRpcInvalidParams(message=f"Invalid Params: the params of {method} do not deserialize{why}")
                     if well_formed else JsonRpcInvalidRequest(message="Invalid Request: not a JSON-RPC 2.0 request"))
            log.warning("answered %s to a request that does not deserialize (%s)", error.CODE, method)
            self._answer_error(_request_id(data), error)
            return _UNREAD

    def handle_message(self, message):
        if message is _UNREAD:
            return
        if not isinstance(message, dict) and hasattr(message, "id") and not isinstance(getattr(message, "method", ""), str):
            self._answer_error(_request_id({"id": message.id}),
                               JsonRpcInvalidRequest(message="Invalid Request: the method must be a string"))
            return
        if isinstance(message, dict) or getattr(message, "jsonrpc", None) != self.VERSION:
            raw = message if isinstance(message, dict) else {}
            if "id" in raw and "method" in raw or not isinstance(message, dict) and hasattr(message, "method"):
                self._answer_error(_request_id(raw) if raw else getattr(message, "id", None),
                                   JsonRpcInvalidRequest(message="Invalid Request: not a JSON-RPC 2.0 request"))
            log.warning("dropped a message that is not JSON-RPC 2.0: %.200r", message)
            return
        super().handle_message(message)

    def _answer_error(self, msg_id, error: JsonRpcException) -> None:
        try:
            self._send_response(msg_id, error=error.to_response_error())
        except Exception:  # noqa: BLE001 - an answer that cannot be written is logged, never raised
            log.exception("could not answer an unreadable request")

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        from urllib.parse import unquote

        uri = params.text_document.uri
        if unquote(uri) not in self.workspace.text_documents:
            msg = f"KernelPro: ignored a change to {uri}, which was not opened (no didOpen came for it)"
            log.warning(msg)
            try:
                self._server.log(msg, types.MessageType.Warning)
            except Exception:  # noqa: BLE001 - the log line is a courtesy
                pass
            return
        yield from super().lsp_text_document__did_change(params)


def disk_stamp(path: str) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


class KernelProServer(LanguageServer):
    def __init__(self):
        super().__init__(NAME, VERSION, protocol_cls=KernelProProtocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.settings = Settings.from_json({})
        self.generation = 0
        self.docs: dict[str, DocState] = {}
        self.scheduler: Scheduler | None = None
        self.watcher = None
        self.optimizer_runs: dict[str, Any] = {}  # progress token -> OptimizerRun
        self.told: set[str] = set()  # messages shown once
        # the results of documents closed lately (Neovim reloads a file as a close and an open)
        self.closed_results: OrderedDict[str, Known] = OrderedDict()
        self.state = "idle"
        self.closed = False
        self.gpu_reason: str | None = None  # why GPU actions cannot run here ("" when they can; None: unknown yet)
        self.bad_frames = 0
        # workspace trust (docs/security.md): the client says whether the user trusts the folder
        # (initializationOptions "trusted", false in VS Code's Restricted Mode; absent: trusted)
        self.trusted = True
        # a client over --tcp or a socket may be any local process: it may not name programs
        self.remote_client = False

    # --- transport ---------------------------------------------------------
    def start_io(self, stdin=None, stdout=None):
        """stdio with a reader that recovers from malformed Content-Length headers (framing.py)."""
        from pygls.io_ import StdoutWriter

        from .framing import run_reader

        self._stop_event = stop = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        fd = (stdin or sys.stdin.buffer).fileno()

        async def main():
            loop = asyncio.get_running_loop()
            chunks: asyncio.Queue[bytes] = asyncio.Queue()

            def pump():  # a daemon thread, so a client that never closes stdin cannot hold the exit
                while True:
                    try:
                        data = os.read(fd, 1 << 16)
                    except OSError:
                        data = b""
                    loop.call_soon_threadsafe(chunks.put_nowait, data)
                    if not data:
                        return

            threading.Thread(target=pump, name="kernelpro-stdin", daemon=True).start()
            await run_reader(stop, chunks.get, self.protocol, self.on_bad_frame, log)

        try:
            asyncio.run(main())
        except BrokenPipeError:
            log.error("the client closed the connection")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def on_bad_frame(self, bad) -> None:
        self.bad_frames += 1
        msg = f"KernelPro: dropped {bad.dropped} bytes of a malformed message ({bad.reason}); reading on from the next header"
        log.warning(msg)
        try:
            self.log(msg, types.MessageType.Warning)
        except Exception:  # no writer yet
            pass

    # --- helpers ---------------------------------------------------------
    @property
    def encoding(self) -> str:
        enc = self.workspace.position_encoding if self.protocol.client_capabilities else None
        return str(getattr(enc, "value", enc) or "utf-16")

    @property
    def roots(self) -> tuple[str, ...]:
        """The workspace folders' paths (no compile_commands.json is looked for above them)."""
        out: list[str] = []
        try:
            ws = self.workspace
        except RuntimeError:  # before initialize
            return ()
        for f in list(getattr(ws, "folders", {}).values()):
            p = to_fs_path(f.uri)
            if p:
                out.append(str(Path(p).absolute()))
        if not out and getattr(ws, "root_path", None):
            out.append(str(Path(ws.root_path).absolute()))
        return tuple(out)

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

    def failed(self, message: str) -> None:
        """An action failed: say so once, then the status bar goes back to idle (the message stays in its tooltip)."""
        self.show(message, types.MessageType.Error)
        self.state = "idle"
        if not self.optimizer_runs:
            self.status("idle", message)

    # --- profiling -------------------------------------------------------
    def schedule(self, uri: str, text: str | None = None, force: bool = False) -> None:
        """Profile a document's current text (or `text`, read from disk) in the background.

        A text whose profile is known is published at once (no profile); one already being
        profiled is not profiled twice unless `force`."""
        st = self.docs.get(uri)
        if st is None or self.closed or not is_profiled(st.path):
            return
        version = None
        if text is None:
            text, version = self.text_of(uri)
        key = (text, self.generation)
        if not force:
            if st.inflight == key:
                return
            known = st.known.get(text, self.generation)
            if known is not None:
                if version is not None or text == self.text_of(uri)[0]:  # a disk text waits for the buffer
                    self.show_result(st, known)
                return
        st.inflight = key
        snap = Snapshot(uri, st.path, version, text, self.generation, self.settings, self.trusted, self.roots)
        self.get_scheduler().submit(snap)
        self.status("profiling", f"profiling {Path(st.path).name}")

    def on_outcome(self, out: Outcome) -> None:
        snap = out.snapshot
        st = self.docs.get(snap.uri)
        if st is not None and st.inflight == (snap.text, snap.generation):
            st.inflight = None
        newer = self.scheduler is not None and snap.uri in self.scheduler.running
        if st is None or snap.generation != self.generation or newer:
            log.debug("dropped the profile of %s (closed, settings changed, or a newer one runs)", snap.uri)
            self.idle_status()
            return
        result = result_of(out, snap.uri, self.encoding)
        if out.report is None:
            if out.kind in ("toolchain", "internal", "project"):
                self.show(out.problem or "", types.MessageType.Error, once=out.problem)
                if out.kind == "toolchain":
                    self.status("error", out.problem or "")
        else:
            rep = out.report
            st.known.add(result)
            for note in rep.notes:
                self.log(f"{Path(snap.path).name}: {note}")
            self.log(f"profiled {Path(snap.path).name} in {out.duration_s:.2f} s: "
                     f"{len(rep.advice)} advice, {len(rep.errors)} errors")
            if self.state == "error":
                self.state = "idle"
        buffer, _ = self.text_of(snap.uri)
        if snap.version is None and snap.text != buffer:
            # the file's new text on disk, which the buffer does not hold yet (Neovim reloads it later):
            # kept for when it does; the buffer's findings stay as they are
            log.debug("kept the profile of the disk text of %s until the buffer holds it", snap.uri)
        else:
            self.show_result(st, result)
        self.idle_status()

    def show_result(self, st: DocState, result: Result) -> None:
        """Make `result` the document's profile: publish it, and again the headers whose findings it changes."""
        before = st.result
        st.result = result
        self.publish(st.uri)
        if result is not before:
            self.refresh_lenses()
            self.publish_headers(before, result)

    def edited(self, uri: str) -> None:
        """The buffer changed: a text profiled before gets its result at once; otherwise the findings the
        edit touched go (a quick fix takes its diagnostic with it), the others stay where the client put them."""
        st = self.docs.get(uri)
        if st is None or self.closed:
            return
        text, _ = self.text_of(uri)
        known = st.known.get(text, self.generation)
        if known is not None and known is not st.result:
            self.show_result(st, known)
        else:
            self.publish(uri, only_if_changed=True)

    def publish_headers(self, *results: Result | None) -> None:
        """Publish the open headers whose findings the given results of an including file hold."""
        paths = {p for r in results if r is not None for p in r.headers}
        for uri, st in list(self.docs.items()):
            if is_header(st.path) and resolved(st.path) in paths:
                self.publish(uri)

    def header_findings(self, st: DocState) -> list[tuple[str, list[types.Diagnostic]]]:
        """A header's findings from the open files that include it and analysed it: (its text then, diagnostics)."""
        path = resolved(st.path)
        return [(f.text, f.diagnostics) for o in self.docs.values()
                if o is not st and o.result is not None and (f := o.result.headers.get(path)) is not None]

    def publish(self, uri: str, only_if_changed: bool = False) -> None:
        """Publish the static and the measured diagnostics, each moved onto the current text.

        A header shows what an open file that includes it found there (the kernels as that file launches
        and instantiates them) when that was found on the header text of its own profile, else its own.
        `only_if_changed`: not when the same diagnostics survive (the client moved them with the edit)."""
        st = self.docs.get(uri)
        if st is None:
            return
        text, version = self.text_of(uri)
        static = [(st.report_text, st.static or [])]
        if is_header(st.path):
            borrowed = self.header_findings(st)
            if borrowed and (st.result is None or any(t == st.report_text for t, _ in borrowed)):
                static = borrowed
        out: list[types.Diagnostic] = []
        kept: list[types.Diagnostic] = []
        seen: set = set()
        for old, diags in static + [(st.gpu_text, st.gpu)]:
            m = st.line_map(old, text, self.encoding)
            if m is None:
                continue
            for d in diags:
                x = m.diagnostic(d, uri)
                key = (d.code, d.message, x.range.start.line, x.range.start.character) if x else None
                if x is not None and key not in seen:
                    seen.add(key)
                    out.append(x)
                    kept.append(d)
        if only_if_changed and len(kept) == len(st.shown) and all(a is b for a, b in zip(kept, st.shown)):
            return
        st.shown = tuple(kept)
        st.published_version = version
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=out, version=version))

    def clear_measured(self, uri: str) -> None:
        """The file changed: the last GPU run's findings no longer describe it."""
        st = self.docs.get(uri)
        if st is not None and (st.gpu or st.gpu_lines):
            st.gpu, st.gpu_advice, st.gpu_lines, st.gpu_text = [], [], {}, None
            self.publish(uri)

    def refresh_lenses(self) -> None:
        caps = self.protocol.client_capabilities
        ws = caps.workspace if caps else None
        if ws and ws.code_lens and ws.code_lens.refresh_support:
            self.protocol.send_request(types.WORKSPACE_CODE_LENS_REFRESH, None)
        if ws and ws.inlay_hint and ws.inlay_hint.refresh_support:
            self.protocol.send_request(types.WORKSPACE_INLAY_HINT_REFRESH, None)

    def reprofile_all(self) -> None:
        """Profile every open file again (the project's flags changed): no earlier result holds."""
        self.closed_results.clear()
        for uri, st in list(self.docs.items()):
            st.known = Known()
            self.schedule(uri, force=True)

    def closed_doc(self, st: DocState) -> None:
        self.closed_results.pop(st.uri, None)
        self.closed_results[st.uri] = st.known
        while len(self.closed_results) > 8:
            self.closed_results.popitem(last=False)

    def opened_doc(self, st: DocState) -> None:
        """A document opened again gets the results it had (a reload shows at once what is known)."""
        st.known = self.closed_results.pop(st.uri, None) or st.known

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
