"""How long one candidate takes to evaluate end to end on the GPU, with the defences of
docs/evaluation.md and without them, and a 50 M-element softmax with its reference on the GPU.

Targets (issue 10): under 3 s per candidate for the small case, and under 3 s for the 50 M-element
softmax evaluation with a GPU reference.

Small case: each candidate is examples/gpu/vecadd.cu with a different comment (so nothing is cached):
compile with the cache disabled, check and time at two sizes. "defences on" is what every evaluation
does; "defences off" (build_job(defences=False)) checks only the first launch and times one input set,
as the runner did before, so the difference is what the defences cost.

    python benchmarks/eval_throughput.py [--candidates 6] [--softmax-rows 48828] [--host]

--host also evaluates the softmax with the reference and the checks on the host (numpy), for comparison.
"""
from __future__ import annotations

import argparse
import os
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
SOFTMAX = r"""
__global__ void softmax(const float* __restrict__ x, float* __restrict__ y, int rows) {
  int row = blockIdx.x * blockDim.y + threadIdx.y;  // one warp per row of 1024
  if (row >= rows) return;
  const float* xr = x + (size_t)row * 1024;
  float v[32], m = -INFINITY, s = 0.f;
#pragma unroll
  for (int j = 0; j < 32; ++j) { v[j] = xr[threadIdx.x + 32 * j]; m = fmaxf(m, v[j]); }
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
#pragma unroll
  for (int j = 0; j < 32; ++j) { v[j] = __expf(v[j] - m); s += v[j]; }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  float inv = 1.f / s;
#pragma unroll
  for (int j = 0; j < 32; ++j) y[(size_t)row * 1024 + threadIdx.x + 32 * j] = v[j] * inv;
}
"""
SOFTMAX_SPEC = """kernel = "softmax"
[sizes]
large = {{ rows = {rows} }}
[[args]]
name = "x"
dtype = "float32"
shape = ["rows * 1024"]
[[args]]
name = "y"
dtype = "float32"
shape = ["rows * 1024"]
output = true
[[args]]
name = "rows"
value = "rows"
[launch]
grid = ["cdiv(rows, 8)"]
block = [32, 8]
[reference]
python = "softmax_ref.py:reference"
[cost]
bytes = "8 * rows * 1024"
"""
SOFTMAX_REF = """
def reference(inputs, sizes, xp):
    x = inputs["x"].astype(xp.float64).reshape(sizes["rows"], 1024)
    e = xp.exp(x - x.max(axis=1, keepdims=True))
    return {"y": (e / e.sum(axis=1, keepdims=True)).reshape(-1)}
"""


def small_case(pool, work: Path, n: int, defences: bool) -> list[tuple]:
    from kernelpro.profilers.compile import CompileOptions, compile_cuda
    from kernelpro.profilers.runtime.measure import build_job
    from kernelpro.profilers.runtime.spec import load_spec

    spec = load_spec(work / "vecadd.kernelpro.toml")
    base = (work / "vecadd.cu").read_text()
    rows = []
    for i in range(n):
        text = base + f"\n// candidate {i} {time.time()} {defences}\n"
        t0 = time.perf_counter()
        art = compile_cuda(work / "vecadd.cu", CompileOptions(), text=text, use_cache=False)
        t1 = time.perf_counter()
        res = pool.run(build_job(spec, art, timing=True, defences=defences))
        t2 = time.perf_counter()
        if not res.ok:
            raise SystemExit(f"candidate {i} failed: {res.failure}")
        kernel_s = sum(s.time_s * len(s.times) for s in res.sizes)
        rows.append((i, t2 - t0, t1 - t0, t2 - t1, kernel_s, sum(s.checked for s in res.sizes),
                     res.checks.get("array", "?")))
    return rows


def softmax_case(pool, work: Path, rows: int) -> tuple:
    from kernelpro.profilers.compile import CompileOptions, compile_cuda
    from kernelpro.profilers.runtime.measure import build_job
    from kernelpro.profilers.runtime.spec import load_spec

    (work / "softmax.cu").write_text(SOFTMAX)
    (work / "softmax_ref.py").write_text(SOFTMAX_REF)
    (work / "softmax.kernelpro.toml").write_text(SOFTMAX_SPEC.format(rows=rows))
    spec = load_spec(work / "softmax.kernelpro.toml")
    t0 = time.perf_counter()
    art = compile_cuda(work / "softmax.cu", CompileOptions(), text=SOFTMAX + f"// {time.time()}\n", use_cache=False)
    t1 = time.perf_counter()
    res = pool.run(build_job(spec, art, timing=True))
    t2 = time.perf_counter()
    if not res.ok:
        raise SystemExit(f"softmax failed: {res.failure}")
    return t2 - t0, t1 - t0, t2 - t1, res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--candidates", type=int, default=6)
    ap.add_argument("--softmax-rows", type=int, default=48828, help="rows of 1024 (48828: 50 M elements)")
    ap.add_argument("--host", action="store_true", help="also the softmax with its reference and checks on the host")
    args = ap.parse_args(argv)
    from kernelpro.profilers.runtime.measure import gpu_problem
    from kernelpro.profilers.runtime.worker import WorkerPool

    problem = gpu_problem()
    if problem:
        print(f"no GPU: {problem}", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="kernelpro-bench-"))
    shutil.copy(ROOT / "examples" / "gpu" / "vecadd_ref.py", work)
    shutil.copy(ROOT / "examples" / "gpu" / "vecadd.cu", work)
    (work / "vecadd.kernelpro.toml").write_text(SPEC)
    verdicts = []
    with WorkerPool(timeout_s=120) as pool:
        t0 = time.perf_counter()
        pool.call({"op": "device"})
        print(f"worker start + context: {time.perf_counter() - t0:.2f} s (once per pool)")
        results = {}
        for defences in (True, False):
            rows = small_case(pool, work, args.candidates, defences)
            label = "defences on" if defences else "defences off"
            print(f"\nsmall case (vecadd, 1 M + 4 M elements), {label}, checks with {rows[0][6]}:")
            print(f"{'cand':>4} {'total s':>8} {'compile s':>9} {'run s':>7} {'kernel s':>8} {'checked':>7}")
            for r in rows:
                print(f"{r[0]:>4} {r[1]:>8.2f} {r[2]:>9.2f} {r[3]:>7.2f} {r[4]:>8.3f} {r[5]:>7}")
            results[defences] = statistics.median(r[1] for r in rows[1:] or rows)  # the first pays warm-up
        on, off = results[True], results[False]
        ok = on < 3.0
        verdicts.append(ok)
        print(f"\nsmall case: median {on:.2f} s per candidate with the defences, {off:.2f} s without "
              f"(the defences cost {on - off:+.2f} s); target < 3 s: {'OK' if ok else 'SLOW'}")
        softmax_case(pool, work, 64)  # warm-up: CuPy compiles its kernels once per machine
        total, comp, run, res = softmax_case(pool, work, args.softmax_rows)
        n = args.softmax_rows * 1024
        ok = total < 3.0
        verdicts.append(ok)
        print(f"softmax, {n / 1e6:.1f} M elements, reference and checks with {res.checks.get('array')}: "
              f"{total:.2f} s (compile {comp:.2f} s, check and time {run:.2f} s, "
              f"{sum(s.checked for s in res.sizes)} timed launches checked); target < 3 s: {'OK' if ok else 'SLOW'}")
    if args.host:
        with WorkerPool(timeout_s=600, env=dict(os.environ, KERNELPRO_HOST_CHECKS="1")) as host_pool:
            host_pool.call({"op": "device"})
            total, comp, run, res = softmax_case(host_pool, work, args.softmax_rows)
            print(f"softmax, {n / 1e6:.1f} M elements, reference and checks on the host ({res.checks.get('array')}): "
                  f"{total:.2f} s (compile {comp:.2f} s, check and time {run:.2f} s)")
    shutil.rmtree(work, ignore_errors=True)
    return 0 if all(verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
