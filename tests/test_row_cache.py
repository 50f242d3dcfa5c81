"""Rows kept in shared memory between passes, and several packed steps in flight
(optimizer/restructure/rows.py: Team.cache, Team.unroll): the multi-pass row kernels in five
spellings give numpy's results in the CPU emulator with the shared bytes and without them (the
fallback re-reads global memory), and the cache is refused where a pass writes the row, the
passes read different ranges, or an output may alias the row."""
from __future__ import annotations


import numpy as np
import pytest

from emu_run import Batch
from test_restructure import ROW_VARIANTS, TEST_CU, _bf, _unbf, compile_all, needs_gxx, rk_of

from kernelpro.optimizer.restructure import rows
from kernelpro.optimizer.restructure.text import Refuse
from kernelpro.profilers.compile import CompileOptions, compile_cuda

MULTI_PASS = {
    # max then a sum of differences, typedef'd element, size_t row
    "typedef_two_pass": """typedef float real;
__global__ void rows_k(real* __restrict__ out, const real* __restrict__ in, int n, int c) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < (size_t)n) {
    const real* x = in + i * c;
    real m = -INFINITY;
    for (int j = 0; j < c; ++j) m = x[j] > m ? x[j] : m;
    real s = 0;
    for (int j = 0; j < c; ++j) s += x[j] - m;
    for (int j = 0; j < c; ++j) out[i * c + j] = x[j] - s / c;
  }
}""",
    # softmax in three passes through pointer offsets, if-max
    "softmax_three": """__global__ void rows_k(float* __restrict__ out, const float* __restrict__ in, int n, int c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float* x = in + (size_t)i * c;
    float* y = out + (size_t)i * c;
    float mx = -INFINITY;
    for (int j = 0; j < c; j++) { if (x[j] > mx) mx = x[j]; }
    float sum = 0.0f;
    for (int j = 0; j < c; j++) sum += expf(x[j] - mx);
    for (int j = 0; j < c; j++) y[j] = expf(x[j] - mx) / sum;
  }
}""",
    # unsigned row, early return, while loops
    "while_unsigned": """__global__ void rows_k(float* __restrict__ out, const float* __restrict__ in, int n, int c) {
  const unsigned r = threadIdx.x + blockIdx.x * blockDim.x;
  if (r >= (unsigned)n) return;
  const float* x = in + (size_t)r * c;
  float ss = 0.f;
  int j = 0;
  while (j < c) { ss += x[j] * x[j]; ++j; }
  const float k = rsqrtf(ss / c + 1e-6f);
  int q = 0;
  while (q < c) { out[(size_t)r * c + q] = x[q] * k; q++; }
}""",
    # layer norm: mean, variance and write passes, index arithmetic in the subscripts
    "layernorm_index": """__global__ void rows_k(float* __restrict__ out, const float* __restrict__ inp, int n, int c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float m = 0.0f;
    for (int j = 0; j < c; j++) m += inp[i * c + j];
    m = m / c;
    float v = 0.0f;
    for (int j = 0; j < c; j++) { float d = inp[i * c + j] - m; v += d * d; }
    float s = 1.0f / sqrtf(v / c + 1e-5f);
    for (int j = 0; j < c; j++) out[i * c + j] = (inp[i * c + j] - m) * s;
  }
}""",
    # bf16 storage behind a typedef, float arithmetic, auto row (test_restructure's kernel, restricted)
    "bf16_rms": ROW_VARIANTS["bf16_scale"].replace("rowsum", "rows_k").replace(
        "floatX* out, const floatX* in", "floatX* __restrict__ out, const floatX* __restrict__ in"),
}


def _want(name, x):
    x = x.astype(np.float64)
    if name == "typedef_two_pass":
        s = (x - x.max(1, keepdims=True)).sum(1, keepdims=True)
        return x - s / x.shape[1]
    if name == "softmax_three":
        e = np.exp(x - x.max(1, keepdims=True))
        return e / e.sum(1, keepdims=True)
    if name in ("while_unsigned", "bf16_rms"):
        eps = 1e-6
        return x / np.sqrt((x * x).mean(1, keepdims=True) + eps)
    m = x.mean(1, keepdims=True)
    return (x - m) / np.sqrt(((x - m) ** 2).mean(1, keepdims=True) + 1e-5)


@needs_gxx
@pytest.mark.slow
def test_rows_kept_in_shared_memory_compute_the_same_with_and_without_the_shared_bytes(tmp_path):
    runs = []
    for name, text in MULTI_PASS.items():
        src, rk = rk_of(text)
        assert rk.ok, (name, rk.reasons)
        cache = rows.row_cache(src, rk)
        assert cache is not None and len(cache.consumers) >= 1, name
        vec = 8 if name == "bf16_rms" else 4
        new = rows.team_rows(src, rk, rows.Team("block", vec, 4, True))
        assert "kp_row_cache" in new and "kp_hit ? kp_cache[kp_q]" in new and "#pragma unroll 4" in new, name
        runs.append((name, new))
    compile_all([t for _, t in runs], "rows_k")
    batch = Batch([(t, "rows_k") for _, t in runs], str(tmp_path))
    rng = np.random.default_rng(5)
    n, c = 3, 203  # rows of an odd length: each row starts at another alignment
    for i, (name, _) in enumerate(runs):
        x = rng.standard_normal((n, c)).astype(np.float32)
        bf = name == "bf16_rms"
        xin = _bf(x) if bf else x
        want = _want(name, _unbf(xin) if bf else x).reshape(-1)
        for shared in (4 * c + 16, 0):  # the row in shared memory; too few bytes: read again
            out = np.zeros(n * c, np.uint16) if bf else np.full(n * c, np.nan, np.float32)
            got = batch.run(i, [out, xin.reshape(-1), n, c], [n], [64], shared_bytes=shared)[0]
            got = _unbf(got) if bf else got
            np.testing.assert_allclose(got.astype(np.float64), want, rtol=2e-2 if bf else 1e-4,
                                       atol=2e-2 if bf else 1e-5, err_msg=f"{name}, {shared} shared bytes")


NOT_CACHED = {
    # the second pass writes the row the third reads
    "in_place": """__global__ void rows_k(float* __restrict__ x, int n, int c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float mx = -INFINITY;
    for (int j = 0; j < c; j++) mx = fmaxf(mx, x[i * c + j]);
    for (int j = 0; j < c; j++) x[i * c + j] = expf(x[i * c + j] - mx);
    float s = 0.0f;
    for (int j = 0; j < c; j++) s += x[i * c + j];
    for (int j = 0; j < c; j++) x[i * c + j] /= s;
  }
}""",
    # the passes read different ranges of the row
    "other_range": """__global__ void rows_k(float* __restrict__ out, const float* __restrict__ in, int n, int c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < c; j++) s += in[i * c + j];
    for (int j = 0; j < c - 1; j++) out[i * c + j] = in[i * c + j] - s;
  }
}""",
    # out may be the same buffer as in (no __restrict__): a write to out may change the row
    "may_alias": """__global__ void rows_k(float* out, const float* in, int n, int c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < c; j++) s += in[i * c + j];
    for (int j = 0; j < c; j++) out[i * c + j] = in[i * c + j] / s;
  }
}""",
}


@pytest.mark.parametrize("name", sorted(NOT_CACHED))
def test_no_row_cache_where_the_row_may_change_or_the_passes_differ(name):
    src, rk = rk_of(NOT_CACHED[name])
    assert rows.row_cache(src, rk) is None
    if rk.ok and rk.spread:
        with pytest.raises(Refuse):
            rows.team_rows(src, rk, rows.Team("block", 4, 1, True))


ONLINE_LSE = """__global__ void rows_k(float* __restrict__ out, const float* __restrict__ in, int n, int c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float* x = in + (size_t)i * c;
    float m = -INFINITY, s = 0.0f;
    for (int j = 0; j < c; j++) {
      const float v = x[j];
      if (v > m) { s = s * __expf(m - v); m = v; }
      s += __expf(v - m);
    }
    out[i] = logf(s) + m;
  }
}"""


def test_unrolled_row_loop_keeps_several_loads_in_flight(tmp_path):
    """An online (max and rescaled sum) row loop, packed: as written nvcc uses each 16-byte load
    before it issues the next (at most 2 in a row); with Team.unroll = 4 it issues more."""
    src, rk = rk_of(ONLINE_LSE)
    outs = {}
    for u in (1, 4):
        new = rows.team_rows(src, rk, rows.Team("block", 4, u))
        art = compile_cuda(TEST_CU, CompileOptions(arch="sm_90"), text=new)
        assert art.ok, "\n".join(d.message for d in art.errors)
        (k,) = art.builds("rows_k")
        best = run = 0
        for ins in k.sass:
            if ins.base == "LDG" and "128" in ins.mods:
                run += 1
                best = max(best, run)
            elif ins.base in ("FADD", "FFMA", "FMNMX", "MUFU", "FSETP"):
                run = 0
        outs[u] = best
    assert outs[4] > outs[1], outs


SOFTMAX_HOST = """__global__ void sm(float* out, const float* in, int n, int c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float m = -INFINITY; for (int j = 0; j < c; j++) m = fmaxf(m, in[i*c+j]);
    float s = 0; for (int j = 0; j < c; j++) s += expf(in[i*c+j] - m);
    for (int j = 0; j < c; j++) out[i*c+j] = expf(in[i*c+j] - m) / s;
  }
}
void run(float* o, const float* x, int n, int c) { sm<<<(n + 255) / 256, 256>>>(o, x, n, c); }"""


def _block_plan(text, c):
    from kernelpro.optimizer.restructure.api import Context, row_plans
    ctx = Context(kernel="sm", path=TEST_CU, launch={"grid": ["cdiv(N, 256)"], "block": [256]}, base_launch=None,
                  size_env={"large": {"N": 1024, "C": c, "n": 1024, "c": c}}, scalar_params={"n": "N", "c": "C"})
    return next(p for p in row_plans(text, ctx) if p.name == "row-block")


def test_long_rows_plan_the_shared_memory_row_first_and_say_what_the_launch_needs():
    plan = _block_plan(SOFTMAX_HOST, 50257)
    first = plan.space[0]
    assert first.get("cache") == 1 and first.get("unroll") == 4, plan.space
    cand = plan.build(first)
    # the outputs could overlap the row: __restrict__ is added and said, so that the row may be kept
    assert "add __restrict__" in cand.description and "the row kept in shared memory" in cand.description
    assert cand.launch["shared_bytes"] == "min(4 * ((C)) + 16, 231936)"  # beside its static reduction buffers
    line = next(i for i, ln in enumerate(cand.source.split("\n"), 1) if "sm<<<" in ln)
    assert any(n.startswith(f"line {line}: ") and "cudaFuncSetAttribute(sm, cudaFuncAttributeMaxDynamicSharedMemorySize"
               in n for n in cand.notes), (line, cand.notes)
    compile_all([cand.source], "sm")


def test_the_shared_memory_row_asks_for_what_fits_beside_the_static_shared_memory():
    """Static and dynamic shared memory of a block share 227 KB: rows of 57,800 columns and longer
    (the spec's and longer ones, which read global memory again) must still launch."""
    from kernelpro.profilers.runtime.expr import evaluate

    plan = _block_plan(SOFTMAX_HOST, 57800)
    cand = plan.build(plan.space[0])
    assert plan.space[0].get("cache") == 1
    art = compile_cuda(TEST_CU, CompileOptions(arch="sm_90"), text=cand.source)
    assert art.ok, "\n".join(d.message for d in art.errors)
    (k,) = art.builds("sm")
    assert k.resources.shared_bytes > 0  # the block reductions' buffers
    for c in (57800, 58200, 100000):
        dynamic = evaluate(cand.launch["shared_bytes"], {"C": c, "N": 1024})
        assert dynamic + k.resources.shared_bytes <= 227 * 1024, (c, dynamic, k.resources.shared_bytes)
        assert dynamic >= min(4 * c + 16, 227 * 1024 - 1024)  # and no less than the row where it fits


def test_short_rows_keep_the_plain_block_plan():
    """Rows of a few KB (layer norm widths) stay in L2 between passes: no cache, no unrolling."""
    plan = _block_plan(SOFTMAX_HOST, 4096)
    assert all(not s.get("cache") and s.get("unroll", 1) == 1 for s in plan.space), plan.space
