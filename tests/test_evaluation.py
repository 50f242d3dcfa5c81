"""The evaluator's defences that need no GPU (docs/evaluation.md): tolerances, weak-tolerance detection,
the error column, input distributions, launch specs checked against the cubin, memset steps, the
ceilings rule, Compute Sanitizer's command and output, and the runner's protocol end to end on the
fake pycuda (tests/fake_pycuda.py) in both of its modes (checks on the host, and on the "device" with a
CuPy stand-in)."""
from __future__ import annotations

import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

from fake_pycuda import fake_device_pool, fake_pool, make_fake_pool  # noqa: F401  (pytest fixtures)
from kernelpro.profilers.compile import CompileOptions, compile_cuda
from kernelpro.profilers.runtime import correctness as cr
from kernelpro.profilers.runtime import inputs as inp
from kernelpro.profilers.runtime.cubin import Cubin, kernel_params
from kernelpro.profilers.runtime.measure import EvalError, build_job, evaluate
from kernelpro.profilers.runtime.spec import SpecError, load_spec

ROOT = Path(__file__).resolve().parents[1]
GPU = ROOT / "examples" / "gpu"


# --- tolerances ----------------------------------------------------------------------------------------------
def naive_layernorm(rows=1536, cols=4096, seed=0):
    """A float32 layer normalization as a one-thread-per-row kernel computes it: sequential float32 sums."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, cols), dtype=np.float32)
    g, b = rng.standard_normal(cols, dtype=np.float32), rng.standard_normal(cols, dtype=np.float32)
    mean = (np.cumsum(x, axis=1, dtype=np.float32)[:, -1] / np.float32(cols)).astype(np.float32)
    d = (x - mean[:, None]).astype(np.float32)
    var = np.cumsum(d * d, axis=1, dtype=np.float32)[:, -1] / np.float32(cols)
    r = (np.float32(1) / np.sqrt(var + np.float32(1e-5))).astype(np.float32)
    y = (d * r[:, None] * g + b).astype(np.float32)
    x64 = x.astype(np.float64)
    m64 = x64.mean(1, keepdims=True)
    ref = (x64 - m64) / np.sqrt(((x64 - m64) ** 2).mean(1, keepdims=True) + 1e-5) * g + b
    return y, ref


def test_default_tolerance_accepts_a_naive_float32_layer_norm():
    y, ref = naive_layernorm()  # 6.3 M elements
    old = cr.compare(y, ref, 1e-4, 1e-6)  # the former float32 default rejected it
    assert not old.ok and 0 < old.mismatched < 200
    tol = cr.default_tolerance("float32", 1)
    new = cr.compare(y, ref, tol.rtol, tol.atol, atol_rms=tol.atol_rms, note=tol.note)
    assert new.ok, new.reason
    assert new.tol_ratio < 0.2 and not new.weak


def test_default_tolerance_scales_with_reduction_length_and_dtype():
    assert cr.default_tolerance("float32", 1).rtol == 1e-4
    assert cr.default_tolerance("float32", 10**8).rtol == pytest.approx(4 * 2**-24 * 1e4)
    assert cr.default_tolerance("float16", 4096).rtol == pytest.approx(4 * 2**-11 * 64)  # fp16 accumulation
    assert cr.default_tolerance("bfloat16", 1).rtol == 2e-2
    t = cr.default_tolerance("float32", 4096, rtol=1e-5, source="from [cost] flops")
    assert t.rtol == 1e-5 and t.atol_rms == 1e-5 and "from the spec" in t.note
    assert cr.default_tolerance("int32").rtol == 0.0


def test_the_failure_message_explains_the_default_tolerance():
    y, ref = naive_layernorm(64, 512)
    tol = cr.default_tolerance("float32", 512, source="from [cost] flops")
    c = cr.compare(y * np.float32(1.01), ref, tol.rtol, tol.atol, atol_rms=tol.atol_rms, note=tol.note)
    assert not c.ok
    assert "tolerance: rtol 0.0001 (default for float32 outputs with reduction length 512 from [cost] flops" in c.reason
    assert "rtol x rms(reference)" in c.reason


def test_spec_tolerance_per_size_from_the_reduction_length(tmp_path):
    (tmp_path / "mm.cu").write_text("__global__ void mm(const float* a, const float* b, float* c, int n) {}\n")
    (tmp_path / "mm.kernelpro.toml").write_text(textwrap.dedent("""\
        kernel = "mm"
        [sizes]
        small = { n = 64 }
        huge = { n = 1048576 }
        [[args]]
        name = "a"
        dtype = "float32"
        shape = ["n", 16]
        [[args]]
        name = "b"
        dtype = "float32"
        shape = [16, 16]
        [[args]]
        name = "c"
        dtype = "float32"
        shape = ["n", 16]
        output = true
        [[args]]
        name = "n"
        value = "n"
        [launch]
        grid = ["n"]
        block = [16]
        [cost]
        flops = "2 * n * 16 * n"
        """))
    spec = load_spec(tmp_path / "mm.kernelpro.toml")
    assert spec.reduction_length("small") == (64, "from [cost] flops")
    assert spec.tolerance("small").rtol == 1e-4
    assert spec.tolerance("huge").rtol == pytest.approx(4 * 2**-24 * 1024)
    text = (tmp_path / "mm.kernelpro.toml").read_text() + '[tolerance]\nreduction = "16"\n'
    (tmp_path / "mm.kernelpro.toml").write_text(text)
    assert load_spec(tmp_path / "mm.kernelpro.toml").reduction_length("huge") == (16, "from [tolerance] reduction")


# --- weak tolerances and the error column ----------------------------------------------------------------------
def softmax_rows(rows=64, cols=4096, seed=3):
    x = np.random.default_rng(seed).standard_normal((rows, cols))
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def test_weak_tolerance_rejects_constant_and_zero_outputs_and_warns_for_the_right_one():
    ref = softmax_rows()
    for cheat in (np.full(ref.shape, 1 / 4096, np.float32), np.zeros(ref.shape, np.float32)):
        assert np.all(np.abs(cheat - ref) <= 5e-2 + 1e-2 * np.abs(ref))  # the spec's tolerance alone passes it
        c = cr.compare(cheat, ref, 1e-2, 5e-2)
        assert not c.ok and "no better than a constant" in c.reason and "weak" in c.weak
    good = cr.compare(ref.astype(np.float32), ref, 1e-2, 5e-2)
    assert good.ok and "warning: the tolerance is weak" in good.reason


def test_error_column_is_not_misleading_near_zero():
    rng = np.random.default_rng(0)
    ref = rng.standard_normal(10000)
    ref[:10] = 1e-30  # a reference near zero
    out = ref.astype(np.float32)
    out[:10] = 0.0  # a correct kernel's rounding there
    c = cr.compare(out, ref, 1e-4, 1e-6)
    assert c.ok and c.max_rel < 1e-6  # not 1.0: the relative error is taken where rtol governs
    assert 0 < c.tol_ratio < 0.01 and c.rel_l2 < 1e-7
    bad = cr.compare(np.zeros(10000, np.float32), ref, 1e-4, 1e-6)
    assert bad.tol_ratio > 1000 and bad.rel_l2 == pytest.approx(1.0)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "int32"])
def test_the_quick_check_of_timed_launches_agrees_with_the_full_check(dtype):
    rng = np.random.default_rng(1)
    ref = rng.standard_normal(5000) * 3
    if dtype == "int32":
        ref = np.round(ref)
    else:
        ref[7] = np.nan
        ref[8] = np.inf
    storage = inp.STORAGE[dtype]
    good = inp.bf16_bits(ref.astype(np.float32)) if dtype == "bfloat16" else ref.astype(storage)
    if dtype != "int32":
        good[7], good[8] = (0xFFFF, 0x7F80) if dtype == "bfloat16" else (np.nan, np.inf)
    tol = cr.default_tolerance(dtype, 1)
    bads = [good.copy() for _ in range(3)]
    bads[0][100] = bads[0][100] + 1
    cr.poison(bads[1][200:210])
    bads[2][8] = bads[2][9] + 1  # the Inf (or an integer) not matched
    th = cr.thresholds(ref, dtype, tol)
    for out in [good] + bads:
        full = cr.compare(out, ref, tol.rtol, tol.atol, dtype=dtype, atol_rms=tol.atol_rms)
        bad, _ = cr.count_bad(out, th, dtype)
        assert (int(bad) == 0) == full.ok and int(bad) == full.mismatched, (dtype, full.reason)


def test_quick_check_applies_the_spread_rule_when_weak():
    ref = softmax_rows(8, 4096).reshape(-1)
    th = cr.thresholds(ref, "float32", cr.Tolerance(1e-2, 1e-2), weak=True)
    bad, sumsq = cr.count_bad(np.full(ref.shape, 1 / 4096, np.float32), th, "float32")
    assert int(bad) == 0 and "no better than a constant" in cr.quick_verdict(bad, sumsq, th)
    assert cr.quick_verdict(*cr.count_bad(ref.astype(np.float32), th, "float32"), th) is None


# --- input distributions --------------------------------------------------------------------------------------
def test_distributions():
    base = inp.values(np, 5, "randn", "float32", 4096)
    neg = inp.values(np, 5, "randn", "float32", 4096, "negative")
    assert np.array_equal(neg, -np.abs(base)) and (neg <= 0).all()
    down = inp.values(np, 5, "randn", "float32", 4096, "scaled-down")
    assert np.array_equal(down, base * np.float32(2**-6))  # a power of two: exact
    assert np.array_equal(inp.values(np, 5, "rand", "float32", 64, "negative"), inp.values(np, 5, "rand", "float32", 64))
    den = inp.values(np, 5, "randn", "float32", 4096, "denormal")
    tiny = np.abs(den[den != 0])
    assert (tiny < np.finfo(np.float32).tiny).mean() > 0.9
    h = inp.values(np, 5, "randn", "float16", 4096, "denormal")
    assert (np.abs(h[h != 0]) < np.finfo(np.float16).tiny).mean() > 0.9
    assert np.array_equal(inp.values(np, 5, "randint:0:9", "int32", 100, "negative"),
                          inp.values(np, 5, "randint:0:9", "int32", 100))
    assert not inp.applies("negative", "ones", "float32") and inp.applies("scaled-up", "rand", "bfloat16")


def test_timed_launch_order_never_repeats_a_set():
    from kernelpro.profilers.runtime.sizerun import schedule

    order = schedule(1000, 4, np.random.default_rng(0))
    assert all(a != b for a, b in zip(order, order[1:])) and set(order) == {0, 1, 2, 3}
    assert schedule(5, 1, np.random.default_rng(0)) == [0] * 5


# --- the compiled kernel's parameters --------------------------------------------------------------------------
KPARAMS = r"""
#include <cstddef>
__device__ int counter;
__device__ float table[4] = {1, 2, 3, 4};
__global__ void k(float* out, const float* a, int, size_t n, double s, char c) {
  static __device__ int calls = 0;
  calls++;
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] * s + table[i & 3] + counter + c;
  if (i == 0) counter++;
}
"""


def test_cubin_parameters_and_device_variables_match_cuobjdump(tmp_path):
    from kernelpro.profilers.toolchain import discover

    cu = tmp_path / "k.cu"
    cu.write_text(KPARAMS)
    art = compile_cuda(cu, use_cache=False)
    assert art.ok
    mangled = art.builds("k")[0].mangled
    params = kernel_params(art.cubin, mangled)
    assert [(p.offset, p.size) for p in params] == [(0, 8), (8, 8), (16, 4), (24, 8), (32, 8), (40, 1)]
    out = subprocess.run([discover().path("cuobjdump"), "-elf", art.cubin], capture_output=True, text=True).stdout
    section = out.split(f".nv.info.{mangled}")[-1].split(".nv.callgraph")[0]
    listed = sorted((int(o, 16), int(s, 16)) for o, s in re.findall(r"Offset\s*:\s*(0x[0-9a-f]+)\s+Size\s*:\s*(0x[0-9a-f]+)", section))
    assert listed == [(p.offset, p.size) for p in params]
    glob = {g.name: g for g in Cubin.read(art.cubin).device_globals()}
    assert set(glob) == {"counter", "table", next(n for n in glob if n.endswith("5calls"))}
    assert np.frombuffer(glob["table"].init, np.float32).tolist() == [1, 2, 3, 4] and glob["counter"].init == bytes(4)


def test_unnamed_parameters_count_in_the_spec(tmp_path):
    (tmp_path / "u.cu").write_text("__global__ void u(float* out, const float* a, int, int n) {}\n")
    spec = textwrap.dedent("""\
        kernel = "u"
        [sizes]
        small = { n = 1024 }
        [[args]]
        name = "out"
        dtype = "float32"
        shape = ["n"]
        output = true
        [[args]]
        name = "a"
        dtype = "float32"
        shape = ["n"]
        [[args]]
        name = "n"
        value = "n"
        [launch]
        grid = ["cdiv(n, 256)"]
        block = [256]
        """)
    (tmp_path / "u.kernelpro.toml").write_text(spec)
    with pytest.raises(SpecError, match=r"u\(out, a, <unnamed int>, n\) has 4 parameters; the spec lists 3"):
        load_spec(tmp_path / "u.kernelpro.toml")
    fixed = spec.replace('[[args]]\nname = "n"', '[[args]]\nname = "flag"\nvalue = "0"\n\n[[args]]\nname = "n"')
    (tmp_path / "u.kernelpro.toml").write_text(fixed)
    s = load_spec(tmp_path / "u.kernelpro.toml")
    assert [a.name for a in s.args] == ["out", "a", "flag", "n"] and s.launches[0].dtypes[2] == "int32"


def _typed_spec(tmp_path, args: str, extra_scalar: str = "") -> Path:
    (tmp_path / "typed.cu").write_text(
        "__global__ void typed(float* out, const float* x, int m, size_t n, float s) {\n"
        "  size_t i = blockIdx.x * blockDim.x + threadIdx.x; if (i < (size_t)m) out[i] = x[i] * s + n; }\n")
    (tmp_path / "typed_ref.py").write_text(
        "def reference(inputs, sizes):\n    return {'out': inputs['x'] * 0.5 + sizes['n']}\n")
    (tmp_path / "typed.kernelpro.toml").write_text(textwrap.dedent(f"""\
        kernel = "typed"
        [sizes]
        small = {{ n = 1000 }}
        [[args]]
        name = "out"
        dtype = "float32"
        shape = ["n"]
        output = true
        [[args]]
        name = "x"
        dtype = "float32"
        shape = ["n"]
        [[args]]
        name = "n"
        value = "n"
        {extra_scalar}
        [[launches]]
        kernel = "typed"
        grid = ["cdiv(n, 256)"]
        block = [256]
        args = {args}
        [reference]
        python = "typed_ref.py:reference"
        """))
    return tmp_path / "typed.kernelpro.toml"


def test_a_name_used_for_an_int_and_a_size_t_gets_each_parameters_type(tmp_path):
    spec = load_spec(_typed_spec(tmp_path, '["out", "x", "n", "n", "0.5"]'))
    assert spec.launches[0].dtypes == ("float32", "float32", "int32", "uint64", "float32")
    art = compile_cuda(tmp_path / "typed.cu", use_cache=False)
    step = build_job(spec, art, seed=1)["sizes"][0]["steps"][0]
    assert [(a.get("dtype"), a["offset"]) for a in step["args"]] == [
        (None, 0), (None, 8), ("int32", 16), ("uint64", 24), ("float32", 32)]
    assert step["param_bytes"] == 36


def test_a_launch_that_does_not_fit_the_compiled_kernel_is_an_error(tmp_path):
    spec = load_spec(_typed_spec(tmp_path, '["out", "x", "n", "n", "0.5"]'))
    art = compile_cuda(tmp_path / "typed.cu", use_cache=False)
    short = spec.with_launch({"launches": [{"kernel": "typed", "grid": ["cdiv(n, 256)"], "block": [256],
                                            "args": ["out", "x", "n", "n", "0.5"]}]})
    short.launches[0].args = short.launches[0].args[:4]  # as if the source parser had missed a parameter
    with pytest.raises(EvalError, match=r"the compiled kernel takes 5 parameters .* the launch passes 4"):
        build_job(short, art)
    wrong = load_spec(_typed_spec(tmp_path, '["out", "x", "n", "n", "0.5"]'))
    wrong.launches[0].dtypes = ("float32", "float32", "int32", "int32", "float32")  # the old first-use typing
    with pytest.raises(EvalError, match=r"argument 4 'n' would be passed as int32 \(4 bytes\) but parameter 4 "
                                        r"of the compiled kernel is 8 bytes"):
        build_job(wrong, art)


def test_memset_steps_validate(tmp_path):
    (tmp_path / "acc.cu").write_text("__global__ void acc(float* out, const float* x, int n) {}\n")
    base = textwrap.dedent("""\
        kernel = "acc"
        [sizes]
        small = {{ n = 1024 }}
        [[args]]
        name = "out"
        dtype = "float32"
        shape = ["n"]
        output = true
        [[args]]
        name = "x"
        dtype = "float32"
        shape = ["n"]
        [[args]]
        name = "n"
        value = "n"
        [[launches]]
        {memset}
        [[launches]]
        kernel = "acc"
        grid = ["cdiv(n, 256)"]
        block = [256]
        """)
    ok = tmp_path / "acc.kernelpro.toml"
    ok.write_text(base.format(memset='memset = "out"\nvalue = 0'))
    s = load_spec(ok)
    assert s.launches[0].memset == "out" and [st.kernel for st in s.kernel_steps] == ["acc"]
    assert s.bind(s_source(tmp_path)).launches[0].memset == "out"
    for bad, msg in (('memset = "x"', "memset of input 'x' would change the inputs"),
                     ('memset = "nope"', "memset 'nope' is not a buffer"),
                     ('memset = "out"\nvalue = 300', "must be a byte"),
                     ('memset = "out"\ngrid = [1]', "a memset step takes memset and value only")):
        ok.write_text(base.format(memset=bad))
        with pytest.raises(SpecError, match=re.escape(msg)):
            load_spec(ok)


def s_source(tmp_path):
    from kernelpro.profilers.source import parse_source

    return parse_source((tmp_path / "acc.cu").read_text(), str(tmp_path / "acc.cu"))


def test_check_table_and_off_by_one_sizes(tmp_path):
    shutil.copy(GPU / "vecadd.cu", tmp_path)
    shutil.copy(GPU / "vecadd_ref.py", tmp_path)
    text = (GPU / "vecadd.kernelpro.toml").read_text()
    (tmp_path / "vecadd.kernelpro.toml").write_text(text)
    s = load_spec(tmp_path / "vecadd.kernelpro.toml")
    assert s.check_sizes == {"small-1": {"n": 1000002}, "small+1": {"n": 1000004}}
    assert s.distributions == ("spec", "negative", "scaled-down")
    (tmp_path / "vecadd.kernelpro.toml").write_text(text + '\n[check]\noff_by_one = false\ndistributions = ["spec", "denormal"]\n')
    s = load_spec(tmp_path / "vecadd.kernelpro.toml")
    assert s.check_sizes == {} and s.distributions == ("spec", "denormal")
    (tmp_path / "vecadd.kernelpro.toml").write_text(text + '\n[check]\ndistributions = ["gaussian"]\n')
    with pytest.raises(SpecError, match="unknown 'gaussian'"):
        load_spec(tmp_path / "vecadd.kernelpro.toml")
    inexact = text.replace('grid = ["cdiv(n, 256)"]', 'grid = ["n / 256"]').replace("small = { n = 1000003 }", "small = { n = 1024 }")
    (tmp_path / "vecadd.kernelpro.toml").write_text(inexact.replace("large = { n = 67108864 }", "large = { n = 2048 }"))
    s = load_spec(tmp_path / "vecadd.kernelpro.toml")
    assert s.check_sizes == {} and any("off-by-one size small-1" in w and "not an integer" in w for w in s.warnings)


# --- ceilings -----------------------------------------------------------------------------------------------
def test_faster_than_the_ceiling_is_an_error_and_the_l2_is_allowed_for():
    from kernelpro.profilers.runtime.roofline import faster_than_ceiling

    ceil = {"dram_gbs": 4000.0, "fp32_gflops": 60000.0, "fp16_gflops": 60000.0}
    l2 = 50 << 20
    big = 768 << 20
    assert faster_than_ceiling(big, None, big / 3.6e12, ceil, l2_bytes=l2) is None  # 90% of the roof
    why = faster_than_ceiling(big, None, big / 5.6e12, ceil, l2_bytes=l2)  # b never read: 1.4x
    assert why and "1.40x the measured DRAM bandwidth" in why
    small = 12 << 20  # inside the L2: writes may still be in it when the end event fires
    assert faster_than_ceiling(small, None, small / 9e12, ceil, l2_bytes=l2) is None
    assert "FMA peak" in faster_than_ceiling(None, 10**12, 1e-2, ceil)
    assert faster_than_ceiling(None, 10**12, 1e-2, ceil, tensor_cores=True) is None


# --- Compute Sanitizer --------------------------------------------------------------------------------------
MEMCHECK = """\
========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 16 bytes
=========     at gelu(const float *, float *, int)+0x70 in /tmp/k.cu:7
=========     by thread (36,0,0) in block (976,0,0)
=========     Access at 0x7f71b9e01360 is out of bounds
=========     and is 4 bytes after the nearest allocation at 0x7f71b9e00a00 of size 4000004 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========
========= ERROR SUMMARY: 3 errors
"""
RACECHECK = """\
========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at block_sum(const float *, float *, int)+0x90 in k.cu:5
=========     and Read access at block_sum(const float *, float *, int)+0xc0 in k.cu:7 [768 hazards]
=========
========= Warning: Race reported between Read access at x(float*)+0x10
=========     and Write access at x(float*)+0x20 [2 hazards]
=========
========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)
"""
CLEAN = "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n"


def test_sanitizer_command_and_output():
    from kernelpro.profilers.runtime import sanitizer as sz

    cmd = sz.sanitizer_command("/cuda/bin/compute-sanitizer", "racecheck", "/t/job.json", "/t/out.json", python="py")
    assert cmd == ["/cuda/bin/compute-sanitizer", "--tool", "racecheck", "--error-exitcode", "86", "--print-limit",
                   "20", "--show-backtrace", "no", "py", "-P", "-m", "kernelpro.profilers.runtime.runner", "--once",
                   "/t/job.json", "--out", "/t/out.json"]
    with pytest.raises(ValueError):
        sz.sanitizer_command("x", "leakcheck", "a", "b")
    m = sz.parse_output("memcheck", MEMCHECK, 86)
    assert m.count == 3 and m.errors == [
        "Invalid __global__ read of size 16 bytes | at gelu(const float *, float *, int)+0x70 in /tmp/k.cu:7"]
    r = sz.parse_output("racecheck", RACECHECK, 86)
    assert r.count == 1 and r.errors[0].startswith("Race reported between Write access at block_sum")
    assert "and Read access" in r.errors[0] and len(r.warnings) == 1
    assert sz.failure_text([sz.parse_output("initcheck", CLEAN, 0), m]) == (
        "compute-sanitizer memcheck: Invalid __global__ read of size 16 bytes | at gelu(const float *, float *, "
        "int)+0x70 in /tmp/k.cu:7 (3 errors)")
    assert sz.failure_text([sz.parse_output("memcheck", CLEAN, 0)]) is None


def test_sanitize_job_runs_the_tool_and_reads_its_verdict(tmp_path, monkeypatch):
    """A stand-in compute-sanitizer (a real executable printing recorded text) exercises the run path."""
    from kernelpro.profilers.runtime import sanitizer as sz

    fake = tmp_path / "compute-sanitizer"
    fake.write_text("#!/usr/bin/env python3\nimport sys, json\nargs = sys.argv[1:]\ntool = args[args.index('--tool') + 1]\n"
                    "out = args[args.index('--out') + 1]\njson.dump({'ok': True}, open(out, 'w'))\n"
                    f"text = {{'memcheck': {MEMCHECK!r}, 'racecheck': {CLEAN!r}, 'initcheck': {CLEAN!r}}}[tool]\n"
                    "print(text)\nsys.exit(86 if 'Invalid' in text else 0)\n")
    fake.chmod(0o755)
    monkeypatch.setenv("KERNELPRO_COMPUTE_SANITIZER", str(fake))
    assert sz.find_sanitizer() == str(fake)
    out = sz.sanitize_job({"op": "run"}, timeout_s=30)
    assert out["failure"].startswith("compute-sanitizer memcheck: Invalid __global__ read of size 16 bytes")
    assert [r["tool"] for r in out["reports"]] == ["memcheck", "racecheck", "initcheck"]
    monkeypatch.setenv("KERNELPRO_COMPUTE_SANITIZER", str(tmp_path / "missing"))
    assert sz.sanitize_job({"op": "run"})["notes"] == ["Compute Sanitizer not run: compute-sanitizer not found"]


def test_the_sanitize_job_is_one_launch_at_the_smallest_and_off_by_one_sizes():
    spec = load_spec(GPU / "vecadd.kernelpro.toml")
    art = compile_cuda(GPU / "vecadd.cu")
    job = build_job(spec, art, sanitize=True)
    assert [s["name"] for s in job["sizes"]] == ["small", "small-1", "small+1"]
    assert job["check"] is False and job["reference"] is None and not job["timing"] and not job["energy"]


# --- the runner end to end on the fake GPU ------------------------------------------------------------------
def _fake_case(tmp_path, kernel: str, declarations: str = "", sizes: str = "small = { n = 100003 }",
               extra: str = "") -> tuple:
    """examples/gpu/vecadd with the kernel renamed (the fake runs the Python kernel of that name)."""
    shutil.copy(GPU / "vecadd_ref.py", tmp_path)
    (tmp_path / "k.cu").write_text(declarations + (GPU / "vecadd.cu").read_text().replace("vecadd(", f"{kernel}("))
    t = (GPU / "vecadd.kernelpro.toml").read_text().replace('"vecadd"', f'"{kernel}"')
    t = re.sub(r"small = .*\n", sizes + "\n", t)
    t = re.sub(r"large = .*\n", "", t)
    (tmp_path / "k.kernelpro.toml").write_text(t + extra)
    return tmp_path / "k.cu", load_spec(tmp_path / "k.kernelpro.toml")


@pytest.fixture(params=["host", "device"])
def either_pool(request, fake_pool, fake_device_pool):
    return fake_pool if request.param == "host" else fake_device_pool


@pytest.mark.slow
def test_honest_kernel_is_checked_at_every_size_distribution_and_timed_launch(tmp_path, either_pool):
    cu, spec = _fake_case(tmp_path, "vecadd")
    r = evaluate(cu, spec, CompileOptions(), pool=either_pool, seed=3)
    assert r.ok, r.failure
    s = r.sizes[0]
    assert s.variants == ["spec", "negative", "scaled-down"] and s.checked >= 5 and s.sets >= 2
    assert [c.size for c in r.check_sizes] == ["small-1", "small+1"] and all(c.ok for c in r.check_sizes)
    assert s.memory["buffers_bytes"] == 12 * 100003
    assert r.checks["array"] == ("cupy" if either_pool.env.get("KERNELPRO_HOST_CHECKS") is None else "numpy")


@pytest.mark.slow
def test_memo_in_device_memory_is_reset_before_every_launch(tmp_path, either_pool):
    honest = evaluate(*_fake_case(tmp_path, "vecadd"), CompileOptions(), pool=either_pool, seed=3)
    cu, spec = _fake_case(tmp_path, "memo", "__device__ float seen[2];\n")
    r = evaluate(cu, spec, CompileOptions(), pool=either_pool, seed=3)
    assert r.ok, r.failure
    assert r.sizes[0].device_state == ["seen"]
    assert r.sizes[0].time_s == pytest.approx(honest.sizes[0].time_s, rel=1e-6)  # it never skipped: no speedup
    job = build_job(spec, compile_cuda(cu), seed=3)
    job["reset_state"] = False  # without the reset it skips, and the poisoned output shows it
    res = either_pool.run(job)
    assert not res.ok and res.failure.startswith("wrong result at size small, run again after the reference")


@pytest.mark.slow
def test_a_kernel_that_skips_when_the_output_looks_done_gains_nothing(tmp_path, either_pool):
    honest = evaluate(*_fake_case(tmp_path, "vecadd"), CompileOptions(), pool=either_pool, seed=4)
    r = evaluate(*_fake_case(tmp_path, "skip_if_done"), CompileOptions(), pool=either_pool, seed=4, energy=True)
    assert r.ok, r.failure  # every output poisoned first, the energy run writes into another set's buffers
    assert r.sizes[0].time_s == pytest.approx(honest.sizes[0].time_s, rel=1e-6)
    stale = evaluate(*_fake_case(tmp_path, "skip_if_finite"), CompileOptions(), pool=either_pool, seed=4, energy=True)
    assert not stale.ok and "energy launch of input set" in stale.failure


@pytest.mark.slow
def test_input_mutation_and_late_wrong_results_are_caught(tmp_path, either_pool):
    r = evaluate(*_fake_case(tmp_path, "mutate"), CompileOptions(), pool=either_pool, seed=5)
    assert not r.ok and "the kernel changed its input 'a' (4 bytes differ, first in element 0)" in r.failure
    with make_fake_pool(tmp_path / "fresh", device_arrays=either_pool.env.get("KERNELPRO_HOST_CHECKS") is None) as p:
        late = evaluate(*_fake_case(tmp_path, "late_wrong"), CompileOptions(), pool=p, seed=5)
    assert not late.ok and re.search(r"timed launch \d+ of \d+", late.failure), late.failure


@pytest.mark.slow
def test_typed_arguments_and_memset_steps_on_the_fake_gpu(tmp_path, fake_pool):
    spec = load_spec(_typed_spec(tmp_path, '["out", "x", "n", "n", "0.5"]'))
    r = evaluate(tmp_path / "typed.cu", spec, CompileOptions(), pool=fake_pool, seed=1, timing=False)
    assert r.ok, r.failure  # n reached the size_t parameter as 8 bytes at its offset
    acc = tmp_path / "acc"
    acc.mkdir()
    (acc / "acc.cu").write_text("__global__ void accumulate(float* out, const float* x, int n) {\n"
                                "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] += x[i]; }\n")
    (acc / "acc_ref.py").write_text("def reference(inputs, sizes):\n    return {'out': inputs['x'].astype('float64')}\n")
    text = textwrap.dedent("""\
        kernel = "accumulate"
        [sizes]
        small = { n = 5000 }
        [[args]]
        name = "out"
        dtype = "float32"
        shape = ["n"]
        output = true
        [[args]]
        name = "x"
        dtype = "float32"
        shape = ["n"]
        [[args]]
        name = "n"
        value = "n"
        MEMSET
        [[launches]]
        kernel = "accumulate"
        grid = ["cdiv(n, 256)"]
        block = [256]
        [reference]
        python = "acc_ref.py:reference"
        """)
    (acc / "acc.kernelpro.toml").write_text(text.replace("MEMSET", '[[launches]]\nmemset = "out"'))
    ok = evaluate(acc / "acc.cu", load_spec(acc / "acc.kernelpro.toml"), CompileOptions(), pool=fake_pool, seed=1)
    assert ok.ok, ok.failure
    (acc / "acc.kernelpro.toml").write_text(text.replace("MEMSET", ""))
    bad = evaluate(acc / "acc.cu", load_spec(acc / "acc.kernelpro.toml"), CompileOptions(), pool=fake_pool, seed=1)
    assert not bad.ok and "NaN" in bad.failure  # the poison plus x: the memset was needed


def test_spec_init_writes_an_entry_for_an_unnamed_parameter(tmp_path):
    from kernelpro.profilers.runtime.spec import init_spec

    cu = tmp_path / "u.cu"
    cu.write_text("__global__ void u(float* out, const float* a, int, int n) {\n"
                  "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = a[i]; }\n")
    (tmp_path / "u.kernelpro.toml").write_text(init_spec(cu, "u"))
    spec = load_spec(tmp_path / "u.kernelpro.toml")
    assert [a.name for a in spec.args] == ["out", "a", "unnamed3", "n"] and spec.launches[0].dtypes[2] == "int32"
