"""Matrix-multiply loops that read both operands straight from global memory (no reuse)."""
from __future__ import annotations

from ..advice import Evidence, Location, Severity
from ..tools import Context, tool
from .common import advice_at
from ..source import walk
from .tensor_cores import matmul_updates

RULE = "matmul-global-operands"


@tool(
    "matmul_reuse",
    """Matrix-multiply loops (acc += A[..k..] * B[..k..]) whose two operands are both read from
    global memory inside the loop, so every thread loads its own row of A and column of B and
    nothing is reused through shared memory or registers (2 global loads per FMA). Says how to
    tile: shared-memory tiles of A and B, then a register micro-tile per thread. Use it on
    naive GEMM and convolution-as-GEMM kernels.""",
    needs=("source",),
    rules=(RULE,),
)
def matmul_reuse(ctx: Context):
    src, out = ctx.source, []
    for k in src.kernels:
        pointers = {p.name for p in k.params if p.is_pointer}
        for loop in k.loops:
            updates = matmul_updates(src, k, loop)
            for node, a, b, acc in updates[:1]:
                base_a, base_b = a.split(".")[-1].lstrip("*&"), b.split(".")[-1].lstrip("*&")
                if base_a not in pointers or base_b not in pointers:
                    continue  # an operand comes from shared memory or registers: reused
                line = node.start_point[0] + 1
                per = _loads_per_fma(src, loop, {base_a, base_b}, len(updates)) if len(updates) > 1 else 2.0
                said = "two global loads" if per == 2 else f"{per:g} global loads"
                out.append(advice_at(
                    ctx, RULE, Severity.INFO, k, node,
                    f"the matrix-multiply loop on line {loop.line} reads both {a}[..{loop.var}..] and {b}[..{loop.var}..] "
                    f"from global memory (line {line}): every thread loads its own row and column, {said} "
                    "per multiply-add, and no element is reused through shared memory or registers",
                    f"stage TILE x TILE tiles of {a} and {b} in shared memory (each element loaded once per block and "
                    "reused TILE times, one barrier after loading and one after use), then let each thread compute a "
                    "small register tile of outputs so each value read from shared memory feeds several FMAs",
                    [Evidence("global operands", f"{a}, {b}", "pointer parameters", "source"),
                     Evidence("global loads per multiply-add", round(per, 2), "", "source")],
                    related=[Location(ctx.path, loop.line, loop.column, message="the k loop")],
                ))
    return out


def _loads_per_fma(src, loop, arrays: set, fmas: int) -> float:
    """Distinct reads of the operand arrays in the loop's body over its sums (several outputs a thread in named
    sums, one product each: 1.5 for two outputs sharing one operand's load)."""
    body = loop.node.child_by_field_name("body")
    seen = {"".join(src.node_text(n).split()) for n in walk(body) if n.type == "subscript_expression"
            and src.node_text(n.child_by_field_name("argument")).split(".")[-1] in arrays} if body is not None else set()
    return len(seen) / max(fmas, 1) if seen else 2.0
