"""The hunter's speed: index build (once per corpus version) and query latency (target < 50 ms).

Builds the index of this machine's corpus in a fresh cache folder and prints its time and
size, then times every query of the relevance test (tests/test_hunt_relevance.py) several
times on the opened index, the way the language server or the LLM tool calls it, and the
whole `kernelpro hunt` command once warm. Prints medians, the 95th percentile and the worst.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPS = int(os.environ.get("REPS", "5"))


def main() -> None:
    cache = Path(tempfile.mkdtemp(prefix="kp-hunt-bench-"))
    os.environ["KERNELPRO_CACHE_DIR"] = str(cache)
    sys.path.insert(0, str(ROOT / "tests"))
    from test_hunt_relevance import INTENTS  # noqa: E402

    from kernelpro.profilers.hunt.api import corpus_and_index
    from kernelpro.profilers.hunt.index import index_path

    t = time.perf_counter()
    corpus, index = corpus_and_index()
    built = time.perf_counter() - t
    size = index_path(corpus).stat().st_size
    print(f"index build: {built:.1f} s, {index.meta['symbols']} symbols from "
          f"{sum(v['files'] for v in index.meta['sources'].values())} files, {size / 2**20:.1f} MiB")
    queries = [q for q, _ in INTENTS]
    for q in queries:  # warm the page cache, as any second query is
        index.search(q)
    times = []
    for _ in range(REPS):
        for q in queries:
            t = time.perf_counter()
            index.search(q)
            times.append((time.perf_counter() - t) * 1000)
    times.sort()
    p95 = times[int(len(times) * 0.95) - 1]
    print(f"query ({len(queries)} queries x {REPS}): median {statistics.median(times):.1f} ms, "
          f"p95 {p95:.1f} ms, worst {times[-1]:.1f} ms; target < 50 ms: "
          f"{'met' if p95 < 50 else 'NOT met'} at p95")
    cmd = [sys.executable, "-m", "kernelpro.profilers.cli", "hunt", "--json", "warp", "reduce", "sum"]
    runs = []
    for _ in range(3):
        t = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        runs.append(time.perf_counter() - t)
    print(f"`kernelpro hunt` whole command, warm: median {statistics.median(runs) * 1000:.0f} ms "
          "(Python start and imports included)")


if __name__ == "__main__":
    main()
