"""Document sync, settings and lifecycle: when to profile, and clean shutdown."""
from __future__ import annotations

import asyncio
import logging
import os
import threading
from pathlib import Path

from lsprotocol import types

from kernelpro.profilers.cachekey import read_bounded

from .profiling import MAX_BYTES, is_cuda, is_header, is_profiled
from .state import DocState, KernelProServer, disk_stamp

EXIT_GRACE_S = 5.0  # after `exit`, the most the process may take to end

log = logging.getLogger(__name__)


def setup(server: KernelProServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: KernelProServer, params: types.InitializeParams):
        opts = params.initialization_options
        if isinstance(opts, dict) and opts.get("trusted") is False:
            ls.trusted = False  # VS Code's Restricted Mode: no compile database, nothing run from the workspace
        if isinstance(opts, dict):
            ls.settings = from_client(ls, ls.settings.updated(opts.get("settings", opts)))

    @server.feature(types.INITIALIZED)
    async def initialized(ls: KernelProServer, params: types.InitializedParams):
        await pull_configuration(ls)
        start_watching(ls)
        ls.status("idle", "")
        from .gpu import gpu_reason

        asyncio.ensure_future(gpu_reason(ls))  # the lenses say "needs a GPU" where none is

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: KernelProServer, params: types.DidChangeConfigurationParams):
        data = params.settings
        if isinstance(data, dict) and isinstance(data.get("kernelpro"), dict):
            apply_settings(ls, ls.settings.updated(data["kernelpro"]))
        else:
            await pull_configuration(ls)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: KernelProServer, params: types.DidOpenTextDocumentParams):
        uri = params.text_document.uri
        st = DocState(uri, ls.path_of(uri))
        st.disk = disk_stamp(st.path)
        ls.docs[uri] = st
        ls.opened_doc(st)
        if is_profiled(st.path) or params.text_document.language_id in ("cuda", "cuda-cpp"):
            if not is_profiled(st.path):
                st.path += ".cu"
            if is_header(st.path) and ls.header_findings(st):
                ls.publish(uri)  # what an open file that includes it found there, until its own profile comes
            ls.schedule(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: KernelProServer, params: types.DidChangeTextDocumentParams):
        st = ls.docs.get(params.text_document.uri)
        if st is None:
            return
        st.dirty = True
        ls.clear_measured(st.uri)
        if ls.settings.profile_on == "type":
            if st.typing_timer is not None:
                st.typing_timer.cancel()
            loop = asyncio.get_running_loop()
            st.typing_timer = loop.call_later(ls.settings.typing_delay_s, ls.schedule, st.uri)
        else:
            reloaded(ls, st)
        ls.edited(st.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: KernelProServer, params: types.DidSaveTextDocumentParams):
        uri = params.text_document.uri
        st = ls.docs.get(uri)
        if st is None:
            return
        st.dirty = False
        st.disk = disk_stamp(st.path)
        if ls.settings.profile_on in ("save", "type"):
            ls.schedule(uri, force=True)
        if ls.settings.raw.get("gpuProfileOnSave"):
            from .gpu import profile_gpu

            asyncio.ensure_future(profile_gpu(ls, uri, None, quiet=True))
        # a saved header or spec re-profiles the files that use it
        if not is_cuda(st.path):
            from .watch import on_disk_change

            on_disk_change(ls, st.path, "modified")

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: KernelProServer, params: types.DidCloseTextDocumentParams):
        st = ls.docs.pop(params.text_document.uri, None)
        if st is not None and st.typing_timer is not None:
            st.typing_timer.cancel()
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))
        if st is not None:
            ls.closed_doc(st)
            ls.publish_headers(st.result)  # the headers it included show their own profile again

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: KernelProServer, *args):
        ls.close()

    @server.feature(types.EXIT)
    def exit_(ls: KernelProServer, *args):
        # `exit` must end the process: pygls exits after this handler, and should anything hold it (a thread that
        # does not join, a read that does not wake), a daemon timer ends it a few seconds later with the same code
        if getattr(ls, "_stop_event", None) is not None:  # (serving stdio or a socket: this process is the server's)
            code = 0 if ls.protocol._shutdown else 1
            timer = threading.Timer(EXIT_GRACE_S, os._exit, (code,))
            timer.daemon = True  # (a normal exit does not wait for it)
            timer.start()
        ls.close()


def reloaded(ls: KernelProServer, st: DocState) -> None:
    """A change that makes the buffer equal to a file changed on disk is the editor reloading
    it (a checkout, a candidate applied, another program): profile it like a save. One stat
    per change; the file is read only when its stamp moved since it was last looked at."""
    stamp = disk_stamp(st.path)
    if stamp is None or stamp == st.disk or not is_profiled(st.path):
        return
    try:
        disk = read_bounded(st.path, MAX_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return
    st.disk = stamp  # looked at: the next change reads the file only if it moves again
    text, _ = ls.text_of(st.uri)
    if disk.replace("\r\n", "\n") == text.replace("\r\n", "\n"):
        st.dirty = False
        ls.schedule(st.uri)


async def pull_configuration(ls: KernelProServer) -> None:
    caps = ls.protocol.client_capabilities
    if not (caps and caps.workspace and caps.workspace.configuration):
        return
    try:
        res = await asyncio.wait_for(ls.workspace_configuration_async(types.ConfigurationParams(
            items=[types.ConfigurationItem(section="kernelpro")])), 10)
    except Exception as e:
        ls.log(f"workspace/configuration failed: {e!r}", types.MessageType.Warning)
        return
    if res and isinstance(res[0], dict):
        apply_settings(ls, ls.settings.updated(res[0]))


def from_client(ls: KernelProServer, new):
    """Settings from a client over --tcp or --socket (any local process may be one) keep no program or
    endpoint (settings.PROGRAM_KEYS): those are ignored, said once in a warning."""
    if not ls.remote_client:
        return new
    new, ignored = new.without_programs()
    if ignored and not getattr(ls, "told_programs", False):
        ls.told_programs = True
        msg = (f"KernelPro: ignored {', '.join(ignored)} from this client: over --tcp or --socket the settings may "
               "not name programs or endpoints (nvcc comes from the server's KERNELPRO_NVCC, CUDA_HOME or PATH)")
        log.warning(msg)
        ls.log(msg, types.MessageType.Warning)
    return new


def apply_settings(ls: KernelProServer, new) -> None:
    new = from_client(ls, new)
    changed = new.profile_key() != ls.settings.profile_key()
    ls.settings = new
    dropped = new.extra_flags()[3]
    if dropped:
        ls.show(f"KernelPro: extraFlags ignores {', '.join(dropped)}: only flags that change the generated code "
                 "reach nvcc (no host compiler, output or dependency files)", types.MessageType.Warning,
                 once="dropped:" + repr(dropped))
    ls.log("settings: " + ", ".join(f"{k}={'<hidden>' if _secret(k) else repr(v)}" for k, v in sorted(new.raw.items())))
    if changed:
        ls.generation += 1  # outdates every running profile
        ls.told.clear()
        if ls.state == "error":
            ls.state = "idle"
        ls.reprofile_all()


def _secret(key: str) -> bool:
    """Keys whose values never go to the log (the API key belongs in the environment)."""
    return any(w in key.lower() for w in ("key", "token", "secret", "password"))


def start_watching(ls: KernelProServer) -> None:
    roots = [f.uri for f in (ls.workspace.folders or {}).values()] if ls.workspace.folders else []
    if not roots and ls.workspace.root_uri:
        roots = [ls.workspace.root_uri]
    paths = [ls.path_of(r) for r in roots]
    paths = [p for p in paths if Path(p).is_dir()]
    if not paths:
        return
    try:
        from .watch import Watcher

        ls.watcher = Watcher(ls, paths, asyncio.get_running_loop())
        ls.watcher.start()
    except Exception as e:  # inotify limits, a vanished folder
        ls.log(f"file watching is off: {e!r}", types.MessageType.Warning)
