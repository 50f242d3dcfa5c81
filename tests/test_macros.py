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
