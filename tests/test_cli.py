"""The `kernelpro profile` command: report, JSON, exit codes, and one clear line for bad input."""
import json
import subprocess
import sys
import textwrap

import pytest

GOOD = textwrap.dedent("""\
    __global__ void saxpy(float* y, const float* x, float a, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = a * x[i] + y[i];
    }
    __global__ void heavy(float* out, const int* idx, int n) {
        float acc[32];
        for (int j = 0; j < 32; ++j) acc[j] = 0.f;
        for (int j = 0; j < n; ++j) acc[idx[j] & 31] += out[j];
        out[threadIdx.x] = acc[idx[threadIdx.x] & 31];
    }
    void launch(float* y, const float* x, int n) { saxpy<<<(n + 127) / 128, 128>>>(y, x, 2.f, n); }
    """)


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "kernelpro.profilers.cli", *args], capture_output=True, text=True,
                          timeout=120, env=env)


@pytest.fixture
def good(tmp_path):
    p = tmp_path / "good.cu"
    p.write_text(GOOD)
    return p


def test_json_report_has_the_documented_fields(good):
    r = run("profile", str(good), "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    names = [k["name"] for k in d["kernels"]]
    assert names == ["saxpy", "heavy"]
    k = d["kernels"][0]
    for key in ("registers", "spill_stores", "spill_loads", "stack_bytes", "shared_bytes", "occupancy", "occupancy_limiter"):
        assert key in k
    assert 0 < k["occupancy"] <= 1 and k["block"] == 128 and k["block_origin"] == "launch site line 11"
    assert d["kernels"][1]["block_origin"] == "default" and d["kernels"][1]["stack_bytes"] > 0
    assert d["errors"] == []
    assert any(a["rule"] == "local-memory" and a["kernel"] == "heavy" for a in d["advice"])
    for a in d["advice"]:
        assert {"rule", "kernel", "line", "severity", "message"} <= set(a)


def test_text_report_table_and_findings(good):
    r = run("profile", str(good))
    assert r.returncode == 0
    assert "saxpy" in r.stdout and "heavy" in r.stdout and "local-memory" in r.stdout
    assert "good.cu:" in r.stdout


def test_kernel_and_block_options(good):
    d = json.loads(run("profile", str(good), "--json", "--kernel", "heavy", "--block", "1024").stdout)
    assert [k["name"] for k in d["kernels"]] == ["heavy"] and d["kernels"][0]["block"] == 1024
    assert all(a["kernel"] == "heavy" for a in d["advice"])


def test_syntax_errors_exit_1_with_every_line(tmp_path):
    p = tmp_path / "bad.cu"
    p.write_text("__global__ void k(float* x) {\n  x[0] = ;\n  int y = zz;\n}\n")
    r = run("profile", str(p))
    assert r.returncode == 1
    assert "bad.cu:2:" in r.stdout and "bad.cu:3:" in r.stdout and "Traceback" not in r.stderr
    d = json.loads(run("profile", str(p), "--json").stdout)
    assert sorted(e["line"] for e in d["errors"]) == [2, 3] and d["kernels"][0]["registers"] is None


@pytest.mark.parametrize("case", ["missing", "binary", "folder", "arch", "nvcc", "suffix"])
def test_bad_input_gets_one_clear_line(tmp_path, good, case):
    env = None
    args = ["profile", str(good)]
    if case == "missing":
        args = ["profile", str(tmp_path / "nope.cu")]
        want = "no such file"
    elif case == "binary":
        b = tmp_path / "b.cu"
        b.write_bytes(bytes(range(256)))
        args, want = ["profile", str(b)], "binary file"
    elif case == "folder":
        d = tmp_path / "d.cu"
        d.mkdir()
        args, want = ["profile", str(d)], "is a folder"
    elif case == "arch":
        args, want = ["profile", str(good), "--arch", "sm_42"], "unknown architecture 'sm_42'"
    elif case == "nvcc":
        args, want = ["profile", str(good), "--nvcc", str(tmp_path / "no-nvcc")], "nvcc not found"
    else:
        t = tmp_path / "k.txt"
        t.write_text(GOOD)
        args, want = ["profile", str(t)], "not a CUDA file"
    r = run(*args, env=env)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and want in lines[0] and "Traceback" not in r.stderr


def test_empty_file_says_so(tmp_path):
    p = tmp_path / "empty.cu"
    p.write_text("")
    r = run("profile", str(p))
    # nothing to analyse is not a success (exit 3), said plainly
    assert r.returncode == 3 and "no __global__ kernels" in r.stdout and "empty" in r.stdout


def test_block_size_comes_from_the_launch_spec_beside_the_file(tmp_path):
    (tmp_path / "k.cu").write_text(GOOD)
    (tmp_path / "k.kernelpro.toml").write_text(
        'kernel = "saxpy"\n[sizes]\ns = { n = 1024 }\n'
        '[[args]]\nname = "y"\ndtype = "float32"\nshape = ["n"]\noutput = true\n'
        '[[args]]\nname = "x"\ndtype = "float32"\nshape = ["n"]\n'
        '[[args]]\nname = "a"\nvalue = "2"\n[[args]]\nname = "n"\nvalue = "n"\n'
        '[launch]\ngrid = ["cdiv(n, 512)"]\nblock = [512]\n')
    d = json.loads(run("profile", str(tmp_path / "k.cu"), "--json").stdout)
    k = {k["name"]: k for k in d["kernels"]}
    assert (k["saxpy"]["block"], k["saxpy"]["block_origin"]) == (512, "launch spec")  # beats the launch site's 128
    (tmp_path / "k.kernelpro.toml").write_text('kernel = "saxpy"\n[sizes]\n')
    d = json.loads(run("profile", str(tmp_path / "k.cu"), "--json").stdout)
    assert {k["name"]: k["block_origin"] for k in d["kernels"]}["saxpy"] == "launch site line 11"
    assert any("launch spec k.kernelpro.toml not used" in n for n in d["notes"])


@pytest.mark.parametrize("block", ["0", "-5", "5000"])
def test_impossible_block_size_is_one_clear_line(good, block):
    r = run("profile", str(good), "--block", block)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip() == f"kernelpro: --block {block}: threads per block must be 1 to 1024"


def test_header_only_cuh_is_profiled(tmp_path):
    p = tmp_path / "ops.cuh"
    p.write_text("#pragma once\n__global__ void hk(float* x, int n) { if (threadIdx.x < n) x[threadIdx.x] *= 0.3; }\n")
    r = run("profile", str(p), "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    d = json.loads(r.stdout)
    assert d["compiled"] and [k["name"] for k in d["kernels"]] == ["hk"]
    assert "fp64-in-float-kernel" in {a["rule"] for a in d["advice"]}


def test_text_report_prints_a_path_with_brackets_as_written(tmp_path):
    p = tmp_path / "k[v2]:fire:.cu"
    p.write_text("__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n")
    r = run("profile", str(p), "--no-cache")
    assert r.returncode == 0, r.stderr
    assert "k[v2]:fire:.cu" in r.stdout.splitlines()[0]
