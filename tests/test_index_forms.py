"""passes.while_to_for: a counted `while` read as the `for` it is, and the while loops it must leave alone."""
from __future__ import annotations

import pytest

from kernelpro.optimizer.restructure.passes import while_to_for

WALK = """__global__ void k(float* y, const float* A, const float* x, int M, int N) {
  const unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= N) return;
  const float* a = A + col;
  float acc = 0.f;
  unsigned i = 0;
  while (i < M) {
    acc += *a * x[i];
    a += N;
    %s
  }
  y[col] = acc;%s
}"""


@pytest.mark.parametrize("step", ["++i;", "i++;", "i += 1;"])
def test_a_counted_while_becomes_a_for(step):
    new = while_to_for(WALK % (step, ""), "k.cu", "k")
    assert new is not None
    assert f"for (unsigned i = 0; i < M; {step[:-1]}) {{" in new
    assert "while" not in new and new.count(step[:-1]) == 1 and "\n  unsigned i = 0;" not in new


@pytest.mark.parametrize("why, text", [
    ("read after the loop", WALK % ("++i;", "\n  y[col + 1] = i;")),
    ("written in the body", WALK.replace("a += N;", "a += N; i += 2;") % ("++i;", "")),
    ("a continue skips the step", WALK.replace("a += N;", "a += N; if (acc > 1.f) continue;") % ("++i;", "")),
    ("the step is not last", WALK.replace("    a += N;\n    %s", "    %s\n    a += N;") % ("++i;", "")),
])
def test_while_loops_that_are_not_counted_loops_stay(why, text):
    assert while_to_for(text, "k.cu", "k") is None, why


DO = WALK.replace("  while (i < M) {", "  do {").replace("    %s\n  }\n", "    %s\n  } while (i < M);\n")


def test_a_counted_do_loop_becomes_a_for():
    new = while_to_for(DO % ("++i;", ""), "k.cu", "k")
    assert new is not None and "for (unsigned i = 0; i < M; ++i) {" in new
    assert "while" not in new and " do " not in new and new.count("++i") == 1
    assert while_to_for(DO % ("++i;", "\n  y[col + 1] = i;"), "k.cu", "k") is None  # read after the loop
    assert while_to_for(DO.replace("a += N;", "a += N; if (acc > 1.f) break;") % ("++i;", ""), "k.cu", "k") is None


def test_steps_in_a_for_update_move_to_the_end_of_its_body():
    from kernelpro.optimizer.restructure.passes import comma_steps_into_body
    text = """__global__ void k(const float* m, float* s, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  const float* p = m + c;
  float acc = 0.f;
  for (int r = 0; r < rows; ++r, p += cols) %s
  s[c] = acc;
}"""
    new = comma_steps_into_body(text % "acc += *p;", "k.cu", "k")
    assert "for (int r = 0; r < rows; ++r) { acc += *p; p += cols; }" in new
    new = comma_steps_into_body(text % "{ acc += *p; }", "k.cu", "k")
    assert "for (int r = 0; r < rows; ++r) { acc += *p; p += cols; }" in new.replace("\n", " ").replace("  ", " ")
    # a continue of this loop would skip the moved step: left as written (one of an inner loop is fine)
    assert comma_steps_into_body(text % "{ if (*p < 0.f) continue; acc += *p; }", "k.cu", "k") is None
    assert comma_steps_into_body(text % "{ for (int q = 0; q < 2; ++q) { if (q) continue; } acc += *p; }",
                                 "k.cu", "k") is not None


# --- passes.fold_reassignments: an index built up by statements after its declaration
def test_an_index_built_by_reassignment_is_declared_with_its_value():
    from kernelpro.optimizer.restructure.passes import fold_reassignments
    text = """__global__ void k(double *v, double s, int n) {
    int i = blockIdx.x;
    i = i * blockDim.x;
    i += threadIdx.x;
    if (i >= n) return;
    v[i] = s * v[i];
}"""
    new = fold_reassignments(text, "k.cu", "k")
    assert "int i = ((blockIdx.x) * blockDim.x) + (threadIdx.x);" in new and "i +=" not in new
    # a read of i between the updates, or an update with a call, stops the fold there
    assert fold_reassignments(text.replace("i = i * blockDim.x;", "v[i] = 0; i = i * blockDim.x;"), "k.cu", "k") is None
    assert fold_reassignments(text.replace("i = i * blockDim.x;", "i = f(i);"), "k.cu", "k") is None


# --- flat2d.flatten: element-wise kernels on 2-D thread indices read as 1-D
ADD2D = """__global__ void add(const float *A, const float *B, float *C, int M, int N) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N)
        C[row * N + col] = %s;
}"""


def _flat(body):
    from kernelpro.optimizer.restructure.flat2d import flatten
    from kernelpro.profilers.source import parse_source
    src = parse_source(ADD2D % body)
    return flatten(src, src.kernels[0])


def test_a_2d_elementwise_kernel_is_flattened():
    got = _flat("A[row * N + col] + B[row * N + col]")
    assert got is not None and got[1:] == ("M", "N")
    assert "C[kp_e] = A[kp_e] + B[kp_e]" in got[0] and "kp_e < (long long)(M) * (N)" in got[0]
    assert "threadIdx.y" not in got[0]


@pytest.mark.parametrize("why, body", [
    ("a neighbour: not element-wise", "A[row * N + col + 1] + B[row * N + col]"),
    ("the row read as a value", "A[row * N + col] + row"),
    ("another row length", "A[row * M + col] + B[row * N + col]"),
])
def test_2d_kernels_that_are_not_elementwise_stay(why, body):
    assert _flat(body) is None, why


def test_a_counter_declared_before_other_declarations_still_makes_a_for():
    """Round T's `int k = 0; int a_off = row * p; int b_off = col; while (k < p) { ..; k++; }`: the declarations
    between do not name k, so k's value moves into the header; one that names k, or calls something, keeps it."""
    text = WALK.replace("  unsigned i = 0;\n", "  unsigned i = 0;\n  const int stride = N;\n  float* out = y;\n")
    new = while_to_for(text % ("++i;", ""), "k.cu", "k")
    assert new is not None and "for (unsigned i = 0; i < M; ++i) {" in new and "const int stride = N;" in new
    for between in ("  const unsigned j = i + 1;\n", "  const float v = sqrtf(acc);\n"):
        t = WALK.replace("  unsigned i = 0;\n", "  unsigned i = 0;\n" + between)
        assert while_to_for(t % ("++i;", ""), "k.cu", "k") is None, between
