"""Element-wise kernels and permutes on a box of 2-D or 3-D thread indices (flat2d.py, api.flat2d_plans): read
as one flat index on a 1-D grid, then the packed gather plan (or the element-wise one where every access is at
the flat index). Every candidate of the plan's space is compiled with nvcc and run in the CPU emulator with
its own launch, at sizes off the block and off 4, against the kernel as written under its own launch: every
buffer starts from the same values and must end the same. And where the flat kernel would not do the old
one's work (a launch short of a bound, a local read as a value or written, an else), no flat plan."""
from __future__ import annotations

import os
import re
import shutil
import sys

import numpy as np
import pytest

from compile_batch import compile_each
from emu_run import Batch
from spec_emu import host_blanked

from kernelpro.optimizer.restructure import api, flat2d
from kernelpro.profilers.compile import CompileOptions
from kernelpro.profilers.source import parse_source

TESTS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(TESTS), "benchmarks"))
import first_step  # noqa: E402

GXX = shutil.which("g++")
I15 = os.path.join(TESTS, "probe_i", "i15_permute_102.cu")

NCHW_CNHW = """// launch: grid cdiv(HW, 32), cdiv(C, 8), N block 32, 8
// sizes: N=3 C=39 HW=45
__global__ void nchw_to_cnhw(const float *in, float *out, int N, int C, int HW) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;   // along H * W
    int c = blockIdx.y * blockDim.y + threadIdx.y;   // along C
    int n = blockIdx.z;                               // the batch
    if (p < HW && c < C && n < N)
        out[((size_t)c * N + n) * HW + p] = in[((size_t)n * C + c) * HW + p];
}
"""
COPY_OFFSET = """// launch: grid cdiv(D2, 16), cdiv(D1, 16), D0 block 16, 16
// sizes: D0=47 D1=39 D2=45
__global__ void scale_copy(const float *x, float *y, int D0, int D1, int D2) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int i = blockIdx.z;
    if (k < D2 && j < D1 && i < D0) {
        y[(i * D1 + j) * D2 + k + 0] = 2.0f * x[(i * D1 + j) * D2 + k];
    }
}
"""
GUARD_ORDER = """// launch: grid cdiv(D2, 32), cdiv(D0, 4), cdiv(D1, 2) block 32, 4, 2
// sizes: D0=47 D1=39 D2=45
__global__ void permute_bias(const float *x, const float *bias, const float *s, float *y, int D0, int D1, int D2)
{
    int j = blockIdx.z * blockDim.z + threadIdx.z;
    int k = threadIdx.x + blockDim.x * blockIdx.x;
    int i = threadIdx.y + blockIdx.y * blockDim.y;
    if ((j < D1) && ((i < D0) && (k < D2)))
    {
        y[(j * D0 + i) * D2 + k] = x[(i * D1 + j) * D2 + k] + bias[k] * s[i];
    }
}
"""
LONG_INDEX = """// launch: grid cdiv(D2, 64), cdiv(D1, 2), D0 block 64, 2
// sizes: D0=47 D1=39 D2=45
__global__ void permute_long(const double *x, double *y, long D0, long D1, long D2) {
    size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    long j = (long)blockIdx.y * blockDim.y + threadIdx.y;
    const long i = blockIdx.z;
    if (i < D0 && k < D2 && j < D1) {
        y[(j * D0 + i) * D2 + k] = x[(i * D1 + j) * D2 + k];
    }
}
"""
ROW_ALONE = """// launch: grid cdiv(D2, 256), D0 block 256, 1
// sizes: D0=47 D2=45
__global__ void row_scale(const float *x, const float *w, const float *g, float *y, int D0, int D2) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y;
    if (r < D0 && c < D2)
        y[r * D2 + c] += x[r * D2 + c] * w[c] + g[r];
}
"""
# name -> (text or path, the plan, the sizes to run at, elements of each buffer)
P3 = "D0*D1*D2"
CASES = {
    "i15_permute_102": (I15, "gather", [{"D2": 45}, {"D2": 44}], {"x": P3, "y": P3}),
    "nchw_to_cnhw": (NCHW_CNHW, "gather", [{"HW": 45}, {"HW": 44}], {"in": "N*C*HW", "out": "N*C*HW"}),
    "copy_offset": (COPY_OFFSET, "elementwise", [{"D2": 45}, {"D2": 44}], {"x": P3, "y": P3}),
    "guard_order": (GUARD_ORDER, "gather", [{"D2": 45}, {"D2": 44}], {"x": P3, "y": P3, "bias": "D2", "s": "D0"}),
    "long_index": (LONG_INDEX, "gather", [{"D2": 45}, {"D2": 44}], {"x": P3, "y": P3}),
    "row_alone": (ROW_ALONE, "gather", [{"D2": 45}, {"D2": 44}],
                  {"x": "D0*D2", "y": "D0*D2", "w": "D2", "g": "D0"}),
}


def _text(t):
    return open(t).read() if t.endswith(".cu") else t


def _ev(e, env):
    return int(eval(str(e).replace("/", "//"), {"cdiv": lambda a, b: -(-a // b)}, dict(env)))


def _plans(text, **head_over):
    head = first_step.read_header(text)
    head.update(head_over)
    ctx = first_step.context("box.cu", text, head)
    return ctx, api.plans(text, ctx)


def _flat_plan(plans, name=None):
    return next((p for p in plans if "indices flattened" in p.description and name in (None, p.name)), None)


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_box_is_read_flat_and_planned(name):
    text, want, _, _ = CASES[name]
    _, (plans, why) = _plans(_text(text))
    p = _flat_plan(plans, want)
    assert p is not None, why
    assert all(p.build(k).launch["block"] == [k["block"]] for k in p.space)


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
@pytest.mark.parametrize("name", sorted(CASES))
def test_each_candidate_computes_what_the_kernel_computes(name, tmp_path):
    text, want, sizes, elems = CASES[name]
    text = _text(text)
    ctx, (plans, why) = _plans(text)
    plan = _flat_plan(plans, want)
    assert plan is not None, why
    cands = [plan.build(k) for k in plan.space]
    problems = compile_each("box.cu", [(ctx.kernel, c.source, ()) for c in cands], CompileOptions(arch="sm_90"))
    assert problems == [None] * len(cands), problems
    batch = Batch([(host_blanked(t), ctx.kernel) for t in [text] + [c.source for c in cands]], str(tmp_path))
    k = parse_source(text).kernel(ctx.kernel)
    base = first_step.read_header(text)
    launches = [(base["launch"]["grid"], base["launch"]["block"])] + \
        [(c.launch["grid"], c.launch["block"]) for c in cands]
    dtype = np.float64 if "double" in k.params[0].base_type else np.float32
    for s in sizes:
        env = {**base["sizes"], **s}
        got = []
        for i, (g, b) in enumerate(launches):
            rng = np.random.default_rng(5)
            args = [rng.standard_normal(_ev(elems[p.name], env)).astype(dtype) if p.name in elems else env[p.name]
                    for p in k.params]
            got.append(batch.run(i, args, [_ev(x, env) for x in g], [_ev(x, env) for x in b]))
        for c, out in zip(cands, got[1:]):
            for p, a, w in zip(k.params, out, got[0]):
                if p.name in elems:
                    assert np.array_equal(a, w), f"{c.description} at {s}: {p.name} differs at {np.sum(a != w)}"


def test_the_digits_and_guard_of_the_flat_kernel():
    src = parse_source(open(I15).read())
    new, *ext = flat2d.flatten(src, src.kernels[0])
    assert ext == ["D1", "D0", "D2"] and "kp_e < (long long)(D1) * (D0) * (D2)" in new
    assert "y[kp_e] = x[((size_t)((kp_e / (D2)) % (D0)) * D1 + ((kp_e / (D2)) / (D0))) * D2 + (kp_e % (D2))]" in new
    assert "blockIdx.y" not in new and "blockIdx.z" not in new and "// along D0" not in new


@pytest.mark.parametrize("why, old, new", [
    ("a local read as a value", "= x[((size_t)i * D1 + j) * D2 + k];", "= k;"),
    ("a local written", "if (k < D2", "k += 1;\n    if (k < D2"),
    ("an else", "    }\n}", "    } else {\n        y[0] = 0;\n    }\n}"),
    ("a statement after the guard", "    }\n}", "    }\n    y[0] = 1;\n}"),
    ("the thread's position read elsewhere", "= x[", "= threadIdx.y + x["),
    ("a barrier", "if (k < D2", "__syncthreads();\n    if (k < D2"),
    ("a transpose (strided along x)", "y[((size_t)j * D0 + i) * D2 + k]", "y[((size_t)j * D0 + i) + k * D0 * D1]"),
    ("not dense: another row length", "* D2 + k]", "* D1 + k]"),
    ("a neighbour", "D2 + k];", "D2 + k + 1];"),
    ("a bound read from a local", "j < D1)", "j < k)"),
    ("an update at another index than the flat one", "y[((size_t)j * D0 + i) * D2 + k] = x[((size_t)i * D1 + j) * D2 + k]",
     "y[((size_t)i * D1 + j) * D2 + k] += x[((size_t)j * D0 + i) * D2 + k]"),
])
def test_no_flat_kernel_where_it_would_not_do_the_same_work(why, old, new):
    text = open(I15).read()
    assert old in text, why
    src = parse_source(text.replace(old, new, 1))
    assert flat2d.flatten(src, src.kernels[0]) is None, why
    _, (plans, _) = _plans(text.replace(old, new, 1))
    assert _flat_plan(plans) is None, why


@pytest.mark.parametrize("why, launch, sizes, said", [
    ("grid z short of D1 at one size", "grid cdiv(D2, 32), cdiv(D0, 4), D0 block 32, 4",
     {"D0": 5, "D1": 39, "D2": 45}, "along z for 39 values"),
    ("a block of 2 along z where blockIdx.z is alone", "grid cdiv(D2, 32), cdiv(D0, 4), D1 block 32, 4, 2",
     {"D0": 47, "D1": 39, "D2": 45}, "blockIdx.z alone under a block of 2"),
    ("x short by one block", "grid D2 / 32, cdiv(D0, 4), D1 block 32, 4",
     {"D0": 47, "D1": 39, "D2": 45}, "along x for 45 values"),
])
def test_no_flat_plan_where_the_old_launch_does_not_cover_the_box_once(why, launch, sizes, said):
    text = re.sub(r"// launch: .*", f"// launch: {launch}", open(I15).read())
    head = first_step.read_header(text)
    head["sizes"] = sizes
    ctx = first_step.context("box.cu", text, head)
    with pytest.raises(api.Refuse, match=re.escape(said)):
        api.flat2d_plans(text, ctx)
    plans, why_not = api.plans(text, ctx)
    assert _flat_plan(plans) is None and any(said in w for w in why_not), why_not


def test_a_launch_checked_at_every_size_of_the_spec():
    text = re.sub(r"// launch: .*", "// launch: grid cdiv(D2, 32), cdiv(D0, 4), D0 block 32, 4", open(I15).read())
    head = first_step.read_header(text)
    ctx = first_step.context("box.cu", text, head)
    assert api.flat2d_plans(text, ctx)  # D0=47 >= D1=39: covered at the header's size
    ctx = api.replace(ctx, size_env={**ctx.size_env, "small": {"D0": 5, "D1": 39, "D2": 45}})
    with pytest.raises(api.Refuse, match="at the size small"):
        api.flat2d_plans(text, ctx)
