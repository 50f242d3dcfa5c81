"""Advice on real code (issue 29, items 1-7): each test reproduces a defect found on public
code with a small kernel, compiled and profiled for real (nvcc, ptxas, nvdisasm)."""
from __future__ import annotations

from pathlib import Path

import pytest

from kernelpro.profilers.profile import profile_file


def profile(tmp_path: Path, text: str, name: str = "k.cu", **kw):
    p = tmp_path / name
    p.write_text(text)
    r = profile_file(p, **kw)
    assert r.ok, [d.message for d in r.errors]
    return r


def rule(r, rule_id: str):
    return [a for a in r.advice if a.rule == rule_id]


def line_of(text: str, needle: str) -> int:
    return next(i for i, l in enumerate(text.split("\n"), 1) if needle in l)


def span(text: str, a) -> str:
    return text.split("\n")[a.line - 1][a.column - 1:a.end_column - 1]


# --- 1. local-memory anchors on the run-time subscript ----------------------------------

HIST48 = """\
__global__ void hist48(const float* x, int* out, int n, float nb)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int c[48];
    int b;
    for (b = 0; b < 48; ++b) c[b] = 0;
    for (; i < n; i += blockDim.x * gridDim.x) {
        b = (int)(x[i] * nb) % 48;
        c[b] += 1;
    }
    for (b = 0; b < 48; ++b) atomicAdd(&out[b], c[b]);
}
"""


def test_local_memory_counter_name_reused_for_a_run_time_index(tmp_path):
    """`b` counts the zero-init loop (constant once unrolled) and later holds a bin read from
    memory: the cause is `c[b] += 1`, not the init loop, whose `b` is a counter only there."""
    (a,) = rule(profile(tmp_path, HIST48), "local-memory")
    assert a.line == line_of(HIST48, "c[b] += 1") and span(HIST48, a) == "b"
    assert line_of(HIST48, "c[b] = 0") in {loc.line for loc in a.related}


def test_local_memory_run_time_subscript_expression(tmp_path):
    text = HIST48.replace("        b = (int)(x[i] * nb) % 48;\n        c[b] += 1;\n",
                          "        c[(int)(x[i] * nb) % 48] += 1;\n")
    (a,) = rule(profile(tmp_path, text), "local-memory")
    assert span(text, a) == "(int)(x[i] * nb) % 48"
