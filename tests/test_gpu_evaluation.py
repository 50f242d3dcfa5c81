"""The evaluator's device-side paths on a real GPU (skipped without one): device variables put back
before every launch (through cuModuleGetGlobal), the parameter buffer laid out from the cubin, memset
steps, references on the GPU with CuPy and torch, checks on the GPU agreeing with checks on the host,
and Compute Sanitizer's verdicts on a kernel that reads past its input."""
from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from kernelpro.profilers.compile import CompileOptions
from kernelpro.profilers.runtime.worker import WorkerPool

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def pool():
    p = WorkerPool(timeout_s=120)
    yield p
    p.close()


def _case(tmp: Path, cu: str, spec: str, ref: str = "") -> tuple[Path, object]:
    from kernelpro.profilers.runtime.spec import load_spec

    (tmp / "k.cu").write_text(textwrap.dedent(cu))
    (tmp / "k.kernelpro.toml").write_text(textwrap.dedent(spec))
    if ref:
        (tmp / "k_ref.py").write_text(textwrap.dedent(ref))
    return tmp / "k.cu", load_spec(tmp / "k.kernelpro.toml")


COUNTER = """\
    __device__ unsigned int launches;
    __device__ unsigned int done;
    __global__ void count(float* out, int n) {
      static __device__ unsigned int calls = 0;
      __shared__ unsigned int seen[2];
      if (threadIdx.x == 0) { seen[0] = launches; seen[1] = calls; }
      __syncthreads();
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) out[i] = 1.0f + seen[0] + seen[1];  // 1 only when both counters start at zero
      __syncthreads();
      if (threadIdx.x == 0) {
        __threadfence();
        if (atomicAdd(&done, 1u) == gridDim.x - 1) { launches++; calls++; done = 0; }
      }
    }
    """
COUNTER_SPEC = """\
    kernel = "count"
    [sizes]
    small = { n = 100000 }
    [[args]]
    name = "out"
    dtype = "float32"
    shape = ["n"]
    output = true
    [[args]]
    name = "n"
    value = "n"
    [launch]
    grid = ["cdiv(n, 256)"]
    block = [256]
    [reference]
    python = "k_ref.py:reference"
    """
COUNTER_REF = """\
    def reference(inputs, sizes, xp):
        return {"out": xp.ones(sizes["n"])}
    """


def test_device_variables_are_reset_before_every_launch(pool, tmp_path):
    from kernelpro.profilers.runtime.measure import evaluate

    cu, spec = _case(tmp_path, COUNTER, COUNTER_SPEC, COUNTER_REF)
    r = evaluate(cu, spec, CompileOptions(), pool=pool, seed=1)
    assert r.ok, r.failure  # every launch, timed ones included, saw both counters at zero
    s = r.sizes[0]
    assert set(s.device_state) == {"launches", "done", "_ZZ5countPfiE5calls"} and s.checked >= 10 and not s.notes
    assert r.checks["array"] == "cupy"


TYPED = """\
    #include <cstddef>
    __global__ void typed(float* out, const float* x, int m, size_t n, float s, char c) {
      size_t i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < (size_t)m) out[i] = x[i] * s + (float)n + c;
    }
    __global__ void accumulate(float* out, const float* x, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) out[i] += x[i];
    }
    """
TYPED_SPEC = """\
    kernel = "typed"
    [sizes]
    small = { n = 100000 }
    [[args]]
    name = "out"
    dtype = "float32"
    shape = ["n"]
    output = true
    [[args]]
    name = "x"
    dtype = "float32"
    shape = ["n"]
    [[args]]
    name = "n"
    value = "n"
    [[scratch]]
    name = "acc"
    dtype = "float32"
    shape = ["n"]
    [[launches]]
    kernel = "typed"
    grid = ["cdiv(n, 256)"]
    block = [256]
    args = ["acc", "x", "n", "n", "0.5", "3"]
    [[launches]]
    memset = "out"
    [[launches]]
    kernel = "accumulate"
    grid = ["cdiv(n, 256)"]
    block = [256]
    args = ["out", "acc", "n"]
    [reference]
    python = "k_ref.py:reference"
    """
TYPED_REF = """\
    def reference(inputs, sizes, torch):
        return {"out": inputs["x"].double() * 0.5 + sizes["n"] + 3}
    """


def test_typed_arguments_memset_steps_and_a_torch_reference(pool, tmp_path):
    from kernelpro.profilers.runtime.measure import evaluate

    pytest.importorskip("torch")
    cu, spec = _case(tmp_path, TYPED, TYPED_SPEC, TYPED_REF)
    assert spec.launches[0].dtypes[2:] == ("int32", "uint64", "float32", "int8")
    r = evaluate(cu, spec, CompileOptions(), pool=pool, seed=2)
    assert r.ok, r.failure


def test_checks_on_the_gpu_agree_with_checks_on_the_host():
    import numpy as np

    from kernelpro.profilers.runtime import correctness as cr
    from kernelpro.profilers.runtime.inputs import STORAGE, bf16_bits

    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng(4)
    for dtype in ("float32", "float16", "bfloat16", "float64", "int32"):
        ref = rng.standard_normal((300, 70)) * 4
        ref = np.round(ref) if dtype == "int32" else ref
        good = bf16_bits(ref.astype(np.float32)) if dtype == "bfloat16" else ref.astype(STORAGE[dtype])
        bad = good.copy()
        cr.poison(bad[5])
        bad[7, 7] = bad[7, 8]
        tol = cr.default_tolerance(dtype, 70)
        for out in (good, bad):
            host = cr.compare(out, ref, tol.rtol, tol.atol, dtype=dtype, atol_rms=tol.atol_rms, note=tol.note)
            dev = cr.compare(cupy.asarray(out), cupy.asarray(ref), tol.rtol, tol.atol, dtype=dtype,
                             atol_rms=tol.atol_rms, note=tol.note)
            assert dev.reason == host.reason and dev.mismatched == host.mismatched, (dtype, dev.reason)
            th = cr.thresholds(cupy.asarray(ref), dtype, tol)
            assert int(cr.count_bad(cupy.asarray(out), th, dtype)[0]) == host.mismatched


def test_a_planted_bug_fails_the_same_way_with_checks_on_the_gpu_and_on_the_host(pool):
    from kernelpro.profilers.runtime.measure import evaluate
    from kernelpro.profilers.runtime.spec import load_spec

    gpu = Path(__file__).resolve().parents[1] / "examples" / "gpu"
    spec = load_spec(gpu / "skip_last_block.kernelpro.toml")
    device = evaluate(gpu / "skip_last_block.cu", spec, CompileOptions(), pool=pool, sizes=["small"], seed=3)
    with WorkerPool(timeout_s=120, env=dict(os.environ, KERNELPRO_HOST_CHECKS="1")) as host_pool:
        host = evaluate(gpu / "skip_last_block.cu", spec, CompileOptions(), pool=host_pool, sizes=["small"], seed=3)
    assert device.checks["array"] == "cupy" and host.checks["array"] == "numpy"
    assert not device.ok and not host.ok
    assert device.sizes[0].check["unwritten"] == host.sizes[0].check["unwritten"] == 1000003 - 3906 * 256


OOB = """\
    __global__ void shifted(const float* x, float* y, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) y[i] = x[i] + 0.f * x[i + 4];  // reads 16 bytes past the end, multiplies them by zero
    }
    """
OOB_SPEC = """\
    kernel = "shifted"
    [sizes]
    small = { n = 1000 }
    [[args]]
    name = "x"
    dtype = "float32"
    shape = ["n"]
    [[args]]
    name = "y"
    dtype = "float32"
    shape = ["n"]
    output = true
    [[args]]
    name = "n"
    value = "n"
    [launch]
    grid = ["cdiv(n, 256)"]
    block = [256]
    [reference]
    python = "k_ref.py:reference"
    """
OOB_REF = """\
    def reference(inputs, sizes, xp):
        return {"y": inputs["x"].astype(xp.float64)}
    """


def test_compute_sanitizer_catches_a_read_past_the_end_that_passes_every_check(pool, tmp_path):
    from kernelpro.profilers.runtime.measure import measure_spec
    from kernelpro.profilers.runtime.sanitizer import find_sanitizer

    if find_sanitizer() is None:
        pytest.skip("compute-sanitizer not found")
    cu, spec = _case(tmp_path, OOB, OOB_SPEC, OOB_REF)
    plain = measure_spec(cu, spec, CompileOptions(), energy=False, pool=pool)
    assert plain["result"].ok, plain["result"].failure  # numerically right
    checked = measure_spec(cu, spec, CompileOptions(), energy=False, pool=pool, sanitize=True)
    res = checked["result"]
    assert not res.ok and res.failure.startswith("compute-sanitizer memcheck: Invalid __global__ read"), res.failure
    assert any(a.rule == "sanitizer" for a in checked["advice"])
