"""Analysis time against nvcc's, per number of kernels (issue 29, item 15): it must grow linearly.

    python benchmarks/analysis_scaling.py [--sizes 250,500,1000,2000] [--profile N]

For each size, a file of that many one-line kernels is compiled once without the cache (nvcc's time,
SASS included), then profiled from the compile cache (`profile_file`: the parse, the rules, the
summaries: the analysis); the table gives both times, their ratio and the analysis time per kernel.
A ratio that grows with the size is a quadratic part (`--profile N` prints cProfile's top entries for
size N, to find it). Not a test: times depend on the machine.
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path


def kernels(n: int) -> str:
    return "\n".join(f"__global__ void k{i}(float* x, int n) {{ int j = blockIdx.x * blockDim.x + threadIdx.x; "
                     f"if (j < n) x[j] = x[j] * 2.f + {i}.f; }}" for i in range(n)) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="250,500,1000,2000")
    p.add_argument("--profile", type=int, metavar="N", help="print cProfile's top entries for size N")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["KERNELPRO_CACHE_DIR"] = str(Path(tmp) / "cache")  # a fresh cache: nvcc really runs
        from kernelpro.profilers.compile import CompileOptions, compile_cuda
        from kernelpro.profilers.profile import profile_file

        opts = CompileOptions()
        print(f"{'kernels':>8} {'nvcc s':>8} {'analysis s':>11} {'ratio':>6} {'ms/kernel':>10}")
        for n in (int(x) for x in args.sizes.split(",")):
            path = Path(tmp) / f"k{n}.cu"
            path.write_text(kernels(n))
            t0 = time.perf_counter()
            art = compile_cuda(path, opts, use_cache=True)
            _ = art.sass_available  # nvdisasm: part of the toolchain's time, kept by the cache
            t1 = time.perf_counter()
            prof = cProfile.Profile() if args.profile == n else None
            if prof:
                prof.enable()
            rep = profile_file(path, opts, use_cache=True)
            if prof:
                prof.disable()
            t2 = time.perf_counter()
            assert len(rep.kernels) == n, (len(rep.kernels), n)
            nv, an = t1 - t0, t2 - t1
            print(f"{n:>8} {nv:>8.2f} {an:>11.2f} {an / nv:>6.2f} {an / n * 1e3:>10.2f}", flush=True)
            if prof:
                pstats.Stats(prof, stream=sys.stdout).sort_stats("tottime").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
