"""How long one candidate takes to evaluate end to end on the GPU (target: < 3 s).

Each candidate is examples/gpu/vecadd.cu with a different comment (so nothing is cached):
compile with the cache disabled, check correctness at two sizes, time both sizes. Prints the
breakdown and the overhead over the kernel's own run time.

    python benchmarks/eval_throughput.py [--candidates 6]
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEC = """kernel = "vecadd"
[sizes]
small = { n = 1000003 }
medium = { n = 4194304 }
[[args]]
name = "out"
dtype = "float32"
shape = ["n"]
output = true
[[args]]
name = "a"
dtype = "float32"
shape = ["n"]
[[args]]
name = "b"
dtype = "float32"
shape = ["n"]
[[args]]
name = "n"
value = "n"
[launch]
grid = ["cdiv(n, 256)"]
block = [256]
[reference]
python = "vecadd_ref.py:reference"
[cost]
bytes = "12 * n"
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--candidates", type=int, default=6)
    args = ap.parse_args(argv)
    from kernelpro.profilers.compile import CompileOptions, compile_cuda
    from kernelpro.profilers.runtime.measure import build_job, gpu_problem
    from kernelpro.profilers.runtime.spec import load_spec
    from kernelpro.profilers.runtime.worker import WorkerPool

    problem = gpu_problem()
    if problem:
        print(f"no GPU: {problem}", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="kernelpro-bench-"))
    shutil.copy(ROOT / "examples" / "gpu" / "vecadd_ref.py", work)
    (work / "vecadd.kernelpro.toml").write_text(SPEC)
    base = (ROOT / "examples" / "gpu" / "vecadd.cu").read_text()
    cu = work / "vecadd.cu"
    cu.write_text(base)
    spec = load_spec(work / "vecadd.kernelpro.toml")
    opts = CompileOptions()
    rows = []
    with WorkerPool(timeout_s=60) as pool:
        t0 = time.perf_counter()
        pool.call({"op": "device"})
        startup = time.perf_counter() - t0
        for i in range(args.candidates):
            text = base + f"\n// candidate {i} {time.time()}\n"
            t0 = time.perf_counter()
            art = compile_cuda(cu, opts, text=text, use_cache=False)
            t1 = time.perf_counter()
            res = pool.run(build_job(spec, art, timing=True))
            t2 = time.perf_counter()
            if not res.ok:
                print(f"candidate {i} failed: {res.failure}", file=sys.stderr)
                return 1
            kernel_s = sum(s.time_s * len(s.times) for s in res.sizes)
            rows.append((i, t2 - t0, t1 - t0, t2 - t1, kernel_s, t2 - t0 - kernel_s))
    shutil.rmtree(work, ignore_errors=True)
    print(f"worker start + context: {startup:.2f} s (once per pool)")
    print(f"{'cand':>4} {'total s':>8} {'compile s':>9} {'run s':>7} {'kernel s':>8} {'overhead s':>10}")
    for r in rows:
        print(f"{r[0]:>4} {r[1]:>8.2f} {r[2]:>9.2f} {r[3]:>7.2f} {r[4]:>8.3f} {r[5]:>10.2f}")
    med = statistics.median(r[1] for r in rows[1:] or rows)  # the first pays module/JIT warm-up
    over = statistics.median(r[5] for r in rows[1:] or rows)
    verdict = "OK" if med < 3.0 else "SLOW"
    print(f"median per candidate: {med:.2f} s (overhead over the kernel's own time {over:.2f} s); target < 3 s: {verdict}")
    return 0 if med < 3.0 else 1


if __name__ == "__main__":
    sys.exit(main())
