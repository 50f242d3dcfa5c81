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


_SLOW_LIST = os.path.join(os.path.dirname(__file__), "slow_tests.txt")


def _listed_slow() -> set[str]:
    """Node ids (without parameters) listed in tests/slow_tests.txt."""
    try:
        with open(_SLOW_LIST) as f:
            return {line.split("#")[0].strip() for line in f if line.split("#")[0].strip()}
    except OSError:
        return set()


@pytest.hookimpl(tryfirst=True)  # before `-m "not slow"` deselects
def pytest_collection_modifyitems(config, items):
    slow = _listed_slow()
    for item in items:
        if item.nodeid.split("[")[0] in slow:
            item.add_marker(pytest.mark.slow)
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
