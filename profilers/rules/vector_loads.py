"""Narrow global accesses: a thread touches 2 or 4 consecutive elements with 32-bit LDG/STG."""
from __future__ import annotations

from ..advice import Evidence, Severity
from ..tools import Context, tool
from .common import advice_at
from .coalescing import Access, build_env, element_bytes, global_accesses

VECTOR = {4: {4: "float4", 2: "float2"}, 8: {2: "double2"}}  # element bytes -> width -> type


def access_width(opcode: str) -> int:
    """Bits moved per thread by an LDG/STG opcode."""
    mods = opcode.split(".")[1:]
    for m, bits in (("128", 128), ("64", 64), ("U8", 8), ("S8", 8), ("U16", 16), ("S16", 16)):
        if m in mods:
            return bits
    return 32


def _aligned(index: dict, width: int, skip: tuple) -> bool:
    return all(c % width == 0 for m, c in index.items() if m != skip)


def _runs(env, accs: list[Access], elem: int):
    """(access, width, how) for runs of consecutive elements one thread touches."""
    out = []
    widths = sorted(VECTOR.get(elem, {}), reverse=True)
    for a in accs:
        if element_bytes(env.kernel, a.array, env) != elem:
            continue
        # (1) a loop `for (j = 0; j < T; ++j) p[base + j]` with T a multiple of the width
        for lp in env.kernel.loops:
            if not (lp.var and lp.trip_count and lp.node.start_byte <= a.node.start_byte < lp.node.end_byte):
                continue
            if a.index.get((lp.var,)) != 1 or sum(1 for m in a.index if lp.var in m) != 1:
                continue
            w = next((w for w in widths if lp.trip_count % w == 0), None)
            if w and _aligned(a.index, w, (lp.var,)) and a.stride and a.stride.get(()):
                out.append((a, w, f"loop over {lp.var} with {lp.trip_count} iterations"))
        # (2) explicit offsets base + 0, base + 1, ... in the same kernel
        rest = {m: c for m, c in a.index.items() if m != ()}
        c0 = a.index.get((), 0)
        offs = {b.index.get((), 0) for b in accs if b.array == a.array and b.is_write == a.is_write
                and {m: c for m, c in b.index.items() if m != ()} == rest}
        for w in widths:
            if c0 % w == 0 and all(c0 + i in offs for i in range(w)) and _aligned(rest, w, ()) and a.stride:
                out.append((a, w, f"offsets +{c0}..+{c0 + w - 1}"))
                break
    return out


@tool(
    "vector_loads",
    """Narrow global loads and stores: a thread reads or writes 2 or 4 consecutive 32-bit
    elements (out[i*4 + j] in an unrolled loop, x[4*t], x[4*t+1], ...) and the SASS shows
    separate 32-bit LDG.E/STG.E on that line where one 64- or 128-bit access (float2/float4)
    would do. Reads the source index expressions and the SASS access widths. Use it for
    element-wise and streaming kernels that should run at full memory bandwidth.""",
    needs=("artifact", "sass"),
    rules=("narrow-global-access",),
)
def vector_loads_tool(ctx: Context):
    out = []
    for k in ctx.source.kernels:
        by_line = ctx.sass_by_line(k)
        if not by_line:
            continue
        env = build_env(ctx.source, k)
        accs = global_accesses(env)
        seen = set()
        for elem in VECTOR:
            for a, w, how in _runs(env, accs, elem):
                op = "STG" if a.is_write else "LDG"
                ins = [i for i in by_line.get(a.line, []) if i.base == op]
                widths = sorted({access_width(i.opcode) for i in ins})
                key = (a.array, a.line, a.is_write)
                if len(ins) < w or widths != [32] or key in seen:
                    continue
                seen.add(key)
                out.append(_advice(ctx, k, a, w, how, op, ins, elem))
    return out


def _advice(ctx, k, a, w, how, op, ins, elem):
    src = ctx.source
    vec = VECTOR[elem][w]
    verb = "stores" if a.is_write else "loads"
    scalar = k.param(a.array).base_type.replace("const", "").strip()
    idx = " ".join(src.node_text(a.node).split())
    msg = (f"{idx} on line {a.line} {verb} {w} consecutive {scalar}s per thread ({how}) with {len(ins)} separate "
           f"32-bit {op} instructions; one {w * elem * 8}-bit access ({vec}) per {w} elements would do")
    cast = f"reinterpret_cast<{'const ' if not a.is_write else ''}{vec}*>({a.array})"
    remedy = (f"{verb[:-1]} {w} elements at once through {cast}[i / {w}] (i a multiple of {w}) when {a.array} is "
              f"{w * elem}-byte aligned (check ((uintptr_t){a.array} % {w * elem}) == 0, true for cudaMalloc "
              f"pointers at offset 0), and handle the last n % {w} elements with a scalar tail loop")
    ev = [Evidence(f"{op} widths on this line", ", ".join(sorted({i.opcode for i in ins})), "32-bit", "sass"),
          Evidence(f"{op} instructions on this line", len(ins), "", "sass"),
          Evidence("consecutive elements per thread", w, "", "source"),
          Evidence("element size", elem, "bytes", "source")]
    return advice_at(ctx, "narrow-global-access", Severity.INFO, k, a.node, msg, remedy, ev)
