"""The library GEMM behind a kernel's signature (optimizer/restructure/gemmlib.py): the launcher's
call, read back from the candidate's text and run through a numpy model of kernelpro::gemm_sm90
(layouts, leading dimensions, batch strides, offsets, alpha and beta), equals each spelling's product
at sizes that are no multiples of anything (M=37, N=53, K=29, batch 3); the refusals say why; the
spec's host steps bind, render and fail with messages that say what and where; the worker's ctypes
plumbing passes each argument in its C type; a source that includes a building block compiles without
flags of its own."""
from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from test_matmul_rewrites import CASES, _args, _ctx, _path, _want

from kernelpro.optimizer import spec_edit
from kernelpro.optimizer.restructure import api
from kernelpro.profilers.compile import CompileOptions, compile_cuda, compile_library, with_blocks
from kernelpro.profilers.runtime import runner
from kernelpro.profilers.runtime.spec import SpecError, loads_spec
from kernelpro.profilers.source import parse_source


def _split(s: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in s:
        depth += ch in "(<[" and 1 or 0
        depth -= ch in ")>]" and 1 or 0
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + [cur.strip()]


def _value(e: str, env: dict):
    e = re.sub(r"\((?:int|int64_t|float)\)", "", e)
    e = re.sub(r"(\d+\.\d*|\d*\.\d+|\d+)[fF]\b", r"\1", e)
    v = api._eval(e, env)
    assert v is not None, e
    return v


def _launcher_call(source: str):
    m = re.search(r"kernelpro::gemm_sm90(?:_by_size)?<(.*?)>\(\s*(.*?)\);\s*\}", source, re.S)
    assert m, source[-1500:]
    return _split(m.group(1)), _split(m.group(2))


def _model(targs, args, env, arrays) -> dict:
    """What gemm_sm90<TA, LA, TB, LB, TD>(m, n, k, l, A, lda, sa, B, ldb, sb, D, ldd, sd, alpha, beta) computes."""
    la, lb = targs[1].split("::")[-1], targs[3].split("::")[-1]
    m, n, k, l = (int(_value(a, env)) for a in args[:4])

    def ptr(a):
        name, _, off = a.partition(" + ")
        return name.strip(), int(_value(off, env)) if off else 0
    (an, ao), lda, sa = ptr(args[4]), int(_value(args[5], env)), int(_value(args[6], env))
    (bn, bo), ldb, sb = ptr(args[7]), int(_value(args[8], env)), int(_value(args[9], env))
    (dn, do), ldd, sd = ptr(args[10]), int(_value(args[11], env)), int(_value(args[12], env))
    alpha, beta = float(_value(args[13], env)), float(_value(args[14], env))
    out = {name: a.copy() for name, a in arrays.items()}
    i, kk, j = np.arange(m)[:, None], np.arange(k), np.arange(n)[None, :]
    for b in range(l):
        ia = ao + b * sa + (i * lda + kk[None, :] if la == "RowMajor" else i + kk[None, :] * lda)
        ib = bo + b * sb + (kk[:, None] * ldb + j if lb == "RowMajor" else kk[:, None] + j * ldb)
        idd = do + b * sd + i * ldd + j
        out[dn][idd] = alpha * (arrays[an][ia] @ arrays[bn][ib]) + beta * arrays[dn][idd]
    return out


# the spellings the library takes (fp32 ones mapped with LIBRARY_ANY_TYPE: the block itself takes 16-bit operands)
TAKEN = ["gemm_xrows", "gemm_xcols", "gemm_global", "gemm_abt", "gemm_loopbatch", "gemm_colmajor", "gemm_bf16",
         "hgemm_tn", "gemm_flat", "linear_dinp", "linear_heads", "tiled_padded", "gemm_blockrow", "ptr_walk",
         "reverse_k", "rn_intrinsics", "tiled_cg", "rect_tiles", "strided_batched", "two_cols_per_thread", "gridstride2d",
         "block_row_threads_cols", "mm_2mm_alpha", "hgemm_half2_acc", "bf16_linear_rowptr", "do_while_k"]
REFUSED = {"attn_scores": "causal", "av_break": "causal", "linear_rowptr": "bias", "syr2k": "several products",
           "mm_sub_products": "several products", "gemm_tmpl": "template", "syrk_aat": "sums in double",
           "mm_scale_loop_acc_double": "sums in double",
           "bmm_z": "batch count (gridDim.z)",  # the count only in the launch's grid, not among the parameters
           "sizet_flat_batched": "batch is not one coordinate",  # batch digits of the flat output index
           "bh_split_z": "batch is not one coordinate"}  # two digits of blockIdx.z


def _library(name, monkeypatch):
    monkeypatch.setattr(api, "LIBRARY_ANY_TYPE", True)
    text = open(_path(name)).read()
    k, ctx = _ctx(name, text)
    plans, why = api.plans(text, ctx)
    lib = [p for p in plans if p.name == "matmul-library"]
    return k, lib, why


@pytest.mark.parametrize("name", TAKEN)
def test_the_launcher_computes_the_kernels_product(name, monkeypatch):
    k, lib, why = _library(name, monkeypatch)
    assert lib, why
    cand = lib[0].build(lib[0].space[0])
    assert cand.launch == {"host": f"kp_gemm_{k.name}"} and cand.kind == "structural"
    new = parse_source(cand.source)
    assert f"kp_gemm_{k.name}" in new.host_functions and new.kernel(k.name) is not None  # the kernel stays
    assert cand.source.startswith("#include <kernelpro/gemm_sm90.cuh>")
    targs, args = _launcher_call(cand.source)
    assert len(args) == 15 and "gemm_sm90_by_size<" in cand.source and targs[5] == "64"  # the tile by the problem
    alone = _launcher_call(lib[0].build(lib[0].space[1]).source)  # then each tile alone, the same arguments
    assert alone[0][5] == "cute::Shape<cute::_128, cute::_256, cute::_64>" and alone[1] == args
    kargs, views = _args(k, name)
    env = {p.name: v for p, v in zip(k.params, kargs) if not p.is_pointer}
    flat = {p.name: views[p.name].reshape(-1).astype(np.float64) for p in k.params if p.is_pointer}
    got = _model(targs, args, env, flat)
    out = CASES[name][4]
    want = _want(name, views).reshape(-1)
    np.testing.assert_allclose(got[out][:want.size], want, rtol=1e-5, atol=1e-5)  # (bf16 references sum in fp32)


@pytest.mark.parametrize("name,why", sorted(REFUSED.items()))
def test_what_the_library_does_not_take_says_why(name, why, monkeypatch):
    _, lib, whys = _library(name, monkeypatch)
    assert not lib
    said = [w for w in whys if "library GEMM" in w]
    assert said and why in said[0], whys


def test_fp32_products_are_left_to_the_other_rewrites_and_16_bit_ones_get_it_first():
    for name, plan in (("gemm_xcols", None), ("gemm_bf16", "matmul-library"), ("hgemm_tn", "matmul-library")):
        text = open(_path(name)).read()
        _, ctx = _ctx(name, text)
        plans, why = api.plans(text, ctx)
        assert (plans[0].name == "matmul-library") == (plan is not None), [p.name for p in plans]
        assert not any("library GEMM" in w for w in why) or plan is None
    text = open(_path("gemm_bf16")).read()
    _, ctx = _ctx("gemm_bf16", text)
    ctx.arch = "sm_80"
    plans, why = api.plans(text, ctx)
    assert "matmul-library" not in [p.name for p in plans] and any("sm_90a" in w for w in why)


@pytest.mark.parametrize("tolerance, admitted", [((1e-2, 0.1), True), ((1e-2, 1e-3), False)])
def test_fp32_operands_go_to_the_library_in_tf32_only_where_the_tolerance_admits_it(tolerance, admitted):
    text = open(_path("gemm_xcols")).read()
    _, ctx = _ctx("gemm_xcols", text, tolerance)
    plans, why = api.plans(text, ctx)
    lib = [p for p in plans if p.name == "matmul-library"]
    assert bool(lib) == admitted, [p.name for p in plans]
    if admitted:
        assert all(t["tile"].endswith("x32") for t in lib[0].space[1:])  # 4-byte operands: half the k depth
        cand = lib[0].build(lib[0].space[0])
        assert _launcher_call(cand.source)[0][5] == "32"  # in the by-size launcher too
        assert "multiplied in TF32" in cand.description and "TF32 admitted by the spec's tolerance" in cand.description
        targs, _ = _launcher_call(cand.source)
        assert targs[0] == targs[2] == targs[4] == "float"
    assert not any("library GEMM" in w for w in why)  # (no TF32: the tensor-core plans say why; nothing here)


def test_without_cutlass_the_library_is_not_offered_and_says_why(monkeypatch):
    import kernelpro.profilers.hunt.corpus as corpus
    monkeypatch.setattr(corpus, "cutlass_root", lambda: None)
    text = open(_path("gemm_bf16")).read()
    _, ctx = _ctx("gemm_bf16", text)
    plans, why = api.plans(text, ctx)
    assert "matmul-library" not in [p.name for p in plans] and "matmul-wmma" in [p.name for p in plans]
    assert any("CUTLASS's headers are not installed" in w for w in why), why


def test_the_file_own_launches_call_the_launcher(monkeypatch):
    text = open(_path("gemm_bf16")).read() + """
int main() {
    __nv_bfloat16 *C, *A, *B;
    gemm_bf16<<<dim3(4, 3), dim3(16, 16)>>>(A, B, C, 37, 53, 29);
    return 0;
}
"""
    k, ctx = _ctx("gemm_bf16", text)
    plans, _ = api.plans(text, ctx)
    cand = plans[0].build(plans[0].space[2])
    assert "gemm_bf16<<<" not in cand.source and "kp_gemm_gemm_bf16(A, B, C, 37, 53, 29);" in cand.source
    assert "cute::Shape<cute::_128, cute::_128, cute::_64>, cute::Shape<cute::_1," in cand.source


# ---------------------------------------------------------------- the spec's host steps

SPEC = """
kernel = "gemm_bf16"
[sizes]
small = { M = 37, N = 53, K = 29 }
[[args]]
name = "A"
dtype = "bfloat16"
shape = ["M * K"]
[[args]]
name = "B"
dtype = "bfloat16"
shape = ["K * N"]
[[args]]
name = "C"
dtype = "bfloat16"
shape = ["M * N"]
output = true
[[args]]
name = "M"
value = "M"
[[args]]
name = "N"
value = "N"
[[args]]
name = "K"
value = "K"
[launch]
grid = ["cdiv(N, 16)", "cdiv(M, 16)"]
block = [16, 16]
[reference]
python = "ref.py:gemm"
"""


def _candidate(folder=None):
    if folder is not None:
        (folder / "ref.py").write_text("def gemm(inputs, sizes):\n    return {}\n")
    text = open(_path("gemm_bf16")).read()
    _, ctx = _ctx("gemm_bf16", text)
    plans, _ = api.plans(text, ctx)
    return plans[0].build(plans[0].space[0])


def test_a_host_step_binds_to_the_kernels_signature_and_renders_into_the_spec(tmp_path):
    cand = _candidate(tmp_path)
    (tmp_path / "gemm_bf16.cu").write_text(cand.source)
    spec = loads_spec(SPEC, tmp_path / "gemm_bf16.kernelpro.toml")
    src = parse_source(cand.source, str(tmp_path / "gemm_bf16.cu"))
    new = spec.with_launch(cand.launch, src)
    (st,) = new.launches
    assert st.host == "kp_gemm_gemm_bf16" and st.grid == () and new.kernel_steps == [] and new.host_steps == [st]
    assert st.dtypes == ("bfloat16",) * 3 + ("int32",) * 3 and new.block_threads() is None
    text = spec_edit.render_spec(SPEC, cand.launch)
    assert "[launch]" not in text and 'host = "kp_gemm_gemm_bf16"' in text
    again = loads_spec(text, tmp_path / "gemm_bf16.kernelpro.toml", src)
    assert [s.to_table() for s in again.launches] == [st.to_table()]
    # [[launches]] with a memset first: the memset stays, the kernel's step keeps its arguments and `when`
    multi = SPEC.replace('[launch]\ngrid = ["cdiv(N, 16)", "cdiv(M, 16)"]\nblock = [16, 16]\n',
                         '[[launches]]\nmemset = "C"\n[[launches]]\nkernel = "gemm_bf16"\nwhen = "M > 1"\n'
                         'grid = ["cdiv(N, 16)", "cdiv(M, 16)"]\nblock = [16, 16]\nargs = ["A", "B", "C", "M", "N", "K"]\n')
    text = spec_edit.render_spec(multi, cand.launch)
    steps = loads_spec(text, tmp_path / "gemm_bf16.kernelpro.toml", src).launches
    assert steps[0].memset == "C" and steps[1].host == "kp_gemm_gemm_bf16" and steps[1].when == "M > 1"
    assert "grid" not in text.split('host = "kp_gemm_gemm_bf16"')[1]


@pytest.mark.parametrize("step,said", [
    ('host = "kp_nowhere"', "host launcher 'kp_nowhere' is not an extern \"C\" function"),
    ('host = "kp_gemm_gemm_bf16"\ngrid = [1]', "a host step takes no grid"),
    ('host = "not a name"', "host must be the name of an extern"),
    ('host = "kp_gemm_gemm_bf16"\nargs = ["A", "B", "C", "M", "N"]', "takes 6 parameters, the launch passes 5"),
])
def test_a_wrong_host_step_says_what_and_where(tmp_path, step, said):
    cand = _candidate(tmp_path)
    src = parse_source(cand.source, str(tmp_path / "gemm_bf16.cu"))
    text = SPEC.split("[launch]")[0] + f'[[launches]]\nkernel = "gemm_bf16"\n{step}\n'
    with pytest.raises(SpecError) as e:
        loads_spec(text, tmp_path / "k.kernelpro.toml", src)
    assert said in str(e.value) and e.value.line is not None


@pytest.mark.slow
def test_the_candidate_compiles_to_wgmma_and_the_ceilings_judge_it_as_tensor_core_work(tmp_path):
    """The launcher as the plan writes it (hgemm_tn: fp16 operands, both stored transposed) compiles with no flags
    of its own into the library's HGMMA kernel and the block's plain one beside the kernel as written; the ceilings
    rule sees tensor cores where the spec runs the launcher, and not in the kernel as written."""
    from kernelpro.profilers.runtime.measure import _tensor_cores

    text = open(_path("hgemm_tn")).read()
    _, ctx = _ctx("hgemm_tn", text)
    plans, _ = api.plans(text, ctx)
    cand = plans[0].build(plans[0].space[0])
    f = tmp_path / "hgemm_tn.cu"
    f.write_text(text)
    art = compile_cuda(f, CompileOptions(), text=cand.source, use_cache=False)
    assert art.ok, [d.message for d in art.errors][:3]
    names = {k.name for k in art.kernels}
    assert {"hgemm_tn", "gemm_sm90_fallback"} <= names and len(names) >= 4, names  # both tiles' GEMM kernels

    class Spec:
        kernel, host_steps = "hgemm_tn", [object()]
    assert _tensor_cores(art, Spec)
    Spec.host_steps = []
    assert not _tensor_cores(art, Spec)


# ---------------------------------------------------------------- the worker's side, without a GPU

CC = shutil.which("cc") or shutil.which("gcc")


@pytest.mark.skipif(CC is None, reason="needs a C compiler")
def test_host_launcher_arguments_reach_c_in_their_types(tmp_path):
    (tmp_path / "l.c").write_text("""
#include <stdint.h>
static double seen[8];
double seen_at(int i) { return seen[i]; }
int kp_launch(void* p, int32_t n, float a, double b, uint16_t bf, int64_t big, uint32_t u) {
  seen[0] = (double)(uintptr_t)p; seen[1] = n; seen[2] = a; seen[3] = b; seen[4] = bf; seen[5] = (double)big;
  seen[6] = u;
  return n < 0 ? 801 : 0;
}
""")
    so = tmp_path / "l.so"
    subprocess.run([CC, "-shared", "-fPIC", "-o", str(so), str(tmp_path / "l.c")], check=True)
    funcs = runner.load_library(str(so), ["kp_launch"])
    args = [{"buf": "x"}, {"scalar": 37, "dtype": "int32"}, {"scalar": 1.5, "dtype": "float32"},
            {"scalar": -2.25, "dtype": "float64"}, {"scalar": 1.0, "dtype": "bfloat16"},
            {"scalar": 2**40, "dtype": "int64"}, {"scalar": 7, "dtype": "uint32"}]
    assert funcs["host:kp_launch"](*runner.host_args(args, {"x": 0x7f0012345600})) == 0
    lib = ctypes.CDLL(str(so))
    lib.seen_at.restype = ctypes.c_double
    assert [lib.seen_at(i) for i in range(7)] == [0x7f0012345600, 37, 1.5, -2.25, 0x3F80, 2**40, 7]
    with pytest.raises(runner.CudaFailure, match="kp_missing: not exported"):
        runner.load_library(str(so), ["kp_missing"])


def test_a_source_including_a_block_compiles_with_no_flags_of_its_own(tmp_path):
    f = tmp_path / "k.cu"
    f.write_text('#include <kernelpro/warp_reduce.cuh>\n'
                 '__global__ void k(float* x) { x[threadIdx.x] = kernelpro::warp_reduce_sum(x[threadIdx.x]); }\n'
                 'extern "C" int kp_twice(int n) { return 2 * n; }\n')
    opts = with_blocks(CompileOptions(), f, None)
    assert any(p.endswith("include") for p in opts.include_paths) and opts.arch == "sm_90"
    art = compile_cuda(f, CompileOptions(), use_cache=False)
    assert art.ok, [d.message for d in art.errors]
    lib = ctypes.CDLL(compile_library(f, CompileOptions(), use_cache=False))
    assert lib.kp_twice(21) == 42
    gemm = with_blocks(CompileOptions(), f, "#include <kernelpro/gemm_sm90.cuh>\n")
    assert gemm.arch == "sm_90a" and "NDEBUG" in gemm.defines and "--expt-relaxed-constexpr" in gemm.extra_flags
    assert with_blocks(CompileOptions(), f, "// #include <kernelpro/gemm_sm90.cuh> in a comment\n") == CompileOptions()


# ---------------------------------------------------------------- on the GPU (skipped without one)

SUITE = Path(__file__).resolve().parents[1] / "benchmarks" / "suite" / "gemm_bf16"


@pytest.mark.gpu
@pytest.mark.slow
def test_the_library_candidate_checks_and_times_on_the_gpu(tmp_path):
    """The suite's naive bf16 kernel's library candidate, evaluated like any candidate: checked at every size
    (the off-by-one sizes through the block's plain kernel), timed, faster than the kernel as written."""
    from kernelpro.optimizer.builtin import scalar_params_of
    from kernelpro.profilers.runtime.measure import evaluate
    from kernelpro.profilers.runtime.spec import load_spec

    for f in ("naive.cu", "naive.kernelpro.toml", "ref.py"):
        shutil.copy(SUITE / f, tmp_path / f)
    spec = load_spec(tmp_path / "naive.kernelpro.toml")
    text = (tmp_path / "naive.cu").read_text()
    step = spec.launches[0]
    ctx = api.Context(kernel="gemm_bf16", path=str(tmp_path / "naive.cu"),
                      launch={"grid": list(step.grid), "block": list(step.block)}, base_launch=None,
                      size_env={s: spec.env(s) for s in spec.sizes},
                      scalar_params=scalar_params_of(spec, "gemm_bf16", tmp_path / "naive.cu"))
    plans, _ = api.plans(text, ctx)
    assert plans[0].name == "matmul-library"
    cand = plans[0].build(plans[0].space[0])
    new = spec.with_launch(cand.launch, parse_source(cand.source, str(tmp_path / "naive.cu")))
    small = {"sizes": ["small", "medium"]}
    ours = evaluate(tmp_path / "naive.cu", new, CompileOptions(), source_text=cand.source)
    assert ours.ok, ours.failure
    assert ours.check_sizes and all(s.check["ok"] for s in ours.sizes + ours.check_sizes)
    base = evaluate(tmp_path / "naive.cu", spec, CompileOptions(), **small)
    assert base.ok, base.failure
    t = {s.size: s.time_s for s in ours.sizes}
    assert all(t[s.size] < s.time_s for s in base.sizes), (t, [(s.size, s.time_s) for s in base.sizes])
