"""The CPU emulator's speed (tests/emu/kp_emu.h): the same program, the same launches, each CUDA thread
a fiber (the default) or an OS thread (KP_EMU_THREADS=1, the emulator's only way before fibers), side
by side. Prints each kernel's wall time both ways, their ratio, and whether both gave the same output.

    python benchmarks/emu_speed.py [--repeat 3] [--only elementwise_1961x128]

Kernels: an element-wise kernel over 1961 blocks of 128 threads (the launch that took over 100 s on a
loaded 2-core CI machine), a block-tree sum with __syncthreads at every step, a warp-shuffle softmax
row per block, a cg::reduce block reduction, and a shared-memory histogram with atomics.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from emu_run import Batch  # noqa: E402

KERNELS = {
    "elementwise": r"""
__global__ void gelu(float* out, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float v = x[i]; out[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v))); }
}""",
    "tree": r"""
__global__ void tree_sum(float* out, const float* x, int n) {
  __shared__ float s[256];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}""",
    "softmax": r"""
__global__ void softmax_rows(float* out, const float* x, int cols) {
  __shared__ float part[32];
  const float* row = x + (size_t)blockIdx.x * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = m;
  __syncthreads();
  m = part[0];
  for (int w = 1; w < blockDim.x / 32; ++w) m = fmaxf(m, part[w]);
  __syncthreads();
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(row[c] - m);
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = s;
  __syncthreads();
  s = 0.0f;
  for (int w = 0; w < blockDim.x / 32; ++w) s += part[w];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[(size_t)blockIdx.x * cols + c] = expf(row[c] - m) / s;
}""",
    "cg_reduce": r"""
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void cg_sum(float* out, const float* x, int n) {
  __shared__ float part[32];
  cg::thread_block block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = cg::reduce(warp, i < n ? x[i] : 0.0f, cg::plus<float>());
  if (warp.thread_rank() == 0) part[warp.meta_group_rank()] = v;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    v = cg::reduce(warp, warp.thread_rank() < warp.meta_group_size() ? part[warp.thread_rank()] : 0.0f, cg::plus<float>());
    if (warp.thread_rank() == 0) out[blockIdx.x] = v;
  }
}""",
    "histogram": r"""
__global__ void histogram(unsigned* bins, const unsigned char* data, int n) {
  __shared__ unsigned local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}""",
}


def cases():
    """(name, source key, kernel, args factory, grid, block)."""
    rng = np.random.default_rng(0)
    n = 1961 * 128 - 5
    x = rng.standard_normal(n).astype(np.float32)
    rows, cols = 256, 1000
    xs = rng.standard_normal((rows, cols)).astype(np.float32)
    data = rng.integers(0, 256, 1 << 20).astype(np.uint8)
    return [
        ("elementwise_1961x128", "elementwise", "gelu", lambda: [np.zeros(n, np.float32), x, n], (1961,), (128,)),
        ("tree_sum_512x256", "tree", "tree_sum", lambda: [np.zeros(512, np.float32), x, 512 * 256], (512,), (256,)),
        ("softmax_256rows_x256", "softmax", "softmax_rows", lambda: [np.zeros_like(xs), xs, cols], (rows,), (256,)),
        ("cg_reduce_1961x128", "cg_reduce", "cg_sum", lambda: [np.zeros(1961, np.float32), x, n], (1961,), (128,)),
        ("histogram_64x256", "histogram", "histogram", lambda: [np.zeros(256, np.uint32), data, len(data)], (64,), (256,)),
    ]


def timed(batch, index, args, grid, block, threads: bool, timeout: float):
    old = os.environ.get("KP_EMU_THREADS")
    if threads:
        os.environ["KP_EMU_THREADS"] = "1"
    else:
        os.environ.pop("KP_EMU_THREADS", None)
    try:
        t0 = time.perf_counter()
        out = batch.run(index, args, grid, block, timeout=timeout)
        return time.perf_counter() - t0, out
    finally:
        if old is None:
            os.environ.pop("KP_EMU_THREADS", None)
        else:
            os.environ["KP_EMU_THREADS"] = old


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each mode per kernel (the best is kept)")
    ap.add_argument("--only", nargs="*", help="case names to run")
    ap.add_argument("--timeout", type=float, default=600.0)
    a = ap.parse_args()
    todo = [c for c in cases() if not a.only or c[0] in a.only]
    keys = sorted({c[1] for c in todo})
    with tempfile.TemporaryDirectory(prefix="emu-speed-") as tmp:
        t0 = time.perf_counter()
        batch = Batch([(KERNELS[k], kernel) for k, kernel in sorted({(c[1], c[2]) for c in todo})], tmp)
        index = {kernel: i for i, (_, kernel) in enumerate(batch.items)}
        print(f"built {len(keys)} kernels in {time.perf_counter() - t0:.1f} s; {os.cpu_count()} cores")
        print(f"{'case':24s} {'OS threads s':>13s} {'fibers s':>9s} {'ratio':>7s}  same output")
        ratios = []
        for name, _, kernel, make, grid, block in todo:
            best = {}
            outs = {}
            for threads in (True, False):
                for _ in range(a.repeat):
                    dt, out = timed(batch, index[kernel], make(), grid, block, threads, a.timeout)
                    best[threads] = min(best.get(threads, dt), dt)
                    outs[threads] = out
            same = all((p is None and q is None) or np.allclose(p, q, rtol=1e-5, atol=1e-6)
                       for p, q in zip(outs[True], outs[False]))
            ratio = best[True] / best[False]
            ratios.append(ratio)
            print(f"{name:24s} {best[True]:13.2f} {best[False]:9.2f} {ratio:6.1f}x  {same}", flush=True)
        print(f"geometric mean of the ratios: {float(np.exp(np.mean(np.log(ratios)))):.1f}x")


if __name__ == "__main__":
    main()
