"""Branches chosen by flag-like arguments alone (reference BLAS's `char transa`, `bool transB`, `beta == 0.0f`)
read at the spec's values (optimizer/restructure/flags.py): the product under them is planned, and each candidate
keeps the kernel as written for every other value. Run in the CPU emulator against the kernel as written, at the
spec's values (the tiles) and at the others (the kept kernel, for each thread of its own launch)."""
from __future__ import annotations

import os
import shutil
import sys

import numpy as np
import pytest

from compile_batch import compile_each
from emu_run import Batch
from spec_emu import host_blanked

from kernelpro.optimizer.restructure import api, flags
from kernelpro.profilers.analysis.types import table_for
from kernelpro.profilers.compile import CompileOptions
from kernelpro.profilers.source import parse_source

TESTS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(TESTS), "benchmarks"))
import first_step  # noqa: E402

GXX = shutil.which("g++")

BLAS = """
__global__ void gemm(char transa, char transb, int m, int n, int k, float alpha, const float* A, int lda,
                     const float* B, int ldb, float beta, float* C, int ldc) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= m || j >= n) return;
    const bool nota = !(transa == 'T' || transa == 't');
    const bool notb = !(transb == 'T' || transb == 't');
    float s = 0.0f;
    for (int l = 0; l < k; ++l) {
        float a = nota ? A[i + l * lda] : A[l + i * lda];
        float b = notb ? B[l + j * ldb] : B[j + l * ldb];
        s += a * b;
    }
    if (beta == 0.0f) C[i + j * ldc] = alpha * s;
    else C[i + j * ldc] = alpha * s + beta * C[i + j * ldc];
}
"""


def _spec(text, envs):
    return flags.specialised(text, "k.cu", "gemm", envs)


def test_each_flag_condition_is_read_at_the_spec_s_value_and_the_guard_says_which():
    sp = _spec(BLAS, [{"transa": ord("N"), "transb": ord("T"), "beta": 0.5, "alpha": 1.0, "m": 5, "n": 6, "k": 7}])
    assert sp is not None
    body = sp.text[sp.text.index("{"):]
    assert "nota" not in body and "notb" not in body and "beta == 0.0f" not in body  # every choice made
    assert "A[i + l * lda]" in body and "A[l + i * lda]" not in body  # not transposed: the first side
    assert "B[j + l * ldb]" in body and "B[l + j * ldb]" not in body  # transposed: the second
    assert "alpha * s + beta * C" in body
    # the guard, over the parameters: true at the spec's values only
    assert "transa" in sp.guard and "transb" in sp.guard and "beta" in sp.guard and "nota" not in sp.guard
    assert "transa = 'N'" in sp.note and "transb = 'T'" in sp.note


def test_sizes_and_data_are_never_specialised():
    sized = """
__global__ void f(const float* x, float* y, int n, bool twice) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    if (n % 4 == 0) v = v * 2.0f;
    if (v > 0.0f) v = -v;
    y[i] = twice ? v + v : v;
}
"""
    sp = flags.specialised(sized, "k.cu", "f", [{"n": 1024, "twice": 1}])
    assert sp is not None and "y[i] = true ? v + v : v;" in sp.text  # (its common type kept)
    assert "if (n % 4 == 0)" in sp.text  # a size's condition stays: another size would take the slow path
    assert "if (v > 0.0f)" in sp.text  # data
    assert "if (i >= n)" in sp.text


def test_sizes_that_disagree_leave_the_condition_alone():
    assert _spec(BLAS.replace("if (beta == 0.0f)", "if (beta == 0.0f && alpha == 1.0f)"),
                 [{"transa": 78, "transb": 78, "beta": 0.0, "alpha": 1.0},
                  {"transa": 78, "transb": 78, "beta": 0.5, "alpha": 1.0}]).guard.count("beta") == 0


def test_a_kernel_that_meets_its_block_is_not_kept_as_written():
    with pytest.raises(flags.Refuse):
        flags.as_written(BLAS.replace("float s = 0.0f;", "__shared__ float t[32]; float s = 0.0f;"), "k.cu", "gemm")


def _ev(e, env):
    return int(eval(str(e).replace("/", "//"), {"cdiv": lambda a, b: -(-a // b)}, dict(env)))


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
@pytest.mark.parametrize("name,plan_name,others", [
    ("../probe_u/u02_sgemm_colmajor_transchar.cu", "matmul-tiles",
     [{"transa": ord("t"), "transb": ord("N"), "beta": 0.0}, {"transa": ord("T"), "transb": ord("T")}]),
    ("../probe_u/u20_bf16_gemm_bool_trans.cu", "matmul-tiles", [{"transA": 1, "transB": 0}, {"beta": 0.0}]),
    # GSL's dgemv with CblasTrans: `if (beta == 0.0) Y[j] = alpha * temp; else ...` after a column's sum (the
    # column plan of the kernel as written refuses the branch after the sum; `#define BASE double`)
    ("../probe_z/z09_gsl_cblas_dgemv_trans_tda.cu", "column", [{"beta": 0.0}]),
])
def test_the_plan_computes_the_kernel_at_the_spec_s_flags_and_the_kernel_as_written_at_others(name, plan_name, others,
                                                                                           tmp_path):
    path = os.path.join(TESTS, "probe_u", name)
    text = open(path).read()
    head = first_step.read_header(text)
    ctx = first_step.context(path, text, head)
    found, why = api.plans(text, ctx)
    plan = next((p for p in found if p.name == plan_name), None)
    assert plan is not None, why
    cand = plan.build({**plan.space[0], "cluster": 1} if "cluster" in plan.space[0] else plan.space[0])
    assert "kp_as_written_" in cand.source and "specialised to the spec's" in cand.description
    k = parse_source(text).kernel(ctx.kernel)
    types = table_for(parse_source(text))
    problems = compile_each(path, [(k.name, cand.source, ())], CompileOptions(arch="sm_90"))
    assert problems == [None], problems
    batch = Batch([(host_blanked(text), k.name), (host_blanked(cand.source), k.name)], str(tmp_path))
    for over in [{}] + others:
        env = {**head["sizes"], **over}
        outs = []
        for i, launch in enumerate([ctx.launch, cand.launch]):
            rng = np.random.default_rng(5)
            args = []
            for p in k.params:
                if p.is_pointer:
                    x = rng.standard_normal(120 * 120).astype(np.float32)
                    sc = types.scalar(p.base_type)
                    args.append((x.view(np.uint32) >> 16).astype(np.uint16) if "bfloat16" in p.base_type else
                                x.astype(np.float64) if sc is not None and sc.name == "double" else x)
                else:
                    args.append(env[p.name])
            got = batch.run(i, args, [_ev(g, env) for g in launch["grid"]], launch["block"])
            outs.append([g for g, p in zip(got, k.params) if p.is_pointer])
        for a, b, p in zip(outs[0], outs[1], [p for p in k.params if p.is_pointer]):
            assert np.allclose(a, b, rtol=1e-4, atol=1e-3), f"{over}: {p.name} differs"


def test_what_is_not_a_flag_at_the_spec_s_value_is_left_alone():
    """Found by a second reading: a flag the kernel changes (`if (transa >= 'a') transa -= 32;`), a local declared
    twice (one name, two flags), an integer ordered against a value (a size: `ncols >= 64`)."""
    env = [{"transa": ord("n"), "transb": ord("T"), "beta": 0.5, "alpha": 1.0}]
    changed = BLAS.replace("const bool nota", "if (transa >= 'a') transa -= 32; const bool nota")
    sp = flags.specialised(changed, "k.cu", "gemm", env)
    assert sp is not None and "transa" not in sp.guard and "nota ?" in sp.text  # transb and beta still read
    shadowed = BLAS.replace("float s = 0.0f;", "float s = 0.0f; { const bool nota = beta == 0.0f; s += nota; }")
    sp = flags.specialised(shadowed, "k.cu", "gemm", env)
    assert "nota ?" in sp.text and "!(transa" not in sp.guard
    sized = BLAS.replace("if (beta == 0.0f)", "if (k >= 64)")
    assert "if (k >= 64)" in flags.specialised(sized, "k.cu", "gemm", [{**env[0], "k": 100}]).text


def test_a_local_s_type_and_a_choice_s_common_type_are_kept():
    """`const bool t = opts & 2;` holds true at opts = 2 (and the guard says `(bool)`); `unit ? 1 : 0.5f` is a float
    whichever side is taken (the condition becomes a literal rather than the side an int)."""
    text = """
__global__ void f(const float* a, float* c, int n, int opts, bool unit) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const bool t = opts & 2;
    c[i] = (t == 1 ? a[i] : a[n - 1 - i]) * ((unit ? 1 : 0.5f) / 2);
}
"""
    sp = flags.specialised(text, "k.cu", "f", [{"n": 100, "opts": 2, "unit": 1}])
    assert "((a[i]))" in sp.text.replace(" ", "") or "(a[i])" in sp.text
    assert "(true ? 1 : 0.5f)" in sp.text and "((bool)(opts & 2))" in sp.guard


def test_the_kernel_kept_as_written_takes_macros_helpers_linkage_and_defaults_into_account():
    with pytest.raises(flags.Refuse):  # a macro that reads the built-ins would read the real thread's
        flags.as_written("#define ROW (blockIdx.y * blockDim.y + threadIdx.y)\n" + BLAS.replace(
            "j = blockIdx.y * blockDim.y + threadIdx.y", "j = ROW"), "k.cu", "gemm")
    with pytest.raises(flags.Refuse):  # a helper that meets its block
        flags.as_written("__device__ float sync_sum(float v) { __syncthreads(); return v; }\n" + BLAS, "k.cu", "gemm")
    kept = flags.as_written(BLAS.replace("float* C, int ldc)", "float* C, int ldc = 1)"), "k.cu", "gemm")
    assert "int ldc, const dim3" in kept.fn and kept.names[-1] == "ldc"  # (no default before the built-ins)
    linked = 'extern "C" ' + BLAS.strip()
    out = flags.with_fallback(linked, "k.cu", "gemm", flags.as_written(linked, "k.cu", "gemm"), "true",
                              ["1ull"], [16, 16])
    assert out.index("kp_as_written_gemm(") < out.index('extern "C"')  # the helper outside the C linkage


def test_enumerators_are_read_with_their_values():
    """cuBLAS's `cublasOperation_t transa` compared with `CUBLAS_OP_N` (an enumerator of the file): read as a flag,
    the enumerator's value known (implicit ones one more than the one before); the product under it is planned."""
    text = """typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T, CUBLAS_OP_C } cublasOperation_t;
__global__ void gemm(cublasOperation_t transa, int m, int n, int k, const float* A, int lda, const float* B, int ldb,
                     float* C, int ldc) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= m || j >= n) return;
    float s = 0.0f;
    for (int l = 0; l < k; ++l)
        s += ((transa == CUBLAS_OP_T) ? A[l + i * lda] : A[i + l * lda]) * B[l + j * ldb];
    C[i + j * ldc] = s;
}
"""
    sp = flags.specialised(text, "k.cu", "gemm", [{"transa": 1, "m": 37, "n": 29, "k": 21}])
    assert sp is not None and "(transa == CUBLAS_OP_T)" in sp.guard and "A[l + i * lda]" in sp.text
    ctx = api.Context(kernel="gemm", path="k.cu", launch={"grid": ["cdiv(m, 16)", "cdiv(n, 16)"], "block": [16, 16]},
                      base_launch=None, size_env={"s": {"transa": 1, "m": 37, "n": 29, "k": 21, "lda": 37, "ldb": 21,
                                                        "ldc": 37}},
                      scalar_params={p: p for p in ("transa", "m", "n", "k", "lda", "ldb", "ldc")})
    found, why = api.plans(text, ctx)
    assert "matmul-tiles" in [p.name for p in found], why
