"""The command line's small print (issue 29, item 16): whole table headers at 80 columns, one way to
print an occupancy, aligned `rules` columns, no `#pragma once` warning on a header, a line for a
non-UTF-8 byte, no Doxygen markup in hunt descriptions, the access named as the source writes it."""
from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import textwrap

import pytest


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "kernelpro.profilers.cli", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def test_rules_columns_line_up():
    r = run("rules")
    assert r.returncode == 0
    lines = r.stdout.splitlines()
    assert len(lines) > 10
    assert len({ln.index("rules:") for ln in lines}) == 1, lines
    assert len({ln.index(ln.split()[1]) for ln in lines}) == 1, lines  # the kind column too


OCC = textwrap.dedent("""\
    __global__ void a_kernel_with_a_long_descriptive_name_for_the_table(float* out, const float* in, int n) {
        __shared__ float tile[10240];
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        tile[threadIdx.x] = i < n ? in[i] : 0.f;
        __syncthreads();
        if (i < n) out[i] = tile[(threadIdx.x + 1) % blockDim.x];
    }
    void go(float* o, const float* x, int n) {
        a_kernel_with_a_long_descriptive_name_for_the_table<<<(n + 127) / 128, 128>>>(o, x, n);
    }
    """)


@pytest.fixture
def occ(tmp_path):
    p = tmp_path / "occ.cu"
    p.write_text(OCC)
    return p


def test_table_headers_whole_at_80_columns_and_one_occupancy_format(occ):
    from rich.console import Console

    from kernelpro.profilers.compile import CompileOptions
    from kernelpro.profilers.profile import profile_file
    from kernelpro.profilers.report import print_report

    rep = profile_file(occ, CompileOptions())
    out = io.StringIO()
    print_report(rep, console=Console(file=out, width=80, highlight=False, soft_wrap=True, color_system=None))
    text = out.getvalue()
    header = next(ln for ln in text.splitlines() if ln.startswith("kernel"))
    for col in ("kernel", "line", "regs", "spills", "smem", "stack", "block", "occupancy", "limiter"):
        assert re.search(rf"(^|\s){col}(\s|$)", header), header
    assert max(len(ln) for ln in text.splitlines() if "┃" in ln or "│" in ln or "━" in ln) <= 80
    # 40 KB of shared memory per block of 128 threads: 5 blocks, 20 of 64 warps
    k = rep.kernels[0]
    assert k.occupancy == pytest.approx(0.3125)
    shown = set(re.findall(r"\b(\d+(?:\.\d+)?) ?%", text))
    occupancy_like = {s for s in shown if s.startswith("31")}
    assert occupancy_like == {"31.25"}, (occupancy_like, text)


def test_a_header_profiled_alone_gets_no_pragma_once_warning(tmp_path):
    h = tmp_path / "kern.cuh"
    h.write_text("#pragma once\n__global__ void h(float* x) { x[threadIdx.x] = 1.f; }\n")
    r = run("profile", str(h), "--json", "--no-cache")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert not [w for w in d.get("warnings", []) + d.get("errors", []) if "pragma once" in json.dumps(w)]
    assert "pragma once" not in run("profile", str(h)).stdout


def test_a_latin1_byte_is_reported_with_its_line(tmp_path):
    p = tmp_path / "lat.cu"
    p.write_bytes(b"__global__ void k(float* x) { x[0] = 1.f; }\n// caf\xe9\n")
    r = run("profile", str(p))
    assert r.returncode == 2
    assert f"{p}:2:7: not UTF-8 text" in r.stderr and "byte 0xe9" in r.stderr, r.stderr


def test_hunt_descriptions_carry_no_doxygen_markup():
    from kernelpro.profilers.hunt.extract import clean_comment

    got = clean_comment(["/**", r" * Computes a block-wide reduction for thread\ `0` using addition (+).",
                         r" * - The return value is undefined in threads other than thread\ `0`.",
                         " * - @rowmajor", " * - @smemreuse", " */"])
    assert got == ("Computes a block-wide reduction for thread `0` using addition (+). - The return value is "
                   "undefined in threads other than thread `0`."), got
    assert clean_comment(["/// The value is only valid for thread<sub>0</sub>."]) == "The value is only valid for thread 0."


def test_an_access_is_named_as_the_source_writes_it(tmp_path):
    p = tmp_path / "rows.cu"
    p.write_text(textwrap.dedent("""\
        __global__ void norm(float* out, const float* inp, int N, int C) {
            int row = blockIdx.x * blockDim.x + threadIdx.x;
            if (row >= N) return;
            const float* inp_row = inp + row * C;
            float s = 0.f;
            for (int j = 0; j < C; j++) s += inp_row[j];
            out[row] = s;
        }
        """))
    d = json.loads(run("profile", str(p), "--json").stdout)
    msgs = [a["message"] for a in d["advice"] if a["rule"] == "uncoalesced-access"]
    assert msgs and msgs[0].startswith("the read of inp_row[j] (in inp) on line 6"), msgs
