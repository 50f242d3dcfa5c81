"""Uncoalesced global accesses: the stride of each index with respect to threadIdx.x.

Index expressions become polynomials over atoms (threadIdx.x, blockIdx.x, params, loop
variables), following the kernel's local integer definitions of any spelling (profilers/
analysis/affine.py). The coefficient of threadIdx.x is the stride, in elements, between
neighbouring threads of a warp.
"""
from __future__ import annotations

import re

from ..advice import Evidence, Severity
from ..analysis.affine import (TID, Access, IndexEnv, Poly, add, atom, build_env, coefficient,  # noqa: F401
                               const, depends, global_accesses, index_poly, mul, poly_text)
from ..analysis.affine import element_bytes as _element_bytes
from ..analysis.affine import subscript_parts as _subscript
from ..analysis.types import table_for
from ..hunt.links import block_link
from ..source import Kernel
from ..tools import Context, tool
from .common import advice_at


def element_bytes(k: Kernel, array: str, env: IndexEnv | None = None) -> int | None:
    return env.element_bytes(array) if env is not None else _element_bytes(k, array)


def warp_sectors(stride_elems: int | None, elem: int) -> tuple[int, int]:
    """(sectors a warp request touches, ideal sectors), 32-byte sectors, 32 threads."""
    ideal = max(1, 32 * elem // 32)
    if stride_elems is None:  # symbolic: large in practice
        return 32, ideal
    d = abs(stride_elems) * elem
    return (32 if d >= 32 else max(ideal, d)), ideal


def chunked(acc: Access, env: IndexEnv, all_acc: list[Access], elem: int = 4) -> bool:
    """Each thread covers its own run of `stride` consecutive elements, 16 bytes at most (a
    vector-load case: four floats, eight bf16 values)."""
    s = acc.stride.get(()) if acc.stride and list(acc.stride) == [()] else None
    if s is None or not 1 < s or (s > 4 and s * elem > 16):
        return False
    for lp in env.kernel.loops:  # a loop walking consecutive elements (unrolled run or tail)
        if lp.var and lp.node.start_byte <= acc.node.start_byte < lp.node.end_byte:
            if acc.index.get((lp.var,)) == 1 and sum(1 for m in acc.index if lp.var in m) == 1:
                return True
    rest = {m: c for m, c in acc.index.items() if m != ()}
    offs = {a.index.get((), 0) for a in all_acc if a.array == acc.array
            and {m: c for m, c in a.index.items() if m != ()} == rest}
    lo = min(offs)
    return all(lo + i in offs for i in range(s))


def pack_bytes(src, node, elem: int) -> int | None:
    """Bytes one thread moves where an element's address is cast to another pointer type and read
    or written through it (`*reinterpret_cast<const float4*>(&x[i])`, `*(int4*)&x[i]`; node the
    subscript or the dereference): the cast type's size where it is known (the type table's vector types and typedefs,
    `kp_pack<T, N>`-style packs of N elements), 16 (the widest load) where it is not; None where
    the access is not such a cast."""
    if node.type == "pointer_expression" and src.node_text(node).lstrip().startswith("*"):
        n = node.child_by_field_name("argument")
        while n is not None and n.type == "parenthesized_expression":
            n = n.named_children[0] if n.named_children else None
    else:
        n = node.parent
        if n is None or n.type != "pointer_expression" or not src.node_text(n).lstrip().startswith("&"):
            return None
        n = n.parent
        while n is not None and n.type in ("parenthesized_expression", "argument_list"):
            n = n.parent
    if n is None:
        return None
    if n.type == "cast_expression":
        ty = src.node_text(n.child_by_field_name("type") or n)
    elif n.type == "call_expression" and src.node_text(n.child_by_field_name("function") or n).split("<")[0].strip() \
            in ("reinterpret_cast", "static_cast", "const_cast"):
        fn = src.node_text(n.child_by_field_name("function"))
        ty = fn[fn.index("<") + 1: fn.rindex(">")] if "<" in fn and ">" in fn else ""
    else:
        return None
    base = " ".join(ty.replace("*", " ").replace("const", " ").replace("volatile", " ").split())
    sized = table_for(src).bytes(base)  # float4, int4, __nv_bfloat162, typedefs of them
    if sized is not None:
        return sized
    m = re.search(r",\s*(\d+)\s*>\s*$", base)
    if m:
        return int(m.group(1)) * elem
    return 16


def _stride_value(stride: Poly) -> tuple[int | None, str]:
    if list(stride) == [()]:
        return stride[()], str(stride[()])
    return None, poly_text(stride)


@tool(
    "coalescing",
    """Uncoalesced global memory accesses found in the source: for every global array index
    it computes the stride between neighbouring threads (the coefficient of threadIdx.x,
    following local variables such as row = blockIdx.x*blockDim.x + threadIdx.x, and quotients and
    remainders of them such as j = idx % N) and reports
    the accesses whose stride is not one element (a[row * N + k], in[tid * n + i], naive
    transposes), with the 32-byte sectors a warp touches against the ideal. Use it for
    memory-bound kernels, transposes, and kernels where each thread walks its own row.""",
    needs=("source",),
    rules=("uncoalesced-access",),
)
def coalescing_tool(ctx: Context):
    out = []
    for k in ctx.source.kernels:
        env = build_env(ctx.source, k, lanes=True)  # `j = idx % N` moves like idx between lanes
        accs = global_accesses(env)
        seen = set()
        for a in accs:
            if a.stride is None or not a.stride:
                continue
            val, text = _stride_value(a.stride)
            if val is not None and abs(val) <= 1:
                continue
            elem = element_bytes(k, a.array, env)
            if elem is None or elem > 32 or chunked(a, env, accs, elem):
                continue
            pack = pack_bytes(ctx.source, a.node, elem)
            if pack is not None and val is not None and abs(val) * elem <= pack:
                continue  # each thread moves one pack of that many bytes: consecutive packs
            sectors, ideal = warp_sectors(val, elem)
            if sectors <= ideal or (a.array, a.line) in seen:
                continue
            seen.add((a.array, a.line))
            out.append(_advice(ctx, k, env, a, accs, val, text, elem, sectors, ideal))
    return out


def _advice(ctx, k, env, a, accs, val, text, elem, sectors, ideal):
    src = ctx.source
    kind = "write to" if a.is_write else "read of"
    unit = "element" if val == 1 else "elements"
    cond = "" if val is not None else f" (for {text} >= {max(1, 32 // elem)})"
    sub = _subscript(src, a.node)
    # the access as the source writes it (`inp_row[j]`), and the parameter it reaches when that differs
    what = f"{sub[0]}[{' '.join(src.node_text(sub[1]).split())}]" if sub else " ".join(src.node_text(a.node).split())
    if sub and sub[0] != a.array:
        what += f" (in {a.array})"
    msg = (f"the {kind} {what} on line "
           f"{a.line} moves {text} {unit} between neighbouring threads: each warp touches {sectors} sectors "
           f"where {ideal} would do{cond}")
    same_line_ok = [b for b in accs if b.line == a.line and b is not a and b.stride is not None
                    and _stride_value(b.stride)[0] in (0, 1, -1)]
    loop_terms = [lp.var for lp in k.loops if lp.var and a.index.get((lp.var,)) in (1, -1)
                  and lp.node.start_byte <= a.node.start_byte < lp.node.end_byte]
    if same_line_ok:
        remedy = (f"this is a transpose: stage a tile through shared memory (__shared__ {k.param(a.array).base_type.replace('const', '').strip()} "
                  "tile[32][33], padded against bank conflicts): read coalesced rows into the tile, __syncthreads(), "
                  f"then write {a.array} row by row so threadIdx.x indexes its contiguous dimension; "
                  "kernelpro::transpose_tile does exactly this")
        links = block_link("kernelpro::transpose_tile")
    elif loop_terms:
        links = []
        remedy = (f"make threadIdx.x index the contiguous dimension: swap the roles of the thread index and the "
                  f"loop index `{loop_terms[0]}` (let threads run over `{loop_terms[0]}` and loop over what "
                  "threadIdx.x indexes now), or change the layout of "
                  f"{a.array} (transpose it) so consecutive threads access consecutive addresses")
    else:
        links = []
        remedy = (f"make threadIdx.x index the contiguous dimension of {a.array} (store it transposed, or use a "
                  "structure of arrays instead of an array of structures), or load a tile coalesced into shared "
                  "memory (padded, e.g. [32][33]) and read it from there")
    ev = [Evidence("stride between threads", text, unit, "source"),
          Evidence("element size", elem, "bytes", "source"),
          Evidence("sectors per warp request", sectors, "32-byte sectors", "source"),
          Evidence("ideal sectors per warp request", ideal, "32-byte sectors", "source"),
          Evidence("index", poly_text(a.index), "", "source")]
    return advice_at(ctx, "uncoalesced-access", Severity.WARNING, k, a.node, msg, remedy, ev,
                     gain=round(sectors / ideal, 2), links=links,
                     gain_note="sectors ratio: an upper bound, reached when the kernel is memory-bound on this access")
