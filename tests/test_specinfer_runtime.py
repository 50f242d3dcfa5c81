"""The kernel-as-reference through the real runtime (issue 28, item 3): an inferred spec's snapshot compiled
into its own module with the run's options (never a candidate's flags), launched with its own launch; on
the fake pycuda here, and on a real GPU where there is one (`gpu` marker)."""
from __future__ import annotations

from pathlib import Path

import pytest

from fake_pycuda import fake_pool  # noqa: F401  (a pytest fixture)
from kernelpro.profilers.compile import CompileOptions, compile_cuda
from kernelpro.profilers.runtime.infer import infer_spec, write_spec
from kernelpro.profilers.runtime.measure import build_job, evaluate
from kernelpro.profilers.runtime.spec import load_spec

VECADD = """\
#ifdef KP_CANDIDATE_FLAG
#error "the reference was compiled with a candidate's flags"
#endif
__global__ void vecadd(float* out, const float* a, const float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}
void go(float* out, const float* a, const float* b, int n) { vecadd<<<(n + 127) / 128, 128>>>(out, a, b, n); }
"""
CANDIDATE = VECADD.split("#endif\n")[1]  # the candidate drops the guard: its own flag is allowed


def _inferred(tmp_path: Path):
    cu = tmp_path / "vecadd.cu"
    cu.write_text(VECADD)
    plan = infer_spec(cu)
    write_spec(plan)
    return cu, load_spec(plan.spec_path)


def test_the_snapshot_reference_runs_as_its_own_module_with_its_own_launch(tmp_path, fake_pool):
    cu, spec = _inferred(tmp_path)
    assert spec.reference["file"] == tmp_path / "vecadd.vecadd.reference.cu"
    assert spec.reference["step"].grid == ("cdiv(n, 128)",) and spec.reference["step"].block == ("128",)
    art, ref = compile_cuda(cu, CompileOptions()), compile_cuda(spec.reference["file"], CompileOptions())
    job = build_job(spec, art, ref, timing=False)
    assert job["reference"]["cubin"] == ref.cubin != job["cubin"] and job["sizes"][0]["ref_steps"]
    moved = spec.with_launch({"grid": ["cdiv(n, 64)"], "block": [64]})  # a candidate's launch ...
    assert moved.reference["step"].block == ("128",)  # ... does not move the reference's
    r = evaluate(cu, spec, CompileOptions(), pool=fake_pool, seed=1, timing=False, sizes=["small"])
    assert r.ok, r.failure


def test_a_candidates_flags_do_not_reach_the_reference(tmp_path, fake_pool):
    cu, spec = _inferred(tmp_path)
    flagged = CompileOptions(extra_flags=("-DKP_CANDIDATE_FLAG",))
    r = evaluate(cu, spec, flagged, source_text=CANDIDATE, pool=fake_pool, seed=1, timing=False, sizes=["small"],
                 ref_options=CompileOptions())
    assert r.ok, r.failure
    r = evaluate(cu, spec, flagged, source_text=CANDIDATE, pool=fake_pool, seed=1, timing=False, sizes=["small"])
    assert not r.ok and "reference kernel vecadd" in r.failure and "does not compile" in r.failure


@pytest.mark.gpu
def test_an_inferred_spec_runs_on_the_gpu_against_the_kernel_as_reference(tmp_path):
    from kernelpro.profilers.runtime.worker import WorkerPool

    cu, spec = _inferred(tmp_path)
    pool = WorkerPool(timeout_s=120)
    try:
        r = evaluate(cu, spec, CompileOptions(), pool=pool, timing=True)
        assert r.ok, r.failure
        wrong = CANDIDATE.replace("a[i] + b[i]", "a[i] - b[i]")  # an edit the snapshot catches
        r = evaluate(cu, spec, CompileOptions(), source_text=wrong, pool=pool, timing=False)
        assert not r.ok and "expected" in r.failure
    finally:
        pool.close()
