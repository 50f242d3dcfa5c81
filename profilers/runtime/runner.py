"""Inside the GPU worker: load a cubin with pycuda, fill, poison, launch, check, time.

`python -m kernelpro.profilers.runtime.runner --serve` is the worker's main loop (JSON lines, see
worker.py); `--once JOB.json [--out RESULT.json]` runs one job (for `ncu python -m ... --once`).
A job is a plain dict built by `measure.build_job` in the parent (measure.py), so this side needs no
spec parsing: every size comes with its buffers (dtype, element count, fill, output), its
launch steps (mangled kernel, grid, block, shared bytes, argument list) and its cost.

Honesty rules (DESIGN.md "Honest evaluation"): fresh random inputs for every check (seeded per
run, different per size), outputs and scratch poisoned with 0xFF bytes (a NaN in every float
type) before each checked run, device events around each timed launch with an L2 flush (a memset
of 2x the L2 size) before it and outside the events, argument sets rotated among copies when they
are small, and the median with the IQR reported.
"""
from __future__ import annotations

import argparse
import atexit
import json
import os
import sys
import time
import traceback
from dataclasses import asdict

# storage dtype on the device for each spec dtype (bfloat16 kept as its 16 bits)
STORAGE = {"float32": "float32", "float16": "float16", "bfloat16": "uint16", "float64": "float64",
           "int32": "int32", "int64": "int64", "uint32": "uint32", "int8": "int8", "uint8": "uint8",
           "int16": "int16", "uint16": "uint16", "uint64": "uint64", "bool": "uint8"}

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
    flush = None  # (allocation, 32-bit words)
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
        _State.flush = None
        _State.modules.clear()
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


# --- host data ------------------------------------------------------------------------------------
def bf16_bits(x):
    """float32 array -> bfloat16 bits (round to nearest even) as uint16."""
    import numpy as np

    b = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_decode(bits):
    import numpy as np

    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def make_fill(rng, fill: str | None, dtype: str, count: int):
    """Host data in the device storage dtype for one buffer."""
    import numpy as np

    fill = (fill or "randn").strip()
    kind, _, rest = fill.partition(":")
    is_float = dtype in ("float32", "float16", "bfloat16", "float64")
    if kind == "randn":
        vals = rng.standard_normal(count, dtype=np.float32) if is_float else rng.integers(-8, 8, count)
    elif kind == "rand":
        vals = rng.random(count, dtype=np.float32) if is_float else rng.integers(0, 2, count)
    elif kind == "randint":
        lo, _, hi = rest.partition(":")
        vals = rng.integers(int(lo), int(hi), count)
    elif kind == "ones":
        vals = np.ones(count)
    elif kind == "zeros":
        vals = np.zeros(count)
    elif kind == "arange":
        vals = np.arange(count)
    else:
        raise JobFailure(f"unknown fill {fill!r}")
    if dtype == "bfloat16":
        return bf16_bits(np.asarray(vals, dtype=np.float32))
    if dtype == "float64" and kind in ("randn", "rand"):
        vals = vals.astype(np.float64)
    return np.asarray(vals).astype(STORAGE[dtype])


def host_view(arr, dtype: str, shape):
    """What the reference and the checker see: bfloat16 decoded to float32, the spec's shape."""
    a = bf16_decode(arr) if dtype == "bfloat16" else arr
    return a.reshape(tuple(shape)) if shape else a


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


# --- launching ------------------------------------------------------------------------------------
class Launcher:
    """The launch steps of one size over one set of device buffers."""

    def __init__(self, funcs: dict, steps: list[dict], bufs: dict, where: str):
        self.where = where
        self.calls = []
        drv = _drv()
        for st in steps:
            fn = funcs[st["kernel"]]
            shared = int(st.get("shared", 0))
            if shared > 48 * 1024:
                try:
                    fn.set_attribute(drv.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, shared)
                except drv.Error as e:
                    raise CudaFailure(cuda_reason(e, f"{st.get('name', st['kernel'])}: {shared} B dynamic shared memory", False)) from None
            args = [bufs[a["buf"]] if "buf" in a else scalar(a["scalar"], a["dtype"]) for a in st["args"]]
            # pycuda wants exactly three ints for the block (Function._set_block_shape) and up to three for the grid
            dims = lambda v: tuple(int(x) for x in list(v) + [1] * (3 - len(v)))  # noqa: E731
            self.calls.append((fn, args, dict(grid=dims(st["grid"]), block=dims(st["block"]), shared=shared),
                               st.get("name", st["kernel"])))

    def launch(self, sync: bool = False) -> None:
        drv = _drv()
        for fn, args, kw, name in self.calls:
            try:
                fn(*args, **kw)
                if sync:
                    drv.Context.synchronize()
            except drv.Error as e:
                raise CudaFailure(cuda_reason(e, f"kernel {name}, {self.where}", True)) from None


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


def l2_flusher(dev):
    """A function that enqueues a memset of 2x the L2 size (asynchronous, on the null stream)."""
    drv = _drv()
    if _State.flush is None:
        l2 = dev.get_attribute(drv.device_attribute.L2_CACHE_SIZE) or (50 << 20)
        words = (2 * l2) // 4
        _State.flush = (_alloc(drv, words * 4, "the L2 flush buffer"), words)
    buf, words = _State.flush

    def flush():
        drv.memset_d32_async(buf, 0, words, None)

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


def time_launches(launchers: list[Launcher], flush, target_s=0.3, min_reps=10, max_reps=1000, warmup=3) -> list[float]:
    """Seconds per launch sequence, each between two events, with an L2 flush before (outside)."""
    drv = _drv()
    where = launchers[0].where
    for i in range(warmup):
        flush()
        launchers[i % len(launchers)].launch()
    _sync(drv, f"warm-up, {where}")
    t0 = time.perf_counter()
    for i in range(3):
        flush()
        launchers[i % len(launchers)].launch()
        _sync(drv, f"warm-up, {where}")
    n = choose_reps((time.perf_counter() - t0) / 3, target_s, min_reps, max_reps)
    events = [(drv.Event(), drv.Event()) for _ in range(n)]
    for i, (start, end) in enumerate(events):
        flush()
        start.record()
        launchers[i % len(launchers)].launch()
        end.record()
    _sync(drv, f"timed launches, {where}")
    return [end.time_since(start) * 1e-3 for start, end in events]


# --- one size -------------------------------------------------------------------------------------
def run_size(job: dict, size: dict, index: int, funcs: dict, ref_funcs: dict, dev) -> tuple[dict, list[Launcher]]:
    import numpy as np

    from .correctness import check_outputs

    drv = _drv()
    name = size["name"]
    where = f"size {name}"
    rng = np.random.default_rng([int(job.get("seed", 0)), index])
    buffers = size["buffers"]
    host = {}
    for b in buffers:
        if b.get("fill") or not (b.get("output") or b.get("scratch")):
            host[b["name"]] = make_fill(rng, b.get("fill"), b["dtype"], int(b["count"]))

    def upload():
        bufs = {}
        for b in buffers:
            nbytes = int(b["count"]) * np.dtype(STORAGE[b["dtype"]]).itemsize
            bufs[b["name"]] = d = _alloc(drv, nbytes, f"{b['name']} ({where})")
            if b["name"] in host:
                drv.memcpy_htod(d, host[b["name"]])
            else:
                drv.memset_d8(d, 0xFF, nbytes)  # poison: NaN in every float type, all-ones ints
        return bufs

    def download(bufs):
        outs = {}
        for b in buffers:
            if b.get("output"):
                a = np.empty(int(b["count"]), dtype=STORAGE[b["dtype"]])
                drv.memcpy_dtoh(a, bufs[b["name"]])
                outs[b["name"]] = a.reshape(tuple(b["shape"])) if b.get("shape") else a  # raw storage
        return outs

    try:
        bufs = upload()
    except drv.Error as e:
        raise CudaFailure(cuda_reason(e, f"uploading inputs, {where}", False)) from None
    main = Launcher(funcs, size["steps"], bufs, where)
    main.launch(sync=True)
    outs = download(bufs)

    ref = job.get("reference") or {}
    if ref.get("python"):
        fn = load_python_reference(ref["python"])
        inputs = {b["name"]: host_view(host[b["name"]].copy(), b["dtype"], b.get("shape"))
                  for b in buffers if b["name"] in host and not b.get("scratch")}
        try:
            refs = fn(inputs, dict(size["vars"]))
        except Exception as e:
            raise JobFailure(f"the reference raised {type(e).__name__}: {e} ({where})") from None
        if not isinstance(refs, dict):
            raise JobFailure(f"the reference returned {type(refs).__name__}, not a dict of outputs ({where})")
        refs = {k: np.asarray(v.detach().cpu().numpy() if hasattr(v, "detach") else v) for k, v in refs.items()}
    elif ref.get("kernel"):
        rbufs = upload()
        Launcher(ref_funcs, size["ref_steps"], rbufs, f"reference, {where}").launch(sync=True)
        refs = download(rbufs)
        for d in rbufs.values():
            d.free()
    else:
        refs = None

    res = {"size": name, "ok": True, "bytes": int(size.get("bytes") or 0), "flops": size.get("flops")}
    for k in outs:
        if refs and k in refs and np.shape(refs[k]) != np.shape(outs[k]) and np.size(refs[k]) == np.size(outs[k]):
            refs[k] = np.reshape(refs[k], np.shape(outs[k]))
    dtypes = {b["name"]: b["dtype"] for b in buffers if b.get("output")}
    poisoned = {b["name"]: not b.get("fill") for b in buffers if b.get("output")}
    chk = check_outputs(outs, refs, float(job.get("rtol", 1e-4)), float(job.get("atol", 1e-6)), dtypes, poisoned)
    res["check"] = _json_safe(asdict(chk))
    if not chk.ok:
        res["ok"] = False
        res["failure"] = f"wrong result at size {name}: {chk.reason}"
    if not res["ok"] or not (job.get("timing", True) or job.get("energy")):
        for d in bufs.values():
            d.free()
        return res, []

    # argument sets for timing: rotate copies when one set is small (< 4x L2)
    total = sum(int(b["count"]) * np.dtype(STORAGE[b["dtype"]]).itemsize for b in buffers)
    l2 = dev.get_attribute(drv.device_attribute.L2_CACHE_SIZE) or (50 << 20)
    copies = int(job.get("copies", 4)) if total < 4 * l2 else 1
    launchers = [main]
    for c in range(1, copies):
        dup = {}
        for b in buffers:
            nbytes = int(b["count"]) * np.dtype(STORAGE[b["dtype"]]).itemsize
            dup[b["name"]] = _alloc(drv, nbytes, f"copy {c} of {b['name']}")
            drv.memcpy_dtod(dup[b["name"]], bufs[b["name"]], max(nbytes, 1))
        launchers.append(Launcher(funcs, size["steps"], dup, where))
    return res, launchers


def _json_safe(d: dict) -> dict:
    out = {}
    for k, v in d.items():
        if hasattr(v, "item"):
            v = v.item()
        out[k] = v
    return out


def _free(launchers: list[Launcher]) -> None:
    seen = set()
    for ln in launchers:
        for _, args, _, _ in ln.calls:
            for a in args:
                if hasattr(a, "free") and id(a) not in seen:
                    seen.add(id(a))
                    try:
                        a.free()
                    except Exception:
                        pass


# --- jobs -----------------------------------------------------------------------------------------
def run_job(job: dict) -> dict:
    """op "run": check and time every size; a failed candidate is a result, not an exception."""
    drv = _drv()
    dev = ensure_context(int(job.get("device", 0)))
    out = {"ok": True, "failure": None, "sizes": [], "energy": None, "device": device_info(dev)}
    mod = load_module(job["cubin"])
    try:
        funcs = {m: mod.get_function(m) for m in job["kernels"]}
    except drv.Error as e:
        raise CudaFailure(cuda_reason(e, f"looking up {', '.join(job['kernels'])}", False)) from None
    ref_funcs = {}
    if (job.get("reference") or {}).get("kernel"):
        rmod = load_module(job["reference"]["cubin"])
        try:
            ref_funcs = {m: rmod.get_function(m) for m in job["reference"]["kernels"]}
        except drv.Error as e:
            raise CudaFailure(cuda_reason(e, "looking up the reference kernel", False)) from None
    flush = l2_flusher(dev) if job.get("timing", True) else None
    energies = {}
    for i, size in enumerate(job["sizes"]):
        try:
            res, launchers = run_size(job, size, i, funcs, ref_funcs, dev)
        except drv.Error as e:  # a copy or allocation after a launch went wrong
            raise CudaFailure(cuda_reason(e, f"size {size['name']}", True)) from None
        except JobFailure as e:
            out["sizes"].append({"size": size["name"], "ok": False, "failure": str(e)})
            out.update(ok=False, failure=str(e))
            break
        try:
            if launchers and job.get("timing", True):
                times = time_launches(launchers, flush, float(job.get("target_s", 0.3)),
                                      int(job.get("min_reps", 10)), int(job.get("max_reps", 1000)))
                res["time_s"], res["spread"] = timing_stats(times)
                res["times"] = times
            if launchers and job.get("energy") and size["name"] in job.get("energy_sizes", [size["name"]]):
                from .energy import measure_energy

                energies[size["name"]] = measure_energy(
                    lambda: launchers[0].launch(), lambda: _sync(drv, f"energy run, size {size['name']}"),
                    out["device"]["pci_bus_id"], est_s=res.get("time_s") or 0.0,
                    min_s=float(job.get("energy_s", 1.5)))
        finally:
            _free(launchers)
        out["sizes"].append(res)
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
