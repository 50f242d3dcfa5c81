"""An element-wise kernel on 2-D thread indices read as the 1-D one it is.

    int col = blockIdx.x * blockDim.x + threadIdx.x;       const long long kp_e = (long long)blockIdx.x *
    int row = blockIdx.y * blockDim.y + threadIdx.y;   ->      blockDim.x + threadIdx.x;
    if (row < M && col < N)                                 if (kp_e < (long long)(M) * (N))
        C[row * N + col] = A[row * N + col] + B[...];           C[kp_e] = A[kp_e] + B[kp_e];

Only where every global access is at `row * N + col` (N the column's bound) or is a read at the row or the
column alone (a vector broadcast along the other, `bias[col]`: read at `kp_e % N`, `x[row]` at `kp_e / N`),
the row and column are read nowhere else but in their guard, and the guard bounds both: then the elements are
the same set, each touched by one thread, and the element-wise plan (packs, several per thread) or, with
broadcasts, the gather plan (packs within a row share the quotient) applies to the 1-D kernel.
"""
from __future__ import annotations

import re

from kernelpro.profilers.analysis.affine import add, atom, build_env, global_accesses, mul
from kernelpro.profilers.analysis.loops import text, unparen, writes_in
from kernelpro.profilers.source import SourceFile, walk

from .text import span_text

IDX = "kp_e"


def _axis_local(src: SourceFile, k, d: str) -> tuple[str, object] | None:
    """The local holding blockIdx.d * blockDim.d + threadIdx.d (any order), and its declaration."""
    want = {f"blockIdx.{d}*blockDim.{d}+threadIdx.{d}", f"blockDim.{d}*blockIdx.{d}+threadIdx.{d}",
            f"threadIdx.{d}+blockIdx.{d}*blockDim.{d}", f"threadIdx.{d}+blockDim.{d}*blockIdx.{d}"}
    for n in walk(k.body):
        if n.type == "init_declarator" and n.child_by_field_name("value") is not None:
            v = re.sub(r"\s+|\(|\)", "", text(src, n.child_by_field_name("value")))
            v = re.sub(r"^(int|unsigned|size_t|longlong|uint)", "", v)
            if v in want and n.child_by_field_name("declarator").type == "identifier":
                return text(src, n.child_by_field_name("declarator")), n
    return None


def _bounds(src: SourceFile, cond, row: str, col: str) -> dict | None:
    """{row: H, col: W} from `row < H && col < W` (either order, parenthesised), None otherwise."""
    out = {}
    stack = [unparen(cond)]
    while stack:
        c = unparen(stack.pop())
        if c is None or c.type != "binary_expression":
            return None
        op = text(src, c.child_by_field_name("operator"))
        if op == "&&":
            stack += [c.child_by_field_name("left"), c.child_by_field_name("right")]
            continue
        left, right = text(src, unparen(c.child_by_field_name("left"))), c.child_by_field_name("right")
        if op != "<" or left not in (row, col) or left in out:
            return None
        out[left] = right
    return out if set(out) == {row, col} else None


def flatten(src: SourceFile, k) -> tuple[str, str, str] | None:
    """(the 1-D kernel's text, H, W as the kernel writes them) or None where the kernel is not this shape."""
    if k.body is None:
        return None
    got = [_axis_local(src, k, "x"), _axis_local(src, k, "y")]
    if None in got or "threadIdx.z" in text(src, k.body) or any(lp for lp in k.loops):
        return None
    (col, cdecl), (row, rdecl) = got
    written = {w for w, _ in writes_in(src, k.body)}
    if row in written or col in written:
        return None
    guard = next((n for n in walk(k.body) if n.type == "if_statement"
                  and _bounds(src, n.child_by_field_name("condition"), row, col) is not None), None)
    if guard is None or guard.child_by_field_name("alternative") is not None:
        return None
    bounds = _bounds(src, guard.child_by_field_name("condition"), row, col)
    env = build_env(src, k, keep=(row, col))
    width = env.poly(bounds[col])
    if width is None:
        return None
    want = add(mul(width, atom(row)), atom(col))
    accs = global_accesses(env, include_unknown=True)
    cons = guard.child_by_field_name("consequence")
    # a read at the row or the column alone is a vector broadcast along the other (`x[row]`, `bias[col]`): at the
    # flat index's quotient or remainder by the row length
    broadcast = {str(atom(row)): f"{IDX} / ({text(src, bounds[col])})", str(atom(col)): f"{IDX} % ({text(src, bounds[col])})"}
    if not accs or any((a.index != want and (a.is_write or str(a.index) not in broadcast))
                       or not (cons.start_byte <= a.node.start_byte < cons.end_byte) or
                       a.node.type != "subscript_expression" for a in accs):
        return None
    inside_idx = set()
    subs = []
    if any(a.index != want for a in accs):  # (the gather plan reads `x = ...`: `A[e] += v` as `A[e] = A[e] + (v)`)
        for a in accs:
            st = a.node.parent
            if a.is_write and st is not None and st.type == "assignment_expression" and \
                    st.child_by_field_name("left") == a.node:
                op = text(src, st.child_by_field_name("operator"))
                if op in ("+=", "-=", "*="):
                    r = st.child_by_field_name("right")
                    arr = text(src, a.node.child_by_field_name("argument"))
                    o = st.child_by_field_name("operator")
                    subs += [(o.start_byte, o.end_byte, f"= {arr}[{IDX}] {op[0]} ("), (r.end_byte, r.end_byte, ")")]
    for a in accs:
        i = a.node.child_by_field_name("index") or next(
            (c.named_children[0] for c in a.node.named_children if c.type == "subscript_argument_list"), None)
        if i is None:
            return None
        subs.append((i.start_byte, i.end_byte, IDX if a.index == want else f"({broadcast[str(a.index)]})"))
        inside_idx.add((i.start_byte, i.end_byte))
    # the row and column read nowhere else than in the accesses, the guard and their declarations
    cond = guard.child_by_field_name("condition")
    for n in walk(k.body):
        if n.type == "identifier" and text(src, n) in (row, col):
            if any(s <= n.start_byte < e for s, e in inside_idx) or cond.start_byte <= n.start_byte < cond.end_byte \
                    or cdecl.start_byte <= n.start_byte < cdecl.end_byte \
                    or rdecl.start_byte <= n.start_byte < rdecl.end_byte:
                continue
            return None
    h, w = text(src, bounds[row]), text(src, bounds[col])
    subs.append((cond.start_byte, cond.end_byte, f"({IDX} < (long long)({h}) * ({w}))"))
    for decl in sorted((cdecl, rdecl), key=lambda n: n.start_byte):
        stmt = decl.parent
        if stmt is None or stmt.type != "declaration" or len(stmt.children_by_field_name("declarator")) != 1:
            return None
    first, second = sorted((cdecl.parent, rdecl.parent), key=lambda n: n.start_byte)
    subs.append((first.start_byte, first.end_byte,
                 f"const long long {IDX} = (long long)blockIdx.x * blockDim.x + threadIdx.x;"))
    ls = src.data.rfind(b"\n", 0, second.start_byte) + 1
    le = src.data.find(b"\n", second.end_byte)
    whole = not src.data[ls:second.start_byte].strip() and not src.data[second.end_byte:le].strip()
    subs.append((ls, le + 1, "") if whole else (second.start_byte, second.end_byte, ""))
    return span_text(src, 0, len(src.data), subs), h, w
