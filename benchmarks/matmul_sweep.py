"""The matrix-product families on the GPU: naive kernels, hand-written bests and cuBLAS, one harness.

Every kernel of a family (`naive*.cu`, `best.cu`, `best_tf32.cu`, each with its own spec) is measured with
the product's evaluator (correctness against the family's reference at every size and the off-by-one
sizes, L2 flushed before each launch, median of alternating rounds: suite_run.measure, as
baseline_sweep.py does); cuBLAS through torch (suite_torch.time_torch: CUDA events, the same clean L2
flush, median of 30) under each precision policy of the family. Every number carries its policy:

- `fp32`: strict float32, no TF32 anywhere (the kernels' default specs; torch with allow_tf32 off);
- `tf32`: fp32 operands rounded to TF32 on the tensor cores (`best_tf32.cu`, whose spec admits TF32's
  error at that K and says so; torch with allow_tf32 on);
- `bf16`: bf16 operands, fp32 accumulation.

    python benchmarks/matmul_sweep.py --out first.json [--families gemm_fp32 ...] [--kernels naive best ...]
        [--variants] [--repeats 2] [--reps 30]
    python benchmarks/matmul_sweep.py --table first.json [fresh.json] [--out table.md]

`--kernels` takes file stems or `naive` (every naive*.cu); `--variants` adds the bests built with other tile
macros (VARIANTS: pipeline depth, k depth, tile width), each checked and timed like the files. `--table` prints one row per family, kernel
and size: µs, TFLOP/s, the policy, the speed against cuBLAS under the same policy, and with a second
JSON (the same kernels re-measured in a fresh process) that measurement beside the first, the ratio
taken from the fresh one (scripts/gpu_matmul.sh runs both).
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUITE = HERE / "suite"
sys.path.insert(0, str(HERE))

# in the order a call measures them: what matters most first, should a call be cut short
FAMILIES = ("gemm_fp32", "gemm_bf16", "linear_bias", "attn_scores", "gemm_aat", "gemm_chain")


# Tuning variants of the bests, measured beside them with `--variants`: a best file built with other tile
# macros (-D) and the launch that goes with them (grid, shared_bytes), checked with that file's spec.
# name -> (file stem, launch override, nvcc flags). Whichever is fastest on the GPU becomes the file's default.
VARIANTS = {
    "gemm_bf16": {  # the default (best.cu's macros): BG_NI 4, BG_BK 64, BG_STAGES 3 (128 x 128 x 64, 3 stages)
        "best_n256_s4": ("best", {"grid": ["cdiv(N, 256)", "cdiv(M, 128)"], "shared_bytes": "4 * (128 * 40 + 32 * 264) * 2"},
                         ["-DBG_NI=8", "-DBG_BK=32", "-DBG_STAGES=4"]),  # the default until 2026-12-05
        "best_n256_s5": ("best", {"grid": ["cdiv(N, 256)", "cdiv(M, 128)"], "shared_bytes": "5 * (128 * 40 + 32 * 264) * 2"},
                         ["-DBG_NI=8", "-DBG_BK=32", "-DBG_STAGES=5"]),
        "best_n256_bk64_s3": ("best", {"grid": ["cdiv(N, 256)", "cdiv(M, 128)"],
                                       "shared_bytes": "3 * (128 * 72 + 64 * 264) * 2"},
                              ["-DBG_NI=8", "-DBG_BK=64", "-DBG_STAGES=3"]),
        "best_bk32_s4": ("best", {"shared_bytes": "4 * (128 * 40 + 32 * 136) * 2"}, ["-DBG_BK=32", "-DBG_STAGES=4"]),
    },
    "gemm_fp32": {
        "best_warptile": ("best", {}, ["-DSG_WARPTILE=1"]),
        "best_tf32_s4": ("best_tf32", {"shared_bytes": "4 * (128 * 36 + 32 * 136) * 4"}, ["-DTC_STAGES=4"]),
        "best_tf32_s2": ("best_tf32", {"shared_bytes": "2 * (128 * 36 + 32 * 136) * 4"}, ["-DTC_STAGES=2"]),
        "best_tf32_n256": ("best_tf32", {"grid": ["cdiv(N, 256)", "cdiv(M, 128)"],
                                         "shared_bytes": "3 * (128 * 36 + 32 * 264) * 4"}, ["-DTC_NI=8"]),
    },
    "attn_scores": {
        "best_warptile": ("best", {}, ["-DSG_WARPTILE=1"]),
    },
    "linear_bias": {
        "best_warptile": ("best", {}, ["-DSG_WARPTILE=1"]),
        "best_tf32_n256": ("best_tf32", {"grid": ["cdiv(OC, 256)", "cdiv(N, 128)"],
                                         "shared_bytes": "3 * (128 * 36 + 256 * 36) * 4"}, ["-DTC_NI=8"]),
    },
}


def policy_of(family: str, stem: str) -> str:
    """The precision policy of a kernel file: bf16 for the bf16 family, tf32 for `*_tf32.cu`, else strict fp32."""
    if family == "gemm_bf16":
        return "bf16"
    return "tf32" if stem.endswith("tf32") else "fp32"


def stems(family: str, kernels: list[str] | None) -> list[str]:
    """The family's kernel files to measure, naive ones first: all of them, or those `kernels` names
    (`naive` stands for every naive*.cu)."""
    files = tomllib.loads((SUITE / family / "family.toml").read_text()).get("files", {})
    # (a naive file under another policy, naive_tf32, is another's kernel for the optimizer: timed there)
    have = sorted(p.stem for p in (SUITE / family).glob("*.cu") if not files.get(p.stem, {}).get("policy"))
    order = [s for s in have if s.startswith("naive")] + [s for s in have if not s.startswith("naive")]
    if not kernels:
        return order
    return [s for s in order if s in kernels or ("naive" in kernels and s.startswith("naive"))]


def ratio(cublas_s: float | None, kernel_s: float | None) -> float | None:
    """The kernel's speed as a fraction of cuBLAS's (cuBLAS time over kernel time)."""
    return round(cublas_s / kernel_s, 3) if cublas_s and kernel_s else None


def _sig(x: float) -> float:
    return float(f"{x:.4g}")


def summarize(fam: str, row: dict) -> None:
    """Adds to each kernel its TFLOP/s per size and, against cuBLAS under its own policy, `vs_cublas`."""
    flops = row["flops"]
    for k in row["kernels"].values():
        t = k.get("times_s") or {}
        k["tflops"] = {s: _sig(flops[s] / v / 1e12) for s, v in t.items() if v}
        cub = (row["cublas"].get(k["policy"]) or {}).get("times_s") or {}
        k["vs_cublas"] = {s: ratio(cub.get(s), v) for s, v in t.items()}
    for c in row["cublas"].values():
        t = c.get("times_s") or {}
        c["tflops"] = {s: _sig(flops[s] / v / 1e12) for s, v in t.items() if v}


def measure_family(fam: str, kernels: list[str] | None, pool, repeats: int, reps: int, torch_on: bool,
                   variants: bool = False) -> dict:
    from kernelpro.profilers.runtime.spec import load_spec
    from suite_run import measure
    from suite_torch import policies, time_torch

    work = Path(tempfile.mkdtemp(prefix=f"matmul-{fam}-"))
    for f in (SUITE / fam).iterdir():
        if f.is_file():
            shutil.copy(f, work / f.name)
    names = stems(fam, kernels)
    entries = {s: (work / f"{s}.cu", load_spec(work / f"{s}.kernelpro.toml")) for s in names}
    origin = {s: (s, []) for s in names}
    for name, (stem, launch, flags) in (VARIANTS.get(fam, {}).items() if variants else ()):
        entries[name] = (work / f"{stem}.cu", load_spec(work / f"{stem}.kernelpro.toml").with_launch(launch), tuple(flags))
        origin[name] = (stem, list(flags))
    base = load_spec(work / "best.kernelpro.toml")
    row = {"sizes": {s: dict(v) for s, v in base.sizes.items()},
           "flops": {s: base.flops(s) for s in base.sizes}, "bytes": {s: base.bytes_moved(s) for s in base.sizes},
           "kernels": {}, "cublas": {}}
    t0 = time.monotonic()
    measured = measure(entries, pool, repeats)
    for s in entries:
        m = measured[s]
        stem, flags = origin[s]
        rec = {"policy": policy_of(fam, stem), "file": f"{fam}/{stem}.cu"}
        if flags:
            rec.update(variant_of=stem, flags=flags, launch=VARIANTS[fam][s][1])
        if "failure" in m:
            rec["failure"] = str(m["failure"])[:2000]
        else:
            rec["times_s"], rec["rounds_s"] = m["times_s"], m["rounds_s"]
        row["kernels"][s] = rec
    row["kernels_wall_s"] = round(time.monotonic() - t0, 1)
    if torch_on:
        t0 = time.monotonic()
        for pol in policies(fam):
            try:
                row["cublas"][pol] = {"policy": pol, "times_s": time_torch(fam, base, reps=reps, policy=pol)}
            except Exception as e:  # torch missing, or out of memory: said, not hidden
                row["cublas"][pol] = {"policy": pol, "failure": f"{type(e).__name__}: {e}"[:500]}
        row["cublas_wall_s"] = round(time.monotonic() - t0, 1)
    summarize(fam, row)
    return row


def table(first: dict, fresh: dict | None = None) -> str:
    """The markdown table: every family, kernel (cuBLAS last) and size, with its precision policy."""
    head = ["family", "kernel", "policy", "size", "µs", "TFLOP/s", "x cuBLAS (same policy)"]
    if fresh:
        head[4:4] = ["µs (fresh process)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for fam, row in first.get("families", {}).items():
        frow = (fresh or {}).get("families", {}).get(fam, {})
        items = [(s, k) for s, k in row["kernels"].items()] + [(f"cuBLAS ({p})", c) for p, c in row["cublas"].items()]
        for name, k in items:
            pol = k.get("policy", "-")
            if "failure" in k:
                lines.append(f"| {fam} | {name} | {pol} | all | FAILED: {k['failure'][:120].replace('|', '/')} |"
                             + " |" * (len(head) - 5))
                continue
            fk = (frow.get("kernels", {}).get(name) if not name.startswith("cuBLAS") else
                  frow.get("cublas", {}).get(pol)) or {}
            for size, t in (k.get("times_s") or {}).items():
                ft = (fk.get("times_s") or {}).get(size)
                cub = ((frow or row).get("cublas", {}).get(pol) or {}).get("times_s", {}).get(size)
                use = ft or t
                cells = [fam, name, pol, size, f"{t * 1e6:.1f}"]
                if fresh:
                    cells.append(f"{ft * 1e6:.1f}" if ft else "—")
                tf = row["flops"][size] / use / 1e12
                r = ratio(cub, use) if not name.startswith("cuBLAS") else 1.0
                cells += [f"{tf:.1f}", f"{r:.2f}x" if r else "—"]
                lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--families", nargs="*", default=None)
    ap.add_argument("--kernels", nargs="*", default=None, help="file stems, or naive for every naive*.cu")
    ap.add_argument("--repeats", type=int, default=2, help="alternating rounds of the kernels")
    ap.add_argument("--reps", type=int, default=30, help="cuBLAS calls timed per size and policy")
    ap.add_argument("--variants", action="store_true", help="also the tuning variants of the bests (VARIANTS)")
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--table", nargs="+", default=None, metavar="JSON", help="print the table of these results")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)

    if args.table:
        first = json.loads(Path(args.table[0]).read_text())
        fresh = json.loads(Path(args.table[1]).read_text()) if len(args.table) > 1 else None
        text = table(first, fresh)
        print(text)
        if args.out:
            Path(args.out).write_text(text + "\n")
        return 0
    if not args.out:
        ap.error("--out is required (or --table)")
    fams = args.families or list(FAMILIES)
    unknown = sorted(set(fams) - set(FAMILIES))
    if unknown:
        ap.error(f"unknown famil{'ies' if len(unknown) > 1 else 'y'} {', '.join(unknown)} (of {', '.join(FAMILIES)})")

    from kernelpro.profilers.runtime.ceilings import get_ceilings
    from kernelpro.profilers.runtime.measure import gpu_problem
    from kernelpro.profilers.runtime.worker import WorkerPool

    problem = gpu_problem()
    if problem:
        print(f"no GPU: {problem}", file=sys.stderr)
        return 2
    pool = WorkerPool(timeout_s=300)
    ceil = get_ceilings(pool)
    result = {"date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "device": ceil.get("device"),
              "dram_gbs": ceil.get("dram_gbs"), "repeats": args.repeats, "reps": args.reps,
              "policies": {"fp32": "strict float32 (no TF32; torch allow_tf32 off)",
                           "tf32": "fp32 operands rounded to TF32 on tensor cores (torch allow_tf32 on)",
                           "bf16": "bf16 operands, fp32 accumulation"},
              "families": {}}
    for fam in fams:
        t0 = time.monotonic()
        row = measure_family(fam, args.kernels, pool, args.repeats, args.reps, not args.no_torch, args.variants)
        row["wall_s"] = round(time.monotonic() - t0, 1)
        result["families"][fam] = row
        Path(args.out).write_text(json.dumps(result, indent=1, default=str))
        for s, k in row["kernels"].items():
            if "failure" in k:
                print(f"{fam:12s} {s:18s} {k['policy']:5s} FAILED: {k['failure'][:400]}", flush=True)
            else:
                print(f"{fam:12s} {s:18s} {k['policy']:5s} " + " | ".join(
                    f"{z} {t * 1e6:9.1f} us {k['tflops'][z]:6.1f} TF/s"
                    + (f" {k['vs_cublas'][z]:.2f}x cuBLAS" if k["vs_cublas"].get(z) else "")
                    for z, t in k["times_s"].items()), flush=True)
        for p, c in row["cublas"].items():
            if "failure" in c:
                print(f"{fam:12s} cuBLAS({p}) FAILED: {c['failure']}", flush=True)
            else:
                print(f"{fam:12s} cuBLAS({p:4s})            " + " | ".join(
                    f"{z} {t * 1e6:9.1f} us {c['tflops'][z]:6.1f} TF/s" for z, t in c["times_s"].items()), flush=True)
        print(f"{fam}: {row['wall_s']} s", flush=True)
    pool.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
