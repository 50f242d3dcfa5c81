"""Advice on real code (issue 29, items 1-7): each test reproduces a defect found on public
code with a small kernel, compiled and profiled for real (nvcc, ptxas, nvdisasm)."""
from __future__ import annotations

from pathlib import Path

import pytest

from kernelpro.profilers.profile import profile_file


def profile(tmp_path: Path, text: str, name: str = "k.cu", **kw):
    p = tmp_path / name
    p.write_text(text)
    r = profile_file(p, **kw)
    assert r.ok, [d.message for d in r.errors]
    return r


def rule(r, rule_id: str):
    return [a for a in r.advice if a.rule == rule_id]


def line_of(text: str, needle: str) -> int:
    return next(i for i, l in enumerate(text.split("\n"), 1) if needle in l)


def span(text: str, a) -> str:
    return text.split("\n")[a.line - 1][a.column - 1:a.end_column - 1]


# --- 1. local-memory anchors on the run-time subscript ----------------------------------

HIST48 = """\
__global__ void hist48(const float* x, int* out, int n, float nb)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int c[48];
    int b;
    for (b = 0; b < 48; ++b) c[b] = 0;
    for (; i < n; i += blockDim.x * gridDim.x) {
        b = (int)(x[i] * nb) % 48;
        c[b] += 1;
    }
    for (b = 0; b < 48; ++b) atomicAdd(&out[b], c[b]);
}
"""


def test_local_memory_counter_name_reused_for_a_run_time_index(tmp_path):
    """`b` counts the zero-init loop (constant once unrolled) and later holds a bin read from
    memory: the cause is `c[b] += 1`, not the init loop, whose `b` is a counter only there."""
    (a,) = rule(profile(tmp_path, HIST48), "local-memory")
    assert a.line == line_of(HIST48, "c[b] += 1") and span(HIST48, a) == "b"
    assert line_of(HIST48, "c[b] = 0") in {loc.line for loc in a.related}


def test_local_memory_run_time_subscript_expression(tmp_path):
    text = HIST48.replace("        b = (int)(x[i] * nb) % 48;\n        c[b] += 1;\n",
                          "        c[(int)(x[i] * nb) % 48] += 1;\n")
    (a,) = rule(profile(tmp_path, text), "local-memory")
    assert span(text, a) == "(int)(x[i] * nb) % 48"


# --- 2. missing-restrict: in-place launches, existing const ---------------------------

SMOOTH = """\
__global__ void smooth(float* y, float* x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1) {
        y[i] = 0.25f * x[i - 1] + 0.5f * x[i] + 0.25f * x[i + 1];
        y[i] += x[i] * 0.001f;
    }
}

void run(float* d, int n)
{
    smooth<<<(n + 255) / 256, 256>>>(LAUNCH_ARGS, n);
}
"""


def test_restrict_not_advised_on_a_kernel_the_file_launches_in_place(tmp_path):
    assert rule(profile(tmp_path, SMOOTH.replace("LAUNCH_ARGS", "d, d")), "missing-restrict") == []
    assert rule(profile(tmp_path, SMOOTH.replace("LAUNCH_ARGS", "d + 1, (float*)d"), "b.cu"), "missing-restrict") == []
    # two buffers: the advice stands
    two = SMOOTH.replace("float* d, int n", "float* d, float* e, int n").replace("LAUNCH_ARGS", "d, e")
    assert len(rule(profile(tmp_path, two, "c.cu"), "missing-restrict")) == 1


STENCIL = """\
__device__ float tap(const float* p, int i) { return p[i]; }

__global__ void stencil(float* out, const float* in, const float* w, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1) {
        out[i] = w[0] * tap(in, i - 1) + w[1] * in[i] + w[2] * in[i + 1];
        out[i] += w[0] * in[i];
    }
}

void run(float* o, const float* x, const float* w, int n)
{
    stencil<<<(n + 255) / 256, 256>>>(o, x, w, n);
}
"""


def test_restrict_fix_keeps_const_of_a_pointer_passed_to_a_helper(tmp_path):
    """`in` goes to `tap(const float*, int)`: the fix must not make it `float* __restrict__ in`
    (the helper call and the host's `const float*` argument would no longer compile)."""
    from kernelpro.profilers.compile import compile_cuda
    (a,) = rule(profile(tmp_path, STENCIL), "missing-restrict")
    new = {e["new_text"] for e in a.fix["edits"]}
    assert "const float* __restrict__ in" in new and "float* __restrict__ in" not in new
    lines = STENCIL.split("\n")
    for e in sorted(a.fix["edits"], key=lambda e: (e["line"], e["column"]), reverse=True):
        assert e["line"] == e["end_line"]
        ln = lines[e["line"] - 1]
        lines[e["line"] - 1] = ln[:e["column"] - 1] + e["new_text"] + ln[e["end_column"] - 1:]
    p = tmp_path / "fixed.cu"
    p.write_text("\n".join(lines))
    art = compile_cuda(p)
    assert art.ok, [d.message for d in art.errors]


# --- 3. sync-in-divergent-branch: uniform branches, `else` ------------------------------

def sync_findings(text: str):
    from kernelpro.profilers.rules.sync_divergence import sync_divergence
    from kernelpro.profilers.source import parse_source
    from kernelpro.profilers.tools import Context
    return sync_divergence(Context(source=parse_source(text, "/tmp/kp_issue29/sync.cu"), artifact=None))


TWO_ROLES = """\
__global__ void two_roles(const float* x, float* y, int n)
{
    __shared__ float s[256];
    int warp = threadIdx.x / 32;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (COND) {
        s[threadIdx.x] = x[i] * 2.f;
        __syncthreads();
    } else {
        s[threadIdx.x] = x[i];
        __syncthreads();
    }
    y[i] = s[255 - threadIdx.x];
}
"""


@pytest.mark.parametrize("cond", ["warp == 0", "threadIdx.x < 64", "(threadIdx.x >> 5) % 2 == 1", "warp < n"])
def test_sync_both_sides_of_a_warp_uniform_branch_reach_a_barrier(cond):
    assert sync_findings(TWO_ROLES.replace("COND", cond)) == []


def test_sync_both_sides_of_a_lane_divergent_branch_still_an_error():
    adv = sync_findings(TWO_ROLES.replace("COND", "threadIdx.x % 2 == 0"))
    assert len(adv) == 2
    # the `else` barrier is said to be in the `else`, not "inside `if`"
    els = next(a for a in adv if a.line == line_of(TWO_ROLES, "s[threadIdx.x] = x[i];") + 1)
    assert "in the `else` of `if (threadIdx.x % 2 == 0)`" in els.message
    assert "inside" not in els.message
    then = next(a for a in adv if a.line == 8)
    assert "inside `if (threadIdx.x % 2 == 0)`" in then.message


def test_sync_one_sided_warp_uniform_branch_is_an_error():
    text = TWO_ROLES.replace("COND", "warp == 0").replace(
        "        s[threadIdx.x] = x[i];\n        __syncthreads();\n", "        s[threadIdx.x] = x[i];\n")
    (a,) = sync_findings(text)
    assert a.line == 8


def test_sync_under_a_shared_flag_is_block_uniform():
    text = """\
__global__ void gated(const float* x, float* y, int n)
{
    __shared__ int flag;
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) flag = x[i] > 0.f;
    __syncthreads();
    if (flag) {
        s[threadIdx.x] = x[i];
        __syncthreads();
        y[i] = s[255 - threadIdx.x];
    }
}
"""
    assert sync_findings(text) == []


# --- 4. block size: the launch's branch, template arguments, __launch_bounds__ -------------

BRANCHES = """\
__global__ void tile_sum(const float* a, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] * 2.f;
}

void launch(const float* a, float* c, int n, bool big)
{
    if (big) {
        const unsigned BM = 128;
        dim3 block(BM);
        tile_sum<<<n / BM, block>>>(a, c, n);
    } else {
        const unsigned BM = 64;
        dim3 block(BM);
        tile_sum<<<n / BM, block>>>(a, c, n);
    }
}
"""


def test_block_size_read_with_the_constants_of_the_launch_branch(tmp_path):
    from kernelpro.profilers.source import parse_source
    src = parse_source(BRANCHES)
    assert [s.block_threads for s in src.launch_sites] == [128, 64]
    direct = BRANCHES.replace("dim3 block(BM);\n", "").replace(", block>>>", ", BM>>>")
    assert [s.block_threads for s in parse_source(direct).launch_sites] == [128, 64]
    (k,) = profile(tmp_path, BRANCHES).kernels
    assert (k.block, k.block_origin) == (128, "launch site line 12")


TEMPLATED = """\
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) scale(float* x, int n)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) x[i] *= 2.f;
}

template <int BLOCK>
void run(float* x, int n)
{
    scale<BLOCK><<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(x, n);
}
template void run<128>(float*, int);

template <int N>
__global__ void __launch_bounds__(N) shift(float* x, int n)
{
    int i = blockIdx.x * N + threadIdx.x;
    if (i < n) x[i] += 1.f;
}
template __global__ void shift<512>(float*, int);
template __global__ void shift<64>(float*, int);

template <typename T>
__global__ void fill(T* x, T v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}
void fill_all(float* f, double* d, int n)
{
    fill<float><<<n / 96, 96>>>(f, 1.f, n);
    fill<double><<<n / 32, 32>>>(d, 1.0, n);
}
"""


def test_block_size_from_template_argument_and_launch_bounds(tmp_path):
    r = profile(tmp_path, TEMPLATED)
    got = {k.instantiation: (k.block, k.block_origin) for k in r.kernels}
    assert got["scale<128>"] == (128, "launch site line 11")
    assert got["shift<512>"] == (512, "__launch_bounds__") and got["shift<64>"] == (64, "__launch_bounds__")
    assert got["fill<float>"] == (96, "launch site line 32") and got["fill<double>"] == (32, "launch site line 33")
    occ = {k.instantiation: k.occupancy_text for k in r.kernels}
    assert "64" in occ["shift<64>"] and "256" not in occ["shift<64>"]


# --- 5. register-tiled products, strided accumulation, shared memory through a helper, float4 -----

M5 = (Path(__file__).resolve().parent / "corpus" / "matmul" / "m5_register_tiled.cu").read_text()


def _m5_variant(float4_tile: bool) -> str:
    """The corpus's register-tiled SGEMM with its tile sizes computed in the kernel from the block
    tile (`constexpr int TM = BM / 16;`), and optionally the tile kept in float4s."""
    src = M5.replace("template <int BM, int BN, int BK, int TM, int TN>\n__global__ void __launch_bounds__((BM * BN) / (TM * TN))",
                     "template <int BM, int BN, int BK>\n__global__ void __launch_bounds__(256)")
    src = src.replace("    __shared__ float As[BK][BM];",
                      "    constexpr int TM = BM / 16;\n    constexpr int TN = BN / 16;\n    __shared__ float As[BK][BM];")
    src = src.replace("<128, 128, 8, 8, 8>", "<128, 128, 8>")
    if float4_tile:
        src = (src.replace("float acc[TM][TN] = {0.0f};", "float4 acc[TM][TN / 4];")
               .replace("acc[m][n] += ra[m] * rb[n];", "{ float* a4 = &acc[m][n / 4].x; a4[n % 4] += ra[m] * rb[n]; }")
               .replace("= acc[m][n];", "= (&acc[m][n / 4].x)[n % 4];"))
    return src


@pytest.mark.parametrize("float4_tile", [False, True])
def test_low_occupancy_offers_no_cap_on_a_register_tiled_product(tmp_path, float4_tile):
    (a,) = rule(profile(tmp_path, _m5_variant(float4_tile)), "low-occupancy")
    assert a.fix is None and "register_cap" not in a.data
    assert "register-bound by design" in a.message and "64 values" in a.message
    assert "cap" not in a.remedy.split(";")[0] or "would spill" in a.remedy


def test_product_tile_from_the_contraction_recogniser():
    """A product on global operands whose thread computes a tile of outputs (2x4 here, fewer than
    16 values) is a register tile: the recogniser's outputs per thread say so."""
    from kernelpro.profilers.rules.occupancy_rule import product_tile, register_tile
    from kernelpro.profilers.source import parse_source
    src = parse_source("""\
#define TM 2
#define TN 4
__global__ void gemm_rt(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C)
{
    int row0 = (blockIdx.y * blockDim.y + threadIdx.y) * TM;
    int col0 = (blockIdx.x * blockDim.x + threadIdx.x) * TN;
    float acc[TM][TN] = {};
    for (int k = 0; k < K; ++k) {
#pragma unroll
        for (int m = 0; m < TM; ++m)
#pragma unroll
            for (int n = 0; n < TN; ++n)
                acc[m][n] += A[(row0 + m) * K + k] * B[k * N + col0 + n];
    }
#pragma unroll
    for (int m = 0; m < TM; ++m)
#pragma unroll
        for (int n = 0; n < TN; ++n)
            C[(row0 + m) * N + col0 + n] = acc[m][n];
}
""")
    k = src.kernels[0]
    assert register_tile(src, k, dict(src.constants)) is None  # 8 values: below the array threshold
    got = product_tile(src, k)
    assert got is not None and got[1] >= 4 and "acc" in got[0]


ROW_SUM = """\
__global__ void row_sum(const float* x, const float* scale, float* out, int n)
{
    __shared__ float s[256];
    const float* row = x + (size_t)blockIdx.x * n;
    float sc = scale[blockIdx.x];
    float sum = 0.f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) sum += row[i];
    s[threadIdx.x] = sum;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0] * sc;
}
void run(const float* x, const float* sc, float* o, int rows, int n) { row_sum<<<rows, 256>>>(x, sc, o, n); }
"""


def test_reduction_idle_threads_silent_after_a_strided_accumulation(tmp_path):
    r = profile(tmp_path, ROW_SUM)
    assert rule(r, "reduction-idle-threads") == [] and rule(r, "reduction-few-elements-per-thread") == []
    assert rule(r, "block-reduction-barriers")  # the tree itself is still judged
    one = ROW_SUM.replace("    for (int i = threadIdx.x; i < n; i += blockDim.x) sum += row[i];\n",
                          "    sum = row[threadIdx.x];\n")
    assert len(rule(profile(tmp_path, one, "one.cu"), "reduction-idle-threads")) == 1


SHARED_HELPER = """\
template <class T>
struct SharedMemory {
    __device__ inline operator T*() { extern __shared__ int __smem[]; return (T*)__smem; }
};

template <class T>
__global__ void reduce1(const T* g_idata, T* g_odata, unsigned int n)
{
    T* sdata = SharedMemory<T>();
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        int index = 2 * s * tid;
        if (index < blockDim.x) sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

template <class T>
__global__ void reduce3(const T* g_idata, T* g_odata, unsigned int n)
{
    T* sdata = SharedMemory<T>();
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

void run(const float* x, float* o, unsigned n)
{
    reduce1<float><<<n / 256, 256, 256 * sizeof(float)>>>(x, o, n);
    reduce3<float><<<n / 256, 256, 256 * sizeof(float)>>>(x, o, n);
}
"""


def test_reduction_and_bank_rules_see_shared_memory_through_a_helper(tmp_path):
    r = profile(tmp_path, SHARED_HELPER)
    got = {(a.rule, a.kernel, a.line) for a in r.advice}
    assert ("reduction-idle-threads", "reduce1", 12) in got
    assert ("shared-bank-conflict", "reduce1", 16) in got
    assert ("reduction-idle-threads", "reduce3", 28) in got
    assert ("block-reduction-barriers", "reduce3", 30) in got


FLOAT4_STORE = """\
__global__ void stage(const float4* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float buf[4096];
    int t = threadIdx.x;
    float4 v = in[blockIdx.x * blockDim.x + t];
    *reinterpret_cast<float4*>(&buf[STRIDE * t]) = v;
    __syncthreads();
    out[blockIdx.x * 1024 + t] = buf[1023 - t];
}
void run(const float4* in, float* out, int n) { stage<<<n / 1024, 256>>>(in, out, n); }
"""


def test_bank_conflict_counts_a_float4_store_per_quarter_warp(tmp_path):
    assert rule(profile(tmp_path, FLOAT4_STORE.replace("STRIDE", "4")), "shared-bank-conflict") == []
    (a,) = rule(profile(tmp_path, FLOAT4_STORE.replace("STRIDE", "16"), "s16.cu"), "shared-bank-conflict")
    assert a.message.startswith("4-way") and "write" in a.message
    assert any(e.name == "access size" and e.value == 16 for e in a.evidence)


# --- 6. templates: one finding per source place, naming the instantiations; T-safe literal fixes ----

MANY = """\
template <typename T, int UNROLL>
__global__ void copy_scale(T* y, T* x, T a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int j = 0; j < UNROLL; ++j)
        if (i * UNROLL + j < n) y[i * UNROLL + j] = a * x[i * UNROLL + j] + x[i];
}
template __global__ void copy_scale<float, 1>(float*, float*, float, int);
template __global__ void copy_scale<float, 2>(float*, float*, float, int);
template __global__ void copy_scale<double, 1>(double*, double*, double, int);
template __global__ void copy_scale<double, 4>(double*, double*, double, int);
template __global__ void copy_scale<int, 4>(int*, int*, int, int);
"""


def test_template_findings_one_per_source_place_naming_instantiations(tmp_path):
    r = profile(tmp_path, MANY)
    places = [(a.rule, a.line, a.column) for a in r.advice]
    assert len(places) == len(set(places)), places
    (a,) = rule(r, "missing-restrict")
    labels = ["copy_scale<float, 1>", "copy_scale<float, 2>", "copy_scale<double, 1>", "copy_scale<double, 4>",
              "copy_scale<int, 4>"]
    ev = next(e for e in a.evidence if e.name == "instantiations")
    assert all(label in ev.value for label in labels) and ev.unit == "5 of 5"
    assert sum(label in a.message for label in labels) >= 4 and "every instantiation" in a.message
    assert a.instantiation and a.instantiation.startswith("copy_scale<")


SCALE_ADD = """\
template <typename T>
__global__ void scale_add(T* y, const T* x, T a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i] * 0.3;
}
template __global__ void scale_add<float>(float*, const float*, float, int);
template __global__ void scale_add<double>(double*, const double*, double, int);
"""


def test_literal_fix_on_a_template_type_keeps_the_double_instantiation(tmp_path):
    r = profile(tmp_path, SCALE_ADD)
    (a,) = rule(r, "fp64-in-float-kernel")
    assert a.instantiation == "scale_add<float>" and "scale_add<float>" in a.message
    (e,) = a.fix["edits"]
    assert e["new_text"] == "T(0.3)" and span(SCALE_ADD, a) == "0.3"
    assert "0.3f" not in e["new_text"] and "T(0.3)" in a.remedy


def test_editor_views_name_the_instantiation(tmp_path):
    from kernelpro.lsp_server.hints import line_facts
    from kernelpro.lsp_server.hover import kernel_markdown
    from kernelpro.lsp_server.sass_view import sass_document
    r = profile(tmp_path, SCALE_ADD)
    heads = [l for l in sass_document(r, r.path)["text"].split("\n") if l.startswith("// ====")]
    assert sorted(h.split(" (")[0] for h in heads) == ["// ==== scale_add<double>", "// ==== scale_add<float>"]
    facts = line_facts(r)[5]
    assert "scale_add<float>: 4 FP64" in facts or ("scale_add<float>:" in facts and "FP64" in facts)
    assert "scale_add<double>:" in facts
    md = [kernel_markdown(k) for k in r.kernels]
    assert any("scale_add<float>" in m for m in md) and any("scale_add<double>" in m for m in md)


# --- 7. narrow-elementwise-access: only memory-bound kernels, one summary per file ----------------

def _elementwise_file(n: int) -> str:
    ops = ["a * x[i]", "x[i] + a", "x[i] - a", "fmaxf(x[i], a)", "x[i] * x[i]", "a * x[i] + 1.0f", "fminf(x[i], a)",
           "-x[i]"]
    return "\n".join(f"__global__ void ew{j}(const float* __restrict__ x, float* __restrict__ y, float a, int n)\n"
                     f"{{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) y[i] = {ops[j % len(ops)]};\n}}\n"
                     for j in range(n))


def test_narrow_elementwise_is_one_summary_per_file(tmp_path):
    text = _elementwise_file(8)
    (a,) = rule(profile(tmp_path, text), "narrow-elementwise-access")
    assert a.kernel == "ew0" and a.message.startswith("8 element-wise kernels of this file")
    assert "ew5 and 2 more" in a.message and len(a.related) == 7
    assert {loc.message for loc in a.related} == {f"ew{j}: the same" for j in range(1, 8)}
    assert sorted(loc.line for loc in a.related) == [line_of(text, f"void ew{j}(") + 3 for j in range(1, 8)]
    few = _elementwise_file(2)
    assert len(rule(profile(tmp_path, few, "few.cu"), "narrow-elementwise-access")) == 2


def test_narrow_elementwise_silent_where_arithmetic_dominates(tmp_path):
    chain = "".join("        v = __sinf(v * 1.0001f) * 0.5f + __expf(-v);\n" for _ in range(24))
    heavy = f"""\
__global__ void heavy(const float* __restrict__ x, float* __restrict__ y, int n)
{{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {{
        float v = x[i];
{chain}        y[i] = v;
    }}
}}
__global__ void light(const float* __restrict__ x, float* __restrict__ y, int n)
{{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.f * x[i];
}}
"""
    adv = rule(profile(tmp_path, heavy), "narrow-elementwise-access")
    assert [a.kernel for a in adv] == ["light"]
    share = next(e for e in adv[0].evidence if e.name == "arithmetic time / memory time")
    assert share.value <= 2.0
    # a bf16 GELU (tanhf per element) is memory-bound enough: packing gained 2.5x on the suite's
    gelu = profile(tmp_path, GELU_BF16, "gelu.cu")
    assert [a.kernel for a in rule(gelu, "narrow-elementwise-access")] == ["gelu_forward"]


GELU_BF16 = """\
#include <cuda_bf16.h>
__global__ void gelu_forward(__nv_bfloat16* y, const __nv_bfloat16* x, int n) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) {
    float v = __bfloat162float(x[idx]);
    float inner = 0.7978845608f * (v + 0.044715f * v * v * v);
    y[idx] = __float2bfloat16(0.5f * v * (1.0f + tanhf(inner)));
  }
}
"""


def test_template_with_one_build_names_it(tmp_path):
    one = "\n".join(l for l in MANY.split("\n") if not l.startswith("template __global__") or "<float, 1>" in l)
    (a,) = rule(profile(tmp_path, one), "missing-restrict")
    assert "copy_scale<float, 1>" in a.message and a.instantiation == "copy_scale<float, 1>"


def test_local_memory_init_loop_bound_by_a_template_argument(tmp_path):
    """The zero-init loop's bound is a template argument (constant only in the instantiation): its
    subscript is not the cause; the bin read from memory is."""
    text = """\
template <int NB>
__global__ void histo(const float* x, int* out, int n, float scale)
{
    int c[NB];
    for (int b = 0; b < NB; ++b) c[b] = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int bin = (int)(x[i] * scale) % NB;
        c[bin] += 1;
    }
    for (int b = 0; b < NB; ++b) atomicAdd(&out[b], c[b]);
}
template __global__ void histo<48>(const float*, int*, int, float);
"""
    (a,) = rule(profile(tmp_path, text), "local-memory")
    assert a.line == line_of(text, "c[bin] += 1") and span(text, a) == "bin"


def test_sync_else_if_chain_of_warp_roles():
    text = """\
__global__ void roles(const float* x, float* y, int n)
{
    __shared__ float s[256];
    int warp = threadIdx.x >> 5;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (warp == 0) {
        s[threadIdx.x] = x[i];
        __syncthreads();
    } else if (warp < 4) {
        s[threadIdx.x] = 2.f * x[i];
        __syncthreads();
    } else {
        s[threadIdx.x] = 0.f;
        __syncthreads();
    }
    y[i] = s[255 - threadIdx.x];
}
"""
    assert sync_findings(text) == []
    # one branch of the chain without its barrier: the others are errors again
    broken = text.replace("        s[threadIdx.x] = 0.f;\n        __syncthreads();\n", "        s[threadIdx.x] = 0.f;\n")
    assert {a.line for a in sync_findings(broken)} == {8, 11}


def test_bank_conflict_2d_tile_float4_row_store_is_conflict_free(tmp_path):
    text = """\
__global__ void stage2d(const float4* __restrict__ in, float* __restrict__ out)
{
    __shared__ float tile[32][128];
    int t = threadIdx.x;
    *reinterpret_cast<float4*>(&tile[t / 32][4 * (t % 32)]) = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = tile[t % 32][t / 32];
}
void run(const float4* in, float* out, int n) { stage2d<<<n / 256, 256>>>(in, out); }
"""
    adv = rule(profile(tmp_path, text), "shared-bank-conflict")
    assert [a.line for a in adv] == [7]  # the column read is a conflict; the float4 row store is not


def test_restrict_not_advised_on_a_header_kernel_the_cu_launches_in_place(tmp_path):
    kernel = SMOOTH.split("\nvoid run")[0]
    (tmp_path / "smooth.cuh").write_text("#pragma once\n" + kernel + "\n")
    main = '#include "smooth.cuh"\nvoid run(float* d, int n) { smooth<<<(n + 255) / 256, 256>>>(d, d, n); }\n'
    assert rule(profile(tmp_path, main, "main.cu"), "missing-restrict") == []
    other = main.replace("float* d, int n", "float* d, float* e, int n").replace("(d, d, n)", "(d, e, n)")
    assert len(rule(profile(tmp_path, other, "other.cu"), "missing-restrict")) == 1


def test_editor_diagnostic_names_the_instantiation(tmp_path):
    from kernelpro.lsp_server.convert import advice_diagnostic
    r = profile(tmp_path, SCALE_ADD)
    (a,) = rule(r, "fp64-in-float-kernel")
    d = advice_diagnostic(a, SCALE_ADD.split("\n"), (tmp_path / "k.cu").as_uri())
    assert "scale_add<float>" in d.message and len(d.message) < 200


def test_sync_both_sides_of_a_branch_on_threadidx_y():
    """A 32x8 block: each warp is one value of threadIdx.y, so `threadIdx.y % 2 == 0` is warp-uniform;
    with a 16-wide block a warp holds two rows and it is not."""
    text = TWO_ROLES.replace("COND", "threadIdx.y % 2 == 0") + (
        "void run(const float* x, float* y, int n) { two_roles<<<n / 256, dim3(WIDTH, 256 / WIDTH)>>>(x, y, n); }\n")
    assert sync_findings(text.replace("WIDTH", "32")) == []
    assert len(sync_findings(text.replace("WIDTH", "16"))) == 2


def test_optimizer_float_literals_keep_a_template_type():
    """The optimizer's float-literal candidate on a template: `T(0.3)` on T-typed arithmetic, `0.5f`
    on float arithmetic, and `pow` on a T left as it is."""
    from kernelpro.optimizer.transforms import TRANSFORMS, TransformInput
    src = """\
template <typename T>
__global__ void mix(T* y, const T* x, float* f, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = pow(x[i], 2) + y[i] * 0.3;
        f[i] = f[i] * 0.5;
    }
}
"""
    t = next(t for t in TRANSFORMS if t.name == "float-literals")
    (c,) = t.apply(TransformInput(src, "mix", [], {"block": [256], "grid": [1]}, (), ["n"], {}))
    assert "y[i] * T(0.3)" in c.source and "f[i] * 0.5f" in c.source and "pow(x[i], 2)" in c.source
