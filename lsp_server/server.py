"""The entry point's half of the language server: a KernelProServer with every feature registered.

The state lives in `state.py`, which imports no feature; the features import the state; this module
imports both and is imported by no module of the package (only `__main__` and the tests use it).
"""
from __future__ import annotations

import os
import signal
import threading

from .state import COMMANDS, GPU_SOURCE, NAME, STATUS, VERSION, DocState, KernelProServer, disk_stamp

__all__ = ["COMMANDS", "GPU_SOURCE", "NAME", "STATUS", "VERSION", "DocState", "KernelProServer", "create_server",
           "disk_stamp"]


def create_server() -> KernelProServer:
    from . import actions, documents, hints, hover, lenses  # the features

    server = KernelProServer()
    for module in (documents, hover, lenses, actions, hints):
        module.setup(server)
    if threading.current_thread() is threading.main_thread():
        # SIGTERM (an editor stopping the server, a session ending) ends it like `exit`: the read
        # loop unwinds and close() kills the compiles and optimizers it started
        signal.signal(signal.SIGTERM, _terminated)
    return server


GRACE_S = 5.0  # for the orderly exit after SIGTERM; then the process ends regardless


def _terminated(signum, frame):
    # the orderly exit (the read loop unwinding, close() killing what the server started) can stall on a
    # task or thread that does not give way; a daemon timer ends the process if it has not ended by then
    timer = threading.Timer(GRACE_S, os._exit, args=(128 + signum,))
    timer.daemon = True
    timer.start()
    raise SystemExit(128 + signum)
