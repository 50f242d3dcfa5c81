"""Energy per launch from NVML's total-energy counter, over a continuous run of launches.

NVML's counter (`nvmlDeviceGetTotalEnergyConsumption`, millijoules) advances in steps about
0.1-0.2 s apart on an H200, so one launch is invisible: we run batches of back-to-back launches
(~10 ms each, synchronised) for >= 1.5 s, read the counter after every batch, and use only the
stretch between the first and the last counter step, where both the energy and the number of
launches are known exactly. Energy per launch = dE / launches there, average power = dE / dt.
Uncertainty (relative) = one counter step's energy over the total, plus the disagreement of the
two halves. The launches run back to back without an L2 flush (the steady state).

Where the device has no energy counter, the same samples carry the power reading and the energy
is integrated from it. The arithmetic (`energy_from_samples`) is pure and tested on recorded
samples; `python -m kernelpro.profilers.runtime.energy --record OUT.json` records a fixture.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

BATCH_S = 0.01  # launches are grouped into synchronised batches of about this long


_INIT = []


def _nvml():
    import pynvml  # from nvidia-ml-py

    if not _INIT:
        pynvml.nvmlInit()
        _INIT.append(True)
    return pynvml


def nvml_handle(pci_bus_id: str | None = None, index: int = 0):
    nv = _nvml()
    if pci_bus_id:
        try:
            return nv.nvmlDeviceGetHandleByPciBusId(pci_bus_id.encode())
        except nv.NVMLError:
            # CUDA says 0000:1B:00.0, NVML's own form is 00000000:1B:00.0
            dom, _, rest = pci_bus_id.partition(":")
            return nv.nvmlDeviceGetHandleByPciBusId(f"{int(dom, 16):08X}:{rest}".encode())
    return nv.nvmlDeviceGetHandleByIndex(index)


def nvml_uuid(pci_bus_id: str | None) -> str | None:
    nv = _nvml()
    u = nv.nvmlDeviceGetUUID(nvml_handle(pci_bus_id))
    return u.decode() if isinstance(u, bytes) else str(u)


class Counter:
    """Reads (energy mJ or None, power mW) from one device."""

    def __init__(self, pci_bus_id: str | None = None, index: int = 0):
        self.nv = _nvml()
        self.h = nvml_handle(pci_bus_id, index)
        try:
            self.nv.nvmlDeviceGetTotalEnergyConsumption(self.h)
            self.has_energy = True
        except self.nv.NVMLError:
            self.has_energy = False

    def read(self) -> tuple[float | None, float]:
        e = float(self.nv.nvmlDeviceGetTotalEnergyConsumption(self.h)) if self.has_energy else None
        try:
            p = float(self.nv.nvmlDeviceGetPowerUsage(self.h))
        except self.nv.NVMLError:
            p = float("nan")
        return e, p


def idle_watts(counter: Counter, seconds: float = 0.3) -> float:
    vals = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        vals.append(counter.read()[1])
        time.sleep(0.02)
    vals = [v for v in vals if v == v]
    return statistics.median(vals) / 1000.0 if vals else float("nan")


def record_samples(launch, sync, counter: Counter, est_s: float, min_s: float = 1.5, warm_s: float = 0.2,
                   max_s: float = 10.0) -> list[list[float]]:
    """Run batches of launches for >= min_s; samples [t_s, energy_mJ | None, launches, power_mW]."""
    if est_s <= 0:  # measure one launch
        t0 = time.perf_counter()
        launch()
        sync()
        est_s = time.perf_counter() - t0
    batch = max(1, int(BATCH_S / max(est_s, 1e-7)))
    end = time.perf_counter() + warm_s
    while time.perf_counter() < end:
        for _ in range(batch):
            launch()
        sync()
    t_start = time.perf_counter()
    e, p = counter.read()
    samples = [[0.0, e, 0, p]]
    launches = 0
    steps = 0
    while True:
        for _ in range(batch):
            launch()
        sync()
        launches += batch
        e, p = counter.read()
        t = time.perf_counter() - t_start
        if e is not None and e != samples[-1][1]:
            steps += 1
        samples.append([t, e, launches, p])
        if t >= max_s or (t >= min_s and (e is None or steps >= 3)):
            return samples


def energy_from_samples(samples: list[list], idle_w: float | None = None) -> dict:
    """Energy per launch, average power and uncertainty from [t, energy_mJ|None, launches, power_mW] rows."""
    if len(samples) < 2:
        raise ValueError("need at least two samples")
    if samples[0][1] is None:
        return _from_power(samples, idle_w)
    # the rows right after each counter step: there both energy and launch count are exact
    steps = [samples[0]] + [s for prev, s in zip(samples, samples[1:]) if s[1] != prev[1]]
    steps = steps[1:]  # the first reading may sit anywhere inside a counter period
    if len(steps) < 2:
        raise ValueError("the energy counter advanced fewer than twice: run longer")
    a, b = steps[0], steps[-1]
    de_j = (b[1] - a[1]) / 1000.0
    n = b[2] - a[2]
    dt = b[0] - a[0]
    if n <= 0 or dt <= 0:
        raise ValueError("no launches between the counter steps")
    mid = steps[len(steps) // 2]
    halves = []
    for x, y in ((a, mid), (mid, b)):
        if y[2] > x[2]:
            halves.append((y[1] - x[1]) / 1000.0 / (y[2] - x[2]))
    per = de_j / n
    power = de_j / dt
    periods = [y[0] - x[0] for x, y in zip(steps, steps[1:])]
    step_j = power * statistics.median(periods)
    half_spread = abs(halves[0] - halves[1]) / per if len(halves) == 2 and per > 0 else 0.0
    return _result(per, power, dt, n, step_j / de_j + half_spread, idle_w, len(samples), "energy counter",
                   halves, statistics.median(periods))


def _from_power(samples, idle_w):
    de_j = 0.0
    for x, y in zip(samples, samples[1:]):
        de_j += (y[0] - x[0]) * (x[3] + y[3]) / 2 / 1000.0  # trapezoid over mW readings
    dt = samples[-1][0] - samples[0][0]
    n = samples[-1][2] - samples[0][2]
    if n <= 0 or dt <= 0:
        raise ValueError("no launches in the samples")
    pw = [s[3] for s in samples]
    spread = (statistics.pstdev(pw) / statistics.mean(pw)) if len(pw) > 1 and statistics.mean(pw) > 0 else 0.0
    return _result(de_j / n, de_j / dt, dt, n, spread, idle_w, len(samples), "power samples", [], None)


def _result(per_j, power_w, dt, n, unc, idle_w, nsamples, method, halves, period):
    return {"energy_j": per_j, "energy_uj": per_j * 1e6, "avg_power_w": power_w, "idle_w": idle_w,
            "duration_s": dt, "launches": int(n), "time_per_launch_s": dt / n, "uncertainty": unc,
            "method": method, "samples": nsamples, "halves_j": halves, "counter_period_s": period}


def measure_energy(launch, sync, pci_bus_id: str | None, est_s: float = 0.0, min_s: float = 1.5,
                   idle_s: float = 0.3) -> dict:
    """In the worker: idle draw, then >= min_s of launches; the result of energy_from_samples."""
    try:
        counter = Counter(pci_bus_id)
    except Exception as e:
        return {"error": f"NVML unavailable: {e}"}
    sync()
    idle = idle_watts(counter, idle_s)
    samples = record_samples(launch, sync, counter, est_s, min_s)
    try:
        return energy_from_samples(samples, idle)
    except ValueError as e:
        return {"error": str(e), "idle_w": idle}


# --- the fixture recorder (run on the GPU machine) --------------------------------------------
_RECORD_KERNEL = r"""
extern "C" __global__ void burn(float* out, int iters) {
    float a = threadIdx.x * 1e-3f, b = 1.0001f, c = 1e-4f;
    for (int i = 0; i < iters; ++i) { a = a * b + c; b = b * a + c; }
    if (a == 1234.5f) out[blockIdx.x] = a + b;
}
"""


def record(out_path: str, seconds: float = 2.0, device: int = 0) -> dict:
    """Record a fixture: idle draw, raw samples of a few-ms FMA kernel looped for `seconds`, the result."""
    import os
    import tempfile

    import numpy as np
    import pycuda.driver as drv

    from ..compile import CompileOptions, compile_cuda

    src = os.path.join(tempfile.mkdtemp(prefix="kernelpro-nvml-"), "burn.cu")
    with open(src, "w") as f:
        f.write(_RECORD_KERNEL)
    art = compile_cuda(src, CompileOptions(arch=os.environ.get("KERNELPRO_ARCH", "sm_90")))
    if not art.ok:
        raise SystemExit(f"compile failed: {[d.message for d in art.errors]}")
    drv.init()
    dev = drv.Device(device)
    ctx = dev.retain_primary_context()
    ctx.push()
    try:
        fn = drv.module_from_file(art.cubin).get_function("burn")
        out = drv.mem_alloc(4 * 4096)
        sms = dev.get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
        launch = lambda: fn(out, np.int32(250000), grid=(sms * 8, 1, 1), block=(256, 1, 1))  # noqa: E731
        counter = Counter(dev.pci_bus_id())
        drv.Context.synchronize()
        idle = idle_watts(counter, 0.3)
        samples = record_samples(launch, drv.Context.synchronize, counter, 0.0, seconds)
        result = energy_from_samples(samples, idle)
        data = {"device": dev.name(), "kernel": "burn (FMA chains, a few ms)", "recorded": time.strftime("%Y-%m-%d"),
                "idle_w": idle, "samples": samples, "result": result}
    finally:
        ctx.pop()
    with open(out_path, "w") as f:
        json.dump(data, f, indent=1)
    return data


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kernelpro.profilers.runtime.energy")
    ap.add_argument("--record", metavar="OUT.json", required=True, help="record an NVML fixture")
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--device", type=int, default=0)
    args = ap.parse_args(argv)
    data = record(args.record, args.seconds, args.device)
    r = data["result"]
    print(f"{args.record}: {r['launches']} launches in {r['duration_s']:.2f} s, {r['energy_uj']:.1f} uJ/launch, "
          f"{r['avg_power_w']:.0f} W (idle {data['idle_w']:.0f} W), uncertainty {r['uncertainty'] * 100:.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
