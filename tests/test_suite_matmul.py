"""The suite's matrix-product families (issue 26): their files and specs, every hand-written best (strict
fp32 SIMT, TF32 and bf16 tensor cores) against the reference in the CPU emulator at sizes that are no
multiple of any tile (the tensor cores' fragments through the emulator's exchange, which follows the PTX
ISA's layouts), the TF32 kernels refused by the strict tolerance, cuBLAS's precision policies
(suite_torch) and the GPU sweep's table (benchmarks/matmul_sweep.py, scripts/gpu_matmul.sh)."""
from __future__ import annotations

import glob
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

from suite_emu import SMALL, SUITE, VECTOR, check, load_spec, run

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import matmul_sweep  # noqa: E402
import suite_check  # noqa: E402
import suite_torch  # noqa: E402

FAMILIES = matmul_sweep.FAMILIES
FP32 = [f for f in FAMILIES if f != "gemm_bf16"]
BESTS = sorted(p for f in FAMILIES for p in glob.glob(os.path.join(SUITE, f, "best*.cu")))
GXX = __import__("shutil").which("g++")


def ids(p):
    return f"{os.path.basename(os.path.dirname(p))}/{os.path.basename(p)[:-3]}"


def _base(spec):
    from kernelpro.optimizer import spec_edit
    return spec_edit.base_launch(spec)


def test_every_matmul_family_has_naive_kernels_a_strict_best_and_a_tensor_core_one():
    for fam in FAMILIES:
        meta = tomllib.loads((Path(SUITE) / fam / "family.toml").read_text())
        assert fam in SMALL and fam in VECTOR and fam in suite_check.CHECK_SIZES, fam
        assert [s for s in meta["files"] if s.startswith("naive")], fam
        assert "best" in meta["files"], fam
        if fam in FP32:
            # strict fp32: the default tolerance of float32 (no rtol given); TF32: its own, said in the spec
            assert "tensor cores" not in meta["files"]["best"]["style"] and "strict float32" in meta["files"]["best"]["style"]
            strict, tf32 = load_spec(fam, "best"), load_spec(fam, "best_tf32")
            assert "rtol" not in strict.tolerance_given or strict.rtol <= 1e-4, fam
            assert "TF32 admitted" in meta["files"]["best_tf32"]["style"] and tf32.rtol >= 1e-2, fam
            assert "TF32 admitted" in (Path(SUITE) / fam / "best_tf32.kernelpro.toml").read_text()
        else:
            assert "mma.sync m16n8k16 bf16" in meta["files"]["best"]["style"]
    gemm = tomllib.loads((Path(SUITE) / "gemm_fp32" / "family.toml").read_text())
    assert {"naive", "naive_cols", "naive_global"} <= set(gemm["files"])  # x on rows, x on columns, alpha/beta in C
    assert load_spec("gemm_fp32", "best").sizes["large"] == {"M": 4096, "N": 4096, "K": 4096}
    assert load_spec("attn_scores", "best").sizes["large"] == {"H": 96, "T": 1024, "D": 64}
    assert load_spec("linear_bias", "best").sizes["large"] == {"N": 8192, "C": 768, "OC": 3072}


def test_the_chain_runs_as_a_sequence_of_launches_through_a_scratch_product():
    for stem in ("naive", "naive_two", "best", "best_tf32"):
        spec = load_spec("gemm_chain", stem)
        assert len(spec.launches) == 2 and [s.name for s in spec.scratch] == ["T"], stem
        assert spec.launches[0].args[0] == "T" and spec.launches[1].args[:2] == ("D", "T"), stem
    text = (Path(SUITE) / "gemm_chain" / "best_tf32.kernelpro.toml").read_text()
    assert text.count("[[launches]]") == 2 and text.count("[tolerance]") == 1 and "rtol = 2e-2" in text


def test_references_run_at_the_check_sizes():
    for fam in FAMILIES:
        assert suite_check.check_reference(fam) is None, fam


@pytest.mark.slow
@pytest.mark.skipif(GXX is None, reason="needs g++ for the emulator")
@pytest.mark.parametrize("path", BESTS, ids=ids)
def test_every_best_computes_the_reference_in_the_emulator(path, tmp_path):
    """At SMALL (every tile ragged, the scalar load paths) and VECTOR (16-byte loads and cp.async, several
    tiles and pipeline stages), against the reference under its own file's tolerance."""
    fam, stem = os.path.basename(os.path.dirname(path)), os.path.basename(path)[:-3]
    spec = load_spec(fam, stem)
    text = open(path).read()
    for env in (SMALL[fam], VECTOR[fam]):
        got, views = run(fam, spec, text, _base(spec), dict(env), str(tmp_path))
        check(fam, spec, got, views, dict(env), f"{fam}/{stem} at {env}")


@pytest.mark.slow
@pytest.mark.skipif(GXX is None, reason="needs g++ for the emulator")
def test_a_tf32_kernel_fails_the_strict_tolerance(tmp_path):
    """TF32 is never admitted silently: gemm_fp32's TF32 kernel is outside the strict fp32 tolerance."""
    strict = load_spec("gemm_fp32", "best")
    text = open(os.path.join(SUITE, "gemm_fp32", "best_tf32.cu")).read()
    env = VECTOR["gemm_fp32"]
    got, views = run("gemm_fp32", load_spec("gemm_fp32", "best_tf32"), text, _base(load_spec("gemm_fp32", "best_tf32")),
                     dict(env), str(tmp_path))
    check("gemm_fp32", load_spec("gemm_fp32", "best_tf32"), got, views, dict(env), "tf32 under its tolerance")
    with pytest.raises(AssertionError, match="differs"):
        check("gemm_fp32", strict, got, views, dict(env), "tf32 under the strict tolerance")


@pytest.mark.slow
@pytest.mark.skipif(GXX is None, reason="needs g++ for the emulator")
def test_the_emulator_catches_a_wrong_fragment_layout(tmp_path):
    """B's fragments loaded without ldmatrix's transpose: the emulated mma gives a wrong product."""
    spec = load_spec("gemm_bf16", "best")
    text = open(os.path.join(SUITE, "gemm_bf16", "best.cu")).read()
    wrong = text.replace("ldsm_x4<true>(bfr[nj]", "ldsm_x4<false>(bfr[nj]")
    assert wrong != text
    env = VECTOR["gemm_bf16"]
    got, views = run("gemm_bf16", spec, wrong, _base(spec), dict(env), str(tmp_path))
    with pytest.raises(AssertionError, match="differs"):
        check("gemm_bf16", spec, got, views, dict(env), "B not transposed")


def test_cublas_policies_are_named_and_set_around_each_timing():
    assert set(suite_torch.POLICIES) == set(FAMILIES)
    for fam in FP32:
        assert suite_torch.policies(fam) == ("fp32", "tf32")
    assert suite_torch.policies("gemm_bf16") == ("bf16",) and suite_torch.policies("gelu") == ("-",)
    torch = SimpleNamespace(backends=SimpleNamespace(cuda=SimpleNamespace(matmul=SimpleNamespace(allow_tf32="old"))))
    for pol, want in (("tf32", True), ("fp32", False), ("bf16", False)):
        with suite_torch.precision(torch, pol):
            assert torch.backends.cuda.matmul.allow_tf32 is want
        assert torch.backends.cuda.matmul.allow_tf32 == "old"


def _fake_results():
    fl = {"medium": 2e9, "large": 1.28e11}
    row = {"flops": fl, "kernels": {
        "naive": {"policy": "fp32", "times_s": {"medium": 2e-3, "large": 0.1}},
        "best": {"policy": "fp32", "times_s": {"medium": 1e-4, "large": 3e-3}},
        "best_tf32": {"policy": "tf32", "times_s": {"medium": 5e-5, "large": 1e-3}},
        "broken": {"policy": "fp32", "failure": "wrong result: C differs"}},
        "cublas": {"fp32": {"policy": "fp32", "times_s": {"medium": 8e-5, "large": 2.4e-3}},
                   "tf32": {"policy": "tf32", "times_s": {"medium": 4e-5, "large": 6e-4}}}}
    matmul_sweep.summarize("gemm_fp32", row)
    return {"families": {"gemm_fp32": row}}


def test_the_sweep_names_the_policy_of_every_number_and_compares_like_with_like():
    assert matmul_sweep.policy_of("gemm_fp32", "best") == "fp32"
    assert matmul_sweep.policy_of("gemm_fp32", "best_tf32") == "tf32"
    assert matmul_sweep.policy_of("gemm_bf16", "best") == "bf16"
    assert matmul_sweep.stems("gemm_fp32", ["naive", "best"]) == ["naive", "naive_cols", "naive_global", "best"]
    res = _fake_results()
    k = res["families"]["gemm_fp32"]["kernels"]
    assert k["best"]["vs_cublas"] == {"medium": 0.8, "large": 0.8}  # against cuBLAS fp32
    assert k["best_tf32"]["vs_cublas"] == {"medium": 0.8, "large": 0.6}  # against cuBLAS TF32
    assert k["best"]["tflops"]["large"] == pytest.approx(42.67)
    text = matmul_sweep.table(res)
    assert text.splitlines()[0] == "| family | kernel | policy | size | µs | TFLOP/s | x cuBLAS (same policy) |"
    assert "| gemm_fp32 | best_tf32 | tf32 | large | 1000.0 | 128.0 | 0.60x |" in text
    assert "| gemm_fp32 | cuBLAS (tf32) | tf32 | large | 600.0 |" in text
    assert "| gemm_fp32 | broken | fp32 | all | FAILED: wrong result: C differs |" in text
    fresh = json.loads(json.dumps(res))
    fresh["families"]["gemm_fp32"]["kernels"]["best"]["times_s"]["large"] = 2.4e-3
    text = matmul_sweep.table(res, fresh)
    assert "| gemm_fp32 | best | fp32 | large | 3000.0 | 2400.0 | 53.3 | 1.00x |" in text


def test_gpu_script_runs_the_sweep_twice_inside_ten_minutes():
    text = (ROOT / "scripts" / "gpu_matmul.sh").read_text()
    assert subprocess.run(["bash", "-n", str(ROOT / "scripts" / "gpu_matmul.sh")]).returncode == 0
    assert text.count("benchmarks/matmul_sweep.py --out") == 2 and "--kernels best best_tf32" in text
    first = int(re.search(r"FIRST_T:-(\d+)", text).group(1))
    fresh = int(re.search(r"FRESH_T:-(\d+)", text).group(1))
    assert first + fresh + 90 <= 600  # room for the wheels' install and the table


VARIANTS = [(fam, name) for fam, vs in matmul_sweep.VARIANTS.items() for name in vs]


@pytest.mark.slow  # nvcc: up to 7 s a variant on the 2-core machine
@pytest.mark.parametrize("fam,name", VARIANTS, ids=[f"{f}/{n}" for f, n in VARIANTS])
def test_every_tuning_variant_compiles_and_its_launch_validates(fam, name):
    from kernelpro.profilers.compile import CompileOptions, compile_cuda

    stem, launch, flags = matmul_sweep.VARIANTS[fam][name]
    spec = load_spec(fam, stem).with_launch(launch)
    art = compile_cuda(os.path.join(SUITE, fam, f"{stem}.cu"), CompileOptions(arch="sm_90", extra_flags=tuple(flags)))
    assert art.ok and art.builds(spec.kernel), [d.message for d in art.errors]
    shared = {s: spec.eval(spec.launches[0].shared_bytes, s) for s in spec.sizes}
    assert all(v <= 227 * 1024 for v in shared.values()), shared  # within one SM's shared memory


@pytest.mark.slow
@pytest.mark.skipif(GXX is None, reason="needs g++ for the emulator")
@pytest.mark.parametrize("fam,name", VARIANTS, ids=[f"{f}/{n}" for f, n in VARIANTS])
def test_every_tuning_variant_computes_the_reference_in_the_emulator(fam, name, tmp_path):
    stem, launch, flags = matmul_sweep.VARIANTS[fam][name]
    spec = load_spec(fam, stem)
    defines = "".join(f"#define {f[2:].replace('=', ' ', 1)}\n" for f in flags if f.startswith("-D"))
    text = defines + open(os.path.join(SUITE, fam, f"{stem}.cu")).read()
    for env in (SMALL[fam], VECTOR[fam]):
        got, views = run(fam, spec, text, {**_base(spec), **launch}, dict(env), str(tmp_path))
        check(fam, spec, got, views, dict(env), f"{fam}/{name} at {env}")


FAKE_SGEMM = '''

def sgemm(args, grid, block):
    """C = alpha A B + beta C; a block of 256 threads (the bests' tiles) runs 4x faster than the naive blocks."""
    C, A, B = (x.view(np.float32) for x in args[:3])
    M, N, K = (int(v) for v in args[3:6])
    alpha, beta = (float(np.array(v, dtype=np.int32).view(np.float32)) for v in args[6:8])
    c = C[:M * N].reshape(M, N)
    c[:] = alpha * (A[:M * K].reshape(M, K) @ B[:K * N].reshape(K, N)) + beta * c
    return 1e-9 * M * N * K / (4.0 if block[0] == 256 else 1.0)

KERNELS["sgemm"] = sgemm
'''

SWEEP_DRIVER = """
import sys
from pathlib import Path
sys.path.insert(0, {bench!r})
import matmul_sweep
matmul_sweep.SUITE = Path({suite!r})
sys.exit(matmul_sweep.main(sys.argv[1:]))
"""


@pytest.mark.slow
@pytest.mark.skipif(__import__("shutil").which("cc") is None and __import__("shutil").which("gcc") is None,
                    reason="needs a C compiler for the stand-in libcuda")
def test_the_sweep_end_to_end_on_the_fake_gpu(tmp_path):
    """matmul_sweep.py as gpu_matmul.sh runs it (every gemm_fp32 file and variant through the evaluator, checked
    against the reference, then the table), on tests/fake_pycuda.py's GPU at tiny sizes; cuBLAS's failure
    without torch is recorded, not hidden."""
    import shutil

    import fake_pycuda as fp

    cc = shutil.which("cc") or shutil.which("gcc")
    fake = tmp_path / "fake"
    (fake / "pycuda").mkdir(parents=True)
    (fake / "cuda.c").write_text("int cuInit(unsigned f) { return 0; }\n"
                                 "int cuDeviceGetCount(int *n) { *n = 1; return 0; }\n")
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(fake / "libcuda.so.1"), str(fake / "cuda.c")], check=True)
    (fake / "pycuda" / "__init__.py").write_text("")
    (fake / "pycuda" / "driver.py").write_text(fp.FAKE_DRIVER)
    (fake / "pycuda" / "fake_kernels.py").write_text(fp.FAKE_KERNELS + FAKE_SGEMM)
    (fake / "pynvml.py").write_text(fp.FAKE_NVML)
    suite = tmp_path / "suite" / "gemm_fp32"
    suite.mkdir(parents=True)
    sizes = {"small": "{ M = 33, N = 40, K = 24 }", "medium": "{ M = 64, N = 48, K = 32 }",
             "large": "{ M = 70, N = 72, K = 40 }"}
    for f in (Path(SUITE) / "gemm_fp32").iterdir():
        text = f.read_text()
        for name, v in sizes.items():
            text = re.sub(rf"^{name} = \{{[^}}]*\}}", f"{name} = {v}", text, flags=re.M)
        (suite / f.name).write_text(text)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(fake), os.environ.get("PYTHONPATH", "")]),
           "LD_LIBRARY_PATH": os.pathsep.join([str(fake), os.environ.get("LD_LIBRARY_PATH", "")]),
           "KERNELPRO_HOST_CHECKS": "1"}
    script = tmp_path / "sweep.py"
    script.write_text(SWEEP_DRIVER.format(bench=str(ROOT / "benchmarks"), suite=str(suite.parent)))
    out = tmp_path / "first.json"
    r = subprocess.run([sys.executable, str(script), "--out", str(out), "--families", "gemm_fp32", "--variants",
                        "--repeats", "1"], env=env, capture_output=True, text=True, timeout=500)
    assert r.returncode == 0, r.stdout + r.stderr
    row = json.loads(out.read_text())["families"]["gemm_fp32"]
    assert list(row["kernels"]) == ["naive", "naive_cols", "naive_global", "best", "best_tf32",
                                    *matmul_sweep.VARIANTS["gemm_fp32"]]
    for name, k in row["kernels"].items():
        assert "failure" not in k, (name, k.get("failure"))
        assert set(k["times_s"]) == {"small", "medium", "large"} and k["tflops"]["large"] > 0
    assert row["kernels"]["best_tf32"]["policy"] == "tf32" and row["kernels"]["best"]["policy"] == "fp32"
    assert row["kernels"]["best_tf32_s4"]["flags"] == ["-DTC_STAGES=4"]
    assert row["kernels"]["best"]["times_s"]["large"] < row["kernels"]["naive"]["times_s"]["large"]
    assert set(row["cublas"]) == {"fp32", "tf32"}  # without torch here: each policy's failure, said
    assert all("failure" in c or c["times_s"] for c in row["cublas"].values())
    r = subprocess.run([sys.executable, str(script), "--table", str(out)], env=env, capture_output=True, text=True)
    assert r.returncode == 0 and "| gemm_fp32 | best_tf32 | tf32 | large |" in r.stdout, r.stdout + r.stderr


def test_the_report_shows_the_precision_pytorch_ran_under():
    import report_data as rd

    def fam(policy):
        eager = {"times_s": {"large": 1e-3}, **({"policy": policy} if policy else {})}
        return {"largest": "large", "baseline": {"naive": {"times_s": {"large": 2e-3}}, "torch_eager": eager}, "runs": {}}

    assert rd.family_row("gemm_bf16", fam("bf16"))["torch_policy"] == "bf16"
    assert rd.family_row("gemm_fp32", fam("fp32"))["torch_policy"] == "fp32"
    assert rd.family_row("gelu", fam("-"))["torch_policy"] is None
    assert rd.family_row("gelu", fam(None))["torch_policy"] is None


def test_the_tf32_admitted_naive_kernel_gets_tf32_tensor_cores_and_is_measured_against_cublas_with_tf32_on():
    """Issue 26's TF32-admitted policy: gemm_fp32's naive_tf32 (naive_cols's kernel under best_tf32's tolerance)
    is offered plain TF32 tensor cores, said in the description, where the strict naive kernel gets 3xTF32 only;
    suite_run measures it beside best_tf32.cu and cuBLAS under the tf32 policy."""
    sys.path.insert(0, str(Path(SUITE).parent))
    import suite_run
    from kernelpro.optimizer import builtin
    from kernelpro.optimizer.restructure import api

    meta = tomllib.loads((Path(SUITE) / "gemm_fp32" / "family.toml").read_text())
    assert suite_run.file_roles(meta, "naive_tf32") == ("sgemm", "best_tf32", "tf32")
    assert suite_run.file_roles(meta, "naive") == ("sgemm", "best", None)
    assert (Path(SUITE) / "gemm_fp32" / "naive_tf32.cu").read_text().split("\n", 2)[2] == \
        (Path(SUITE) / "gemm_fp32" / "naive_cols.cu").read_text().split("\n", 1)[1]  # the same kernel
    got = {}
    for stem in ("naive_tf32", "naive_cols"):
        spec = load_spec("gemm_fp32", stem)
        text = (Path(SUITE) / "gemm_fp32" / f"{stem}.cu").read_text()
        launch = _base(spec)
        ctx = api.Context(kernel="sgemm", path=str(Path(SUITE) / "gemm_fp32" / f"{stem}.cu"), launch=launch,
                          base_launch=dict(launch), size_env={s: spec.env(s) for s in spec.sizes},
                          scalar_params={"M": "M", "N": "N", "K": "K"}, tolerance=builtin.spec_tolerance(spec))
        got[stem] = {p.name: p for p in api.plans(text, ctx)[0]}
    assert "matmul-wmma" in got["naive_tf32"] and "matmul-3xtf32" not in got["naive_tf32"]
    assert "matmul-3xtf32" in got["naive_cols"] and "matmul-wmma" not in got["naive_cols"]
    desc = got["naive_tf32"]["matmul-wmma"].build(got["naive_tf32"]["matmul-wmma"].space[0]).description
    assert "rounded to TF32" in desc and "TF32 admitted by the spec's tolerance (rtol 0.01, atol 0.64 (0.01 x the " \
        "outputs' rms" in desc, desc
