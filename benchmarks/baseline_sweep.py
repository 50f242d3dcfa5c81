"""Hand-written baseline candidates side by side with PyTorch's op (GPU).

For each family, every `*.cu` in a folder (default: the family's `best.cu` only) is measured with
the product's evaluator (correctness checked, L2 flushed, median time) in alternating rounds, and
PyTorch's op is timed the same way (CUDA events, L2 flushed). A file's first line may give its
launch: `// launch: {"grid": [...], "block": [...], "shared_bytes": "...", "flags": [...]}`; otherwise the
family's best launch is used. Prints per size: µs, the fraction of the measured DRAM bandwidth
(the spec's useful bytes), the speed as a fraction of a device copy moving the same bytes (what DRAM
gives at that size), and the speed against PyTorch.

    python benchmarks/baseline_sweep.py --families softmax gelu [--dir scratch] --out sweep.json
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUITE = HERE / "suite"
sys.path.insert(0, str(HERE))


def variants(family: str, folder: Path | None, only: list[str] | None = None) -> dict[str, Path]:
    out = {"best": SUITE / family / "best.cu"}
    if folder is not None and (folder / family).is_dir():
        out.update({p.stem: p for p in sorted((folder / family).glob("*.cu")) if not only or p.stem in only})
    return out


def file_launch(text: str) -> dict:
    """A candidate file's first line `// launch: {json}` as a launch: all of it, so no dynamic shared memory unless
    it says so or declares some (the best kernel's spec, whose launch it replaces, gave stencil3d's candidates its 78 KB a block,
    2.4x slower); {} without such a line."""
    first = text.splitlines()[0] if text else ""
    if not first.startswith("// launch:"):
        return {}
    from kernelpro.optimizer.model import DYNAMIC_SHARED

    launch = json.loads(first.split(":", 1)[1])
    if "grid" in launch and not DYNAMIC_SHARED.search(text):  # (one that declares some and says no size: the spec's)
        launch.setdefault("shared_bytes", 0)
    return launch


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--families", nargs="*", default=None)
    ap.add_argument("--dir", default=None, help="folder with <family>/*.cu candidates")
    ap.add_argument("--only", nargs="*", default=None, help="candidate stems of --dir (best.cu always)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)

    from kernelpro.profilers.runtime.ceilings import get_ceilings
    from kernelpro.profilers.runtime.measure import gpu_problem
    from kernelpro.profilers.runtime.spec import load_spec
    from kernelpro.profilers.runtime.worker import WorkerPool
    from kernelpro.profilers.source import parse_source
    from suite_run import measure
    from suite_torch import time_copy, time_torch

    problem = gpu_problem()
    if problem:
        print(f"no GPU: {problem}", file=sys.stderr)
        return 2
    pool = WorkerPool(timeout_s=180)
    dram = get_ceilings(pool)["dram_gbs"] * 1e9
    fams = args.families or sorted(p.parent.name for p in SUITE.glob("*/family.toml"))
    result = {"dram_gbs": dram / 1e9, "families": {}}
    for fam in fams:
        work = Path(tempfile.mkdtemp(prefix=f"sweep-{fam}-"))
        for f in (SUITE / fam).iterdir():
            if f.is_file():
                shutil.copy(f, work / f.name)
        base = load_spec(work / "best.kernelpro.toml")
        entries = {}
        for name, path in variants(fam, Path(args.dir) if args.dir else None, args.only).items():
            text = path.read_text()
            cu = work / f"v_{name}.cu"
            cu.write_text(text)
            launch = file_launch(text)
            flags = tuple(launch.pop("flags", ()))
            try:
                spec = base.with_launch(launch, parse_source(text, str(cu))) if launch else base.bind(
                    parse_source(text, str(cu)))
            except Exception as e:  # a broken candidate: said, and the others go on
                print(f"{fam}/{name}: spec: {e}", flush=True)
                continue
            entries[name] = (cu, spec, flags)
        measured = measure(entries, pool, args.repeats)
        torch_t = time_torch(fam, base)
        copy_t = time_copy(base)
        row = {"torch_s": torch_t, "copy_s": copy_t, "variants": {}}
        print(f"== {fam}: PyTorch " + ", ".join(f"{s} {t * 1e6:.1f} us" for s, t in torch_t.items())
              + "; a copy of the same bytes " + ", ".join(
                  f"{s} {t * 1e6:.1f} us ({base.bytes_moved(s) / t / dram * 100:.0f}% DRAM)" for s, t in copy_t.items()),
              flush=True)
        for name in entries:
            m = measured[name]
            if "failure" in m:
                row["variants"][name] = {"failure": str(m["failure"])}
                print(f"  {name:24s} FAILED: {str(m['failure'])[:300]}", flush=True)
                continue
            med = m["times_s"]
            row["variants"][name] = {"times_s": med}
            cells = []
            for s, t in med.items():
                frac = base.bytes_moved(s) / t / dram
                cells.append(f"{s} {t * 1e6:7.1f} us {frac * 100:4.0f}% DRAM {copy_t[s] / t * 100:4.0f}% copy"
                             f" {torch_t[s] / t:5.2f}x torch")
            print(f"  {name:24s} " + " | ".join(cells), flush=True)
        result["families"][fam] = row
        Path(args.out).write_text(json.dumps(result, indent=1))
    pool.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
