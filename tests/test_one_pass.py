"""A grid-stride loop over elements read as one pass a thread (api._one_pass) only where the spec's 1-D launch has a
thread for every element at every size; a loop header written as a macro before a block (Caffe's CUDA_KERNEL_LOOP)
expanded; a size cast to a 32-bit type read as the size."""
from __future__ import annotations

import re

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
    assert "int index = blockIdx.x * blockDim.x + threadIdx.x;\n  if (index < (count)) {" in once


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


STEPPED = """__global__ void heat(const float* u, float* v, int nx, int ny, int nz) {
  const int ix = blockIdx.x * blockDim.x + threadIdx.x, iy = blockIdx.y * blockDim.y + threadIdx.y;
  if (ix <= 0 || ix >= nx - 1 || iy <= 0 || iy >= ny - 1) return;
  const size_t plane = (size_t)nx * ny;
  size_t c = plane + (size_t)iy * nx + ix;
  for (int iz = 1; iz < nz - 1; ++iz) {
    v[c] = u[c - plane] + u[c] + u[c + plane];
    c += plane;
  }
}
"""


def test_an_index_stepped_once_a_pass_is_read_at_the_counter():
    from kernelpro.profilers.analysis.pointer_steps import index_pointer_steps
    got = index_pointer_steps(STEPPED, "k.cu", "heat")
    assert got is not None and "c += plane" not in got
    assert "v[(c + (long long)(iz - (1)) * (plane))] = u[(c + (long long)(iz - (1)) * (plane)) - plane]" in got
    # read after the loop, written in it, or a float: not an index the counter gives
    assert index_pointer_steps(STEPPED.replace("  }\n}", "  }\n  v[0] = c;\n}"), "k.cu", "heat") is None
    assert index_pointer_steps(STEPPED.replace("    v[c] =", "    c ^= 1;\n    v[c] ="), "k.cu", "heat") is None
    assert index_pointer_steps(STEPPED.replace("size_t c =", "float c =").replace("v[c]", "v[(int)c]")
                               .replace("u[c - plane] + u[c] + u[c + plane]", "c"), "k.cu", "heat") is None


def test_a_grid_stride_loop_over_a_grid_of_its_own_is_read_under_a_covering_launch_only_where_nothing_reads_the_grid():
    """api._covering: `<<<24, 256>>>` looping over more elements than threads becomes one pass a thread under
    cdiv(n, 256) blocks, the file's own launch rewritten to it; not where the body reads blockIdx or gridDim (a
    per-block slot would move), a `break` ends the old thread's later elements or a launch cannot be rewritten; the
    loop's own `continue` ends the one pass (a `return`)."""
    text = expand_macros(KERNEL, "k.cu", "scale") + "void run(const float* x, float* y, int count) {\n" \
        "  scale<<<24, 256>>>(count, x, y);\n}\n"
    ctx = _ctx(["24"], [256], {"small": {"n": 9177}})
    got = api._covering(text, ctx)
    bare = lambda t: re.sub(r"[()\s]", "", t)  # noqa: E731  (how many parentheses the bound keeps does not matter)
    assert got is not None and got[1].launch["grid"] == got[1].base_launch["grid"]
    assert bare(got[1].launch["grid"][0]) == "cdivn,256"
    assert "scale<<<unsignedlonglongcount+256-1/256,256>>>" in bare(got[0])
    assert api._covering(text, _ctx(["cdiv(n, 256)"], [256], {"small": {"n": 9177}})) is None  # covered already
    jumps = api._covering(text.replace("y[index] = 2.0f * x[index];",
                                       "if (x[index] < 0.f) continue; y[index] = 2.0f * x[index];"), ctx)
    body = jumps[0][jumps[0].index("__global__"):jumps[0].index("void run")]
    assert "if (x[index] < 0.f) return;" in body and "continue" not in body
    for wrong in (("y[index] = 2.0f * x[index];", "y[index] = 2.0f * x[index] + blockIdx.x;"),
                  # (a `break` ended the old thread's later elements too: not one pass's return)
                  ("y[index] = 2.0f * x[index];", "if (x[index] < 0.f) break; y[index] = 2.0f * x[index];"),
                  ("scale<<<24, 256>>>(count, x, y);", "dim3 g(24); scale<<<g, 256>>>(count, x, y);")):
        changed = text.replace(*wrong)
        assert changed != text and api._covering(changed, ctx) is None, wrong
