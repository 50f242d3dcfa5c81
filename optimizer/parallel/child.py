"""The GPU worker process under a Ray actor: the runtime's runner, ended when the actor is gone.

The runner lives in its own process group (the actor kills the group on a hang), so nothing ends it
when Ray kills the actor; a thread here watches the parent and ends the process once the actor has
gone (its parent is no longer the actor's pid), even while a kernel hangs the main thread. The actor
passes its pid, so an actor that died while this process was still starting is seen too.

    python -m kernelpro.optimizer.parallel.child --parent PID --serve
"""
from __future__ import annotations

import os
import sys

from kernelpro.profilers import children
from kernelpro.profilers.children import python_command


def watch_parent(parent: int, period_s: float = 0.5) -> None:
    """End at once (os._exit) when the actor that started this worker is gone."""
    if os.getppid() != parent:
        os._exit(1)
    children.watch_parent(parent, lambda: os._exit(1), period_s)


def command() -> list[str]:
    """The worker's command line, for a worker started by this process (the actor)."""
    return python_command("kernelpro.optimizer.parallel.child", "--parent", str(os.getpid()), "--serve")


if __name__ == "__main__":
    argv = sys.argv[1:]
    if len(argv) < 2 or argv[0] != "--parent" or not argv[1].isdigit():
        sys.exit("usage: python -m kernelpro.optimizer.parallel.child --parent PID --serve")
    watch_parent(int(argv[1]))
    from kernelpro.profilers.runtime.runner import main

    sys.exit(main(argv[2:]))
