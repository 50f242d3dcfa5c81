"""A grid-stride loop over elements read as one pass a thread (api._one_pass) only where the spec's 1-D launch has a
thread for every element at every size; a loop header written as a macro before a block (Caffe's CUDA_KERNEL_LOOP)
expanded; a size cast to a 32-bit type read as the size."""
from __future__ import annotations

from kernelpro.optimizer.restructure import api
from kernelpro.optimizer.restructure.text import in_terms_of
from kernelpro.profilers.analysis.macros import expand_macros

KERNEL = """#define CUDA_KERNEL_LOOP(i, n) \\
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)

__global__ void scale(const int count, const float* x, float* y) {
  CUDA_KERNEL_LOOP(index, count) {
    y[index] = 2.0f * x[index];
  }
}
"""


def _ctx(grid, block, sizes):
    return api.Context(kernel="scale", path="k.cu", launch={"grid": grid, "block": block},
                       base_launch={"grid": grid, "block": block}, size_env=sizes, scalar_params={"count": "n"})


def test_the_macro_header_is_expanded_and_the_loop_read_as_one_pass_where_every_element_has_a_thread():
    text = expand_macros(KERNEL, "k.cu", "scale")
    assert text is not None and "for (int index = blockIdx.x * blockDim.x + threadIdx.x; index < (count);" in text
    once = api._one_pass(text, _ctx(["cdiv(n, 256)"], [256], {"small": {"n": 1000}, "large": {"n": 1 << 20}}))
    assert once is not None and "for (" not in once.split("__global__")[1]
    assert "int index = blockIdx.x * blockDim.x + threadIdx.x; if (index < (count))" in once


def test_no_one_pass_where_a_thread_may_take_several_elements():
    text = expand_macros(KERNEL, "k.cu", "scale")
    sizes = {"small": {"n": 1000}, "large": {"n": 1 << 20}}
    assert api._one_pass(text, _ctx(["24"], [256], sizes)) is None  # a fixed grid: 6144 threads for 2^20 elements
    assert api._one_pass(text, _ctx(["cdiv(n, 256)", "2"], [256], sizes)) is None  # not a 1-D launch
    block_stride = text.replace("index += blockDim.x * gridDim.x", "index += blockDim.x").replace(
        "int index = blockIdx.x * blockDim.x + threadIdx.x", "int index = threadIdx.x")
    assert api._one_pass(block_stride, _ctx(["cdiv(n, 256)"], [256], sizes)) is None  # every block over all elements


def test_a_size_cast_to_32_bits_is_the_size_and_an_expression_cast_is_not():
    assert in_terms_of("(unsigned)M * (unsigned int) N", {"M": "M", "N": "N"}) == "(M) * (N)"
    assert in_terms_of("(int)(x * 2)", {"x": "X"}) is None  # (a float expression truncated: not a size)
