"""`run_suite.py --check` (CI, no GPU): what a GPU run of the report needs, checked in well under a minute.

1. every family's launch specs are current (make_specs.py --check);
2. every kernel of the suite compiles (through the compile cache) and builds its kernel, its spec
   validates against it, and the worker job builds from the cubin (each launch's arguments against the
   compiled parameter list), at the spec's sizes and at the tiny ones below;
3. every reference runs with numpy on tiny inputs made from the spec's fills and returns each output
   with its shape, all finite;
4. docs/benchmarks/, each rule's hit rate in docs/rules.md and the README's headline regenerate byte
   for byte from the committed JSON (report.py --check).
"""
from __future__ import annotations

import dataclasses
import importlib.util
import math
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SUITE = HERE / "suite"

# Tiny sizes for the references: every variable small, except a vocabulary that the spec's token fill
# (randint:0:50000) indexes.
CHECK_SIZES = {
    "bias_grad": {"N": 37, "OC": 45},
    "crossentropy": {"N": 3, "V": 50257},
    "encoder": {"B": 2, "T": 3, "C": 8, "V": 50257},
    "gelu": {"n": 1003},
    "layernorm": {"N": 3, "C": 200},
    "residual": {"N": 1003},
    "rmsnorm": {"N": 3, "C": 136},
    "softmax": {"N": 3, "C": 1001},
    "gemm_fp32": {"M": 5, "N": 7, "K": 3},
    "gemm_aat": {"N": 5, "K": 3},
    "gemm_chain": {"M": 5, "K": 3, "N": 7, "P": 2},
    "attn_scores": {"H": 2, "T": 5, "D": 3},
    "linear_bias": {"N": 5, "C": 3, "OC": 7},
    "gemm_bf16": {"M": 5, "N": 7, "K": 3},
    "stencil2d": {"H": 5, "W": 7},
    "stencil3d": {"D": 4, "H": 5, "W": 6},
    "conv3x3": {"H": 5, "W": 7},
    "transpose": {"H": 5, "W": 7},
    "permute4d": {"B": 2, "N": 3, "H": 4, "d": 5},
    "colmatvec": {"M": 5, "N": 7},
    "sum": {"n": 1003},
    "scan": {"n": 1003},
}

# families whose outputs hold infinities by design (the masked attention scores: -inf above the diagonal)
INFINITE_OK = {"attn_scores"}


def families() -> list[str]:
    return sorted(p.parent.name for p in SUITE.glob("*/family.toml"))


def tiny_spec(spec, env: dict):
    return dataclasses.replace(spec, sizes={"tiny": dict(env)}, check_sizes={})


def check_kernel(cu: Path, arch: str = "sm_90") -> str | None:
    """Compile one kernel and validate its spec; a one-line problem, or None."""
    from kernelpro.profilers.compile import CompileOptions, compile_cuda
    from kernelpro.profilers.runtime.measure import build_job
    from kernelpro.profilers.runtime.spec import SpecError, load_spec

    where = f"{cu.parent.name}/{cu.name}"
    try:
        spec = load_spec(cu.with_name(cu.stem + ".kernelpro.toml"))
    except SpecError as e:
        return f"{where}: the spec does not validate: {e}"
    art = compile_cuda(cu, CompileOptions(arch=arch, extra_flags=tuple(spec.flags)))
    if not art.ok:
        first = art.errors[0].message if art.errors else "nvcc failed"
        return f"{where}: does not compile: {first}"
    if not art.builds(spec.kernel):
        return f"{where}: the cubin has no kernel {spec.kernel}"
    try:
        build_job(spec, art, seed=0)
        tiny = CHECK_SIZES.get(cu.parent.name)
        if tiny:
            build_job(tiny_spec(spec, tiny), art, seed=0)
    except Exception as e:  # EvalError, an expression that fails at a size
        return f"{where}: the launch does not fit the compiled kernel: {e}"
    return None


def check_reference(family: str) -> str | None:
    """Run the family's reference with numpy on tiny inputs; a one-line problem, or None."""
    from kernelpro.profilers.runtime import inputs as inp
    from kernelpro.profilers.runtime.devarrays import reference_kind
    from kernelpro.profilers.runtime.spec import load_spec

    if family not in CHECK_SIZES:
        return f"{family}: no tiny sizes in benchmarks/suite_check.py CHECK_SIZES: add them"
    try:
        spec = tiny_spec(load_spec(SUITE / family / "naive.kernelpro.toml"), CHECK_SIZES[family])
        ref = spec.reference
        mspec = importlib.util.spec_from_file_location(f"suite_check_ref_{family}", ref["python"])
        mod = importlib.util.module_from_spec(mspec)
        mspec.loader.exec_module(mod)
        fn = getattr(mod, ref["function"])
        ins = {}
        for i, a in enumerate(a for a in spec.args if a.is_buffer and (a.fill or not a.output)):
            shape = spec.shape(a.name, "tiny")
            raw = inp.values(np, inp.seed_of(0, 0, i), a.fill, a.dtype, math.prod(shape))
            ins[a.name] = inp.host_view(raw, a.dtype, shape)
        want = {a.name: math.prod(spec.shape(a.name, "tiny")) for a in spec.outputs}
    except Exception as e:  # a spec, a size or a reference module that does not load: said in one line
        return f"{family}: cannot set up the reference at {CHECK_SIZES[family]}: {type(e).__name__}: {e}"
    env = spec.env("tiny")
    try:
        out = fn(ins, dict(env), np) if reference_kind(fn) == "xp" else fn(ins, dict(env))
    except Exception as e:
        return f"{family}: the reference raised {type(e).__name__}: {e}"
    if set(out) != set(want):
        return f"{family}: the reference returned {sorted(out)}, the spec's outputs are {sorted(want)}"
    for k, n in want.items():
        v = np.asarray(out[k], dtype=np.float64)
        if v.size != n:
            return f"{family}: output {k} has {v.size} elements, the spec says {n}"
        bad = np.isnan(v) if family in INFINITE_OK else ~np.isfinite(v)
        if bad.any():
            return f"{family}: output {k} is not finite at {np.flatnonzero(bad)[:3].tolist()}"
    return None


def main() -> int:
    problems = []
    r = subprocess.run([sys.executable, str(SUITE / "make_specs.py"), "--check"], capture_output=True, text=True)
    if r.returncode:
        problems += (r.stdout + r.stderr).strip().splitlines()
    kernels = sorted(SUITE.glob("*/*.cu"))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as ex:
        problems += [p for p in ex.map(check_kernel, kernels) if p]
    fams = families()
    problems += [p for p in map(check_reference, fams) if p]
    problems += [f"CHECK_SIZES names {f}, which is not a family of the suite" for f in sorted(set(CHECK_SIZES) - set(fams))]
    import report

    problems += report.check_committed()
    for p in problems:
        print(f"check: {p}", file=sys.stderr)
    print(f"check: {len(kernels)} kernels, {len(fams)} references, the report: "
          + ("all good" if not problems else f"{len(problems)} problem{'s' if len(problems) > 1 else ''}"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
