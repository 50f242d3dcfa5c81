"""Run the candidates in this folder in the CPU emulator (tests/emu) and check them against the
family's reference, as tests/test_suite_kernels.py does for the suite's kernels.

Each candidate runs with the launch of its first line (`// launch: {...}`, as baseline_sweep.py
reads it) at the tests' small emulator size and, with --spec-sizes, at the spec's sizes and the
off-by-one sizes the evaluator checks. Files with inline PTX (`asm`) run only where they give the
emulator another path (`#ifdef KP_EMULATOR_HOOKS`); the others are listed as skipped. A kernel with
`__cluster_dims__` runs with the cluster of `emu_cluster.h` (three runs: the shared objects read
across the cluster, each block's bytes of them at every cluster barrier, then the checked run, whose
reads of another block's shared memory get those bytes); what that cannot check is said there.

    python benchmarks/suite_variants/emu_check.py [--families residual] [--spec-sizes] [--timeout 600]
"""
from __future__ import annotations

import argparse
import functools
import os
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "tests"))
sys.path.insert(0, str(HERE.parent))  # (baseline_sweep.file_launch)

from emu_run import Batch  # noqa: E402
from suite_emu import SMALL, check, load_spec, run  # noqa: E402

CLUSTER_DIMS = re.compile(r"__cluster_dims__\s*\(([^()]*)\)")


def launch_of(text: str, spec) -> dict:
    from kernelpro.optimizer import spec_edit

    from baseline_sweep import file_launch

    launch = dict(spec_edit.base_launch(spec))
    launch.update(file_launch(text))  # (the sweep's reading: a file's launch line is all of its launch)
    launch.pop("flags", None)
    return launch


# beside the tests' sizes: the other branch of each kernel (vector packs / element by element)
# and more than one block's worth where the tests' size fits in one
OTHER = {"bias_grad": {"N": 37, "OC": 48}, "residual": {"N": 5003},
         "encoder": {"B": 2, "T": 3, "C": 41, "V": 50},
         # the vocabulary's width, where a block's part of a row takes full batches of loads; 3 rows
         # start at 3 different 16-byte offsets
         "softmax": {"N": 3, "C": 50257}, "crossentropy": {"N": 3, "V": 50257},
         # wider than a warp's registers (1024) and more rows than one block of warps (8)
         "layernorm": {"N": 11, "C": 1028},
         # the scalar paths (W not a multiple of 4), every tile cut by an edge, more than one tile or strip
         # in each direction (test_suite_kernels.BEST_RAGGED); the scan: more tiles than a look-back window
         "stencil3d": {"D": 9, "H": 19, "W": 131}, "scan": {"n": 12289}}
# more rows than a persistent grid (132 blocks, one per SM) has blocks, so blocks take several rows
MANY = {"softmax": {"N": 270, "C": 1001}, "crossentropy": {"N": 270, "V": 1001},
        # the stencil's 16-byte paths over several x-tiles and strips long enough for every stage of a ring
        # (enough (x, y) tiles that a grid of one wave has 1 or 2 strips of 19 to 38 planes); the scan over
        # more than 64 tiles of 4096 (two look-back windows) and 32 of 8192
        "stencil3d": {"D": 40, "H": 1000, "W": 260}, "scan": {"n": 300007}}


def with_cluster(text: str) -> str | None:
    """text with the emulator's cluster in front (None: no __cluster_dims__). The dimensions are read at
    the end of the file, where the macros they name are defined."""
    m = CLUSTER_DIMS.search(text)
    if not m:
        return None
    args = [a.strip() for a in m.group(1).split(",")] + ["1", "1"]
    shim = (HERE / "emu_cluster.h").read_text()
    return (f"{shim}\n#line 1\n{noted(text)}\nstatic const bool kp_cluster_dims_set = "
            f"kp_cluster::set_dims({', '.join(args[:3])});\n#undef cooperative_groups\n")


def noted(text: str) -> str:
    """text with `kp_cluster::note(&x, sizeof(x));` after each `__shared__` declaration in a function
    body (not `extern`), on the same line, so the cluster knows the objects' extents."""
    code = re.sub(r"//[^\n]*|/\*.*?\*/", lambda c: " " * len(c.group(0)), text, flags=re.S)
    out, last = [], 0
    for m in re.finditer(r"\b__shared__\b", code):
        start = code.rfind(";", 0, m.start())
        start = max(start, code.rfind("{", 0, m.start()), code.rfind("}", 0, m.start()))
        if "extern" in code[start + 1:m.start()] or code[:m.start()].count("{") <= code[:m.start()].count("}"):
            continue  # dynamic shared memory, or outside a function
        depth, end = 0, m.end()
        while end < len(code) and not (code[end] == ";" and depth == 0):
            depth += code[end] in "([{"
            depth -= code[end] in ")]}"
            end += 1
        names, depth, piece = [], 0, ""
        for ch in code[m.end():end] + ",":
            if ch == "," and depth == 0:
                head = re.split(r"[\[=]", piece, maxsplit=1)[0]
                name = re.search(r"(\w+)\s*$", head)
                if name:
                    names.append(name.group(1))
                piece = ""
                continue
            depth += ch in "([{"
            depth -= ch in ")]}"
            piece += ch
        out.append(text[last:end + 1] + "".join(f" kp_cluster::note(&{n}, sizeof({n}));" for n in names))
        last = end + 1
    return "".join(out) + text[last:]


def emulate(fam, spec, text, launch, env, tmp, timeout=120.0):
    """The outputs and the inputs' views; a cluster kernel runs three times (emu_cluster.h)."""
    src = with_cluster(text)
    batch = Batch([(src or text, spec.kernel)], tmp)
    batch.run = functools.partial(Batch.run, batch, timeout=timeout)
    if src is None:
        return run(fam, spec, text, launch, env, tmp, batch=batch, index=0)
    try:
        for p in ("1", "2", "3"):
            os.environ.update(KP_CLUSTER_PASS=p, KP_CLUSTER_FILE=os.path.join(tmp, "cluster"))
            got, views = run(fam, spec, src, launch, env, tmp, batch=batch, index=0)
    finally:
        os.environ.pop("KP_CLUSTER_PASS", None)
        os.environ.pop("KP_CLUSTER_FILE", None)
    return got, views


def sizes(spec, family: str, spec_sizes: bool) -> dict:
    out = {"emu": SMALL[family], "other": OTHER[family]}
    if family in MANY:
        out["many"] = MANY[family]
    if spec_sizes:
        from kernelpro.profilers.runtime.spec import off_by_one_sizes

        out.update(spec.sizes)
        out.update(off_by_one_sizes(spec))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--families", nargs="*", default=sorted(p.name for p in HERE.iterdir() if p.is_dir() and any(p.glob("*.cu"))))
    ap.add_argument("--spec-sizes", action="store_true", help="also the spec's sizes and off-by-one sizes (slow)")
    ap.add_argument("--only", nargs="*", default=None, help="candidate stems")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per emulator run")
    args = ap.parse_args(argv)
    bad = 0
    for fam in args.families:
        spec = load_spec(fam, "best")
        for cu in sorted((HERE / fam).glob("*.cu")):
            if args.only and cu.stem not in args.only:
                continue
            text = cu.read_text()
            if "asm" in text.replace("#include", "") and "KP_EMULATOR_HOOKS" not in text:
                print(f"{fam}/{cu.stem}: skipped (inline PTX)", flush=True)
                continue
            launch = launch_of(text, spec)
            for name, env in sizes(spec, fam, args.spec_sizes).items():
                with tempfile.TemporaryDirectory() as tmp:
                    try:
                        got, views = emulate(fam, spec, text, launch, dict(env), tmp, args.timeout)
                        check(fam, spec, got, views, dict(env), f"{fam}/{cu.stem} at {name}")
                        print(f"{fam}/{cu.stem} at {name} {env}: ok", flush=True)
                    except Exception as e:  # said, and the others go on
                        bad += 1
                        print(f"{fam}/{cu.stem} at {name} {env}: FAILED: {str(e)[:500]}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
