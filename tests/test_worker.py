"""The worker pool against fake workers (hang, crash, garbage), and the real runner end to end
against a fake pycuda (a numpy-backed driver whose kernels are Python functions), so every
path of the GPU runner except the driver itself runs in CI."""
from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

from kernelpro.profilers.compile import CompileOptions
from kernelpro.profilers.runtime.worker import RunResult, WorkerPool

ROOT = Path(__file__).resolve().parents[1]
GPU = ROOT / "examples" / "gpu"

FAKE_WORKER = r'''
import json, os, signal, sys, time
for line in sys.stdin:
    req = json.loads(line)
    mode = req["job"].get("mode")
    if mode == "hang":
        time.sleep(1000)
    elif mode == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif mode == "garbage":
        print("this is not json", flush=True)
        continue
    elif mode == "exit":
        sys.stderr.write("Traceback: boom\n"); sys.stderr.flush(); sys.exit(3)
    elif mode == "fatal":
        print(json.dumps({"id": req["id"], "ok": True, "fatal": True,
                          "result": {"ok": False, "failure": "crash: CUDA_ERROR_ILLEGAL_ADDRESS: x"}}), flush=True)
        continue
    print(json.dumps({"id": req["id"], "ok": True, "result": {"ok": True, "failure": None, "sizes": [
        {"size": "s", "ok": True, "time_s": 1e-3, "spread": 0.01, "times": [1e-3], "check": {"ok": True}, "bytes": 8}],
        "energy": None, "device": {"pid": os.getpid()}}}), flush=True)
'''


@pytest.fixture
def pool(tmp_path):
    script = tmp_path / "fake_worker.py"
    script.write_text(FAKE_WORKER)
    p = WorkerPool(timeout_s=5, command=[sys.executable, str(script)])
    yield p
    p.close()


def test_answering_worker_is_reused(pool):
    a = pool.run({"mode": "ok"})
    b = pool.run({"mode": "ok"})
    assert a.ok and b.ok and a.sizes[0].time_s == 1e-3
    assert a.device["pid"] == b.device["pid"] and pool.restarts == 0


def test_hang_times_out_then_next_run_succeeds(pool):
    r = pool.run({"mode": "hang"}, timeout_s=1)
    assert not r.ok and r.failure == "timeout: kernel did not finish within 1 s"
    assert pool.pid is None  # killed
    ok = pool.run({"mode": "ok"})
    assert ok.ok and pool.restarts == 1


def test_crash_mid_job_is_a_failure_with_the_signal(pool):
    r = pool.run({"mode": "crash"})
    assert not r.ok and r.failure.startswith("worker died with signal 11 (SIGSEGV)")
    assert pool.run({"mode": "ok"}).ok


def test_garbage_on_the_channel(pool):
    r = pool.run({"mode": "garbage"})
    assert not r.ok and "protocol error" in r.failure and "this is not json" in r.failure
    assert pool.run({"mode": "ok"}).ok


def test_exit_reports_status_and_stderr(pool):
    r = pool.run({"mode": "exit"})
    assert not r.ok and r.failure.startswith("worker exited with status 3") and "boom" in r.failure


def test_fatal_reply_replaces_the_worker(pool):
    first = pool.run({"mode": "ok"}).device["pid"]
    r = pool.run({"mode": "fatal"})
    assert not r.ok and "ILLEGAL_ADDRESS" in r.failure
    again = pool.run({"mode": "ok"})
    assert again.ok and again.device["pid"] != first


def test_missing_worker_command():
    p = WorkerPool(command=["/nonexistent/kernelpro-worker"])
    r = p.run({"op": "run"})
    assert not r.ok and "cannot start the GPU worker" in r.failure


def test_real_runner_hello_keeps_stdout_noise_off_the_channel():
    with WorkerPool(timeout_s=20) as p:
        out = p.call({"op": "hello"})  # the runner writes to fd 1 during this job
        assert out["pid"] == p.pid
        with pytest.raises(Exception, match="unknown job op"):
            p.call({"op": "nope"})


def test_runner_reason_names_the_cuda_error():
    from kernelpro.profilers.runtime.runner import cuda_reason

    e = Exception("cuCtxSynchronize failed: an illegal memory access was encountered")
    assert cuda_reason(e, "kernel k, size small", True) == \
        "crash: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered (kernel k, size small)"
    assert cuda_reason(Exception("cuModuleGetFunction failed: named symbol not found"), "x", False).startswith(
        "cuda error in cuModuleGetFunction: CUDA_ERROR_NOT_FOUND")


def test_timing_helpers():
    from kernelpro.profilers.runtime.runner import choose_reps, timing_stats

    med, spread = timing_stats([1.0, 2.0, 3.0, 4.0, 5.0])
    assert med == 3.0 and spread == pytest.approx(2.0 / 3.0)
    assert choose_reps(1e-6, 0.3, 10, 1000) == 1000
    assert choose_reps(0.1, 0.3, 10, 1000) == 10
    assert choose_reps(1e-3, 0.3, 10, 1000) == 300


def test_fills_and_bf16():
    import numpy as np

    from kernelpro.profilers.runtime.runner import bf16_bits, bf16_decode, make_fill

    rng = np.random.default_rng(0)
    x = make_fill(rng, "randint:3:5", "int32", 1000)
    assert x.dtype == np.int32 and set(np.unique(x)) <= {3, 4}
    h = make_fill(rng, "randn", "bfloat16", 100)
    assert h.dtype == np.uint16
    v = np.array([1.0, -2.5, 3.140625], dtype=np.float32)
    assert np.array_equal(bf16_decode(bf16_bits(v)), v)
    assert make_fill(rng, "arange", "float16", 4).tolist() == [0, 1, 2, 3]


# --- the runner end to end over a fake pycuda ----------------------------------------------------------
FAKE_DRIVER = r'''
"""A numpy-backed stand-in for pycuda.driver: allocations are byte arrays, kernels are Python."""
import re, time
import numpy as np

class Error(Exception): pass
class LogicError(Error): pass
class LaunchError(Error): pass
class MemoryError(Error): pass
class RuntimeError(Error): pass

_sticky = []
_clock = [0.0]
launches = []

def init(): pass

class device_attribute:
    MULTIPROCESSOR_COUNT, L2_CACHE_SIZE, MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, MAX_THREADS_PER_MULTIPROCESSOR = 1, 2, 3, 4

class function_attribute:
    MAX_DYNAMIC_SHARED_SIZE_BYTES = 8

class Device:
    def __init__(self, i): self.i = i
    @staticmethod
    def count(): return 1
    def name(self): return "Fake GPU"
    def compute_capability(self): return (9, 0)
    def get_attribute(self, a): return {1: 4, 2: 1 << 20, 3: 232448, 4: 2048}[a]
    def total_memory(self): return 1 << 30
    def pci_bus_id(self): return "0000:00:00.0"
    def retain_primary_context(self): return Context()

def _check():
    if _sticky: raise LogicError("cuCtxSynchronize failed: " + _sticky[0])

class Context:
    def push(self): pass
    def pop(self): pass
    @staticmethod
    def synchronize(): _check()

class DeviceAllocation:
    def __init__(self, n): self.buf = np.zeros(n, np.uint8)
    def free(self): pass
    def __int__(self): return id(self)

def mem_alloc(n): return DeviceAllocation(n)
def mem_get_info(): return (64 << 20, 1 << 30)
def memcpy_htod(d, src):
    _check(); b = np.ascontiguousarray(src).reshape(-1).view(np.uint8); d.buf[:b.size] = b
def memcpy_dtoh(dst, s):
    _check(); v = dst.reshape(-1).view(np.uint8); v[:] = s.buf[:v.size]
def memcpy_dtod(d, s, n): d.buf[:n] = s.buf[:n]
def memcpy_dtod_async(d, s, n, stream=None):
    memcpy_dtod(d, s, n); _clock[0] += 2 * n / 4e12  # a 4 TB/s device
def memset_d8(d, v, n): d.buf[:n] = v
def memset_d32(d, v, n): d.buf[:4 * n].view(np.uint32)[:] = v
def memset_d32_async(d, v, n, stream=None): memset_d32(d, v, n)

class Event:
    t = 0.0
    def record(self, stream=None): self.t = _clock[0]; return self
    def synchronize(self): return self
    def time_since(self, other): return (self.t - other.t) * 1e3

class Sticky(Exception): pass

class Function:
    def __init__(self, name, impl): self.name, self.impl, self.attrs = name, impl, {}
    def set_attribute(self, a, v): self.attrs[a] = v
    def __call__(self, *args, grid=(1, 1), block=None, shared=0):
        _check()
        arrays = [a.buf if isinstance(a, DeviceAllocation) else a for a in args]
        launches.append((self.name, grid, block, shared))
        try:
            dt = self.impl(arrays, grid, block)
        except Sticky as e:
            _sticky.append(str(e)); return
        _clock[0] += dt or 1e-5

class Module:
    def __init__(self, path): self.path = path
    def get_function(self, mangled):
        from pycuda import fake_kernels
        m = re.match(r"_Z(\d+)", mangled)
        name = mangled[len(m.group(0)):len(m.group(0)) + int(m.group(1))] if m else mangled
        if name not in fake_kernels.KERNELS:
            raise LogicError("cuModuleGetFunction failed: named symbol not found")
        return Function(name, fake_kernels.KERNELS[name])

def module_from_file(path): return Module(path)
'''

FAKE_NVML = r'''
"""A stand-in for nvidia-ml-py: 300 W while anything runs, the counter stepping every 0.1 s."""
import time

_T0 = time.perf_counter()
class NVMLError(Exception): pass
def nvmlInit(): pass
def nvmlDeviceGetHandleByPciBusId(bus):
    assert isinstance(bus, bytes)
    return "h"
def nvmlDeviceGetHandleByIndex(i): return "h"
def nvmlDeviceGetUUID(h): return "GPU-fake-0000"
def nvmlDeviceGetTotalEnergyConsumption(h):
    return int(int((time.perf_counter() - _T0) / 0.1) * 0.1 * 300_000)  # mJ
def nvmlDeviceGetPowerUsage(h): return 300_000  # mW
'''

FAKE_KERNELS = r'''
import time
import numpy as np
from pycuda.driver import Sticky

def _vecadd(args, grid, block, skip_last=False):
    out, a, b = (x.view(np.float32) for x in args[:3])
    n = int(args[3])
    stop = min(n, (grid[0] - (1 if skip_last else 0)) * block[0])
    out[:stop] = a[:stop] + b[:stop]
    return 2e-4 + 1e-6 * (len(out) % 7)

def illegal(args, grid, block):
    raise Sticky("an illegal memory access was encountered")

def spin(args, grid, block):
    time.sleep(1000)

def ceiling(args, grid, block):
    return 1e-3

KERNELS = {"ceiling_fp32": ceiling, "ceiling_fp16": ceiling, "vecadd": _vecadd, "skip_last_block": lambda a, g, b: _vecadd(a, g, b, True),
           "illegal_address": illegal, "never_ends": spin}
'''


@pytest.fixture(scope="module")
def fake_pool(tmp_path_factory):
    pytest.importorskip("numpy")
    root = tmp_path_factory.mktemp("fakecuda")
    (root / "pycuda").mkdir()
    (root / "pycuda" / "__init__.py").write_text("")
    (root / "pycuda" / "driver.py").write_text(FAKE_DRIVER)
    (root / "pycuda" / "fake_kernels.py").write_text(FAKE_KERNELS)
    (root / "pynvml.py").write_text(FAKE_NVML)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
    p = WorkerPool(timeout_s=30, env=env)
    yield p
    p.close()


def _eval(pool, name, **kw) -> RunResult:
    from kernelpro.profilers.runtime.measure import evaluate
    from kernelpro.profilers.runtime.spec import load_spec

    spec = load_spec(GPU / f"{name}.kernelpro.toml")
    return evaluate(GPU / f"{name}.cu", spec, CompileOptions(), pool=pool, seed=7, **kw)


def test_fake_gpu_correct_kernel_is_checked_and_timed(fake_pool):
    r = _eval(fake_pool, "vecadd", sizes=["small"])
    assert r.ok, r.failure
    s = r.sizes[0]
    assert s.ok and s.check["ok"] and s.check["max_abs"] == 0.0
    assert s.time_s == pytest.approx(2e-4 + 1e-6 * (1000003 % 7))
    assert 10 <= len(s.times) <= 1000 and s.spread < 1e-9
    assert s.bytes == 12 * 1000003 and s.flops == 1000003
    assert r.device["name"] == "Fake GPU" and r.seed == 7 and r.device["uuid"] == "GPU-fake-0000"


def test_fake_gpu_energy_run(fake_pool):
    r = _eval(fake_pool, "vecadd", sizes=["small"], energy=True)
    assert r.ok, r.failure
    e = r.energy["small"]
    assert "error" not in e, e
    assert e["avg_power_w"] == pytest.approx(300.0, rel=0.05) and e["idle_w"] == 300.0
    assert e["duration_s"] >= 1.0 and e["launches"] > 0 and e["method"] == "energy counter"
    assert e["energy_uj"] == pytest.approx(e["avg_power_w"] * e["time_per_launch_s"] * 1e6, rel=1e-6)


def test_fake_gpu_planted_wrong_kernel_is_caught(fake_pool):
    r = _eval(fake_pool, "skip_last_block", timing=False)
    assert not r.ok and r.failure.startswith("wrong result at size small")
    assert r.sizes[0].check["unwritten"] == 1000003 - 3906 * 256


def test_fake_gpu_illegal_address_then_next_run_works(fake_pool):
    before = fake_pool.restarts
    r = _eval(fake_pool, "illegal_address", timing=False)
    assert not r.ok
    assert r.failure.startswith("crash: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered")
    ok = _eval(fake_pool, "vecadd", sizes=["small"], timing=False)
    assert ok.ok and fake_pool.restarts == before + 1


def test_fake_gpu_never_ending_kernel_times_out_then_next_run_works(fake_pool):
    r = _eval(fake_pool, "never_ends", timing=False, timeout_s=3)
    assert not r.ok and r.failure == "timeout: kernel did not finish within 3 s"
    assert _eval(fake_pool, "vecadd", sizes=["small"], timing=False).ok


def test_fake_gpu_measure_rows_and_roofline_advice(fake_pool, monkeypatch, tmp_path):
    from kernelpro.profilers.runtime import measure
    from kernelpro.profilers.runtime.spec import load_spec

    monkeypatch.setenv("KERNELPRO_CACHE_DIR", str(tmp_path))
    spec = load_spec(GPU / "vecadd.kernelpro.toml")
    monkeypatch.setattr("kernelpro.profilers.runtime.ncu.find_ncu", lambda: None)  # no ncu: a note, not a failure
    out = measure.measure_spec(GPU / "vecadd.cu", spec, CompileOptions(), energy=False, sizes=["small"],
                               pool=fake_pool, ncu=True)
    assert any("Nsight Compute" in n for n in out["notes"]), out["notes"]
    row = out["measured"][0]
    assert row["kernel"] == "vecadd" and row["size"] == "small" and row["time_us"] > 0
    assert row["bandwidth_gbs"] == pytest.approx(12 * 1000003 / (row["time_us"] * 1e-6) / 1e9)
    assert out["ceilings"]["dram_gbs"] > 0 and out["ceilings"]["fp32_gflops"] > 0
    assert row["bound"] in ("memory-bound", "compute-bound", "latency-bound", "impossible")
    assert any(a.rule in ("roofline", "impossible-speedup") for a in out["advice"])
    from kernelpro.profilers.runtime.ceilings import cache_path

    assert cache_path(out["ceilings"]["device"]).is_file()  # measured once, then cached


# --- the command line -------------------------------------------------------------------------------
def _cli(*args, env_extra=None, cwd=None):
    import subprocess

    env = dict(os.environ, **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "kernelpro.profilers.cli", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120)


def test_bench_without_gpu_is_one_line_and_exit_2():
    p = _cli("bench", str(GPU / "vecadd.cu"), env_extra={"KERNELPRO_NO_GPU": "1"})
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.splitlines() == ["kernelpro: no GPU: disabled by KERNELPRO_NO_GPU"]


def test_bench_on_this_machine_without_gpu():
    from kernelpro.profilers.runtime.measure import gpu_problem

    if gpu_problem() is None:
        pytest.skip("this machine has a GPU")
    p = _cli("bench", str(GPU / "vecadd.cu"))
    lines = p.stderr.splitlines()
    assert p.returncode == 2 and len(lines) == 1 and lines[0].startswith("kernelpro: no GPU: ")


def test_profile_run_without_gpu():
    p = _cli("profile", "--run", str(GPU / "vecadd.cu"), env_extra={"KERNELPRO_NO_GPU": "1"})
    assert p.returncode == 2 and "kernelpro: no GPU: disabled by KERNELPRO_NO_GPU" in p.stderr


def test_measured_profile_without_spec(tmp_path, capsys):
    from types import SimpleNamespace

    from kernelpro.profilers.runtime.measure import measured_profile

    cu = tmp_path / "k.cu"
    cu.write_text((GPU / "vecadd.cu").read_text())
    rep = SimpleNamespace(path=str(cu), kernels=[SimpleNamespace(name="vecadd")])
    assert measured_profile(rep) is None
    assert capsys.readouterr().err.strip() == (
        f"kernelpro: no launch spec beside {cu}: run `kernelpro spec init {cu} --kernel vecadd`")


def test_spec_init_and_check(tmp_path):
    cu = tmp_path / "k.cu"
    cu.write_text((GPU / "vecadd.cu").read_text())
    p = _cli("spec", "init", str(cu), "--kernel", "vecadd")
    spec = tmp_path / "k.kernelpro.toml"
    assert p.returncode == 0 and spec.is_file() and 'kernel = "vecadd"' in spec.read_text()
    again = _cli("spec", "init", str(cu), "--kernel", "vecadd")
    assert again.returncode == 2 and "exists; pass --force" in again.stderr
    assert _cli("spec", "init", str(cu), "--kernel", "vecadd", "--force").returncode == 0
    ok = _cli("spec", "check", str(spec))
    assert ok.returncode == 0 and "OK" in ok.stdout
    spec.write_text(spec.read_text().replace('name = "a"', 'name = "zz"'))
    bad = _cli("spec", "check", str(spec))
    assert bad.returncode == 2 and bad.stderr.startswith(f"kernelpro: {spec}:") and "zz" in bad.stderr
    nokernel = _cli("spec", "init", str(cu), "--kernel", "nope", "--force")
    assert nokernel.returncode == 2 and "nope" in nokernel.stderr
