"""Inside the GPU worker: load a cubin with pycuda, run the checks and the timing of each size.

`python -m kernelpro.profilers.runtime.runner --serve` is the worker's main loop (JSON lines, see
worker.py); `--once JOB.json [--out RESULT.json]` runs one job (for `ncu` and `compute-sanitizer`).
A job is a plain dict built by `measure.build_job` in the parent (measure.py), so this side needs no
spec parsing: every size comes with its buffers (dtype, element count, fill, output), its launch
steps (mangled kernel, grid, block, shared bytes, arguments with their offsets in the compiled
kernel's parameter buffer, memsets), its tolerance and its cost.

The checks and the timing of one size are in sizerun.py (docs/evaluation.md: what each defence is
for). Here: the context, modules and their device variables (reset before every launch), launches
with the parameter buffer laid out as the cubin says, the L2 flush, and the jobs.
"""
from __future__ import annotations

import argparse
import atexit
import json
import os
import struct
import sys
import traceback

from .inputs import STORAGE, bf16_bits, bf16_decode  # noqa: F401  (re-exported for older callers)

_CUDA_ERRORS = {
    "an illegal memory access was encountered": "CUDA_ERROR_ILLEGAL_ADDRESS",
    "unspecified launch failure": "CUDA_ERROR_LAUNCH_FAILED",
    "misaligned address": "CUDA_ERROR_MISALIGNED_ADDRESS",
    "an illegal instruction was encountered": "CUDA_ERROR_ILLEGAL_INSTRUCTION",
    "device-side assert triggered": "CUDA_ERROR_ASSERT",
    "too many resources requested for launch": "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
    "the launch timed out and was terminated": "CUDA_ERROR_LAUNCH_TIMEOUT",
    "hardware stack error": "CUDA_ERROR_HARDWARE_STACK_ERROR",
    "invalid program counter": "CUDA_ERROR_INVALID_PC",
    "operation not supported on global/shared address space": "CUDA_ERROR_INVALID_ADDRESS_SPACE",
    "invalid argument": "CUDA_ERROR_INVALID_VALUE",
    "out of memory": "CUDA_ERROR_OUT_OF_MEMORY",
    "named symbol not found": "CUDA_ERROR_NOT_FOUND",
    "device kernel image is invalid": "CUDA_ERROR_INVALID_IMAGE",
    "no kernel image is available for execution on the device": "CUDA_ERROR_NO_BINARY_FOR_GPU",
}


class CudaFailure(Exception):
    """A CUDA error; the context may be poisoned, so the worker exits after answering."""


class JobFailure(Exception):
    """A failure of the candidate that leaves the context usable (wrong result, bad reference)."""


def cuda_reason(exc: BaseException, where: str, launch: bool) -> str:
    """'crash: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered (where)'."""
    msg = str(exc).strip()
    call, _, text = msg.partition(" failed: ")
    text = (text or msg).strip()
    name = next((v for k, v in _CUDA_ERRORS.items() if k in text.lower()), None)
    head = "crash" if launch else f"cuda error in {call if text != msg else 'a driver call'}"
    return f"{head}: {name + ': ' if name else ''}{text} ({where})"


# --- the worker's state: one context, modules by path ---------------------------------------------
class _State:
    device: int | None = None
    ctx = None
    dev = None
    modules: dict = {}
    states: dict = {}  # module key -> ModuleState
    flush = None  # (buffer, sink, module, function, packed parameters, grid): see l2_flusher
    info = None  # device_info, once


def _drv():
    import pycuda.driver as drv

    return drv


def ensure_context(device: int):
    drv = _drv()
    if _State.ctx is not None:
        if _State.device != device:
            raise JobFailure(f"this worker serves device {_State.device}, not {device}")
        return _State.dev
    drv.init()
    dev = drv.Device(device)
    ctx = dev.retain_primary_context()
    ctx.push()
    _State.device, _State.dev, _State.ctx = device, dev, ctx
    atexit.register(_shutdown)  # pycuda aborts at exit if a context is still on the stack
    return dev


def _shutdown() -> None:
    if _State.ctx is None:
        return
    try:
        if _State.flush is not None:
            _State.flush[0].free()
            _State.flush[1].free()
        _State.flush = None
        _State.modules.clear()
        _State.states.clear()
        _State.ctx.pop()
    except Exception:
        pass
    _State.ctx = None


def device_info(dev) -> dict:
    if _State.info is not None:
        return dict(_State.info)
    drv = _drv()
    a = drv.device_attribute
    info = {"index": _State.device, "name": dev.name(), "compute_capability": "%d.%d" % dev.compute_capability(),
            "sms": dev.get_attribute(a.MULTIPROCESSOR_COUNT), "l2_bytes": dev.get_attribute(a.L2_CACHE_SIZE),
            "memory_bytes": dev.total_memory(), "pci_bus_id": dev.pci_bus_id()}
    try:
        info["smem_optin_bytes"] = dev.get_attribute(a.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
    except Exception:
        pass
    info["uuid"] = _nvml_uuid(info["pci_bus_id"])
    _State.info = info
    return dict(info)


def _nvml_uuid(pci_bus_id: str) -> str | None:
    try:
        from . import energy

        return energy.nvml_uuid(pci_bus_id)
    except Exception:
        return None


def load_module(path: str):
    drv = _drv()
    key = (path, os.path.getmtime(path))
    mod = _State.modules.get(key)
    if mod is None:
        try:
            mod = drv.module_from_file(path)
        except drv.Error as e:
            raise CudaFailure(cuda_reason(e, f"loading {os.path.basename(path)}", False)) from None
        _State.modules[key] = mod
    return mod


class ModuleState:
    """A module's writable device variables (`__device__` globals, `static` locals), put back to their
    initial bytes (from the cubin) before every run, so no launch can see what an earlier one left."""

    def __init__(self, mod, cubin_path: str):
        from .cubin import Cubin, CubinError

        drv = _drv()
        self.names: list[str] = []
        self.problem: str | None = None
        self.copies: list = []  # (device address, snapshot allocation, bytes)
        try:
            cub = Cubin.read(cubin_path)
            found = cub.device_globals()
            sections = {s.name: cub.bytes_of(s) for s in cub.sections}
        except (OSError, CubinError) as e:
            self.problem = f"device variables not reset: cannot read {os.path.basename(cubin_path)}: {e}"
            return
        # the toolkit's own tables (`__cudart_i2opi_f` for sin/cos) are reset like the rest but are
        # not the kernel's state: they are not listed
        self.names = [g.name for g in found if not g.name.startswith(("__cudart", "__nv_", "__nvvm"))]
        by_section: dict = {}
        missing = []
        for g in found:
            try:
                ptr, _size = mod.get_global(g.name)
            except drv.Error:
                missing.append(g.name)
                continue
            by_section.setdefault(g.section, []).append((g, int(ptr)))
        plan = []
        for sec, items in by_section.items():
            bases = {ptr - g.offset for g, ptr in items}
            if len(bases) == 1:  # the whole section at once, symbols that could not be looked up included
                plan.append((bases.pop(), sections[sec]))
            else:
                plan += [(ptr, g.init) for g, ptr in items]
        missing = [g.name for g in found if g.section not in by_section]
        for ptr, init in plan:
            if not init:
                continue
            snap = _alloc(drv, len(init), "a snapshot of the device variables")
            drv.memcpy_htod(snap, bytearray(init))
            self.copies.append((ptr, snap, len(init)))
        if missing:
            self.problem = (f"device variables {', '.join(missing)} could not be located in the loaded module: they "
                            "are not reset between launches")

    def reset(self) -> None:
        drv = _drv()
        for ptr, snap, n in self.copies:
            drv.memcpy_dtod_async(ptr, snap, n, None)


def module_state(path: str, mod) -> ModuleState:
    key = (path, os.path.getmtime(path))
    st = _State.states.get(key)
    if st is None:
        st = _State.states[key] = ModuleState(mod, path)
    return st


# --- arguments ------------------------------------------------------------------------------------
def scalar(value, dtype: str):
    import numpy as np

    if dtype == "float16":
        return np.float16(value).view(np.uint16)  # passed as its 16 bits
    if dtype == "bfloat16":
        return bf16_bits(np.array([value], dtype=np.float32))[0]
    return getattr(np, STORAGE.get(dtype, dtype))(value)


# --- the reference --------------------------------------------------------------------------------
_REFS: dict = {}


def load_python_reference(target: str):
    """'path/to/file.py:function' -> the function (cached by path and mtime)."""
    import importlib.util

    path, _, name = target.rpartition(":")
    if not path or not name:
        raise JobFailure(f"reference {target!r}: expected FILE.py:FUNCTION")
    key = (path, name, os.path.getmtime(path) if os.path.exists(path) else 0)
    if key in _REFS:
        return _REFS[key]
    if not os.path.exists(path):
        raise JobFailure(f"reference file {path} does not exist")
    spec = importlib.util.spec_from_file_location(f"kernelpro_ref_{abs(hash(key))}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(path))
    try:
        spec.loader.exec_module(mod)
    except Exception as e:
        raise JobFailure(f"reference {path} failed to import: {type(e).__name__}: {e}") from None
    finally:
        sys.path.pop(0)
    fn = getattr(mod, name, None)
    if not callable(fn):
        raise JobFailure(f"reference {path} has no function {name}")
    _REFS[key] = fn
    return fn


# --- host launchers --------------------------------------------------------------------------------
_RUNTIME_ERRORS = {1: "cudaErrorInvalidValue", 2: "cudaErrorMemoryAllocation", 98: "cudaErrorInvalidDeviceFunction",
                   209: "cudaErrorNoKernelImageForDevice", 400: "cudaErrorInvalidResourceHandle",
                   700: "cudaErrorIllegalAddress", 701: "cudaErrorLaunchOutOfResources", 719: "cudaErrorLaunchFailure",
                   801: "cudaErrorNotSupported"}
_CTYPES = {"int8": "c_int8", "uint8": "c_uint8", "int16": "c_int16", "uint16": "c_uint16", "int32": "c_int32",
           "uint32": "c_uint32", "int64": "c_int64", "uint64": "c_uint64", "float32": "c_float", "float64": "c_double",
           "float16": "c_uint16", "bfloat16": "c_uint16"}  # a half or bf16 by value: its 16 bits, like a uint16


def load_library(path: str, hosts: list[str]) -> dict:
    """The host launchers of a shared library built from the candidate ("host:NAME" -> function): each
    takes the kernel's parameters and returns a cudaError_t (int); it launches on the legacy default
    stream, in order with the module's kernels, in the worker's current context."""
    import ctypes

    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise CudaFailure(f"cuda error in loading the host launcher library {os.path.basename(path)}: {e}") from None
    out = {}
    for h in hosts:
        fn = getattr(lib, h, None)
        if fn is None:
            raise CudaFailure(f"cuda error in looking up host launcher {h}: not exported by {os.path.basename(path)}")
        fn.restype = ctypes.c_int
        out[f"host:{h}"] = fn
    return out


def host_args(args: list[dict], bufs: dict) -> list:
    """A launcher's arguments as ctypes values: pointers as addresses, scalars in their C types."""
    import ctypes

    out = []
    for a in args:
        if "buf" in a:
            out.append(ctypes.c_void_p(int(bufs[a["buf"]])))
        else:
            v = scalar(a["scalar"], a["dtype"])
            out.append(getattr(ctypes, _CTYPES[a["dtype"]])(int(v) if a["dtype"] in ("float16", "bfloat16") else
                                                             v.item()))
    return out


# --- launching ------------------------------------------------------------------------------------
class Launcher:
    """The launch steps of one size over one set of device buffers.

    A kernel's parameters are written into one buffer at the offsets the cubin gives (measure._step),
    each scalar in the type of the parameter it goes to, and passed whole; a memset step sets a
    buffer's bytes (asynchronously, in order with the launches)."""

    def __init__(self, funcs: dict, steps: list[dict], bufs: dict, where: str, nbytes: dict | None = None):
        import numpy as np

        self.where = where
        self.calls = []
        drv = _drv()
        for st in steps:
            if "memset" in st:
                name = st["memset"]
                self.calls.append(("memset", bufs[name], int(st.get("byte", 0)), int((nbytes or {})[name]),
                                   f"memset of {name}"))
                continue
            if "host" in st:
                self.calls.append(("host", funcs[f"host:{st['host']}"], host_args(st["args"], bufs), None, st["name"]))
                continue
            fn = funcs[st["kernel"]]
            shared = int(st.get("shared", 0))
            if shared > 48 * 1024:
                try:
                    fn.set_attribute(drv.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, shared)
                except drv.Error as e:
                    raise CudaFailure(cuda_reason(e, f"{st.get('name', st['kernel'])}: {shared} B dynamic shared memory", False)) from None
            if st.get("param_bytes") is not None and all(a.get("offset") is not None for a in st["args"]):
                blob = bytearray(int(st["param_bytes"]))
                for a in st["args"]:
                    raw = (struct.pack("<Q", int(bufs[a["buf"]])) if "buf" in a else
                           np.asarray(scalar(a["scalar"], a["dtype"])).tobytes())
                    blob[a["offset"]:a["offset"] + len(raw)] = raw
                args = [np.void(bytes(blob))] if blob else []
            else:
                args = [bufs[a["buf"]] if "buf" in a else scalar(a["scalar"], a["dtype"]) for a in st["args"]]
            # pycuda wants exactly three ints for the block (Function._set_block_shape) and up to three for the grid
            dims = lambda v: tuple(int(x) for x in list(v) + [1] * (3 - len(v)))  # noqa: E731
            self.calls.append(("kernel", fn, args, dict(grid=dims(st["grid"]), block=dims(st["block"]), shared=shared),
                               st.get("name", st["kernel"])))

    def launch(self, sync: bool = False) -> None:
        drv = _drv()
        for kind, target, args, kw, name in self.calls:
            try:
                if kind == "memset":
                    drv.memset_d8_async(target, args, kw, None)
                elif kind == "host":
                    rc = target(*args)
                    if rc != 0:
                        raise CudaFailure(f"crash: {_RUNTIME_ERRORS.get(rc, 'cudaError')} ({rc}) returned by {name}, "
                                          f"{self.where}")
                else:
                    target(*args, **kw)
                if sync:
                    drv.Context.synchronize()
            except drv.Error as e:
                raise CudaFailure(cuda_reason(e, f"{'kernel ' if kind == 'kernel' else ''}{name}, {self.where}",
                                              True)) from None


def _alloc(drv, nbytes: int, what: str):
    try:
        return drv.mem_alloc(max(int(nbytes), 1))
    except drv.Error as e:
        raise CudaFailure(cuda_reason(e, f"allocating {nbytes / 2**20:.1f} MiB for {what}", False)) from None


def _sync(drv, where: str) -> None:
    try:
        drv.Context.synchronize()
    except drv.Error as e:
        raise CudaFailure(cuda_reason(e, where, True)) from None


# Reads a buffer in 16-byte words and stores nothing (the xor of a zeroed buffer is never the
# constant): its loads fill L2 with clean lines. A memset flush left the whole L2 dirty, and the timed
# kernel paid for writing that back (on the H200, 7.5 us of the 62.6 us of a kernel reading 206 MB).
L2_READ_PTX = """.version 7.0
.target sm_75
.address_size 64
.visible .entry kp_l2_read(.param .u64 buf, .param .u64 n, .param .u64 sink)
{
  .reg .pred %p<4>;
  .reg .b32 %r<21>;
  .reg .b64 %rd<17>;
  ld.param.u64 %rd8, [buf];
  ld.param.u64 %rd9, [n];
  ld.param.u64 %rd10, [sink];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  cvt.u64.u32 %rd1, %r4;
  mul.wide.u32 %rd11, %r3, %r4;
  mov.u32 %r5, %tid.x;
  cvt.u64.u32 %rd12, %r5;
  add.s64 %rd16, %rd11, %rd12;
  setp.ge.u64 %p1, %rd16, %rd9;
  @%p1 bra DONE;
  mov.u32 %r7, %nctaid.x;
  cvt.u64.u32 %rd13, %r7;
  mul.lo.s64 %rd3, %rd13, %rd1;
  cvta.to.global.u64 %rd4, %rd10;
  cvta.to.global.u64 %rd5, %rd8;
  mov.u32 %r20, 0;
LOOP:
  shl.b64 %rd14, %rd16, 4;
  add.s64 %rd15, %rd5, %rd14;
  ld.global.v4.u32 {%r8, %r9, %r10, %r11}, [%rd15];
  xor.b32 %r16, %r9, %r20;
  xor.b32 %r17, %r16, %r8;
  xor.b32 %r18, %r17, %r10;
  xor.b32 %r20, %r18, %r11;
  add.s64 %rd16, %rd16, %rd3;
  setp.lt.u64 %p2, %rd16, %rd9;
  @%p2 bra LOOP;
  setp.ne.s32 %p3, %r20, -1640531527;
  @%p3 bra DONE;
  st.global.u32 [%rd4], %r20;
DONE:
  ret;
}
"""


def l2_flusher(dev):
    """A function that enqueues a read of 2x the L2 size (asynchronous, on the null stream): every line
    evicted, dirty ones written back before the timed launch, and L2 left holding clean lines of a
    buffer no kernel uses (cold and clean, as Nsight Compute's cache control leaves it)."""
    import numpy as np

    drv = _drv()
    if _State.flush is None:
        l2 = dev.get_attribute(drv.device_attribute.L2_CACHE_SIZE) or (50 << 20)
        words = (2 * l2 + 15) // 16
        try:
            mod = drv.module_from_buffer(L2_READ_PTX.encode())
            fn = mod.get_function("kp_l2_read")
        except drv.Error as e:
            raise CudaFailure(cuda_reason(e, "loading the L2 flush kernel (PTX 7.0)", False)) from None
        buf = _alloc(drv, words * 16, "the L2 flush buffer")
        try:
            sink = _alloc(drv, 4, "the L2 flush's sink")
        except BaseException:
            buf.free()
            raise
        try:
            drv.memset_d32(buf, 0, words * 4)
        except drv.Error as e:
            buf.free()
            sink.free()
            raise CudaFailure(cuda_reason(e, "zeroing the L2 flush buffer", False)) from None
        # the parameters packed once, as Launcher passes a kernel's: (buf, n, sink), 8 bytes each
        params = np.void(struct.pack("<QQQ", int(buf), words, int(sink)))
        grid = (4 * dev.get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT), 1, 1)
        _State.flush = (buf, sink, mod, fn, params, grid)
    _buf, _sink, _mod, fn, params, grid = _State.flush

    def flush():
        fn(params, block=(256, 1, 1), grid=grid)

    return flush


def timing_stats(times: list[float]) -> tuple[float, float]:
    """(median, IQR / median) of the launch times."""
    import numpy as np

    t = np.asarray(times, dtype=np.float64)
    med = float(np.median(t))
    q1, q3 = np.percentile(t, [25, 75])
    return med, (float(q3 - q1) / med if med > 0 else 0.0)


def choose_reps(per_iter_s: float, target_s: float, lo: int, hi: int) -> int:
    if per_iter_s <= 0:
        return hi
    return int(min(hi, max(lo, round(target_s / per_iter_s))))


# --- jobs -----------------------------------------------------------------------------------------
def run_job(job: dict) -> dict:
    """op "run": check and time every size; a failed candidate is a result, not an exception.

    Result: {"ok", "failure", "sizes": [timed sizes], "check_sizes": [checked-only sizes], "energy",
    "device", "checks": {"array": "cupy" | "numpy"}}."""
    from .devarrays import device_xp
    from .sizerun import Failed, SizeRun

    drv = _drv()
    dev = ensure_context(int(job.get("device", 0)))
    out = {"ok": True, "failure": None, "sizes": [], "check_sizes": [], "energy": None, "device": device_info(dev)}
    mod = load_module(job["cubin"])
    try:
        funcs = {m: mod.get_function(m) for m in job["kernels"]}
    except drv.Error as e:
        raise CudaFailure(cuda_reason(e, f"looking up {', '.join(job['kernels'])}", False)) from None
    if job.get("library"):
        funcs.update(load_library(job["library"], job.get("hosts", [])))
    state = module_state(job["cubin"], mod) if job.get("reset_state", True) else None
    ref_funcs = {}
    if (job.get("reference") or {}).get("kernel"):
        rmod = load_module(job["reference"]["cubin"])
        try:
            ref_funcs = {m: rmod.get_function(m) for m in job["reference"]["kernels"]}
        except drv.Error as e:
            raise CudaFailure(cuda_reason(e, "looking up the reference kernel", False)) from None
    xp = device_xp(int(job.get("device", 0))) if job.get("check", True) and not job.get("host_checks") else None
    out["checks"] = {"array": "cupy" if xp is not None else "numpy"}
    flush = l2_flusher(dev) if job.get("timing", True) else None
    energies = {}
    for i, size in enumerate(job["sizes"]):
        run = SizeRun(sys.modules[__name__], job, size, i, funcs, ref_funcs, dev, state, xp)
        try:
            res, sets = run.run_size()
            if sets and job.get("timing", True):
                t = run.time(sets, flush, float(job.get("target_s", 0.3)), int(job.get("min_reps", 10)),
                             int(job.get("max_reps", 1000)))
                res["time_s"], res["spread"] = timing_stats(t["times"])
                res["times"], res["checked"] = t["times"], t["checked"]
            if sets and job.get("energy") and size["name"] in job.get("energy_sizes", [size["name"]]):
                energies[size["name"]] = run.energy(sets, out["device"]["pci_bus_id"], res.get("time_s") or 0.0,
                                                    float(job.get("energy_s") or os.environ.get("KERNELPRO_ENERGY_S") or 1.5))
        except drv.Error as e:  # a copy or allocation after a launch went wrong
            raise CudaFailure(cuda_reason(e, f"size {size['name']}", True)) from None
        except Failed as e:
            res.update(ok=False, failure=str(e.args[0]))
        except JobFailure as e:
            res = {"size": size["name"], "ok": False, "failure": str(e), "check_only": bool(size.get("check_only"))}
        finally:
            run.free()
        (out["check_sizes"] if res.get("check_only") else out["sizes"]).append(res)
        if not res["ok"]:
            out.update(ok=False, failure=res.get("failure"))
            break
    if energies:
        out["energy"] = energies
    return out


def device_job(job: dict) -> dict:
    return device_info(ensure_context(int(job.get("device", 0))))


def hello_job(job: dict) -> dict:
    os.write(1, b"kernelpro worker: hello (this line goes to stderr)\n")  # fd 1 is not the channel
    return {"pid": os.getpid(), "python": sys.version.split()[0]}


def ceilings_job(job: dict) -> dict:
    from .ceilings import measure_in_worker

    dev = ensure_context(int(job.get("device", 0)))
    return measure_in_worker(job, dev)


OPS = {"run": run_job, "device": device_job, "hello": hello_job, "ceilings": ceilings_job}


def handle(job: dict) -> tuple[dict, bool]:
    """(reply without id, fatal). A CUDA error inside a run is a failed result and fatal."""
    op = job.get("op", "run")
    fn = OPS.get(op)
    if fn is None:
        return {"ok": False, "error": f"unknown job op {op!r}"}, False
    try:
        return {"ok": True, "result": fn(job)}, False
    except CudaFailure as e:
        if op == "run":
            return {"ok": True, "result": {"ok": False, "failure": str(e), "sizes": [], "energy": None,
                                           "device": {"index": job.get("device", 0)}}}, True
        return {"ok": False, "error": str(e)}, True
    except JobFailure as e:
        return ({"ok": True, "result": {"ok": False, "failure": str(e)}} if op == "run" else {"ok": False, "error": str(e)}), False
    except Exception as e:
        fatal = _is_cuda_error(e)
        where = traceback.extract_tb(e.__traceback__)[-1]
        msg = f"worker error: {type(e).__name__}: {e} (at {os.path.basename(where.filename)}:{where.lineno})"
        if op == "run":
            return {"ok": True, "result": {"ok": False, "failure": msg}}, fatal
        return {"ok": False, "error": msg}, fatal


def _is_cuda_error(e: BaseException) -> bool:
    mod = sys.modules.get("pycuda.driver")
    return bool(mod and isinstance(e, mod.Error))


def serve() -> int:
    """The worker loop: one JSON request per stdin line, one reply per line on the channel."""
    channel = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)  # printf from kernels and stray prints go to stderr, not into the protocol
    sys.stdout = sys.stderr
    for raw in sys.stdin.buffer:
        if not raw.strip():
            continue
        try:
            req = json.loads(raw)
            rid, job = req["id"], req["job"]
        except (ValueError, KeyError, TypeError):
            channel.write((json.dumps({"id": None, "ok": False, "error": "bad request line"}) + "\n").encode())
            continue
        reply, fatal = handle(job)
        reply["id"] = rid
        reply["fatal"] = fatal
        channel.write((json.dumps(reply) + "\n").encode())
        if fatal:
            os._exit(3)  # a poisoned context: leave without running its destructors
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kernelpro.profilers.runtime.runner")
    ap.add_argument("--serve", action="store_true", help="worker loop over stdin/stdout JSON lines")
    ap.add_argument("--once", metavar="JOB.json", help="run one job file and print its reply")
    ap.add_argument("--out", metavar="RESULT.json", help="with --once: write the reply here")
    args = ap.parse_args(argv)
    if args.serve:
        return serve()
    if args.once:
        with open(args.once) as f:
            job = json.load(f)
        reply, fatal = handle(job)
        text = json.dumps(reply, indent=1)
        if args.out:
            with open(args.out, "w") as f:
                f.write(text)
        else:
            print(text)
        sys.stdout.flush()
        if fatal:
            os._exit(3)
        return 0 if reply.get("ok") else 1
    ap.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
