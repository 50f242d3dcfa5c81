"""What the commands print where a tool reads it (issue 29, item 13 and the JSON half of 17): the real CLI
as a subprocess, its output piped as a script would see it."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from kernelpro.profilers.runtime.measure import gpu_problem


def run(*args, cwd=None):
    env = {**os.environ, "COLUMNS": "80"}  # what a pipe gets: rich would wrap at 80 columns
    env.pop("TERM", None)
    return subprocess.run([sys.executable, "-m", "kernelpro.profilers.cli", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env=env)


LONG = textwrap.dedent("""\
    __global__ void scale_with_a_rather_long_name(float* output_values, const float* input_values, float scale_factor, int n) {
    \tint i = blockIdx.x * blockDim.x + threadIdx.x;  \n\
        if (i < n) output_values[i] = input_values[i] * scale_factor + 0.5 * input_values[i] * input_values[i] * scale_factor;
    }
    """)  # a tab and trailing spaces in a context line: the diffs keep them


def _diffs(text: str) -> list[str]:
    """Each unified diff in the text report, from its `--- a/` line to the end of its last hunk."""
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        if lines[i].startswith("--- a/") and i + 1 < len(lines) and lines[i + 1].startswith("+++ b/"):
            j = i + 2
            while j < len(lines) and lines[j][:1] in (" ", "+", "-", "@", "\\") and not lines[j].startswith("+ (and"):
                j += 1
            out.append("\n".join(lines[i:j]) + "\n")
            i = j
        else:
            i += 1
    return out


@pytest.mark.slow
def test_propose_only_diffs_apply_with_patch_when_piped(tmp_path):
    src = tmp_path / "long.cu"
    src.write_text(LONG)
    r = run("optimize", str(src), "--kernel", "scale_with_a_rather_long_name", "--propose-only", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    diffs = _diffs(r.stdout)
    assert diffs, r.stdout
    for n, d in enumerate(diffs):  # each against the file as written
        work = tmp_path / f"w{n}"
        work.mkdir()
        shutil.copy(src, work / "long.cu")
        p = subprocess.run(["patch", "-p1", "--batch", "--forward"], input=d, text=True, capture_output=True,
                           cwd=work)
        assert p.returncode == 0, (p.stdout, d)
        assert (work / "long.cu").read_text() != LONG
    assert "0.5f * input_values[i]" in "".join(diffs)  # a long line, whole
    # --json carries each candidate's source: a tool can compile it on its own
    j = run("optimize", str(src), "--kernel", "scale_with_a_rather_long_name", "--propose-only", "--json",
            cwd=tmp_path)
    assert j.returncode == 0, j.stderr
    cands = json.loads(j.stdout)["candidates"]
    assert cands and all(isinstance(c["source"], str) and c["source"] for c in cands)
    fix = next(c for c in cands if "0.5f" in c["diff"])
    assert "0.5f * input_values[i]" in fix["source"] and "0.5 * input_values" not in fix["source"]


INCLUDED = textwrap.dedent("""\
    #include "scale.h"
    __global__ void k(float* y, const float* x, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = x[i] * SCALE * FACTOR;
    }
    """)


@pytest.mark.slow
def test_optimize_takes_include_dirs_and_defines_and_fails_when_nothing_compiles(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "scale.h").write_text("#define SCALE 2.0f\n")
    (tmp_path / "k.cu").write_text(INCLUDED)
    ok = run("optimize", "k.cu", "--kernel", "k", "--propose-only", "-I", "inc", "-D", "FACTOR=3.0f", "--json",
             cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    d = json.loads(ok.stdout)
    assert d["errors"] == [] and d["candidates"] and all(c["compiles"] for c in d["candidates"])
    bad = run("optimize", "k.cu", "--kernel", "k", "--propose-only", cwd=tmp_path)
    assert bad.returncode == 1, (bad.stdout, bad.stderr)
    assert "scale.h" in bad.stderr and "does not compile" in bad.stderr and "Traceback" not in bad.stderr
    assert "-I DIR" in run("optimize", "-h").stdout and "-D NAME=VAL" in run("optimize", "-h").stdout


def test_memory_json_is_json_with_and_without_a_memory(tmp_path):
    r = run("memory", "--json", "--repo", str(tmp_path))
    assert r.returncode == 0
    d = json.loads(r.stdout)
    assert d["attempts"] == [] and d["lessons"] == [] and "no search memory" in d["note"]
    (tmp_path / ".kernelpro").mkdir()
    (tmp_path / ".kernelpro" / "memory.sqlite").write_text("not a database\n")
    r = run("memory", "--json", "--repo", str(tmp_path))
    assert r.returncode == 2 and "memory" in r.stderr
    d = json.loads(r.stdout)
    assert d["ok"] is False and "memory" in d["error"]


needs_no_gpu = pytest.mark.skipif(gpu_problem() is None, reason="this machine has a GPU")


@needs_no_gpu
def test_bench_json_without_a_gpu_is_a_json_error(tmp_path):
    (tmp_path / "long.cu").write_text(LONG)
    r = run("bench", str(tmp_path / "long.cu"), "--json")
    assert r.returncode == 2
    d = json.loads(r.stdout)
    assert d["ok"] is False and d["kind"] == "no-gpu" and d["error"].startswith("no GPU")


@needs_no_gpu
def test_profile_run_without_a_gpu_keeps_the_static_report(tmp_path):
    (tmp_path / "long.cu").write_text(LONG)
    r = run("profile", str(tmp_path / "long.cu"), "--run")
    assert r.returncode == 2
    assert "scale_with_a_rather_long_name" in r.stdout and "fp64-in-float-kernel" in r.stdout
    assert "not measured (--run): no GPU" in r.stdout and "nothing measured: no GPU" in r.stderr
    j = run("profile", str(tmp_path / "long.cu"), "--run", "--json")
    d = json.loads(j.stdout)
    assert d["kernels"][0]["name"] == "scale_with_a_rather_long_name" and d["advice"]
    assert d["measured"] is None and d["not_measured"].startswith("no GPU")


FOUR = textwrap.dedent("""\
    __global__ void scale4(float* result, const float* x, float a, int n) {
        int i = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
        for (int j = 0; j < 4; ++j)
            if (i + j < n) result[i + j] = a * x[i + j];
    }
    """)


def test_spec_init_on_four_elements_per_thread(tmp_path):
    cu = tmp_path / "four.cu"
    cu.write_text(FOUR)
    r = run("spec", "init", str(cu))
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "four.kernelpro.toml").read_text()
    assert re.search(r'^grid = \["cdiv\(n, 1024\)"\]$', text, re.M), text
    # the output is the kernel's `result` (the old Python template guessed "out"); the reference is the kernel
    assert re.search(r'name = "result"\ndtype = "float32".*\nshape = \["n"\].*\noutput = true', text), text
    assert (tmp_path / "four.scale4.reference.cu").read_text() == FOUR
    assert run("spec", "check", str(tmp_path / "four.kernelpro.toml")).returncode == 0


def test_load_reference_accepts_the_documented_xp_parameter(tmp_path):
    import numpy as np

    from kernelpro.profilers.runtime.spec import load_reference, load_spec

    (tmp_path / "four.cu").write_text(FOUR)
    assert run("spec", "init", str(tmp_path / "four.cu")).returncode == 0
    spec_path = tmp_path / "four.kernelpro.toml"
    spec_path.write_text(spec_path.read_text().replace("[reference]\n", '[reference]\npython = "four_ref.py:reference"\n'))
    (tmp_path / "four_ref.py").write_text(
        "def reference(inputs, sizes, xp):\n    return {'result': xp.asarray(inputs['x']) * 1.0}\n")
    fn = load_reference(load_spec(spec_path))
    x = np.arange(8, dtype=np.float32)
    assert np.array_equal(fn({"x": x}, {"n": 8})["result"], x)
