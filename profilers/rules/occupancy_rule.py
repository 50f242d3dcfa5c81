"""Theoretical occupancy and what limits it, for the block size the kernel is launched with."""
from __future__ import annotations

from ..advice import Evidence, Severity
from ..occupancy import occupancy
from ..tools import Context, tool
from .common import advice_at

LOW = 0.5  # below this theoretical occupancy, latency hiding usually suffers


@tool(
    "occupancy",
    """Theoretical occupancy and its limiter (registers, shared memory, block size, blocks per
    SM) for the architecture and the block size the kernel is launched with (launch spec,
    launch site in the file, __launch_bounds__, or the default 256), and the register count or
    shared-memory size that would reach the next occupancy step. Use it for latency-bound
    kernels or before changing the block size.""",
    needs=("artifact",),
    rules=("low-occupancy",),
)
def occupancy_tool(ctx: Context):
    out = []
    for k in ctx.source.kernels:
        builds = ctx.builds(k)
        if not builds:
            continue
        b = max(builds, key=lambda b: b.resources.registers)
        r = b.resources
        hint = ctx.block(k.name)
        smem = r.shared_bytes + ctx.dynamic_shared.get(k.name, 0)
        try:
            occ = occupancy(ctx.arch, hint.threads, r.registers, smem)
        except ValueError:
            continue
        if occ.occupancy >= LOW:
            continue
        ev = [Evidence("theoretical occupancy", round(occ.occupancy * 100, 1), "%", "occupancy"),
              Evidence("active warps", occ.active_warps, f"of {occ.max_warps}", "occupancy"),
              Evidence("registers", r.registers, "per thread", "ptxas"),
              Evidence("shared memory", smem, "bytes per block", "ptxas"),
              Evidence("block size", hint.threads, hint.origin, "launch")]
        fix = None
        if occ.limiter == "registers" and occ.next_registers:
            remedy = (f"cap registers at {occ.next_registers} per thread with "
                      f"__launch_bounds__({hint.threads}, {occ.blocks_per_sm + 1}) (check the spill report after) "
                      "or reduce live values")
            if not k.launch_bounds:
                text = f"__launch_bounds__({hint.threads}, {occ.blocks_per_sm + 1}) "
                fix = {"title": f"Add {text.strip()}", "edits": [
                    {"line": k.line, "column": k.column, "end_line": k.line, "end_column": k.column, "new_text": text}]}
        elif occ.limiter == "shared_memory" and occ.next_shared_bytes:
            remedy = (f"use at most {occ.next_shared_bytes} bytes of shared memory per block (smaller tiles, "
                      "or fewer pipeline stages) to fit one more block per SM")
        elif occ.limiter == "blocks_per_sm":
            remedy = f"use larger blocks: {hint.threads} threads per block hit the limit of blocks per SM; try 128 or 256"
        else:
            remedy = "change the block size; try 128 or 256 threads"
        gain = None
        out.append(advice_at(
            ctx, "low-occupancy", Severity.INFO, k, k.node.child_by_field_name("declarator") or k.line,
            f"{k.name}: {occ.explain()} (block size {hint.threads} from {hint.origin})",
            remedy, ev, gain=gain, fix=fix,
        ))
        a = out[-1]
        a.line, a.column, a.end_line, a.end_column = k.line, k.column, k.line, k.end_column
    return out
