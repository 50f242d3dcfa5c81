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
                out.append(advice_at(ctx, "narrow-elementwise-access", Severity.INFO, k, first.node, msg, remedy, ev))
    return out
