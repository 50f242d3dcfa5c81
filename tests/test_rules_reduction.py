"""block-reduction-barriers: the rule, its quick fix (a bit-identical warp-shuffle tail), and
the matcher's refusals. Real nvcc/nvdisasm; the GPU test compares outputs bit for bit."""
from __future__ import annotations

from pathlib import Path

import pytest

from kernelpro.optimizer.transforms import apply_edits
from kernelpro.profilers.advice import Severity
from kernelpro.profilers.compile import CompileOptions, compile_cuda
from kernelpro.profilers.profile import profile_file
from kernelpro.profilers.rules import reduction
from kernelpro.profilers.source import parse_source

EX = Path(__file__).resolve().parent.parent / "examples"
RULE = "block-reduction-barriers"


def advice(path, **kw):
    r = profile_file(path, **kw)
    assert r.ok, [d.message for d in r.errors]
    return [a for a in r.advice if a.rule == RULE], r


def test_fires_at_the_loop_of_the_example():
    text = (EX / "b_tree_reduce.cu").read_text()
    (a,), _ = advice(EX / "b_tree_reduce.cu")
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if ln.lstrip().startswith("for (int s"))
    assert (a.line, a.column, a.kernel, a.severity) == (line, 3, "block_max", Severity.WARNING)
    assert "8 steps" in a.message and "last 6" in a.message and "smax" in a.message
    assert "__shfl_down_sync" in a.remedy and "3 barriers instead of 8" in a.remedy
    ev = {e.name: e.value for e in a.evidence}
    assert ev["reduction steps"] == 8 and ev["barriers after the rewrite"] == 3
    assert a.fix and "fmaxf(v, __shfl_down_sync(0xffffffffu, v, o))" in a.fix["edits"][0]["new_text"]


def test_silent_on_the_fixed_twin():
    assert advice(EX / "b_tree_reduce_fixed.cu")[0] == []


def test_block_size_from_the_launch_spec():
    (a,), _ = advice(EX / "b_sync_reduce_fixed.cu")
    assert "for a block of 256 (launch spec)" in a.message
    (b,), _ = advice(EX / "b_sync_reduce_fixed.cu", block=1024)
    assert "10 steps" in b.message and "5 barriers instead of 10" in b.remedy


@pytest.mark.parametrize("name", ["b_tree_reduce.cu", "b_sync_reduce_fixed.cu"])
def test_fix_compiles_to_shuffles_with_fewer_barriers(tmp_path, name):
    text = (EX / name).read_text()
    (a,), _ = advice(EX / name)
    fixed = apply_edits(text, a.fix["edits"])
    p = tmp_path / name
    p.write_text(fixed)
    after, rep = advice(p)
    assert after == [] and not [x for x in rep.advice if x.rule == "sync-in-divergent-branch"]

    def ops(src_text):
        art = compile_cuda(p, CompileOptions(), text=src_text)
        assert art.ok
        return [i.opcode for b in art.builds(a.kernel) for i in b.sass]
    old, new = ops(text), ops(fixed)
    assert not any(o.startswith("SHFL") for o in old)
    assert sum(o.startswith("SHFL.DOWN") for o in new) >= 5  # the fallback loop keeps its BARs for other blocks


BASE = """
__global__ void r(const float* in, float* out) {
  __shared__ float a[256];
  unsigned tid = threadIdx.x;
  a[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) a[tid] += a[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = a[0];
}
"""


def found(text):
    src = parse_source(text)
    return reduction.find(src, src.kernels[0])


@pytest.mark.parametrize("change", [
    ("if (tid == 0) out[blockIdx.x] = a[0];", "out[blockIdx.x * blockDim.x + tid] = a[tid];"),  # other slots read
    ("unsigned tid = threadIdx.x;", "unsigned tid = threadIdx.x + 1;"),
    ("a[tid] = in[", "tid += 0; a[tid] = in["),  # tid written again
    ("a[tid] += a[tid + s]", "a[tid] -= a[tid + s]"),
    ("a[tid] += a[tid + s]", "a[tid] += a[tid + s + 1]"),
    ("__syncthreads();\n  }", "__syncwarp();\n  }"),
    ("for (unsigned s = blockDim.x / 2; s > 0; s >>= 1)", "for (unsigned s = blockDim.x / 2; s > 1; s >>= 1)"),
    ("for (unsigned s = blockDim.x / 2; s > 0; s >>= 1)", "for (unsigned s = blockDim.x / 2; s > 0; s -= 1)"),
    ("__shared__ float a[256];", "__shared__ short a[256];"),
    ("a[tid] = in[blockIdx.x", "a[tid + threadIdx.y] = in[blockIdx.x"),  # 2-D block
])
def test_matcher_refuses_what_it_cannot_rewrite_exactly(change):
    assert len(found(BASE)) == 1
    assert BASE.count(change[0]) >= 1
    assert found(BASE.replace(change[0], change[1], 1)) == []


def test_matcher_refuses_a_loop_inside_another_loop_and_a_stride_declared_outside():
    nested = BASE.replace("  for (unsigned s", "  for (int round = 0; round < 2; ++round)\n  for (unsigned s")
    assert found(nested) == []
    outside = BASE.replace("for (unsigned s = blockDim.x / 2;", "unsigned s;\n  for (s = blockDim.x / 2;")
    assert found(outside) == []


@pytest.mark.parametrize("rhs, expect", [
    ("a[tid] = a[tid] + a[tid + s]", "v + __shfl_down_sync(0xffffffffu, v, o)"),
    ("a[tid] = a[s + tid] + a[tid]", "__shfl_down_sync(0xffffffffu, v, o) + v"),
    ("a[tid] = fminf(a[tid], a[tid + s])", "fminf(v, __shfl_down_sync(0xffffffffu, v, o))"),
    ("a[tid] *= a[tid + s]", "v * __shfl_down_sync(0xffffffffu, v, o)"),
])
def test_step_forms_keep_their_operand_order(rhs, expect):
    text = BASE.replace("a[tid] += a[tid + s]", rhs)
    src = parse_source(text)
    (r,) = reduction.find(src, src.kernels[0])
    assert expect in reduction.rewrite(src, src.kernels[0], r)


def test_silent_when_the_warp_path_would_not_run(tmp_path):
    p = tmp_path / "k.cu"
    p.write_text(BASE)
    assert advice(p, block=256)[0] and advice(p, block=64)[0]
    assert advice(p, block=32)[0] == []  # s starts at 16: no step with a full warp
    assert advice(p, block=96)[0] == []  # 48, 24, ...: never 32


def test_fresh_names_do_not_capture_the_kernels_own():
    text = BASE.replace("unsigned tid", "unsigned v = 0; unsigned tid").replace("in[blockIdx.x", "in[v + blockIdx.x")
    src = parse_source(text)
    (r,) = reduction.find(src, src.kernels[0])
    out = reduction.rewrite(src, src.kernels[0], r)
    assert "float val = " in out and "float v =" not in out


@pytest.mark.gpu
@pytest.mark.parametrize("block", [32, 64, 96, 128, 256])
def test_fixed_reduction_is_bit_identical_on_the_gpu(tmp_path, block):
    import numpy as np
    from test_transforms import _gpu_runner

    r = _gpu_runner()
    if r is None:
        pytest.skip("neither cupy nor pycuda imports")
    lib, xp, launch = r
    text = (EX / "b_sync_reduce_fixed.cu").read_text()
    (a,), _ = advice(EX / "b_sync_reduce_fixed.cu")
    fixed = apply_edits(text, a.fix["edits"])
    text, fixed = (t[:t.index("void launch_block_sum")] for t in (text, fixed))  # device code only (NVRTC)
    n = 1_000_003
    host = np.random.default_rng(block).standard_normal(n).astype(np.float32)
    grid = -(-n // block)

    def run(src):
        x, out = xp.asarray(host), xp.asarray(np.zeros(grid, np.float32))
        args = (x, out, np.int32(n)) if lib == "cupy" else (x.gpudata, out.gpudata, np.int32(n))
        launch(src, "block_sum", args, [grid], [block])
        return xp.asnumpy(out)

    want, got = run(text), run(fixed)
    np.testing.assert_array_equal(got, want)
    if block & (block - 1):
        return  # 96: the tree itself (48, 24, 12, 6, 3, 1) drops elements; only sameness is asked
    ref = np.concatenate([host, np.zeros(-n % block, np.float32)]).astype(np.float64).reshape(-1, block).sum(1)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)


def test_the_builtin_proposer_offers_the_fix_and_the_whole_tree_first(tmp_path):
    from kernelpro.optimizer.builtin import BuiltinProposer
    from kernelpro.optimizer.transforms import TransformInput

    text = (EX / "b_sync_reduce_fixed.cu").read_text()
    adv, rep = advice(EX / "b_sync_reduce_fixed.cu")
    prop = BuiltinProposer("block_sum", {"block": [256], "grid": ["cdiv(n, 256)"]}, ["small"],
                           path=str(tmp_path / "c.cu"))
    inp = TransformInput(source=text, kernel="block_sum", advice=rep.advice,
                         launch={"block": [256], "grid": ["cdiv(n, 256)"]})
    cands = prop.candidates(inp)
    # the whole tree as shuffles (a structural plan answering the same advice) and the advice's own fix
    # (the last steps as shuffles, bit-identical) lead, both answering the rule
    (top, top_prior), (second, second_prior) = cands[:2]
    assert {top.origin, second.origin} == {"builtin:block-tree", "builtin:fix"}, [c.origin for c, _ in cands]
    first, prior = (top, top_prior) if top.origin == "builtin:fix" else (second, second_prior)
    assert first.answers == (RULE,) and prior >= 0.8
    assert first.source == apply_edits(text, adv[0].fix["edits"])
    assert prop.compile_error(first) is None
