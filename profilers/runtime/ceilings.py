"""Measured device ceilings: DRAM bandwidth, FP32 and FP16 (half2) FLOP rates; cached per device.

Measured once per device (name + UUID) and kept in ~/.cache/kernelpro/ceilings-<name>-<uuid>.json:
- DRAM: a device-to-device copy of 1 GiB (bytes read + written / time), best of several;
- FP32: a kernel of eight independent FFMA chains per thread, one full wave of threads;
- FP16: the same with HFMA2 on half2 (4 FLOPs per instruction).
The copy engine path is below what a tuned kernel reaches on some parts, so a kernel may beat
the DRAM ceiling by a few percent; roofline.py only calls a result impossible beyond 1.1x.
"""
from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

FORMAT = 1
COPY_BYTES = 1 << 30
REPEATS = 5

KERNELS = r"""
#include <cuda_fp16.h>
extern "C" __global__ void ceiling_fp32(float* out, int iters, float b, float c) {
    float x0 = threadIdx.x * 1e-6f, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3;
    float x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6, x7 = x0 + 7;
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            x0 = fmaf(x0, b, c); x1 = fmaf(x1, b, c); x2 = fmaf(x2, b, c); x3 = fmaf(x3, b, c);
            x4 = fmaf(x4, b, c); x5 = fmaf(x5, b, c); x6 = fmaf(x6, b, c); x7 = fmaf(x7, b, c);
        }
    }
    float s = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
    if (s == 1234.5f) out[blockIdx.x] = s;
}
extern "C" __global__ void ceiling_fp16(float* out, int iters, float bf, float cf) {
    __half2 b = __float2half2_rn(bf), c = __float2half2_rn(cf);
    __half2 x0 = __float2half2_rn(threadIdx.x * 1e-4f), x1 = __hadd2(x0, c), x2 = __hadd2(x1, c), x3 = __hadd2(x2, c);
    __half2 x4 = __hadd2(x3, c), x5 = __hadd2(x4, c), x6 = __hadd2(x5, c), x7 = __hadd2(x6, c);
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            x0 = __hfma2(x0, b, c); x1 = __hfma2(x1, b, c); x2 = __hfma2(x2, b, c); x3 = __hfma2(x3, b, c);
            x4 = __hfma2(x4, b, c); x5 = __hfma2(x5, b, c); x6 = __hfma2(x6, b, c); x7 = __hfma2(x7, b, c);
        }
    }
    __half2 s = __hadd2(__hadd2(__hadd2(x0, x1), __hadd2(x2, x3)), __hadd2(__hadd2(x4, x5), __hadd2(x6, x7)));
    float f = __low2float(s) + __high2float(s);
    if (f == 1234.5f) out[blockIdx.x] = f;
}
"""
FLOPS_PER_ITER = {"fp32": 8 * 8 * 2, "fp16": 8 * 8 * 4}  # per thread per outer iteration
ITERS = 8192
THREADS = 256


def cache_base() -> Path:
    base = os.environ.get("KERNELPRO_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "kernelpro")
    return Path(base)


def cache_path(device: dict) -> Path:
    name = re.sub(r"[^A-Za-z0-9]+", "-", str(device.get("name") or "gpu")).strip("-")
    uid = re.sub(r"[^A-Za-z0-9-]+", "", str(device.get("uuid") or device.get("pci_bus_id") or "unknown"))
    return cache_base() / f"ceilings-{name}-{uid}.json"


def load_cached(device: dict) -> dict | None:
    try:
        data = json.loads(cache_path(device).read_text())
    except (OSError, ValueError):
        return None
    return data if data.get("format") == FORMAT and data.get("dram_gbs") else None


def store(device: dict, data: dict) -> None:
    p = cache_path(device)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(data, indent=1))
    os.replace(tmp, p)


def build_kernels(arch: str):
    """Compile the FMA kernels (cached by compile_cuda); returns the artifact."""
    from ..compile import CompileOptions, compile_cuda

    src = cache_base() / "ceiling_kernels.cu"
    src.parent.mkdir(parents=True, exist_ok=True)
    if not src.exists() or src.read_text() != KERNELS:
        src.write_text(KERNELS)
    art = compile_cuda(src, CompileOptions(arch=arch))
    if not art.ok:
        raise RuntimeError("the ceiling kernels did not compile: " + "; ".join(d.message for d in art.errors))
    return art


def get_ceilings(pool, refresh: bool = False) -> dict:
    """The device's ceilings through a worker pool, from the cache when measured before."""
    device = pool.call({"op": "device"})
    if not refresh:
        hit = load_cached(device)
        if hit:
            return hit
    cc = str(device.get("compute_capability", "9.0")).replace(".", "")
    art = build_kernels(f"sm_{cc}")
    job = {"op": "ceilings", "cubin": art.cubin, "kernels": {k: f"ceiling_{k}" for k in FLOPS_PER_ITER}}
    data = pool.call(job, timeout_s=max(pool.timeout_s, 120))
    data.update(format=FORMAT, device=device, measured=time.strftime("%Y-%m-%d %H:%M:%S"))
    store(device, data)
    return data


# --- inside the worker ----------------------------------------------------------------------------
def _best_event_time(drv, fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start, end = drv.Event(), drv.Event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        best = min(best, end.time_since(start) * 1e-3)
    return best


def measure_in_worker(job: dict, dev) -> dict:
    import numpy as np
    import pycuda.driver as drv

    free, _ = drv.mem_get_info()
    nbytes = min(COPY_BYTES, (free // 4) & ~0xFFFF)
    src, dst = drv.mem_alloc(nbytes), drv.mem_alloc(nbytes)
    drv.memset_d8(src, 1, nbytes)
    copy = lambda: drv.memcpy_dtod_async(dst, src, nbytes, None)  # noqa: E731
    copy()
    drv.Context.synchronize()
    t_copy = _best_event_time(drv, copy, int(job.get("repeats", REPEATS)))
    src.free()
    dst.free()
    out = {"dram_gbs": 2 * nbytes / t_copy / 1e9, "copy_bytes": nbytes, "method": "memcpy_dtod, best of %d" % REPEATS}

    mod = drv.module_from_file(job["cubin"])
    sms = dev.get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
    per_sm = dev.get_attribute(drv.device_attribute.MAX_THREADS_PER_MULTIPROCESSOR)
    blocks = sms * max(1, per_sm // THREADS)
    sink = drv.mem_alloc(4 * blocks)
    iters = int(job.get("iters", ITERS))
    for kind, name in job["kernels"].items():
        fn = mod.get_function(name)
        run = lambda: fn(sink, np.int32(iters), np.float32(0.999), np.float32(1e-3),  # noqa: E731
                         grid=(blocks, 1, 1), block=(THREADS, 1, 1))
        run()
        drv.Context.synchronize()
        t = _best_event_time(drv, run, int(job.get("repeats", REPEATS)))
        out[f"{kind}_gflops"] = blocks * THREADS * iters * FLOPS_PER_ITER[kind] / t / 1e9
    sink.free()
    return out
