"""One process at a time, across the pytest-xdist workers of one test session.

`with session_lock("name"):` holds an exclusive lock on a file in the session's compile cache
(made by the controlling process, shared by its workers: tests/conftest.py). Used where tests
share something outside their tmp_path: the VS Code client's build folder, the real corpus's
hunt index (built once, read by the others). pytest-xdist's `xdist_group` would do the same
but is silently ignored with pytest 9.2 (pytest-dev/pytest-xdist#1386).
"""
from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def session_lock(name: str):
    d = Path(os.environ["KERNELPRO_CACHE_DIR"]) / "locks"
    d.mkdir(parents=True, exist_ok=True)
    with open(d / f"{name}.lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
