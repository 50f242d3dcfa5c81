"""The GPU worker process under a Ray actor: the runtime's runner, ended when the actor is gone.

The runner lives in its own process group (the actor kills the group on a hang), so nothing ends it
when Ray kills the actor; a thread here watches the parent and ends the process once the actor has
gone (its parent changes), even while a kernel hangs the main thread.

    python -m kernelpro.optimizer.parallel.child --serve
"""
from __future__ import annotations

import os
import sys
import threading
import time


def watch_parent(period_s: float = 0.5) -> None:
    parent = os.getppid()

    def run():
        while True:
            time.sleep(period_s)
            if os.getppid() != parent:
                os._exit(1)
    threading.Thread(target=run, name="parent-watch", daemon=True).start()


def command() -> list[str]:
    return [sys.executable, "-m", "kernelpro.optimizer.parallel.child", "--serve"]


if __name__ == "__main__":
    watch_parent()
    from kernelpro.profilers.runtime.runner import main

    sys.exit(main(sys.argv[1:]))
