"""Issue 28's measure on public-style kernels: does the inferred spec work with no edit?

    python benchmarks/infer_probe.py tests/probe26 tests/probe27 [--json]

For each kernel (the file's `// kernel:` header or its first kernel), in a copy of its folder: `spec init`'s
inference (profilers/runtime/infer.py), then `spec check` (speccheck.check_spec: no error), then a run in the
CPU emulator against the kernel-as-reference snapshot at the spec's smallest sizes and their off-by-one
neighbours (tests/spec_emu.py, as tests/test_specinfer.py runs the corpus). Prints each failure with its
reason and the share that passes all three. The shapes are not compared with hand-written specs here (the
probe headers hold sizes and launches only): tests/specinfer/ does that. No GPU; g++ for the emulator.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from kernelpro.profilers.runtime.infer import infer_spec, write_spec  # noqa: E402
from kernelpro.profilers.runtime.spec import load_spec  # noqa: E402
from kernelpro.profilers.runtime.speccheck import check_spec  # noqa: E402
from kernelpro.profilers.source import parse_source  # noqa: E402


def jobs(root: Path) -> list[tuple[Path, str]]:
    out = []
    for f in sorted(root.glob("*.cu")):
        text = f.read_text()
        m = re.search(r"//\s*kernel:\s*(\w+)", text)
        ks = parse_source(text, str(f)).kernels
        if m or ks:
            out.append((f, m.group(1) if m else ks[0].name))
    return out


def probe(f: Path, kernel: str, work: Path) -> dict:
    from spec_emu import SpecRun, SpecRuns, smallest_sizes

    row = {"file": f"{f.parent.name}/{f.name}", "kernel": kernel, "problems": []}
    try:
        plan = infer_spec(f, kernel, spec_path=f.with_name(f"{f.stem}.{kernel}.kernelpro.toml"))
        write_spec(plan)
        spec = load_spec(plan.spec_path)
        errors, _ = check_spec(spec)
    except Exception as e:  # a crash of the inference or a spec that does not load: the one result
        row["problems"].append(f"inference: {type(e).__name__}: {str(e)[:200]}")
        return row
    row["problems"] += [f"spec check: {e[:200]}" for e in errors]
    try:
        run = SpecRun(spec, plan.instantiation or kernel)
        batch = SpecRuns([run], str(work))
        for size in smallest_sizes(run.spec):
            chk, _, _ = batch.check(run, size)
            if not chk.ok:
                row["problems"].append(f"emulator at {size}: {chk.reason[:200]}")
    except Exception as e:  # the emulator refuses or crashes on it
        row["problems"].append(f"emulator: {type(e).__name__}: {str(e)[:200]}")
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="kp-infer-probe-") as tmp:
        for i, d in enumerate(args.dirs):
            copy = Path(tmp) / f"{i}-{Path(d).name}"
            shutil.copytree(d, copy)
            for j, (f, k) in enumerate(jobs(copy)):
                work = Path(tmp) / "emu" / f"{i}-{j}"
                os.makedirs(work)
                rows.append(probe(f, k, work))
    ok = sum(not r["problems"] for r in rows)
    if args.json:
        print(json.dumps({"rows": rows, "passed": ok, "kernels": len(rows)}, indent=1))
    else:
        for r in rows:
            if r["problems"]:
                print(f"FAIL {r['file']} {r['kernel']}: {'; '.join(r['problems'][:2])}")
        print(f"\n{ok}/{len(rows)} inferred specs pass spec check and run against the kernel as reference with no edit")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
