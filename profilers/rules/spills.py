"""Register spills and local memory, with the source lines of the LDL/STL instructions."""
from __future__ import annotations

from ..advice import Evidence, Location, Severity
from ..tools import Context, tool
from .common import advice_at, first_code_column

LOCAL_OPS = ("LDL", "STL")


@tool(
    "spills",
    """Register spills and local memory. Reads the ptxas resource report (spill stores/loads,
    stack frame) and the SASS (LDL/STL local-memory instructions mapped to source lines).
    Use it when a kernel is slow for no visible reason, uses many registers, or indexes a
    per-thread array with a run-time index.""",
    needs=("artifact", "sass"),
    rules=("register-spill", "local-memory"),
)
def spills(ctx: Context):
    out = []
    for k in ctx.source.kernels:
        builds = ctx.builds(k)
        if not builds:
            continue
        b = max(builds, key=lambda b: (b.resources.spill_stores + b.resources.spill_loads, b.resources.stack_bytes))
        r = b.resources
        by_line = ctx.sass_by_line(k)
        local_lines = sorted(ln for ln, ins in by_line.items() if any(i.base in LOCAL_OPS for i in ins))
        counts = {ln: sum(1 for i in by_line[ln] if i.base in LOCAL_OPS) for ln in local_lines}
        if r.spill_stores or r.spill_loads:
            line = local_lines[0] if local_lines else k.line
            ev = [Evidence("spill stores", r.spill_stores, "bytes", "ptxas"),
                  Evidence("spill loads", r.spill_loads, "bytes", "ptxas"),
                  Evidence("registers", r.registers, "per thread", "ptxas"),
                  Evidence("LDL/STL instructions", sum(counts.values()), "", "sass")]
            out.append(advice_at(
                ctx, "register-spill", Severity.WARNING, k, line,
                f"{k.name} spills {r.spill_stores} bytes to local memory and reloads {r.spill_loads} bytes "
                f"({r.registers} registers per thread); the spill traffic goes through L1/L2 at every use",
                "reduce live values (split the kernel, recompute cheap values, shrink unrolled loops) or give "
                "the compiler more registers (a smaller block with __launch_bounds__(threads, minBlocks) or a "
                "larger -maxrregcount)",
                ev, related=[Location(ctx.path, ln, message=f"{counts[ln]} local-memory instructions") for ln in local_lines[1:8]],
            ))
        elif r.stack_bytes and local_lines:
            for ln in local_lines[:4]:
                a = advice_at(
                    ctx, "local-memory", Severity.WARNING, k, ln,
                    f"{counts[ln]} local-memory accesses (LDL/STL) on line {ln}: a per-thread array of "
                    f"{r.stack_bytes} bytes lives in local memory, usually because it is indexed with a value "
                    "known only at run time",
                    "index the array only with compile-time constants (fully unroll the loops that index it with "
                    "#pragma unroll), or keep the values in shared memory or in separate scalar variables",
                    [Evidence("stack frame", r.stack_bytes, "bytes", "ptxas"),
                     Evidence("LDL/STL on this line", counts[ln], "", "sass"),
                     Evidence("spill bytes", 0, "bytes", "ptxas")],
                )
                a.column = first_code_column(ctx, ln)
                out.append(a)
    return out
