"""Child processes that cannot be turned against the user (docs/security.md).

Every child KernelPro starts gets its stdin from /dev/null (never the language server's
JSON-RPC stream), a Python child starts with `-P` (the working directory, often somebody
else's repository, is not on sys.path) and `PYTHONSAFEPATH=1` for its own children, and a
compiler runs under a memory limit and dies with the thread that started it.
"""
from __future__ import annotations

import os
import shutil
import sys
import threading
from typing import Callable

# nvcc's front ends use well under 1 GB on CuTe-heavy code; `#include "/dev/zero"` reached 2 GB in 6 s
COMPILE_MEMORY_MB = 4096


def python_command(module: str, *args: str) -> list[str]:
    """`python -P -m module args`: this interpreter, without the working directory on sys.path."""
    return [sys.executable, "-P", "-m", module, *args]


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment for a child, with PYTHONSAFEPATH=1 (inherited by its own children)."""
    return {**os.environ, "PYTHONSAFEPATH": "1", **(extra or {})}


def compile_memory_mb() -> int:
    try:
        return max(256, int(os.environ.get("KERNELPRO_COMPILE_MEMORY_MB", COMPILE_MEMORY_MB)))
    except ValueError:
        return COMPILE_MEMORY_MB


def limited(cmd: list[str], memory_mb: int | None = None) -> list[str]:
    """`cmd` run under an address-space limit (RLIMIT_AS, inherited by nvcc's cicc, cc1plus and
    ptxas) and, where util-linux's setpriv exists, killed when the thread that started it dies
    (PR_SET_PDEATHSIG). The arguments reach the program through "$@": sh never reads them."""
    kb = (memory_mb or compile_memory_mb()) * 1024
    out = ["/bin/sh", "-c", f'ulimit -v {kb} 2>/dev/null; exec "$@"', "kernelpro-limit", *cmd]
    setpriv = _setpriv()
    return [setpriv, "--pdeathsig", "KILL", "--", *out] if setpriv else out


_SETPRIV: list[str | None] = []


def _setpriv() -> str | None:
    if not _SETPRIV:
        _SETPRIV.append(shutil.which("setpriv") if sys.platform.startswith("linux") else None)
    return _SETPRIV[0]


def watch_parent(parent: int, on_gone: Callable[[], None], every_s: float = 0.5) -> threading.Thread:
    """Call `on_gone` once when `parent` is no longer this process's parent (it died: the child
    was re-parented). A daemon thread, so it never holds the exit."""

    def loop():
        ev = threading.Event()
        while not ev.wait(every_s):
            if os.getppid() != parent:
                on_gone()
                return

    t = threading.Thread(target=loop, name="kernelpro-parent-watch", daemon=True)
    t.start()
    return t
