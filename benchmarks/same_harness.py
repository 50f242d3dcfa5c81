"""PyTorch's op and a hand-written suite kernel timed by one harness, side by side (GPU).

The suite's own comparison times the kernels with the product's evaluator and PyTorch with CUDA
events in suite_torch.py; this script times both the PyTorch way (CUDA events around one call, a
read of 256 MB flushing L2 before each, so it is cold and clean as the evaluator leaves it, median of
the repetitions, the two alternating), with the hand-written kernel launched through CuPy on PyTorch's buffers. Element-wise families only.

    python benchmarks/same_harness.py --families residual gelu [--reps 50]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tomllib
from pathlib import Path

SUITE = Path(__file__).resolve().parent / "suite"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--families", nargs="*", default=["residual", "gelu"])
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    import cupy as cp
    import numpy as np
    import torch

    from suite_torch import l2_flusher

    def cdiv(a, b):
        return -(-a // b)

    P = lambda t: np.uint64(t.data_ptr())  # noqa: E731
    flush = l2_flusher(torch)
    result = {}
    for fam in args.families:
        meta = tomllib.loads((SUITE / fam / "family.toml").read_text())
        spec = tomllib.loads(meta["spec"])
        best = meta["files"]["best"]
        mod = cp.RawModule(code=(SUITE / fam / "best.cu").read_text(), options=("-std=c++17",),
                           name_expressions=[meta["kernel"]])
        fn = mod.get_function(meta["kernel"])
        for size, env in spec["sizes"].items():
            n = env.get("N", env.get("n"))
            grid = (int(eval(best["grid"][0], {"cdiv": cdiv}, dict(env))),)
            block = (int(best["block"][0]),)
            if fam == "residual":
                a, b = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
                out, mine = torch.empty_like(a), torch.empty_like(a)
                ops = {"torch": lambda: torch.add(a, b, out=out),
                       "best": lambda: fn(grid, block, (P(mine), P(a), P(b), np.int32(n)))}
                check = lambda: torch.equal(out, mine)  # noqa: E731
            elif fam == "gelu":
                x = torch.randn(n, device="cuda").to(torch.bfloat16)
                mine = torch.empty_like(x)
                ops = {"torch": lambda: torch.nn.functional.gelu(x, approximate="tanh"),
                       "best": lambda: fn(grid, block, (P(mine), P(x), np.int32(n)))}
                check = lambda: torch.allclose(torch.nn.functional.gelu(x, approximate="tanh").float(),  # noqa: E731
                                               mine.float(), rtol=2e-2, atol=1e-2)
            else:
                raise SystemExit(f"{fam}: element-wise families only (residual, gelu)")
            for f in ops.values():
                for _ in range(3):
                    f()
            torch.cuda.synchronize()
            times = {k: [] for k in ops}
            for _ in range(args.reps):
                for k, f in ops.items():
                    flush()
                    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    e0.record()
                    f()
                    e1.record()
                    e1.synchronize()
                    times[k].append(e0.elapsed_time(e1) * 1e-3)
            med = {k: statistics.median(v) for k, v in times.items()}
            ok = bool(check())
            result[f"{fam}/{size}"] = {"median_s": med, "best_vs_torch": med["torch"] / med["best"], "same_result": ok}
            print(f"{fam:10s} {size:6s} torch {med['torch'] * 1e6:7.1f} us  best {med['best'] * 1e6:7.1f} us  "
                  f"best is {med['torch'] / med['best']:.3f}x torch's speed  (results agree: {ok})", flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
