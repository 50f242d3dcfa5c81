"""Run the candidates in this folder in the CPU emulator (tests/emu) and check them against the
family's reference, as tests/test_suite_kernels.py does for the suite's kernels.

Each candidate runs with the launch of its first line (`// launch: {...}`, as baseline_sweep.py
reads it) at the tests' small emulator size and, with --spec-sizes, at the spec's sizes and the
off-by-one sizes the evaluator checks. Files with inline PTX (`asm`) cannot run in the emulator:
they are listed as skipped. A thread-block cluster runs as a cluster of one block (the emulator's
cooperative_groups stub).

    python benchmarks/suite_variants/emu_check.py [--families residual] [--spec-sizes]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "tests"))

from suite_emu import SMALL, check, load_spec, run  # noqa: E402


def launch_of(text: str, spec) -> dict:
    from kernelpro.optimizer import spec_edit

    launch = dict(spec_edit.base_launch(spec))
    first = text.splitlines()[0] if text else ""
    if first.startswith("// launch:"):
        launch.update(json.loads(first.split(":", 1)[1]))
    launch.pop("flags", None)
    return launch


# beside the tests' sizes: the other branch of each kernel (vector packs / element by element)
# and more than one block's worth where the tests' size fits in one
OTHER = {"bias_grad": {"N": 37, "OC": 48}, "residual": {"N": 5003},
         "encoder": {"B": 2, "T": 3, "C": 41, "V": 50}}


def sizes(spec, family: str, spec_sizes: bool) -> dict:
    out = {"emu": SMALL[family], "other": OTHER[family]}
    if spec_sizes:
        from kernelpro.profilers.runtime.spec import off_by_one_sizes

        out.update(spec.sizes)
        out.update(off_by_one_sizes(spec))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--families", nargs="*", default=sorted(p.name for p in HERE.iterdir() if p.is_dir()))
    ap.add_argument("--spec-sizes", action="store_true", help="also the spec's sizes and off-by-one sizes (slow)")
    ap.add_argument("--only", nargs="*", default=None, help="candidate stems")
    args = ap.parse_args(argv)
    bad = 0
    for fam in args.families:
        spec = load_spec(fam, "best")
        for cu in sorted((HERE / fam).glob("*.cu")):
            if args.only and cu.stem not in args.only:
                continue
            text = cu.read_text()
            if "asm" in text.replace("#include", ""):
                print(f"{fam}/{cu.stem}: skipped (inline PTX)", flush=True)
                continue
            launch = launch_of(text, spec)
            for name, env in sizes(spec, fam, args.spec_sizes).items():
                with tempfile.TemporaryDirectory() as tmp:
                    try:
                        got, views = run(fam, spec, text, launch, dict(env), tmp)
                        check(fam, spec, got, views, dict(env), f"{fam}/{cu.stem} at {name}")
                        print(f"{fam}/{cu.stem} at {name} {env}: ok", flush=True)
                    except Exception as e:  # said, and the others go on
                        bad += 1
                        print(f"{fam}/{cu.stem} at {name} {env}: FAILED: {str(e)[:500]}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
