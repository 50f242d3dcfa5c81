"""A numpy-backed stand-in for pycuda.driver and pynvml (a test double, named as such), so the real
runner (profilers/runtime/runner.py, sizerun.py) runs end to end in CI without a GPU.

Device memory is byte arrays in a simulated address space; a module's `__device__` variables are
read from the real cubin (kernelpro.profilers.runtime.cubin); a kernel is a Python function named like
the CUDA kernel, given its arguments decoded from the parameter buffer with the cubin's offsets and
sizes. Some fake kernels cheat the way tests/adversarial's CUDA kernels do, so the defences that do
not need a real GPU (state reset, poisoning, checked timed launches, input verification) are tested
here; the real kernels are tested on the GPU (tests/adversarial, `gpu` marker).
"""
from __future__ import annotations

import os

import pytest

FAKE_DRIVER = r'''
"""A numpy-backed stand-in for pycuda.driver: allocations are byte arrays, kernels are Python."""
import re, struct, time
import numpy as np

class Error(Exception): pass
class LogicError(Error): pass
class LaunchError(Error): pass
class MemoryError(Error): pass
class RuntimeError(Error): pass

_sticky = []
_clock = [0.0]
launches = []
_space = {}  # base address -> DeviceAllocation
_next = [1 << 32]

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
    def __init__(self, n):
        self.buf = np.zeros(n, np.uint8)
        self.base = _next[0]
        _next[0] += (n + 4095) // 4096 * 4096 + 4096
        _space[self.base] = self
    def free(self): _space.pop(self.base, None)
    def __int__(self): return self.base

def resolve(addr):
    """(bytes view from addr to the end of its allocation) for an address inside an allocation."""
    addr = int(addr)
    for base, a in _space.items():
        if base <= addr < base + max(1, a.buf.size):
            return a.buf[addr - base:]
    raise LogicError(f"an illegal memory access was encountered (address {addr:#x})")

def mem_alloc(n): return DeviceAllocation(n)
def mem_get_info(): return (1 << 30, 2 << 30)
def memcpy_htod(d, src):
    _check(); b = np.frombuffer(bytes(src), np.uint8) if isinstance(src, (bytes, bytearray)) else \
        np.ascontiguousarray(src).reshape(-1).view(np.uint8)
    resolve(d)[:b.size] = b
def memcpy_dtoh(dst, s):
    _check(); v = dst.reshape(-1).view(np.uint8); v[:] = resolve(s)[:v.size]
def memcpy_dtod(d, s, n): resolve(d)[:n] = resolve(s)[:n]
def memcpy_dtod_async(d, s, n, stream=None):
    memcpy_dtod(d, s, n); _clock[0] += 2 * n / 4e12  # a 4 TB/s device
def memset_d8(d, v, n): resolve(d)[:n] = v
def memset_d8_async(d, v, n, stream=None): memset_d8(d, v, n)
def memset_d32(d, v, n): resolve(d)[:4 * n].view(np.uint32)[:] = v
def memset_d32_async(d, v, n, stream=None): memset_d32(d, v, n)

class Event:
    t = 0.0
    def record(self, stream=None): self.t = _clock[0]; return self
    def synchronize(self): return self
    def time_since(self, other): return (self.t - other.t) * 1e3

class Sticky(Exception): pass

class Function:
    def __init__(self, name, impl, params, module):
        self.name, self.impl, self.params, self.module, self.attrs = name, impl, params, module, {}
    def set_attribute(self, a, v): self.attrs[a] = v
    def __call__(self, *args, grid=(1, 1), block=None, shared=0):
        _check()
        if len(args) == 1 and isinstance(args[0], np.void):  # the parameter buffer, laid out by the cubin
            raw = bytes(args[0])
            arrays = []
            for p in self.params:
                chunk = raw[p.offset:p.offset + p.size]
                if p.size == 8:
                    v = struct.unpack("<Q", chunk)[0]
                    try:
                        arrays.append(resolve(v))
                    except LogicError:
                        arrays.append(np.int64(struct.unpack("<q", chunk)[0]))
                else:
                    arrays.append(np.frombuffer(chunk, {1: np.int8, 2: np.int16, 4: np.int32}[p.size])[0])
        else:
            arrays = [a.buf if isinstance(a, DeviceAllocation) else a for a in args]
        launches.append((self.name, grid, block, shared))
        from pycuda import fake_kernels
        fake_kernels.GLOBALS = self.module.globals
        try:
            dt = self.impl(arrays, grid, block)
        except Sticky as e:
            _sticky.append(str(e)); return
        _clock[0] += dt or 1e-5

class Module:
    def __init__(self, path):
        from kernelpro.profilers.runtime.cubin import Cubin
        self.path, self.cubin = path, Cubin.read(path)
        self.sections = {}
        self.globals = {}  # name -> numpy byte view of the variable
        for g in self.cubin.device_globals():
            if g.section not in self.sections:
                sec = next(s for s in self.cubin.sections if s.name == g.section)
                a = DeviceAllocation(max(1, sec.size)); a.buf[:sec.size] = np.frombuffer(self.cubin.bytes_of(sec), np.uint8)
                self.sections[g.section] = a
            base = self.sections[g.section]
            self.globals[g.name] = base.buf[g.offset:g.offset + g.size]
        self._where = {g.name: (self.sections[g.section].base + g.offset, g.size) for g in self.cubin.device_globals()}
    def get_global(self, name):
        if name not in self._where: raise LogicError("cuModuleGetGlobal failed: named symbol not found")
        return self._where[name]
    def get_function(self, mangled):
        from pycuda import fake_kernels
        m = re.match(r"_Z(\d+)", mangled)
        name = mangled[len(m.group(0)):len(m.group(0)) + int(m.group(1))] if m else mangled
        if name not in fake_kernels.KERNELS:
            raise LogicError("cuModuleGetFunction failed: named symbol not found")
        return Function(name, fake_kernels.KERNELS[name], self.cubin.kernel_params(mangled) or [], self)

def module_from_file(path): return Module(path)

class _PtxFunction:  # the timing's L2 flush (runner.L2_READ_PTX): reads, stores nothing, takes no time here
    def __init__(self, name): self.name = name
    def __call__(self, *args, grid=(1, 1), block=None, shared=0):  # as runner.l2_flusher must call it
        _check()
        (params,) = args  # one packed buffer: (buf, n, sink), 8 bytes each
        assert isinstance(params, np.void) and len(bytes(params)) == 24, args
        buf, n, sink = struct.unpack("<QQQ", bytes(params))
        assert 16 * n <= resolve(buf).size and resolve(sink).size >= 4, (n, resolve(buf).size)
        assert len(block) == 3 and block[0] > 0 and len(grid) == 3 and grid[0] > 0, (block, grid)

class _PtxModule:
    def __init__(self, text): self.names = set(re.findall(r"\.entry\s+(\w+)", text))
    def get_function(self, name):
        if name not in self.names: raise LogicError("cuModuleGetFunction failed: named symbol not found")
        return _PtxFunction(name)

def module_from_buffer(buf): return _PtxModule(bytes(buf).decode())
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

GLOBALS = {}  # the launching module's device variables (name -> byte view), set before each call
STATE = {"launches": 0}  # host-side memory: only a fake kernel can have it (it shows the timed checks work)

def _vecadd(args, grid, block, skip_last=False):
    out, a, b = (x.view(np.float32) for x in args[:3])
    n = int(args[3])
    stop = min(n, (grid[0] - (1 if skip_last else 0)) * block[0])
    out[:stop] = a[:stop] + b[:stop]
    return 2e-4 + 1e-6 * (len(out) % 7)

def memo(args, grid, block):
    """Remembers a fingerprint of `a` in a __device__ variable and skips the work when it sees it again."""
    out, a, b = (x.view(np.float32) for x in args[:3])
    seen = GLOBALS["seen"].view(np.float32)
    if seen[0] == a[0] and seen[1] == a[1]:
        return 1e-6  # "nothing to do": the output still holds last time's answer
    seen[0], seen[1] = a[0], a[1]
    return _vecadd(args, grid, block)

def skip_if_done(args, grid, block):
    """No state at all: skips when the output already holds the answer (a buffer that was not poisoned)."""
    out, a, b = (x.view(np.float32) for x in args[:3])
    n = int(args[3])
    if out[0] == a[0] + b[0] and out[n - 1] == a[n - 1] + b[n - 1]:
        return 1e-6
    return _vecadd(args, grid, block)

def skip_if_finite(args, grid, block):
    """Skips when the output holds finite values: a stale buffer from the reference or an earlier launch."""
    out = args[0].view(np.float32)
    if np.isfinite(out[:int(args[3])]).all():
        return 1e-6
    return _vecadd(args, grid, block)

def mutate(args, grid, block):
    """Right answer, but it leaves a mark in its input."""
    dt = _vecadd(args, grid, block)
    args[1].view(np.float32)[0] = 0.0
    return dt

def late_wrong(args, grid, block):
    """Right on its first launches, zeros afterwards (a fake can count launches on the host)."""
    STATE["launches"] += 1
    if STATE["launches"] > 8:
        args[0].view(np.float32)[:int(args[3])] = 0.0
        return 1e-6
    return _vecadd(args, grid, block)

def typed(args, grid, block):
    """out[i] = x[i] * s + n (size_t n after an int m): the arguments as the cubin lays them out."""
    out, x = args[0].view(np.float32), args[1].view(np.float32)
    m, n, s = int(args[2]), int(args[3]), float(np.float32(np.int32(args[4]).view(np.float32)))
    out[:m] = x[:m] * s + n
    return 1e-4

def zero(args, grid, block):
    """Writes zeros: stands in for a memset that a [[launches]] memset step replaces."""
    return 1e-6

def accumulate(args, grid, block):
    """out[i] += x[i]: correct only when `out` was set to zero first (a memset step)."""
    out, x = args[0].view(np.float32), args[1].view(np.float32)
    n = int(args[2])
    out[:n] += x[:n]
    return 1e-4

def illegal(args, grid, block):
    raise Sticky("an illegal memory access was encountered")

def spin(args, grid, block):
    time.sleep(1000)

def ceiling(args, grid, block):
    return 1e-3

KERNELS = {"ceiling_fp32": ceiling, "ceiling_fp16": ceiling, "vecadd": _vecadd,
           "skip_last_block": lambda a, g, b: _vecadd(a, g, b, True), "illegal_address": illegal, "never_ends": spin,
           "memo": memo, "skip_if_done": skip_if_done, "skip_if_finite": skip_if_finite, "mutate": mutate,
           "late_wrong": late_wrong, "typed": typed,
           "accumulate": accumulate}
'''


FAKE_CUPY = r'''
"""A stand-in for CuPy over the fake device memory: numpy arrays that view the fake allocations, so the
runner's device-side path (references with xp, checks on the "GPU", queued checks) runs in CI."""
import numpy as _np
from numpy import *  # noqa: F401,F403  (the numpy functions CuPy mirrors)

__name__ = "cupy"


def asarray(a, dtype=None):
    cai = getattr(a, "__cuda_array_interface__", None)
    if cai is None:
        return _np.asarray(a, dtype=dtype)
    from pycuda.driver import resolve
    dt = _np.dtype(cai["typestr"])
    count = int(_np.prod(cai["shape"])) if cai["shape"] else 1
    v = resolve(cai["data"][0])[:count * dt.itemsize].view(dt).reshape(cai["shape"])
    return v if dtype is None else v.astype(dtype)


def array(a, dtype=None, copy=True):
    return _np.array(asarray(a), dtype=dtype, copy=copy)


class _Generator:
    def __init__(self, seed):
        self.r = _np.random.RandomState(seed)

    def standard_normal(self, size, dtype=_np.float64):
        return self.r.standard_normal(size).astype(dtype)

    def random_sample(self, size, dtype=_np.float64):
        return self.r.random_sample(size).astype(dtype)

    def randint(self, low, high, size=None, dtype="l"):
        return self.r.randint(low, high, size=size).astype(dtype)


class random:  # noqa: N801  (cupy.random)
    RandomState = _Generator


class _Pool:
    def free_all_blocks(self):
        pass


def get_default_memory_pool():
    return _Pool()


class cuda:  # noqa: N801
    class Device:
        def __init__(self, i=0):
            self.i = i

        def use(self):
            return self
'''


def make_fake_pool(root, device_arrays: bool = False, timeout_s: float = 60.0):
    """A WorkerPool whose worker imports the fake pycuda (and, with device_arrays, the fake CuPy)."""
    from kernelpro.profilers.runtime.worker import WorkerPool

    (root / "pycuda").mkdir(parents=True, exist_ok=True)
    (root / "pycuda" / "__init__.py").write_text("")
    (root / "pycuda" / "driver.py").write_text(FAKE_DRIVER)
    (root / "pycuda" / "fake_kernels.py").write_text(FAKE_KERNELS)
    (root / "pynvml.py").write_text(FAKE_NVML)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
               KERNELPRO_ENERGY_S="0.3")  # the fake's energy counter follows the host's clock: a short window
    if device_arrays:
        (root / "cupy.py").write_text(FAKE_CUPY)
        env.pop("KERNELPRO_HOST_CHECKS", None)
    else:
        env["KERNELPRO_HOST_CHECKS"] = "1"
    return WorkerPool(timeout_s=timeout_s, env=env)


@pytest.fixture(scope="module")
def fake_pool(tmp_path_factory):
    p = make_fake_pool(tmp_path_factory.mktemp("fakecuda"))
    yield p
    p.close()


@pytest.fixture(scope="module")
def fake_device_pool(tmp_path_factory):
    """The fake GPU with the fake CuPy: the runner takes its device-side paths."""
    p = make_fake_pool(tmp_path_factory.mktemp("fakecupy"), device_arrays=True)
    yield p
    p.close()
