"""passes.expand_macros: a kernel's calls of the file's function-like macros read as what they stand for."""
from __future__ import annotations

from kernelpro.optimizer.restructure.api import Context, plans
from kernelpro.optimizer.restructure.passes import expand_macros

CUBLAS = """#define IDX2C(i, j, ld) (((j) * (ld)) + (i))
#define AT(m, i, j) m[IDX2C(i, j, ld)]
#define NAME(x) #x
__global__ void scale(float* a, int ld, int n, float s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
    if (i < ld && j < n) AT(a, i, j) = s * AT(a, i, j);
}
"""


def test_macros_expand_with_their_arguments_in_parentheses_and_nested_ones_too():
    new = expand_macros(CUBLAS, "m.cu", "scale")
    body = new[new.index("__global__"):]
    assert "a[(((j * ld) + i))] = s * a[(((j * ld) + i))];" in body  # `(i)` of a name: the bare name
    assert "AT(" not in body and "IDX2C(" not in body
    assert expand_macros(new, "m.cu", "scale") is None  # nothing left to expand


def test_arguments_are_put_in_at_once_and_a_complex_one_keeps_its_parentheses():
    text = ("#define B(i, j) b[(i) + (j) * ldb]\n"
            "__global__ void t(float* b, int ldb) { int i = threadIdx.x, j = threadIdx.y; B(j, i) = B(i + 1, j); }\n")
    assert "b[j + i * ldb] = b[((i + 1)) + j * ldb];" in expand_macros(text, "m.cu", "t")


def test_a_macro_that_stringizes_or_takes_other_arguments_is_left_alone():
    text = CUBLAS.replace("AT(a, i, j) = s * AT(a, i, j);", "a[i] = s * NAME(i)[0];")
    assert expand_macros(text, "m.cu", "scale") is None
    assert expand_macros(CUBLAS.replace("AT(a, i, j) = s", "AT(a, i) = s"), "m.cu", "scale").count("AT(a, i)") == 1


def test_an_element_wise_kernel_through_macros_gets_its_plan():
    text = """#define V(p, i) p[(i)]
__global__ void axpy(const float* x, float* y, int n, float s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) V(y, i) = s * V(x, i) + V(y, i);
}
"""
    launch = {"grid": ["cdiv(n, 256)"], "block": [256]}
    ctx = Context(kernel="axpy", path="m.cu", launch=launch, base_launch=launch, size_env={"small": {"n": 1000}},
                  scalar_params={"n": "n", "s": "s"})
    assert "elementwise" in [p.name for p in plans(text, ctx)[0]]


def test_an_index_helper_function_is_read_like_a_macro_and_other_device_functions_are_not():
    """`__device__ int at(int x, int y, int nx) { return y * nx + x; }`: one integer expression of integer
    parameters, followed into the index like a function-like macro (tests/probe27/st3d_idx_fn.cu gets its
    stencil plans so); a helper with a loop, a pointer parameter or a float result stays a call."""
    from kernelpro.profilers.analysis.affine import build_env, global_accesses
    from kernelpro.profilers.source import parse_source

    text = """__device__ __forceinline__ int at(int x, int y, const int nx) { return y * nx + x; }
__device__ int loops(int x, int n) { int s = 0; for (int i = 0; i < n; ++i) s += x; return s; }
__device__ int deref(const int* p, int x) { return p[x]; }
__device__ float half(int x) { return x / 2; }
__global__ void k(const float* in, float* out, const int* idx, int nx) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    out[at(x, y, nx)] = in[at(x + 1, y - 1, nx)] + in[loops(x, 3)] + in[deref(idx, x)] + in[(int)half(x)];
}
"""
    src = parse_source(text)
    assert set(src.index_functions) == {"at"} and src.index_functions["at"] == (("x", "y", "nx"), "y * nx + x")
    k = src.kernel("k")
    got = {src.node_text(a.node): a.index for a in global_accesses(build_env(src, k), include_unknown=True)}
    assert got["out[at(x, y, nx)]"] is not None and got["in[at(x + 1, y - 1, nx)]"] is not None
    out, shifted = got["out[at(x, y, nx)]"], got["in[at(x + 1, y - 1, nx)]"]
    assert {m: c for m, c in shifted.items() if m not in out or out[m] != c} == {(): 1, ("nx",): -1}
    assert got["in[loops(x, 3)]"] is None and got["in[deref(idx, x)]"] is None and got["in[(int)half(x)]"] is None


def test_a_comment_after_a_macros_body_stays_out_of_the_expansion():
    text = ("#define LOAD(p) __ldcs(p)  // read once: streaming\n#define TWICE(x) (2 * (x)) /* doubled */\n"
            "__global__ void k(const float* x, float* y, int n) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = TWICE(LOAD(x + i));\n}\n")
    new = expand_macros(text, "m.cu", "k")
    body = new[new.index("__global__"):]
    assert "if (i < n) y[i] = ((2 * (((__ldcs((x + i)))))));" in body and "//" not in body and "/*" not in body


def test_object_like_macros_for_run_time_values_are_read_as_what_they_stand_for():
    """PolyBench's `#define _PB_NI ni` (a parameter), `#define SIZE (nx * ny)` and `#define TID threadIdx.x` are
    written out in the kernel; numeric macros (constants already), types and statements stay as they are."""
    from kernelpro.profilers.analysis.macros import expand_macros

    text = """#define _PB_NI ni
#define SIZE nx * ny  // cells
#define TID threadIdx.x
#define BS 256
#define DATA_TYPE float
#define SYNC __syncthreads();
__global__ void k(int ni, int nx, int ny, DATA_TYPE* a) {
  DATA_TYPE v = a[TID];
  if (TID < _PB_NI && blockIdx.x * BS + TID < SIZE) a[TID] = v * 2;
  SYNC
}
"""
    got = expand_macros(text, "k.cu", "k")
    body = got[got.index("{"):]
    assert "a[threadIdx.x]" in body and "threadIdx.x < ni" in body and "threadIdx.x < nx * ny)" in body
    assert "BS + threadIdx.x" in body and "DATA_TYPE v" in body and "SYNC" in body
    # a field of that name is not the macro
    assert expand_macros(text.replace("a[TID] = v * 2", "a[0] = v").replace("DATA_TYPE v = a[TID];", "")
                         .replace("TID < _PB_NI && ", "").replace("blockIdx.x * BS + TID", "threadIdx.x"),
                         "k.cu", "k").count("nx * ny") == 2  # (the #define's own and the one use)


def test_object_macros_paste_as_the_preprocessor_does_and_respect_undef_and_order():
    from kernelpro.profilers.analysis.macros import expand_macros

    text = ("#define tid threadIdx.x\n#undef tid\n#define W 5\n#define R W / 2\n"
            "__global__ void k(float* a, int n) { int tid = 3; a[2 * R + tid] = 0; }\n#define n 7\n")
    got = expand_macros(text, "k.cu", "k")
    assert "a[2 * W / 2 + tid]" in got and "int tid = 3" in got and "int n)" in got


def test_a_macro_of_statements_is_put_in_as_statements_and_an_expression_macro_as_an_expression():
    """ONNX Runtime's `CALCULATE_ELEMENTWISE_INDEX_OR_EXIT(id, N);` declares the index and returns past the end: put
    in parentheses it was no C at all."""
    text = ("#define INDEX_OR_EXIT(id, N) int id = blockIdx.x * blockDim.x + threadIdx.x; if (id >= N) return;\n"
            "#define SQ(x) ((x) * (x))\n"
            "__global__ void sq(const float* a, float* b, int n) {\n"
            "    INDEX_OR_EXIT(i, n * 2);\n"
            "    b[i] = SQ(a[i]);\n"
            "}\n")
    new = expand_macros(text, "m.cu", "sq")
    body = new[new.index("__global__"):]
    assert "int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= (n * 2)) return;" in body
    assert "(int i" not in body and "b[i] = ((((a[i])) * ((a[i]))));" in body
    found, _ = plans(new, Context(kernel="sq", path="m.cu", launch={"grid": ["cdiv(2 * n, 256)"], "block": [256]},
                                  base_launch=None, size_env={"s": {"n": 1000}}, scalar_params={"n": "n"}))
    assert any(p.name == "elementwise" for p in found)
