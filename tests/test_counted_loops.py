"""The strided loops the transforms write (optimizer/restructure/counted.py): nvcc batches their
loads, and they visit exactly the indices of the loop as written, also where the bounds do not
fit in an int."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from kernelpro.optimizer.restructure.counted import counted_for
from kernelpro.profilers.compile import CompileOptions, compile_cuda
from kernelpro.profilers.source import parse_source

TYPES = ("int", "unsigned", "size_t", "long long", "unsigned long long", "uint32_t", "int64_t")


def _loop(jt: str, stride: str, counted: bool) -> str:
    src = parse_source("#include <cstdint>\n", "t.cu")
    body = "{\n  s += x[j];\n}"
    if counted:
        return "\n".join(counted_for(src, jt, "j", "threadIdx.x", "n", stride, body, "  ", pragma="#pragma unroll 4"))
    return f"  #pragma unroll 4\n  for ({jt} j = threadIdx.x; j < n; j += {stride}) {body}"


def _loads_before_first_add(sass) -> int:
    """The most loads any stretch of the kernel issues before its next add: 1 when each load
    is used before the next one is issued."""
    best = run = 0
    for ins in sass:
        if ins.base == "LDG":
            run += 1
            best = max(best, run)
        elif ins.base == "FADD":
            run = 0
    return best


def test_counted_loops_keep_several_loads_in_flight(tmp_path):
    kernels, names = ["#include <cstdint>"], []
    for i, jt in enumerate(TYPES):
        for j, stride in enumerate(("32", "blockDim.x")):
            for counted in (True, False):
                name = f"k{i}_{j}_{int(counted)}"
                names.append((name, jt, stride, counted))
                kernels.append(f"__global__ void {name}(const float* x, float* y, {jt} n) {{\n  float s = 0;\n"
                               f"{_loop(jt, stride, counted)}\n  y[threadIdx.x] = s;\n}}")
    art = compile_cuda(tmp_path / "loops.cu", CompileOptions(arch="sm_90"), text="\n".join(kernels))
    assert art.ok, "\n".join(d.message for d in art.errors)
    for name, jt, stride, counted in names:
        (k,) = art.builds(name)
        n = _loads_before_first_add(k.sass)
        if counted:
            assert n >= 4, f"{jt} by {stride}: {n} load(s) before an add"
        elif "unsigned" in jt or jt == "size_t" or stride == "blockDim.x":
            # the reason for the module: these loops as written keep one load in flight
            assert n == 1, f"{jt} by {stride} as written: {n} loads before an add"


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_counted_loops_visit_the_same_indices_as_the_loop_as_written(tmp_path):
    """On the host: every type, with bounds around INT_MAX and beyond, negative ones for the
    signed types, and start past the end."""
    src = parse_source("#include <cstdint>\n", "t.cpp")
    funcs, calls = ["#include <cstdint>\n#include <cstdio>\n#include <cstddef>"], []
    cases = {
        "int": [("0", "100", "7"), ("-50", "3", "4"), ("2147483000", "2147483600", "32"), ("5", "-5", "3")],
        "unsigned": [("0", "100", "7"), ("4294967000u", "4294967200u", "32"), ("2147483600u", "2147483700u", "32"),
                     ("200u", "100u", "3")],
        "size_t": [("0", "1000", "33"), ("4294967000ull", "4294967400ull", "32"), ("2147483600ull", "2147483700ull", "5")],
        "long long": [("-3000000000LL", "-2999999000LL", "32"), ("-10", "10", "3"), ("2147483600LL", "2147483700LL", "5")],
        "unsigned long long": [("18446744073709551000ull", "18446744073709551500ull", "32")],
        "int64_t": [("-40", "40", "8")],
        "uint32_t": [("4294967200u", "4294967270u", "16")],
    }
    for t, cs in cases.items():
        for i, (a, b, st) in enumerate(cs):
            f = f"f_{t.replace(' ', '_')}_{i}"
            body = "{\n      h = h * 1000003ull + (unsigned long long)j; ++c;\n    }"
            counted = "\n".join(counted_for(src, t, "j", a, b, st, body, "    "))
            funcs.append(f"""void {f}(unsigned long long* out) {{
  {{ unsigned long long h = 0, c = 0;
{counted}
    out[0] = h; out[1] = c; }}
  {{ unsigned long long h = 0, c = 0;
    for ({t} j = ({a}); j < ({b}); j += ({st})) {body}
    out[2] = h; out[3] = c; }}
}}""")
            calls.append(f'  {{ unsigned long long o[4]; {f}(o); printf("{f} %llu %llu %llu %llu\\n", o[0], o[1], o[2], o[3]); }}')
    prog = "\n".join(funcs) + "\nint main() {\n" + "\n".join(calls) + "\n  return 0;\n}\n"
    (tmp_path / "loops.cpp").write_text(prog)
    subprocess.run(["g++", "-O1", "-w", "-o", str(tmp_path / "loops"), str(tmp_path / "loops.cpp")], check=True)
    out = subprocess.run([str(tmp_path / "loops")], capture_output=True, text=True, check=True).stdout.split("\n")
    rows = [line.split() for line in out if line]
    assert len(rows) == sum(len(c) for c in cases.values())
    for name, h1, c1, h2, c2 in rows:
        assert (h1, c1) == (h2, c2), f"{name}: counted loop visited {c1} indices, the loop as written {c2}"
    assert any(int(r[2]) > 0 for r in rows) and any(int(r[2]) == 0 for r in rows)
