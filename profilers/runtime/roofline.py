"""Roofline: achieved bandwidth and FLOP rate against the measured ceilings, and a verdict.

Thresholds (fractions of the measured ceilings):
- memory-bound   if bandwidth fraction >= 0.6 (MEMORY_BOUND)
- compute-bound  if FLOP fraction >= 0.6 (COMPUTE_BOUND); when both hold, the larger wins
- latency-bound  otherwise: neither resource is near its limit, so launch overhead, too few
  threads, dependent loads or synchronisation dominate
- impossible     when a fraction exceeds 1.1 (IMPOSSIBLE): the kernel moved fewer bytes or did
  fewer FLOPs than the spec's [cost] says one run needs - a false speedup (skipped work, results
  cached between launches) or a wrong [cost]. The FLOP fraction is judged against the FP32 FMA
  ceiling (FP16 for half kernels); a kernel using tensor cores (HMMA/HGMMA/IMMA in its SASS)
  can honestly exceed those, so for it only the bandwidth can be impossible.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

MEMORY_BOUND = 0.6
COMPUTE_BOUND = 0.6
IMPOSSIBLE = 1.1
TENSOR_OPCODES = ("HMMA", "HGMMA", "IMMA", "IGMMA", "DMMA", "QMMA", "UTCHMMA", "UTCQMMA", "UTCIMMA", "UTCMMA")


@dataclass
class Roofline:
    bandwidth_gbs: float | None
    bw_fraction: float | None
    gflops: float | None
    flop_fraction: float | None
    verdict: str  # "memory-bound" | "compute-bound" | "latency-bound" | "impossible"
    bound: str  # the verdict ignoring impossibility: what limits the kernel
    impossible: bool
    note: str

    def to_json(self) -> dict:
        return asdict(self)


# the H200's nominal ceilings (SXM: 4.8 TB/s HBM3e, 67 TFLOP/s FP32 FMA), for a verdict before any measurement
NOMINAL_SM90 = {"dram_gbs": 4800.0, "fp32_gflops": 66900.0}


def operation_bound(flops: int | None, bytes_moved: int | None, ceilings: dict | None = None) -> str | None:
    """Where the operation itself sits on the roofline: "compute-bound" when its arithmetic intensity
    (the [cost]'s FLOPs over the bytes it must move) is past the ridge point (FLOP ceiling over DRAM
    bandwidth; measured ceilings when given, else the nominal sm_90 ones), else "memory-bound"; None
    without both numbers."""
    if not flops or not bytes_moved:
        return None
    c = ceilings or NOMINAL_SM90
    peak, dram = flop_ceiling(c), c.get("dram_gbs")
    if not peak or not dram:
        return None
    return "compute-bound" if flops / bytes_moved >= peak / dram else "memory-bound"


def flop_ceiling(ceilings: dict, precision: str = "fp32") -> float | None:
    if precision in ("fp16", "bf16", "float16", "bfloat16"):
        return ceilings.get("fp16_gflops") or ceilings.get("fp32_gflops")
    return ceilings.get("fp32_gflops")


def analyze(bytes_moved: int | None, flops: int | None, time_s: float, ceilings: dict,
            precision: str = "fp32", tensor_cores: bool = False) -> Roofline:
    """The roofline verdict for one measured size."""
    if not time_s or time_s <= 0:
        raise ValueError("time_s must be positive")
    bw = bytes_moved / time_s / 1e9 if bytes_moved else None
    gf = flops / time_s / 1e9 if flops else None
    dram = ceilings.get("dram_gbs")
    peak = flop_ceiling(ceilings, precision)
    bwf = bw / dram if bw is not None and dram else None
    ff = gf / peak if gf is not None and peak else None
    notes = []
    impossible = False
    if bwf is not None and bwf > IMPOSSIBLE:
        impossible = True
        notes.append(f"{bw:.0f} GB/s is {bwf:.2f}x the measured DRAM bandwidth ({dram:.0f} GB/s)")
    if ff is not None and ff > IMPOSSIBLE and not tensor_cores:
        impossible = True
        notes.append(f"{gf:.0f} GFLOP/s is {ff:.2f}x the measured {precision} FMA peak ({peak:.0f} GFLOP/s) without tensor cores")
    m = bwf or 0.0
    c = ff or 0.0
    if m >= MEMORY_BOUND and m >= c:
        bound = "memory-bound"
    elif c >= COMPUTE_BOUND:
        bound = "compute-bound"
    else:
        bound = "latency-bound"
    if impossible:
        notes.append("the kernel cannot have done the work the [cost] describes: it skips work, reuses results "
                     "between launches, or the [cost] overstates bytes/flops")
    elif bound == "latency-bound":
        notes.append(f"neither bandwidth ({_pct(bwf)}) nor FLOP rate ({_pct(ff)}) is near its ceiling")
    return Roofline(bw, bwf, gf, ff, "impossible" if impossible else bound, bound, impossible, "; ".join(notes))


def _pct(x: float | None) -> str:
    return "unknown" if x is None else f"{x * 100:.0f}%"


def uses_tensor_cores(opcodes) -> bool:
    """True when any SASS opcode (Instruction.base or full opcode text) is a tensor-core MMA."""
    return any(str(o).split(".")[0] in TENSOR_OPCODES for o in opcodes)


def faster_than_ceiling(bytes_moved: int | None, flops: int | None, time_s: float, ceilings: dict,
                        precision: str = "fp32", tensor_cores: bool = False, l2_bytes: int = 0) -> str | None:
    """Why a measured time is physically impossible (an evaluation error), or None.

    The L2 can hold up to its size of the traffic (the outputs of the last launch may still be in it
    when the end event fires), so the bandwidth is judged only when the spec's bytes are at least twice
    the L2, against IMPOSSIBLE x bytes / (bytes - L2) of the DRAM ceiling. The FLOP rate is judged at
    every size against IMPOSSIBLE x the FMA peak, unless the kernel uses tensor cores."""
    if not time_s or time_s <= 0:
        return None
    dram = ceilings.get("dram_gbs")
    if bytes_moved and dram and bytes_moved >= 2 * max(l2_bytes, 0):
        bw = bytes_moved / time_s / 1e9
        allowed = IMPOSSIBLE * bytes_moved / max(bytes_moved - l2_bytes, 1)
        if bw > allowed * dram:
            return (f"{bw:.0f} GB/s is {bw / dram:.2f}x the measured DRAM bandwidth ({dram:.0f} GB/s; at most "
                    f"{allowed:.2f}x is possible with the L2 holding part of the traffic)")
    peak = flop_ceiling(ceilings, precision)
    if flops and peak and not tensor_cores:
        gf = flops / time_s / 1e9
        if gf > IMPOSSIBLE * peak:
            return f"{gf:.0f} GFLOP/s is {gf / peak:.2f}x the measured {precision} FMA peak ({peak:.0f} GFLOP/s)"
    return None
