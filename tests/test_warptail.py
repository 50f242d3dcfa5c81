"""restructure/warptail.py: the warp-synchronous end of a block reduction (`if (tid < 32)` and `volatile` steps
32 .. 1, in a helper or in place) rewritten as the same steps with barriers, and the shapes it must leave alone.
The candidates that follow are run in the emulator in tests/test_probe27_rewrites.py (Harris's #5 and #7)."""
from __future__ import annotations

import pytest

from kernelpro.optimizer.restructure.warptail import warp_tail_tree

HEAD = """__global__ void red(const float* in, float* out, int n) {
    __shared__ float sdata[256];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
"""
INPLACE = HEAD + """    if (tid < 32) {
        volatile float* v = sdata;
        v[tid] += v[tid + 32]; v[tid] += v[tid + 16]; v[tid] += v[tid + 8];
        v[tid] += v[tid + 4]; v[tid] += v[tid + 2]; v[tid] = v[tid] + v[tid + 1];
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}
"""
HELPER = """#define WARP 32
template <int B> __device__ void last_warp(volatile float* s, unsigned int t) {
    if (B >= 64) s[t] += s[t + 32];
    if (B >= 32) s[t] += s[t + 16];
    if (B >= 16) s[t] += s[t + 8];
    if (B >= 8) s[t] += s[t + 4];
    if (B >= 4) s[t] += s[t + 2];
    if (B >= 2) s[t] += s[t + 1];
}
template <int B> __global__ void red(const float* in, float* out, int n) {
    __shared__ float sdata[B];
    unsigned int tid = threadIdx.x;
    sdata[tid] = in[blockIdx.x * B + tid];
    __syncthreads();
    if (B >= 128) { if (tid < 64) sdata[tid] += sdata[tid + 64]; __syncthreads(); }
    if (tid < WARP) last_warp<B>(sdata, tid);
    if (tid == 0) out[blockIdx.x] = sdata[0];
}
template __global__ void red<128>(const float*, float*, int);
"""
TREE = "for (int kp_s = 32; kp_s > 0; kp_s >>= 1) {\n        if (tid < kp_s) sdata[tid] += sdata[tid + kp_s];\n" \
       "        __syncthreads();\n    }"


@pytest.mark.parametrize("text", [INPLACE, HELPER], ids=["in place, through a volatile alias", "templated helper"])
def test_the_warp_tail_becomes_a_tree_with_barriers_outside_the_branch(text):
    new = warp_tail_tree(text, "r.cu", "red")
    assert new is not None and TREE in new
    assert "if (tid < 32)" not in new and "if (tid < WARP)" not in new
    assert new.count("__syncthreads();") == text.count("__syncthreads();") + 1


@pytest.mark.parametrize("change", [
    ("if (tid == 0) out[blockIdx.x] = sdata[0];", "if (tid < 2) out[2 * blockIdx.x + tid] = sdata[tid];"),  # more read
    ("v[tid] += v[tid + 8];", "v[tid] += v[tid + 9];"),  # not a halving tree
    ("if (tid < 32) {", "if (tid < 16) {"),  # not a warp's 32 lanes
    ("v[tid] += v[tid + 4];", "v[tid] *= v[tid + 4];"),  # another operation in the middle
    ("v[tid] += v[tid + 2];", "v[tid + 1] += v[tid + 2];"),  # another element
])
def test_shapes_that_are_not_the_textbook_tail_are_left_alone(change):
    text = INPLACE.replace(*change)
    assert text != INPLACE
    assert warp_tail_tree(text, "r.cu", "red") is None


def test_a_helper_guard_that_is_not_a_constant_is_left_alone():
    text = HELPER.replace("if (B >= 16) s[t]", "if (t >= 16) s[t]")
    assert warp_tail_tree(text, "r.cu", "red") is None


def test_a_max_tail_kept_in_a_register_with_warp_barriers_is_read_as_a_max_tree():
    """Round P's p16: `float v = sdata[tid]; if (blockSize >= 64) { v = fmaxf(v, sdata[tid + 32]); __syncwarp();
    sdata[tid] = v; __syncwarp(); } ...` in a template helper: the steps of sdata[tid] with fmaxf, as a tree with
    barriers that keeps fmaxf; a tail mixing a max and a sum, or a register stored elsewhere, is left alone."""
    import os
    from kernelpro.profilers.source import chosen_instantiation
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "probe_p", "p16_reduce_max_reduce4.cu")
    text = open(path).read()
    with chosen_instantiation("reduce4max", ("256",)):
        got = warp_tail_tree(text, path, "reduce4max")
        assert got is not None and "sdata[tid] = fmaxf(sdata[tid], sdata[tid + kp_s]);" in got
        for wrong in (("v = fmaxf(v, sdata[tid +  8]);", "v = v + sdata[tid +  8];"),  # a sum among the maxima
                      ("v = fmaxf(v, sdata[tid +  4]); __syncwarp(); sdata[tid] = v;",
                       "v = fmaxf(v, sdata[tid +  4]); __syncwarp(); sdata[tid + 1] = v;")):  # stored elsewhere
            changed = text.replace(*wrong)
            assert changed != text and warp_tail_tree(changed, path, "reduce4max") is None, wrong
