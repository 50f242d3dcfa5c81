"""The entry point's half of the language server: a KernelProServer with every feature registered.

The state lives in `state.py`, which imports no feature; the features import the state; this module
imports both and is imported by no module of the package (only `__main__` and the tests use it).
"""
from __future__ import annotations

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


def _terminated(signum, frame):
    raise SystemExit(128 + signum)
