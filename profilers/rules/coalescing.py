"""Uncoalesced global accesses: the stride of each index with respect to threadIdx.x.

Index expressions become polynomials over atoms (threadIdx.x, blockIdx.x, params, loop
variables), following the kernel's local `int x = ...` definitions. The coefficient of
threadIdx.x is the stride, in elements, between neighbouring threads of a warp.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass

import tree_sitter as ts

from ..advice import Evidence, Severity
from ..hunt.links import block_link
from ..source import Kernel, SourceFile
from ..tools import Context, tool
from .common import advice_at, nodes
from .fp64 import declared_types, scalar_kind

TID = "threadIdx.x"
Poly = dict  # {tuple of atom names (sorted): int coefficient}; () is the constant
ELEMENT_BYTES = {"float": 4, "int": 4, "unsigned": 4, "unsigned int": 4, "uint32_t": 4, "int32_t": 4,
                 "double": 8, "long": 8, "long long": 8, "int64_t": 8, "uint64_t": 8, "size_t": 8,
                 "half": 2, "__half": 2, "__nv_bfloat16": 2, "short": 2, "char": 1, "unsigned char": 1,
                 "uint8_t": 1, "int8_t": 1, "float2": 8, "int2": 8, "float4": 16, "int4": 16, "double2": 16}
_BUILTINS = ("threadIdx", "blockIdx", "blockDim", "gridDim")


# --- polynomials ----------------------------------------------------------
def const(c: int) -> Poly:
    return {(): c} if c else {}


def atom(name: str) -> Poly:
    return {(name,): 1}


def add(a: Poly, b: Poly, sign: int = 1) -> Poly:
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, 0) + sign * c
        if not out[m]:
            del out[m]
    return out


def mul(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = tuple(sorted(ma + mb))
            out[m] = out.get(m, 0) + ca * cb
            if not out[m]:
                del out[m]
    return out


def depends(p: Poly, name: str = TID) -> bool:
    return any(name in m for m in p)


def coefficient(p: Poly, name: str = TID) -> Poly | None:
    """The coefficient of `name` in p; None when p is not linear in it."""
    out: Poly = {}
    for m, c in p.items():
        k = m.count(name)
        if k > 1:
            return None
        if k == 1:
            rest = list(m)
            rest.remove(name)
            out[tuple(rest)] = out.get(tuple(rest), 0) + c
    return {m: c for m, c in out.items() if c}


def poly_text(p: Poly) -> str:
    if not p:
        return "0"
    parts = []
    for m, c in sorted(p.items(), key=lambda x: (-len(x[0]), x[0])):
        term = "*".join(m)
        parts.append(str(c) if not m else term if c == 1 else f"{c}*{term}")
    return " + ".join(parts).replace("+ -", "- ")


# --- the kernel's index environment ------------------------------------------
@dataclass
class IndexEnv:
    src: SourceFile
    kernel: Kernel
    snapshots: list  # [(byte offset, {local int name: Poly or None})], in source order
    pointers: dict  # global pointer name -> (param name, offset Poly)

    def values_at(self, byte: int) -> dict:
        i = bisect.bisect_right([b for b, _ in self.snapshots], byte) - 1
        return self.snapshots[max(i, 0)][1]

    def poly(self, n: ts.Node | None) -> Poly | None:
        return None if n is None else index_poly(self.src, n, self.values_at(n.start_byte))


def build_env(src: SourceFile, k: Kernel) -> IndexEnv:
    """Follow `int x = ...;` definitions and top-level `x = ...;` reassignments in source order.

    A variable stepped only by uniform amounts (`j++`, `i += blockDim.x * gridDim.x`) keeps the
    thread stride of its start value plus an atom for the step; one reassigned under a branch or
    in a loop, or stepped by a thread-dependent amount, becomes unknown.
    """
    params = {p.name for p in k.params}
    values: dict = {n: None for n in declared_types(src, k) if n not in params}  # unknown until defined
    pointers = {p.name: (p.name, {}) for p in k.params if p.is_pointer}
    stepped, unknown, plain = _updates(src, k)
    events = []
    for d in nodes(k, "declaration"):
        tnode = d.child_by_field_name("type")
        tkind = scalar_kind(src.node_text(tnode)) if tnode is not None else None
        for dec in d.children_by_field_name("declarator"):
            if dec.type != "init_declarator":
                continue
            target, value = dec.child_by_field_name("declarator"), dec.child_by_field_name("value")
            if target is None or value is None:
                continue
            if target.type == "pointer_declarator":
                inner = target.child_by_field_name("declarator")
                if inner is not None and inner.type == "identifier":
                    events.append((dec.start_byte, "ptr", src.node_text(inner), value))
            elif target.type == "identifier" and tkind == "int":
                events.append((dec.start_byte, "int", src.node_text(target), value))
    events += [(n.start_byte, "int", name, n.child_by_field_name("right")) for name, n in plain]
    snapshots = [(k.body.start_byte if k.body is not None else 0, dict(values))]
    for byte, kind, name, value in sorted(events, key=lambda e: e[0]):
        if kind == "ptr":
            pointers.pop(name, None)
            base = _pointer_base(src, value, values, pointers)
            if base is not None and name not in stepped | unknown and name not in dict(plain):
                pointers[name] = base
            continue
        p = None if name in unknown else index_poly(src, value, values)
        if p is not None and name in stepped:
            p = add(p, atom(name))
        values = dict(values)
        values[name] = p
        snapshots.append((byte + 1, values))
    return IndexEnv(src, k, snapshots, pointers)


def _updates(src: SourceFile, k: Kernel):
    """(names stepped by uniform amounts, names made unknown, [(name, top-level `name = e`)])."""
    stepped, unknown, plain = set(), set(), []
    for n in nodes(k, "assignment_expression", "update_expression"):
        left = n.child_by_field_name("left") or n.child_by_field_name("argument")
        if left is None or left.type != "identifier":
            continue
        name = src.node_text(left)
        if n.type == "update_expression":
            stepped.add(name)
            continue
        op = src.node_text(n.child_by_field_name("operator"))
        if op in ("+=", "-="):
            inc = index_poly(src, n.child_by_field_name("right"), {})
            (stepped if inc is not None and not depends(inc) else unknown).add(name)
        elif op == "=" and n.parent is not None and n.parent.type == "expression_statement" \
                and n.parent.parent == k.body:
            plain.append((name, n))
        else:
            unknown.add(name)
    return stepped, unknown, plain


def _pointer_base(src, value, values, pointers):
    """`param + e` or `&param[e]` -> (param, e)."""
    v = value
    while v.type == "parenthesized_expression" and v.named_children:
        v = v.named_children[0]
    if v.type == "identifier" and src.node_text(v) in pointers:
        return pointers[src.node_text(v)]
    if v.type == "binary_expression" and src.node_text(v.child_by_field_name("operator")) == "+":
        left, right = v.child_by_field_name("left"), v.child_by_field_name("right")
        for a, b in ((left, right), (right, left)):
            if a.type == "identifier" and src.node_text(a) in pointers:
                off = index_poly(src, b, values)
                if off is not None:
                    base, o = pointers[src.node_text(a)]
                    return base, add(o, off)
    if v.type == "pointer_expression" and src.node_text(v).startswith("&"):
        arg = v.child_by_field_name("argument")
        if arg is not None and arg.type == "subscript_expression":
            acc = _subscript(src, arg)
            if acc and acc[0] in pointers:
                off = index_poly(src, acc[1], values)
                if off is not None:
                    base, o = pointers[acc[0]]
                    return base, add(o, off)
    return None


def _subscript(src: SourceFile, n: ts.Node):
    arg = n.child_by_field_name("argument")
    idx = n.child_by_field_name("indices")
    if idx is None:
        idx = next((c for c in n.named_children if c.type == "subscript_argument_list"), None)
    if arg is None or idx is None or arg.type != "identifier" or len(idx.named_children) != 1:
        return None
    return src.node_text(arg), idx.named_children[0]


def index_poly(src: SourceFile, n: ts.Node | None, values: dict) -> Poly | None:
    """The polynomial of an integer index expression; None when it cannot be followed."""
    if n is None:
        return None
    t = n.type
    if t == "number_literal":
        v = src.eval_int(n)
        return None if v is None else const(v)
    if t == "identifier":
        name = src.node_text(n)
        if name in values:
            return values[name]
        if name in src.constants:
            return const(src.constants[name])
        return atom(name)
    if t == "field_expression":
        base = n.child_by_field_name("argument")
        if base is not None and src.node_text(base) in _BUILTINS:
            return atom(src.node_text(n).replace(" ", ""))
        return None
    if t == "parenthesized_expression":
        return index_poly(src, n.named_children[0] if n.named_children else None, values)
    if t == "cast_expression":
        return index_poly(src, n.child_by_field_name("value"), values)
    if t == "unary_expression":
        op = src.node_text(n.child_by_field_name("operator"))
        p = index_poly(src, n.child_by_field_name("argument"), values)
        if p is None or op not in ("-", "+"):
            return None
        return p if op == "+" else mul(p, const(-1))
    if t == "binary_expression":
        op = src.node_text(n.child_by_field_name("operator"))
        a = index_poly(src, n.child_by_field_name("left"), values)
        b = index_poly(src, n.child_by_field_name("right"), values)
        if a is None or b is None:
            return None
        if op == "+":
            return add(a, b)
        if op == "-":
            return add(a, b, -1)
        if op == "*":
            return mul(a, b)
        if op == "<<" and list(b) in ([()], []):
            return mul(a, const(1 << b.get((), 0)))
        if not depends(a) and not depends(b):  # uniform across the warp: an opaque value
            return atom("(" + " ".join(src.node_text(n).split()) + ")")
        return None
    return None


# --- accesses ---------------------------------------------------------------
@dataclass
class Access:
    array: str  # the kernel parameter it reads or writes
    node: ts.Node  # the subscript expression
    index: Poly
    stride: Poly | None  # coefficient of threadIdx.x
    is_write: bool

    @property
    def line(self) -> int:
        return self.node.start_point[0] + 1


def global_accesses(env: IndexEnv) -> list[Access]:
    out = []
    src = env.src
    for n in nodes(env.kernel, "subscript_expression"):
        acc = _subscript(src, n)
        if acc is None or acc[0] not in env.pointers:
            continue
        base, off = env.pointers[acc[0]]
        p = env.poly(acc[1])
        if p is None:
            continue
        p = add(off, p)
        parent = n.parent
        write = parent is not None and parent.type in ("assignment_expression", "update_expression") and (
            parent.child_by_field_name("left") == n or parent.child_by_field_name("argument") == n)
        out.append(Access(base, n, p, coefficient(p), write))
    return out


def element_bytes(k: Kernel, array: str) -> int | None:
    p = k.param(array)
    if p is None:
        return None
    t = " ".join(w for w in p.base_type.split() if w not in ("const", "volatile"))
    return ELEMENT_BYTES.get(t)


def warp_sectors(stride_elems: int | None, elem: int) -> tuple[int, int]:
    """(sectors a warp request touches, ideal sectors), 32-byte sectors, 32 threads."""
    ideal = max(1, 32 * elem // 32)
    if stride_elems is None:  # symbolic: large in practice
        return 32, ideal
    d = abs(stride_elems) * elem
    return (32 if d >= 32 else max(ideal, d)), ideal


def chunked(acc: Access, env: IndexEnv, all_acc: list[Access]) -> bool:
    """Each thread covers its own run of `stride` consecutive elements (a vector-load case)."""
    s = acc.stride.get(()) if acc.stride and list(acc.stride) == [()] else None
    if s is None or not 1 < s <= 4:
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


def _stride_value(stride: Poly) -> tuple[int | None, str]:
    if list(stride) == [()]:
        return stride[()], str(stride[()])
    return None, poly_text(stride)


@tool(
    "coalescing",
    """Uncoalesced global memory accesses found in the source: for every global array index
    it computes the stride between neighbouring threads (the coefficient of threadIdx.x,
    following local variables such as row = blockIdx.x*blockDim.x + threadIdx.x) and reports
    the accesses whose stride is not one element (a[row * N + k], in[tid * n + i], naive
    transposes), with the 32-byte sectors a warp touches against the ideal. Use it for
    memory-bound kernels, transposes, and kernels where each thread walks its own row.""",
    needs=("source",),
    rules=("uncoalesced-access",),
)
def coalescing_tool(ctx: Context):
    out = []
    for k in ctx.source.kernels:
        env = build_env(ctx.source, k)
        accs = global_accesses(env)
        seen = set()
        for a in accs:
            if a.stride is None or not a.stride:
                continue
            val, text = _stride_value(a.stride)
            if val is not None and abs(val) <= 1:
                continue
            elem = element_bytes(k, a.array)
            if elem is None or elem > 32 or chunked(a, env, accs):
                continue
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
    msg = (f"the {kind} {a.array}[{' '.join(src.node_text(_subscript(src, a.node)[1]).split())}] on line "
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
