"""The benchmark suite (benchmarks/suite): specs generated and valid, every kernel compiles,
and every naive kernel, its hand-written best and the structural candidates the optimizer
makes from it compute the family's reference at small sizes in the CPU emulator."""
from __future__ import annotations

import glob
import os
import subprocess
import sys

import pytest

from compile_batch import candidates_compile
from emu_run import Batch
from suite_emu import SMALL, SUITE, check, load_spec, run

from kernelpro.optimizer.builtin import BuiltinProposer
from kernelpro.optimizer.transforms import TransformInput
from kernelpro.profilers.compile import CompileOptions, compile_cuda

NAIVE = sorted(glob.glob(os.path.join(SUITE, "*", "naive*.cu")))
# the matrix-product families: one naive spelling here (alpha/beta accumulated in global memory); every
# matmul rewrite runs on twenty spellings (row pointers, batched causal products, A·Aᵀ among them) in
# tests/test_matmul_rewrites.py, and each of these emulated runs costs up to a minute and a half of the
# CI's two cores
MATMUL = ("gemm_fp32", "gemm_aat", "gemm_chain", "attn_scores", "linear_bias", "gemm_bf16")
MATMUL_HERE = ("gemm_fp32/naive_global",)
RESTRUCTURED = [p for p in NAIVE if os.path.basename(os.path.dirname(p)) not in MATMUL
                or f"{os.path.basename(os.path.dirname(p))}/{os.path.basename(p)[:-3]}" in MATMUL_HERE]
ALL = sorted(glob.glob(os.path.join(SUITE, "*", "*.cu")))
# families whose naive kernels the optimizer has no structural plan for yet: such a kernel is still checked
# as written, then the test is an expected failure naming the plans' refusals. Empty: every family's naive
# kernels get a plan now (issue 27's were the last), and their candidates are checked like the others'.
PLANS_PENDING: tuple = ()
# the bests of those families at a second emulator size: their scalar paths (the contiguous extent not a
# multiple of 4), tiles cut by every edge, more than one tile, strip or block in each direction
BEST_RAGGED = {
    "stencil2d": {"H": 70, "W": 517},
    "stencil3d": {"D": 9, "H": 19, "W": 131},
    "conv3x3": {"H": 70, "W": 517},
    "transpose": {"H": 37, "W": 45},
    "permute4d": {"B": 2, "N": 5, "H": 3, "d": 13},
    "colmatvec": {"M": 150, "N": 261},
    "sum": {"n": 7},
    "scan": {"n": 12289},
    "layernorm": {"N": 11, "C": 1030},  # C not a multiple of 4: the block's plain path, element by element
}
GXX = __import__("shutil").which("g++")


def ids(p):
    return f"{os.path.basename(os.path.dirname(p))}/{os.path.basename(p)[:-3]}"


def test_every_family_has_naive_kernels_a_best_one_and_current_specs():
    fams = sorted(os.path.basename(os.path.dirname(p)) for p in glob.glob(os.path.join(SUITE, "*", "family.toml")))
    assert fams == sorted(SMALL), "each family needs emulator sizes in tests/suite_emu.py"
    for f in fams:
        assert os.path.exists(os.path.join(SUITE, f, "best.cu")), f
        assert glob.glob(os.path.join(SUITE, f, "naive*.cu")), f
    r = subprocess.run([sys.executable, os.path.join(SUITE, "make_specs.py"), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("path", ALL, ids=ids)
def test_suite_kernel_compiles_and_its_spec_validates(path):
    spec = load_spec(os.path.basename(os.path.dirname(path)), os.path.basename(path)[:-3])
    art = compile_cuda(path, CompileOptions(arch="sm_90"))
    assert art.ok and art.builds(spec.kernel), [d.message for d in art.errors]


def _structural(path: str, spec):
    from kernelpro.optimizer import spec_edit
    text = open(path).read()
    base = spec_edit.base_launch(spec)
    p = BuiltinProposer(spec.kernel, base, [], path=path, spec=spec)
    inp = TransformInput(source=text, kernel=spec.kernel, launch=dict(base), base_launch=None)
    return text, base, p, p.structural_candidates(inp)


@pytest.mark.slow
@pytest.mark.skipif(GXX is None, reason="needs g++ for the emulator")
@pytest.mark.parametrize("path", RESTRUCTURED, ids=ids)
def test_naive_kernel_and_its_restructured_candidates_compute_the_reference(path, tmp_path):
    family, stem = os.path.basename(os.path.dirname(path)), os.path.basename(path)[:-3]
    spec = load_spec(family, stem)
    env = SMALL[family]
    text, base, prop, cands = _structural(path, spec)
    if not cands and family in PLANS_PENDING:
        got, views = run(family, spec, text, base, env, str(tmp_path))
        check(family, spec, got, views, env, f"{stem} as written")
        pytest.xfail(f"no structural plan yet for {family}/{stem} (issue 27): {prop.plans_refused}")
    assert cands, f"no structural candidate for {family}/{stem}: {prop.plans_refused}"
    # a host launcher's library kernel runs from host code, which the emulator does not run: the block's kernel is
    # emulated in tests/test_scan_library.py and the launcher's candidates are checked on the GPU there
    cands = [(c, p) for c, p in cands if not c.runs_host_launcher]
    runs = [(f"{stem} as written", text, base)]
    compiled = candidates_compile(prop, [c for c, _ in cands])  # prop.compile_error of each, in few nvcc calls
    for (c, _), problem in zip(cands, compiled):
        # the plan's first knob setting (the others run on the GPU: tests/test_restructure_gpu.py)
        for cand in (c,):
            assert problem is None, (cand.description, problem)
            knobs = dict(cand.knobs)
            if knobs.get("cluster", 1) > 1:
                # the emulator runs one block at a time: a cluster's distributed shared memory is
                # checked on the GPU (test_restructure_gpu.py); here the same plan, one block
                cand = prop.tuner.states[cand.key()].plan.build({**knobs, "cluster": 1})
            runs.append((f"{cand.description} {knobs}", cand.source, {**base, **cand.launch}))
    batch = Batch([(src, spec.kernel) for _, src, _ in runs], str(tmp_path))
    for i, (what, src, launch) in enumerate(runs):
        got, views = run(family, spec, src, launch, env, str(tmp_path), batch=batch, index=i)
        check(family, spec, got, views, env, what)
    assert len(runs) == len(cands) + 1


CLUSTER_BEST = ("softmax",)


@pytest.mark.slow
@pytest.mark.skipif(GXX is None, reason="needs g++ for the emulator")
@pytest.mark.parametrize("family", sorted(f for f in SMALL if f not in CLUSTER_BEST))
def test_hand_written_best_computes_the_reference(family, tmp_path):
    """(Softmax's best kernel needs a real thread-block cluster: it runs in the GPU tests.)"""
    spec = load_spec(family, "best")
    from kernelpro.optimizer import spec_edit
    text = open(os.path.join(SUITE, family, "best.cu")).read()
    got, views = run(family, spec, text, spec_edit.base_launch(spec), SMALL[family], str(tmp_path))
    check(family, spec, got, views, SMALL[family], f"{family}/best")


@pytest.mark.slow
@pytest.mark.skipif(GXX is None, reason="needs g++ for the emulator")
@pytest.mark.parametrize("family", sorted(BEST_RAGGED))
def test_hand_written_best_at_a_ragged_size(family, tmp_path):
    spec = load_spec(family, "best")
    from kernelpro.optimizer import spec_edit
    text = open(os.path.join(SUITE, family, "best.cu")).read()
    env = BEST_RAGGED[family]
    got, views = run(family, spec, text, spec_edit.base_launch(spec), env, str(tmp_path))
    check(family, spec, got, views, env, f"{family}/best at {env}")
