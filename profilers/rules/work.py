"""Who does what: kernels whose split of work over threads leaves the GPU idle or the memory
pipes half used, found by the loop-and-thread analysis (profilers/analysis) that the
optimizer's restructuring transforms share.

- serial-column-loop: one thread per column sums all the rows (a bias gradient, a column
  mean). Neighbouring threads read neighbouring columns (coalesced), but only as many threads
  run as there are columns, each with a long dependent loop.
- narrow-elementwise-access: an element-wise kernel moving one element of under 16 bytes per
  thread and access; packing 16 bytes per access (4 floats, 8 bf16) with several accesses in
  flight per thread is what reaches the DRAM bandwidth.
"""
from __future__ import annotations

from ..advice import Evidence, Severity
from ..analysis.patterns import accesses_in, column_loop, is_elementwise, row_kernel
from ..analysis.types import table_for
from ..tools import Context, tool
from .common import advice_at

COLUMN_THREADS = 132 * 2048  # threads an H200 holds at once; fewer columns leave SMs idle
# An H200 SM issues 128 FP32 operations per clock and gets about 18 bytes of DRAM bandwidth per
# clock (4.8 TB/s over 132 SMs at 1.98 GHz): the exchange rate between a thread's arithmetic
# and the bytes it moves.
FP32_PER_CLOCK = 128
DRAM_BYTES_PER_CLOCK = 4.8e12 / (132 * 1.98e9)
# arithmetic time above twice the memory time: the arithmetic is what the kernel waits on, packing
# its accesses would not show (the suite's bf16 GELU, at 1.3, gained 2.5x from packing)
COMPUTE_BOUND = 2.0
_WEIGHT = {"MUFU": 8, "DFMA": 2, "DADD": 2, "DMUL": 2}  # MUFU runs at 16 per clock, FP64 at 64
_ARITH = ("FFMA", "FADD", "FMUL", "FMNMX", "FSEL", "FSETP", "FCHK", "HFMA2", "HADD2", "HMUL2", "HMNMX2",
          "MUFU", "DFMA", "DADD", "DMUL", "DSETP", "DMNMX", "F2F", "I2F", "F2I", "FRND")


def compute_share(ctx: Context, k) -> tuple[float, int, int] | None:
    """(arithmetic time / memory time, weighted arithmetic instructions, bytes moved) per thread of
    an element-wise kernel, from its SASS; None without SASS."""
    from .vector_loads import access_width

    builds = ctx.builds(k)
    if not builds:
        return None
    worst = None
    for b in builds:
        arith = sum(_WEIGHT.get(i.base, 1) for i in b.sass if i.base in _ARITH)
        moved = sum(access_width(i.opcode) // 8 for i in b.sass if i.base in ("LDG", "STG"))
        if not moved:
            continue
        share = (arith / FP32_PER_CLOCK) / (moved / DRAM_BYTES_PER_CLOCK)
        if worst is None or share < worst[0]:
            worst = (share, arith, moved)
    return worst


@tool(
    "work_distribution",
    """How the kernel splits its work over threads, from an analysis of its loops and thread
    indices: a thread-per-column reduction over many rows (only as many threads as columns,
    each with a long serial loop: split the rows over warps and blocks), and element-wise
    kernels that move one narrow element per access (pack 16 bytes per access). Use it for
    memory-bound kernels that reach a small fraction of the DRAM bandwidth.""",
    needs=("source",),
    rules=("serial-column-loop", "narrow-elementwise-access"),
)
def work_tool(ctx: Context):
    out = []
    src = ctx.source
    for k in src.kernels:
        if k.body is None:
            continue
        try:
            rk = row_kernel(src, k)
        except RecursionError:
            continue
        if rk is None or not rk.ok:
            continue
        lp = column_loop(rk)
        if lp is not None:
            info = lp.info
            sums = ", ".join(f"{r.var} ({r.op})" for r in info.reductions)
            bound = src.node_text(info.bound) if info.bound is not None else "?"
            msg = (f"one thread per column sums all {bound} rows of the loop on line {info.node.start_point[0] + 1}: "
                   f"only as many threads run as there are columns, each with a long serial loop")
            remedy = ("split the rows over warps and blocks: a block of 32 columns x Y row groups (threadIdx.y), "
                      "and on sm_90 a thread-block cluster along gridDim.y; combine the partial results in shared "
                      "memory (and distributed shared memory across the cluster) and let one thread per column write "
                      "(`kernelpro optimize` proposes this as the column split)")
            ev = [Evidence("accumulators", sums, "", "source"),
                  Evidence("threads per column", 1, "", "source"),
                  Evidence("threads an H200 holds at once", COLUMN_THREADS, "", "device")]
            out.append(advice_at(ctx, "serial-column-loop", Severity.WARNING, k, info.node, msg, remedy, ev))
            continue
        if is_elementwise(rk):
            types = table_for(src)
            widths = {}
            for a in accesses_in(rk):
                p = k.param(a.array)
                b = types.bytes(p.base_type) if p is not None else None
                if b:
                    widths[a.array] = b
            share = compute_share(ctx, k) if widths and max(widths.values()) < 16 else None
            if share is not None and share[0] > COMPUTE_BOUND:
                continue  # its arithmetic takes as long as its memory traffic: packing the accesses would not show
            if widths and max(widths.values()) < 16:
                first = min(accesses_in(rk), key=lambda a: a.node.start_byte)
                elem = max(widths.values())
                per = 16 // elem
                msg = (f"each thread moves one {elem}-byte element per access of "
                       f"{', '.join(sorted(widths))}: {per}x more load and store instructions than 16-byte accesses")
                remedy = (f"pack {per} consecutive elements per 16-byte load and store (check 16-byte alignment, finish "
                          "the last elements one by one) and give each thread several packs in flight, in a "
                          "grid-stride loop (`kernelpro optimize` proposes this as the packed element-wise rewrite)")
                ev = [Evidence("element size", elem, "bytes", "source"),
                      Evidence("elements per 16-byte access", per, "", "source")]
                if share is not None:
                    ev.append(Evidence("arithmetic time / memory time", round(share[0], 2),
                                       f"{share[1]} arithmetic instructions for {share[2]} bytes per thread", "sass"))
                out.append(advice_at(ctx, "narrow-elementwise-access", Severity.INFO, k, first.node, msg, remedy, ev))
    return out
