"""The contraction recogniser (profilers/analysis/contraction.py) on matrix products in many
spellings (tests/matmul/*.cu, each saying what it must be recognised as) and on loops that are
not matrix products; the rules that read it (tensor cores, shared-memory tiles, coalescing)."""
from __future__ import annotations

import glob
import os
import re

import pytest

from kernelpro.profilers.analysis.contraction import contractions
from kernelpro.profilers.rules.matmul_reuse import matmul_reuse
from kernelpro.profilers.source import parse_source
from kernelpro.profilers.tools import Context

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "matmul")
FILES = sorted(glob.glob(os.path.join(HERE, "*.cu")))


def found(text: str, path: str = "k.cu"):
    src = parse_source(text, path)
    return contractions(src, src.kernels[0])


def test_there_are_enough_spellings():
    assert len(FILES) >= 10


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.basename(p)[:-3])
def test_each_spelling_is_one_matrix_product(path):
    text = open(path).read()
    want = re.search(r"// recognise: (.*)", text).group(1).split(", ")
    f = found(text, path)
    assert len(f.products) == 1 and not f.refused, f.refused
    c = f.products[0]
    assert c.K and c.k_start == "0"
    if "tile 2x2" not in want and "no bounds check" not in text:
        assert c.M and c.N and c.per_thread == (1, 1)
    for w in want:
        if w.startswith("rows "):
            assert c.row.thread == w[len("rows "):]
        elif w.startswith("columns "):
            assert c.col.thread == w[len("columns "):]
        elif w == "alpha":
            assert c.alpha == "alpha"
        elif w == "beta":
            assert c.beta == "beta"
        elif w == "global":
            assert c.accumulate == "global" and c.init is None
        elif w == "bias":
            assert "bias[" in c.bias
        elif w == "transposed":  # B read along k contiguously: B is stored as Bᵀ
            assert c.terms[0][1].k_stride == "1"
        elif w == "two products":
            assert len(c.terms) == 2 and [t[0].array for t in c.terms] == ["A", "B"]
        elif w.startswith("batch ") and w not in ("batch z", "batch loop"):  # digits of one flat index
            assert c.batch.atoms == tuple(w.split()[1:]) and c.M == "T" and c.N == "T"
        elif w == "batch z":
            assert c.batch.thread == "block z" and c.batch.extent == "gridDim.z"
        elif w == "batch loop":
            assert c.batch.thread == "loop" and c.batch.extent == "Bt"
        elif w == "causal":  # the k range depends on the row
            assert c.causal and c.bound == {("t",): 1, (): 1}
        elif w == "condition":  # an `if` comparing row and column around the loop
            assert c.condition == "(t2 <= t)" and not c.causal
        elif w == "one index":  # r = idx / N, c = idx % N
            assert c.out.strides == {"c": "1", "r": "N"} and c.N == "N"
        elif w == "tile 2x2":
            assert c.per_thread == (2, 2)
        elif w == "bf16":
            assert c.elem == "__nv_bfloat16" and c.acc_type == "float"
        else:
            raise AssertionError(f"unknown expectation {w!r}")
    if "causal" not in want:
        assert not c.causal


def test_the_layouts_and_strides_are_expressions_of_the_parameters():
    c = found(open(os.path.join(HERE, "bmm_z.cu")).read()).products[0]
    a, b = c.terms[0]
    assert (a.array, a.k_stride, a.strides) == ("A", "1", {"b": "K*M", "row": "K"})
    assert (b.array, b.k_stride, b.strides) == ("B", "N", {"b": "K*N", "col": "1"})
    assert c.out.strides == {"b": "M*N", "col": "1", "row": "N"} and c.out.contiguous == "col"
    assert (c.M, c.N, c.K) == ("M", "N", "K") and c.row.thread == "y" and c.col.thread == "x"
    lin = found(open(os.path.join(HERE, "linear_rowptr.cu")).read()).products[0]
    assert lin.terms[0][0].strides == {"bt": "C"} and lin.terms[0][1].strides == {"oc": "C"}  # through row pointers
    assert (lin.M, lin.N, lin.K) == ("BT", "OC", "C")


NEG = """
__global__ void mm(const float* a, const float* b, float* c, float* d, int M, int N, int K) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N) {
    float s = 0, t = 1;
    for (int k = 0; k < K; k++) { BODY }
    c[i*N+j] = s;
  }
}
"""


@pytest.mark.parametrize("body, why", [
    ("s += a[i*K+k] * b[k*N+j]; t = t * 0.5f + s;", "`t` is updated in a way that depends on the previous"),
    ("s += a[i*K+k] * b[k*N+j]; d[k] = s;", "`s` is read inside the loop"),
    ("s = s * a[i*K+k] + b[k*N+j] * a[i*K + k];", "not a sum (a non-associative update"),
    ("s += a[i*K+k] * c[k*N+j];", "the output c is also an operand"),
    ("s += a[i*K+k] * b[k*N+j]; ((float*)b)[k*N+j] = 0;", "writes b, an operand of the product, inside the loop"),
    ("s += a[i*K+k] * b[k];", "a matrix-vector product"),
    ("s += a[i*K+k] * b[k*N+j]; if (a[k] > 4) break;", "has break"),
])
def test_what_is_not_a_matrix_product_is_refused_with_a_reason(body, why):
    f = found(NEG.replace("BODY", body))
    assert not f.products and len(f.refused) == 1 and why in f.refused[0].reason, f.refused


def test_a_product_of_one_operand_with_itself_is_still_one():
    f = found(NEG.replace("BODY", "s += a[i*K+k] * a[k*N+j];"))
    assert len(f.products) == 1 and [(x.array, y.array) for x, y in f.products[0].terms] == [("a", "a")]


@pytest.mark.parametrize("name", ["gemm_global", "linear_rowptr", "gemm_flat", "attn_scores", "gemm_abt", "attn_qk_flat"])
def test_the_shared_memory_tiles_rule_fires_on_every_recognised_spelling(name):
    path = os.path.join(HERE, f"{name}.cu")
    adv = matmul_reuse(Context(source=parse_source(open(path).read(), path), artifact=None))
    assert len(adv) == 1 and "stage TILE x TILE tiles" in adv[0].remedy


@pytest.mark.parametrize("name", ["gemm_global", "linear_rowptr"])
def test_the_tensor_core_rule_fires_on_an_alpha_scaled_product_and_a_row_pointer_dot_product(name):
    # the two misses: `c[i*N+j] += alpha * a[..] * b[..]` and `v += x[i] * w[i]` (real nvcc, SASS)
    from kernelpro.profilers.compile import CompileOptions
    from kernelpro.profilers.profile import profile_file
    rep = profile_file(os.path.join(HERE, f"{name}.cu"), CompileOptions(arch="sm_90"))
    rules = {a.rule for a in rep.advice}
    assert {"matmul-without-tensor-cores", "matmul-global-operands"} <= rules, rules


def test_the_rules_read_a_small_tile_of_outputs_in_named_sums_each_a_product():
    """Two outputs a thread in sums s0 and s1 (the recogniser reads one sum a loop): the rules still see a matrix
    product's loop, and count the loads the two sums share (3 for 2 multiply-adds)."""
    path = os.path.join(os.path.dirname(HERE), "probe26", "two_cols_per_thread.cu")
    src = parse_source(open(path).read(), path)
    f = contractions(src, src.kernels[0])
    assert not f.products and len(f.refused) == 1 and len(f.refused[0].updates) == 2
    adv = matmul_reuse(Context(source=src, artifact=None))
    assert len(adv) == 1 and "1.5 global loads per multiply-add" in adv[0].message
    assert [e.value for e in adv[0].evidence if e.name == "global loads per multiply-add"] == [1.5]


def test_a_difference_of_products_is_two_terms_and_a_lone_subtracted_product_is_not_a_sum():
    """`s += ar * br - ai * bi` (a complex product's real part): two products, the signs left to the kernel's own
    code; `s -= a * b` alone and `s = s - a * b` are no sum of products (refused, with the reason)."""
    kernel = """__global__ void k(const float* ar, const float* ai, const float* br, const float* bi, float* c,
                                 int M, int N, int K) {
    int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < M && j < N) { float s = 0.f; for (int k = 0; k < K; ++k) UPDATE; c[i * N + j] = s; }
}"""
    f = found(kernel.replace("UPDATE", "s += ar[i * K + k] * br[k * N + j] - ai[i * K + k] * bi[k * N + j]"))
    assert len(f.products) == 1 and len(f.products[0].terms) == 2
    f = found(kernel.replace("UPDATE", "s = s - ar[i * K + k] * br[k * N + j]"))
    assert not f.products and any("subtracts" in r.reason or "not a sum" in r.reason for r in f.refused), f.refused
    f = found(kernel.replace("UPDATE", "s += (double)(2.0f * ar[i * K + k] * br[k * N + j])"))
    assert len(f.products) == 1 and f.products[0].alpha == "2.0f"


@pytest.mark.parametrize("body, combine", [
    ("float e = a[i*K+k] - b[j*K+k]; s += e * e;", "(kp_x - kp_y) * (kp_x - kp_y)"),  # squared distance
    ("s += fabsf(a[i*K+k] - b[j*K+k]);", "fabsf(kp_x - kp_y)"),  # Manhattan
    ("s += fmaxf(a[i*K+k], b[j*K+k]) - fminf(a[i*K+k], b[j*K+k]);", "fmaxf(kp_x, kp_y) - fminf(kp_x, kp_y)"),
    ("s += (b[j*K+k] - a[i*K+k]) * (b[j*K+k] - a[i*K+k]);", "(kp_y - kp_x) * (kp_y - kp_x)"),  # B read first
])
def test_a_sum_of_another_function_of_the_two_operands_is_a_contraction_with_that_combine(body, combine):
    """Distances between rows (`d = x - y; acc += d * d`) are tiled like a product: the combine is the kernel's
    own function with A's element as kp_x and B's as kp_y, whichever the kernel reads first."""
    f = found(NEG.replace("BODY", body))
    assert len(f.products) == 1, f.refused
    c = f.products[0]
    assert c.combine == combine and (c.terms[0][0].array, c.terms[0][1].array) == ("a", "b")
    assert (c.M, c.N, c.K) == ("M", "N", "K")


@pytest.mark.parametrize("body, why", [
    ("s += expf(a[i*K+k] - b[j*K+k]);", "not zero where both are"),  # a zero-filled tile edge would add 1
    ("float e = a[i*K+k] - b[j*K+k]; s += d[k] * e * e;", "combines 3 reads along k"),  # weighted
    ("s += (a[i*K+k] - b[j*K+k]) * t; t *= 0.5f;", "uses t, which changes in the loop"),
    ("s += (a[i*K+k] - b[j*K+k]) * k;", "uses k itself"),
    ("s += (a[i*K+k] - b[j*K+k]) * c[0];", "does not move with k"),
    ("s += (a[i*K+k] - b[j*K+k]) * scale(a[i*K+k]);", "not math functions"),
])
def test_a_combine_that_tiles_cannot_keep_is_refused_with_a_reason(body, why):
    f = found("__device__ float scale(float);\n" + NEG.replace("BODY", body))
    assert not f.products and f.refused and why in f.refused[0].reason, f.refused


def test_tensor_cores_and_the_library_refuse_a_distance_and_the_rules_say_tiles_only():
    from kernelpro.optimizer.restructure import gemmlib, matmul
    from kernelpro.optimizer.restructure.text import Refuse
    text = NEG.replace("BODY", "float e = a[i*K+k] - b[j*K+k]; s += e * e;")
    c = found(text).products[0]
    with pytest.raises(Refuse, match="not their product"):
        matmul.check_wmma(c)
    assert not matmul.split_tf32_ok(c) and "not their product" in matmul.tf32_admits(c, (1e-2, 1e-2), 64)
    with pytest.raises(Refuse, match="another function"):
        gemmlib.plan(parse_source(text), c)
    assert not matmul.symmetric(c)
    adv = matmul_reuse(Context(source=parse_source(text, "k.cu"), artifact=None))
    assert len(adv) == 1 and "stage TILE x TILE tiles" in adv[0].remedy
    from kernelpro.profilers.rules.tensor_cores import matmul_updates
    src = parse_source(text)
    k = src.kernels[0]
    assert matmul_updates(src, k, k.loops[0]) and not matmul_updates(src, k, k.loops[0], products=True)


@pytest.mark.parametrize("body", [
    "s += static_cast<int>(a[i*K+k]) * b[k*N+j];",  # a float truncated
    "s += (short)(a[i*K+k] * 100.f) * b[k*N+j];",
    "int e = a[i*K+k] - b[j*K+k]; s += e * e;",  # a local whose type truncates what it holds
    "int x = a[i*K+k]; s += x * b[k*N+j];",
    "float e = a[i*K+k] - b[j*K+k]; if (e < 0.f) e = -e; s += e;",  # a local changed after its declaration
])
def test_a_conversion_or_local_that_changes_the_operands_values_is_no_product_of_them(body):
    """A second reading (2026-12-06) found these read as products or distances of the buffers as they are: the tiles
    would have loaded the elements unconverted. Widening conversions (int8 to int32, half to float) stay read."""
    f = found(NEG.replace("BODY", body))
    assert not f.products, [c.combine for c in f.products]
    widened = NEG.replace("const float* a", "const signed char* a").replace(
        "BODY", "s += static_cast<int>(a[i*K+k]) * b[k*N+j];")
    assert len(found(widened).products) == 1


def test_a_permute_with_several_divided_groups_before_the_thread_s_is_read_in_finite_time():
    """`_runs_along` looked for the group holding the thread index in slices of the atom but indexed the whole:
    an atom with two divided groups before it looped forever (found by the second reading)."""
    from kernelpro.profilers.analysis.copies import copy_kernel
    text = """__global__ void k(const float* in, float* out, int C, int W, int S, int T) {
    int idx = (blockIdx.y / S / T) * 4096 + (blockIdx.z / S / T) * 256 + blockIdx.x * blockDim.x + threadIdx.x;
    int w = (idx / C) % W;
    int h = idx / (C * W);
    out[idx] = in[h * W + w];
}"""
    src = parse_source(text)
    assert copy_kernel(src, src.kernels[0]).store_along == "x"


def test_a_zero_of_a_template_type_or_alias_starts_the_sum_and_a_batch_loop_broadcasts_an_operand():
    text = """typedef float real;
template <typename T>
__global__ void k(const T* A, const T* B, T* C, int nb, int I, int J, int K) {
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= I || j >= J) return;
  for (int b = 0; b < nb; ++b) {
    T acc = T(0);
    for (int k = 0; k < K; ++k) acc += A[(b * I + i) * K + k] * B[k * J + j];
    C[(b * I + i) * J + j] = acc;
  }
}
"""
    c = found(text).products[0]
    assert c.bias is None and c.init == "T(0)"
    assert c.row.atoms == ("i",) and c.batch is not None and c.batch.atoms == ("b",) and c.batch.thread == "loop"
    assert "b" not in c.terms[0][1].strides  # B is the same for every b
    assert found(text.replace("T(0)", "real(0)")).products[0].bias is None
    assert found(text.replace("T(0)", "start(0)")).products[0].bias == "start(0)"  # a call: a value, kept
    # a loop of rows a thread runs alone (no other row coordinate) stays the row
    one = text.replace("(b * I + i)", "b").replace("i >= I || ", "")
    c1 = found(one).products[0]
    assert c1.row.atoms == ("b",) and c1.batch is None


def test_a_store_computed_from_the_sum_through_locals_is_found_and_marked_as_the_kernels_own_code():
    quant = """__global__ void k(const signed char* A, const signed char* B, signed char* C, int M, int N, int K, float s) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y * blockDim.y + threadIdx.y;
  if (m >= M || n >= N) return;
  int acc = 0;
  for (int k = 0; k < K; ++k) acc += (int)A[m * K + k] * (int)B[n * K + k];
  float y = s * (float)acc;
  int q = __float2int_rn(y);
  q = q > 127 ? 127 : q;
  C[m * N + n] = (signed char)q;
}
"""
    c = found(quant).products[0]
    assert c.opaque_store and c.alpha is None and c.beta is None and c.bias is None and c.out.array == "C"
    plain = quant.replace("float y = s * (float)acc;\n  int q = __float2int_rn(y);\n  q = q > 127 ? 127 : q;\n  "
                          "C[m * N + n] = (signed char)q;", "C[m * N + n] = s * acc;")
    c2 = found(plain).products[0]
    assert not c2.opaque_store and c2.alpha == "s"


def test_a_sum_changed_after_the_loop_or_stored_under_a_condition_is_the_kernels_own_epilogue():
    base = """__global__ void k(const float* A, const float* B, float* C, int M, int N, int K, float alpha) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y * blockDim.y + threadIdx.y;
  if (m >= M || n >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += A[m * K + k] * B[k * N + n];
  TAIL
}
"""
    for tail in ("acc *= alpha; C[m * N + n] = acc;", "acc += 1.0f; C[m * N + n] = acc;",
                 "if (acc > 0) C[m * N + n] = acc;"):
        c = found(base.replace("TAIL", tail)).products[0]
        assert c.opaque_store and c.alpha is None and c.bias is None, tail  # (not alpha * sum: the library refuses)
    assert not found(base.replace("TAIL", "C[m * N + n] = acc;")).products[0].opaque_store


WEIGHTED = """
__global__ void rdm(int n, int nocc, const double* c, const double* occ, double* d) {
    int mu = blockIdx.x * blockDim.x + threadIdx.x, nu = blockIdx.y * blockDim.y + threadIdx.y;
    if (mu >= n || nu >= n) return;
    double s = 0.0;
    for (int i = 0; i < nocc; ++i) s += WEIGHT * c[mu + i * n] * c[nu + i * n];
    d[mu + nu * n] = s;
}
"""


def test_a_weight_along_k_multiplies_one_operand_and_only_a_read_of_k_alone_is_one():
    f = found(WEIGHTED.replace("WEIGHT", "occ[i]"))
    assert len(f.products) == 1, [r.reason for r in f.refused]
    c = f.products[0]
    assert [o.scale for o in c.terms[0]] in (["occ[kp_k]", None], [None, "occ[kp_k]"])
    assert c.shifted and not c.plain  # tensor cores and the library GEMM multiply the elements as stored
    # a third read that moves with a coordinate too is no weight; nor one from a buffer the kernel writes
    assert not found(WEIGHTED.replace("WEIGHT", "occ[mu * nocc + i]")).products
    assert not found(WEIGHTED.replace("WEIGHT", "d[i]")).products


def test_a_centered_operand_converted_in_a_way_that_changes_it_is_refused():
    """`(int)A[..] - za` of float A truncates each element: the tiles, which load it unconverted, would not."""
    text = """
__global__ void f(const float* A, const float* B, float* Y, int M, int N, int K, int za, int zb) {
    int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= M || c >= N) return;
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += ((int)A[r * K + k] - za) * ((int)B[k * N + c] - zb);
    Y[r * N + c] = s;
}
"""
    f = found(text)
    assert not f.products and any("changes their values" in r.reason for r in f.refused), f.refused
    assert found(text.replace("(int)", "(float)")).products  # (a conversion that keeps the value is read through)
