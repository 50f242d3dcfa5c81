"""An element-wise kernel on 2-D or 3-D thread indices read as the 1-D one it is.

    int k = blockIdx.x * blockDim.x + threadIdx.x;          const long long kp_e = (long long)blockIdx.x *
    int i = blockIdx.y * blockDim.y + threadIdx.y;               blockDim.x + threadIdx.x;
    int j = blockIdx.z;                                 ->
    if (k < D2 && i < D0 && j < D1)                         if ((kp_e < (long long)(D1) * (D0) * (D2)))
        y[(j * D0 + i) * D2 + k] = x[(i * D1 + j) * D2 + k];    y[(((kp_e / (D2)) / (D0)) * D0 + ...] = ...

The box: a local per axis (x: `blockIdx.x * blockDim.x + threadIdx.x` in any order; y: the same in y or
`blockIdx.y` alone; z: the same in z or `blockIdx.z` alone), at least x and y, each bounded by one conjunct
`local < E` of the kernel's last statement, an `if` without else. The flat index kp_e runs over the box, x
fastest; each local becomes its digit of kp_e where the guarded body reads it (an access at the flat index
itself becomes `[kp_e]`). Only where the locals are read nowhere else, never written, nothing else reads the
thread's position (no shared memory, barriers, warp functions, loops), and every global access walks an array
laid out densely over some of the box's axes, x moving it by 0 or 1 elements (a copy, a permute that keeps
the last dimension, a broadcast `x[row]`, `bias[col]`; a transpose is the transpose plans'): then the
elements are the same set, each touched by one thread, and the element-wise plan (all at the flat index) or the
gather plan (the packs share the quotients) applies to the 1-D kernel. Whether the old launch covered the box
is the caller's to check (api.flat2d_plans, with Box.alone: a `blockIdx` alone needs a block of 1 there).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from kernelpro.profilers.analysis.affine import add, atom, build_env, coefficient, global_accesses, mul
from kernelpro.profilers.analysis.extents import _FLIP
from kernelpro.profilers.analysis.loops import operands, statements, text, unparen, writes_in
from kernelpro.profilers.analysis.patterns import _is_return
from kernelpro.profilers.source import SourceFile, walk

from .text import span_text

IDX = "kp_e"
_TEAM = re.compile(r"__shared__|__sync\w*|__shfl|__ballot|__activemask|__any_sync|__all_sync|__match|warpSize|"
                   r"cooperative_groups|this_thread_block")


@dataclass
class Box:
    names: list  # the local of each axis, x first (x and y, or x, y and z)
    decls: list  # its init_declarator
    alone: list  # whether it is `blockIdx.d` alone
    bounds: list  # E of `local < E`, a node
    guard: object  # the if_statement


def _axis_local(src: SourceFile, k, d: str) -> tuple[str, object, bool] | None:
    """(the local holding blockIdx.d * blockDim.d + threadIdx.d (any order) or, for y and z, blockIdx.d alone,
    its declaration, whether alone)."""
    want = {f"blockIdx.{d}*blockDim.{d}+threadIdx.{d}", f"blockDim.{d}*blockIdx.{d}+threadIdx.{d}",
            f"threadIdx.{d}+blockIdx.{d}*blockDim.{d}", f"threadIdx.{d}+blockDim.{d}*blockIdx.{d}"}
    for n in walk(k.body):
        if n.type == "init_declarator" and n.child_by_field_name("value") is not None:
            v = re.sub(r"\s+|\(|\)", "", text(src, n.child_by_field_name("value")))
            v = re.sub(r"^(?:unsigned|signed|int|size_t|long|uint)+", "", v)  # a cast
            if (v in want or (d != "x" and v == f"blockIdx.{d}")) and \
                    n.child_by_field_name("declarator").type == "identifier":
                return text(src, n.child_by_field_name("declarator")), n, v == f"blockIdx.{d}"
    return None


def box(src: SourceFile, k) -> Box | None:
    """The kernel's box of axis locals and its guard, None where the kernel is not that shape."""
    if k.body is None or k.loops or _TEAM.search(src.node_text(k.body)):
        return None
    got = [_axis_local(src, k, d) for d in "xyz"]
    if got[2] is not None and got[1] is None:
        got[2] = None  # (a z without a y: not read; its blockIdx.z is refused below as another use)
    got = [g for g in got if g is not None]
    body = statements(k.body)
    if len(got) < 2 or not body or body[-1].type != "if_statement" or \
            body[-1].child_by_field_name("alternative") is not None or \
            any(s.type != "declaration" for s in body[:-1]) or \
            any(g[1].parent is None or g[1].parent.parent != k.body for g in got):
        return None
    guard, names = body[-1], [g[0] for g in got]
    bound = {}
    for c in operands(guard.child_by_field_name("condition")):
        left = unparen(c.child_by_field_name("left")) if c.type == "binary_expression" else None
        if left is None or text(src, c.child_by_field_name("operator")) != "<" or text(src, left) not in names \
                or text(src, left) in bound:
            return None
        bound[text(src, left)] = c.child_by_field_name("right")
    if set(bound) != set(names) or any(n.type == "identifier" and text(src, n) in names
                                       for b in bound.values() for n in walk(b)):
        return None
    return Box(names, [g[1] for g in got], [g[2] for g in got], [bound[n] for n in names], guard)


def returns_to_guard(src: SourceFile, k) -> str | None:
    """The kernel with its early returns at the top level (`if (r >= rows) return; if (c >= cols) return;`, or one
    `if (r >= rows || c >= cols) return;`), each a comparison or an `||` of them, read as one guard around the
    statements after them, `if (r < rows && c < cols) { ... }` (box's shape): a thread that returned ran none of
    them, as one that skips them. None where there are none or a condition is not such comparisons."""
    if k.body is None:
        return None
    body = statements(k.body)
    at = [i for i, st in enumerate(body) if st.type == "if_statement" and st.child_by_field_name("alternative") is None
          and _is_return(src, st.child_by_field_name("consequence"))]
    if not at or at != list(range(at[0], at[-1] + 1)) or at[-1] == len(body) - 1:
        return None
    parts = []
    for i in at:
        c = unparen(body[i].child_by_field_name("condition"))
        while c is not None and c.type == "condition_clause":
            c = unparen(c.named_children[-1]) if c.named_children else None
        for o in (operands(c, "||") if c is not None else []):
            o = unparen(o)
            op = text(src, o.child_by_field_name("operator")) if o is not None and o.type == "binary_expression" else None
            if op not in ("<", "<=", ">", ">="):
                return None
            parts.append(f"{text(src, o.child_by_field_name('left'))} {_FLIP[op]} {text(src, o.child_by_field_name('right'))}")
    first, last = body[at[0]], body[-1]
    rest = src.data[body[at[-1] + 1].start_byte:last.end_byte].decode()
    return span_text(src, 0, len(src.data), [(first.start_byte, last.end_byte,
                                               f"if ({' && '.join(parts)}) {{\n    {rest}\n  }}")])


def _dense(index: dict, extents: list[tuple[str, dict]]) -> bool:
    """Whether the index walks an array laid out densely over some of the box's axes in some order: no other
    term, each local's coefficient the product of the extents of those that move faster."""
    coef, rest = {}, dict(index)
    for name, _ in extents:
        c = coefficient(index, name)
        if c is None:
            return False
        if c:
            coef[name] = c
        rest = {m: v for m, v in rest.items() if name not in m}
    step, ext = {(): 1}, dict(extents)
    while coef:
        name = next((n for n, c in coef.items() if c == step), None)
        if name is None:
            return False
        del coef[name]
        step = mul(step, ext[name])
    return not rest


def flatten(src: SourceFile, k, b: Box | None = None) -> tuple[str, ...] | None:
    """(the 1-D kernel's text, the box's extents as the kernel writes them, slowest first) or None where the
    kernel is not this shape."""
    b = b or box(src, k)
    if b is None:
        return None
    names, cond = b.names, b.guard.child_by_field_name("condition")
    written = {w for w, _ in writes_in(src, k.body)}
    bound_names = {text(src, n) for e in b.bounds for n in walk(e) if n.type == "identifier"}
    if written & (set(names) | bound_names):
        return None
    env = build_env(src, k, keep=tuple(names))
    extents = [(n, env.poly(e)) for n, e in zip(names, b.bounds)]
    if any(p is None for _, p in extents):
        return None
    flat, step = {}, {(): 1}
    for n, p in extents:
        flat, step = add(flat, mul(step, atom(n))), mul(step, p)
    accs = global_accesses(env, include_unknown=True)
    cons = b.guard.child_by_field_name("consequence")
    # (one that moves along x by more than one element is a transpose, the transpose plans' shape: no packs)
    if not accs or any(a.index is None or a.node.type != "subscript_expression" or not _dense(a.index, extents)
                       or coefficient(a.index, names[0]) not in ({}, {(): 1})
                       or not (cons.start_byte <= a.node.start_byte < cons.end_byte) for a in accs):
        return None
    # each local's digit of the flat index: x the remainder by Ex, y the next, the slowest the quotient alone
    es = [f"({text(src, e)})" for e in b.bounds]
    digits = [f"({IDX} % {es[0]})", f"({IDX} / {es[0]})"] if len(names) == 2 else \
        [f"({IDX} % {es[0]})", f"(({IDX} / {es[0]}) % {es[1]})", f"(({IDX} / {es[0]}) / {es[1]})"]
    digit = dict(zip(names, digits))
    subs, inside_idx = [], []
    if any(a.index != flat for a in accs):  # (the gather plan reads `x = ...`: `A[e] += v` as `A[e] = A[e] + (v)`)
        for a in accs:
            st = a.node.parent
            if a.is_write and st is not None and st.type == "assignment_expression" and \
                    st.child_by_field_name("left") == a.node:
                op = text(src, st.child_by_field_name("operator"))
                if op in ("+=", "-=", "*="):
                    if a.index != flat:  # (`A[f] += v` at another index than the flat one: not rewritten here)
                        return None
                    r = st.child_by_field_name("right")
                    arr = text(src, a.node.child_by_field_name("argument"))
                    o = st.child_by_field_name("operator")
                    subs += [(o.start_byte, o.end_byte, f"= {arr}[{IDX}] {op[0]} ("), (r.end_byte, r.end_byte, ")")]
    for a in accs:
        i = a.node.child_by_field_name("index") or next(
            (c.named_children[0] for c in a.node.named_children if c.type == "subscript_argument_list"), None)
        if i is None:
            return None
        inside_idx.append((i.start_byte, i.end_byte))
        if a.index == flat:
            subs.append((i.start_byte, i.end_byte, IDX))
        else:
            subs += [(n.start_byte, n.end_byte, digit[text(src, n)]) for n in walk(i)
                     if n.type == "identifier" and text(src, n) in digit]
    # the locals read nowhere else than in the accesses, the guard and their declarations; the thread's
    # position read nowhere else than in those declarations
    for n in walk(k.body):
        if n.type != "identifier" or any(d.start_byte <= n.start_byte < d.end_byte for d in b.decls):
            continue
        if text(src, n) in ("threadIdx", "blockIdx", "blockDim", "gridDim"):
            return None
        if text(src, n) in names and not (any(s <= n.start_byte < e for s, e in inside_idx)
                                          or cond.start_byte <= n.start_byte < cond.end_byte):
            return None
    whole = " * ".join(es[::-1])
    subs.append((cond.start_byte, cond.end_byte, f"({IDX} < (long long){whole})"))
    stmts = sorted({d.parent.start_byte: d.parent for d in b.decls}.items())
    stmts = [s for _, s in stmts]
    if len(stmts) != len(names) or any(len(s.children_by_field_name("declarator")) != 1 for s in stmts):
        return None
    subs.append((stmts[0].start_byte, stmts[0].end_byte,
                 f"const long long {IDX} = (long long)blockIdx.x * blockDim.x + threadIdx.x;"))
    for s in stmts[1:]:
        ls = src.data.rfind(b"\n", 0, s.start_byte) + 1
        le = src.data.find(b"\n", s.end_byte)
        rest = src.data[s.end_byte:le].strip()  # (a comment after it goes with it)
        alone = not src.data[ls:s.start_byte].strip() and (not rest or rest.startswith(b"//"))
        subs.append((ls, le + 1, "") if alone else (s.start_byte, s.end_byte, ""))
    return (span_text(src, 0, len(src.data), subs), *(text(src, e) for e in b.bounds[::-1]))
