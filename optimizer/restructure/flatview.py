"""A flat thread index seen as rows: the kernel on a 2-D grid, every digit of the index written in terms of
the column and the row (profilers/analysis/digits.py).

`int idx = blockIdx.x * blockDim.x + threadIdx.x; int r = idx / W, c = idx % W;` becomes
`kp_col = blockIdx.x * blockDim.x + threadIdx.x`, `kp_row = blockIdx.y * blockDim.y + threadIdx.y`,
`idx = kp_row * W + kp_col`, `r = kp_row`, `c = kp_col`: the same element for each thread, the threads now
two-dimensional, so the plans that work on 2-D thread indices (stencil-tile, transpose-tile, coalesce-xy)
read the neighbours above and below as threads of the block. A thread past the row (kp_col >= W) or past
the old launch's last thread does nothing.
"""
from __future__ import annotations

from kernelpro.profilers.analysis.digits import FlatIndex
from kernelpro.profilers.source import Kernel, SourceFile

from .text import span_text


def view(src: SourceFile, k: Kernel, fi: FlatIndex, old_threads: str) -> str:
    """The file with the kernel's flat index viewed as rows; old_threads: the old launch's thread count as C."""
    t, w = fi.type, fi.row_c
    subs = [(fi.decl.child_by_field_name("value").start_byte, fi.decl.child_by_field_name("value").end_byte,
             f"kp_row * ({w}) + kp_col")]
    for n, d in fi.uses:
        subs.append((n.start_byte, n.end_byte, fi.view(d, "kp_col", "kp_row")))
    for n, name, d in fi.updates:
        subs.append((n.start_byte, n.end_byte, f"{name} = {fi.view(d, 'kp_col', 'kp_row')}"))
    at = k.body.start_byte + 1
    head = (f"\n  // the flat index {fi.name} as rows of {w}: column kp_col, row kp_row (a 2-D grid)\n"
            f"  const {t} kp_col = blockIdx.x * blockDim.x + threadIdx.x;\n"
            f"  const {t} kp_row = blockIdx.y * blockDim.y + threadIdx.y;\n"
            f"  if (kp_col >= ({t})({w}) || (unsigned long long)kp_row * ({w}) + kp_col >= {old_threads}) return;")
    subs.append((at, at, head))
    return span_text(src, 0, len(src.data), subs)


def canonical(src: SourceFile, fi: FlatIndex) -> str:
    """The file with every digit of the flat index read from the index itself (`rest / d` with
    `rest = idx % (N * d)` as `((idx / (d)) % (N))`), so that analyses that follow quotients of the index
    alone (a gather's packs) see them."""
    subs = [(n.start_byte, n.end_byte, fi.canonical(d)) for n, d in fi.uses]
    subs += [(n.start_byte, n.end_byte, f"{name} = {fi.canonical(d)}") for n, name, d in fi.updates]
    return span_text(src, 0, len(src.data), subs)


def z_on_grid(src: SourceFile, k: Kernel) -> str | None:
    """The file with `blockIdx.z * blockDim.z + threadIdx.z` written `blockIdx.z`, for a launch whose blocks are
    one plane thick (the same z for each thread); None where threadIdx.z or blockDim.z is used otherwise."""
    from kernelpro.profilers.analysis.affine import index_poly
    from kernelpro.profilers.source import walk

    want = {("blockDim.z", "blockIdx.z"): 1, ("threadIdx.z",): 1}
    subs = []
    for n in walk(k.body):
        if n.type == "binary_expression" and not any(a <= n.start_byte < b for a, b, _ in subs) and \
                index_poly(src, n, {}) == want:
            subs.append((n.start_byte, n.end_byte, "blockIdx.z"))
    inside = lambda m: any(a <= m.start_byte < b for a, b, _ in subs)
    if not subs or any(m.type == "field_expression" and src.node_text(m) in ("threadIdx.z", "blockDim.z")
                       and not inside(m) for m in walk(k.body)):
        return None
    return span_text(src, 0, len(src.data), subs)


def grid_to_flat(src: SourceFile, k: Kernel, ys: list[str]) -> tuple[str, str] | None:
    """A 1-D block on a 2-D or 3-D grid whose y and z are only values (`int b = blockIdx.z;`) and whose x index
    `X = blockIdx.x * blockDim.x + threadIdx.x` guards all the work (`if (X < E) {...}` last, or
    `if (X >= E) return;`): the file with one flat index kp_i over E * ys, X = kp_i % E, blockIdx.y and
    blockIdx.z its higher digits (ys: the grid's y and z extents as C over the parameters), so that the
    plans of flat indices apply. (text, E as written); None where that is not the shape."""
    from kernelpro.profilers.analysis.affine import index_poly
    from kernelpro.profilers.source import walk

    body = src.node_text(k.body)
    if any(w in body for w in ("threadIdx.y", "threadIdx.z", "blockDim.y", "blockDim.z", "gridDim", "__shared__",
                               "__syncthreads")) or not ys:
        return None
    want = {("blockDim.x", "blockIdx.x"): 1, ("threadIdx.x",): 1}
    stmts = [c for c in k.body.named_children if c.type != "comment"]
    decl = next((s for s in stmts if s.type == "declaration" and len(s.children_by_field_name("declarator")) == 1
                 and (d := s.child_by_field_name("declarator")).type == "init_declarator"
                 and index_poly(src, d.child_by_field_name("value"), {}) == want), None)
    if decl is None:
        return None
    d = decl.child_by_field_name("declarator")
    x, value = src.node_text(d.child_by_field_name("declarator")), d.child_by_field_name("value")
    guard, bound, subs = None, None, []
    for s in stmts[stmts.index(decl) + 1:]:
        if s.type != "if_statement" or s.child_by_field_name("alternative") is not None:
            continue
        c = s.child_by_field_name("condition").named_children[0]
        while c.type == "parenthesized_expression":
            c = c.named_children[0]
        if c.type != "binary_expression":
            continue
        op, left, right = src.node_text(c.child_by_field_name("operator")), c.child_by_field_name("left"), \
            c.child_by_field_name("right")
        then = s.child_by_field_name("consequence")
        if op == "<" and src.node_text(left) == x and s == stmts[-1]:
            guard, bound = s, src.node_text(right)
            inner = then.named_children if then.type == "compound_statement" else [then]
            subs.append((s.start_byte, s.end_byte, "\n  ".join(src.node_text(n) for n in inner)))
        elif op == ">=" and src.node_text(left) == x and src.node_text(then).replace(" ", "") in ("return;", "{return;}"):
            guard, bound = s, src.node_text(right)
            subs.append((s.start_byte, s.end_byte, ""))
        break
    if guard is None:
        return None
    t = src.node_text(decl.child_by_field_name("type"))
    e = f"({bound})"
    yz = {"blockIdx.y": f"((kp_i / {e}) % ({ys[0]}))" if len(ys) > 1 else f"(kp_i / {e})"}
    if len(ys) > 1:
        yz["blockIdx.z"] = f"(kp_i / ({e} * ({ys[0]})))"
    for n in walk(k.body):
        if n.type == "field_expression" and src.node_text(n) in ("blockIdx.y", "blockIdx.z"):
            if src.node_text(n) not in yz:
                return None
            subs.append((n.start_byte, n.end_byte, yz[src.node_text(n)]))
    subs.append((value.start_byte, value.end_byte, f"kp_i % {e}"))
    total = " * ".join([e] + [f"({y})" for y in ys])
    at = k.body.start_byte + 1
    subs.append((at, at, f"\n  // the grid's y and z folded into one flat index with the x index {x}\n"
                         f"  const {t} kp_i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (kp_i < {total}) {{"))
    subs.append((k.body.end_byte - 1, k.body.end_byte - 1, "  }\n"))
    return span_text(src, 0, len(src.data), sorted(subs)), bound
