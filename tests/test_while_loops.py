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
