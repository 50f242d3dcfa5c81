"""Shared test setup: GPU tests skip cleanly without a usable GPU; a private compile cache."""
from __future__ import annotations

import os
import shutil
import tempfile

import pytest

# Every test run gets its own compile cache, so results never depend on an earlier run. The
# process that makes it owns it and removes it at the end: under pytest-xdist that is the
# controller, whose environment the workers inherit (they share the cache; its writes are atomic).
_CACHE = None
if not os.environ.get("KERNELPRO_CACHE_DIR"):
    _CACHE = tempfile.mkdtemp(prefix="kernelpro-test-cache-")
    os.environ["KERNELPRO_CACHE_DIR"] = _CACHE


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


_LONG_LIST = os.path.join(os.path.dirname(__file__), "long_tests.txt")


def _long_units() -> list[tuple[float, list[str]]]:
    """(seconds, ids) per line of tests/long_tests.txt."""
    try:
        with open(_LONG_LIST) as f:
            lines = [line.split("#")[0].split() for line in f]
    except OSError:
        return []
    return [(float(w[0]), w[1:]) for w in lines if w]


def _is(item, id_: str) -> bool:
    return item.nodeid == id_ or item.nodeid.split("[")[0] == id_ or item.nodeid.startswith(id_ + "::")


class _LongFirst:
    @pytest.hookimpl(trylast=True)  # after `-m` deselected
    def pytest_collection_modifyitems(self, items):
        _long_first(items)


def pytest_configure(config):
    config.pluginmanager.register(_LongFirst(), "kernelpro-long-first")


def _long_first(items) -> None:
    """The long tests first, spread over the workers: pytest-xdist's worksteal scheduler gives worker j
    the j-th of n equal slices of the collection (others steal from a slice's end), so each slice starts
    with its share of the long tests (the longest share first, a greedy split by their seconds)."""
    units = []
    taken = set()
    for secs, ids in _long_units():
        its = [i for id_ in ids for i in items if id(i) not in taken and _is(i, id_) and not taken.add(id(i))]
        if its:
            units.append((secs, its))
    if not units:
        return
    n = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    lanes: list[list] = [[] for _ in range(n)]
    load = [0.0] * n
    for secs, its in sorted(units, key=lambda u: -u[0]):
        j = load.index(min(load))
        lanes[j] += its
        load[j] += secs
    rest = [i for i in items if id(i) not in taken]
    starts, left = [], len(items)  # where xdist cuts: each worker gets len(pending) // workers left
    for j in range(n):
        starts.append(len(items) - left)
        left -= left // (n - j)
    out: list = []
    for j in range(n):
        while rest and len(out) < starts[j]:
            out.append(rest.pop(0))
        out += lanes[j]
    items[:] = out + rest


def pytest_sessionfinish(session, exitstatus):
    if _CACHE is not None:
        shutil.rmtree(_CACHE, ignore_errors=True)
