"""Shared test setup: GPU tests skip cleanly without a usable GPU; a private compile cache."""
from __future__ import annotations

import os
import shutil
import tempfile

import pytest

# Every test run gets its own compile cache, so results never depend on an earlier run.
_CACHE = tempfile.mkdtemp(prefix="kernelpro-test-cache-")
os.environ.setdefault("KERNELPRO_CACHE_DIR", _CACHE)


def _gpu_problem() -> str | None:
    if os.environ.get("KERNELPRO_NO_GPU"):
        return "KERNELPRO_NO_GPU is set"
    try:
        from kernelpro.profilers.runtime.measure import gpu_problem
    except ImportError as e:
        return f"GPU runtime not importable: {e}"
    return gpu_problem()


def pytest_collection_modifyitems(config, items):
    gpu_items = [i for i in items if i.get_closest_marker("gpu")]
    if not gpu_items:
        return
    problem = _gpu_problem()
    if problem:
        skip = pytest.mark.skip(reason=f"no GPU: {problem}")
        for item in gpu_items:
            item.add_marker(skip)


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(_CACHE, ignore_errors=True)
