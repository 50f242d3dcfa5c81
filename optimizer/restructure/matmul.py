"""Matrix products (analysis/contraction.py) rewritten the way the SGEMM ladder goes: first the
coalescing remap (threadIdx.x on the output's contiguous dimension), then shared-memory tiles
with a register tile per thread.

The tiled kernel keeps the signature. Each block computes a BM x BN tile of the output: BK-deep
slabs of every operand go through padded (or XOR-swizzled) shared memory (loaded along the operand's
contiguous dimension in 16-byte pieces where aligned, guarded for any M, N, K, converted to the
accumulator type; with two stages the next slabs come through cp.async while this one is used), each
thread keeps TM x TN sums in registers. The tensor-core form (WMMA) takes bf16/fp16, TF32 where the
tolerance admits it, or 3xTF32 (fp32 split in two TF32 parts) where it does not. Then every output of
the thread's tile runs the kernel's own code as written (a lambda: its guards, alpha/beta/bias
epilogue and store), with its coordinates set and the k loop replaced by its update with the tile's
sum in place of the product.
"""
from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

from kernelpro.profilers.analysis.contraction import Contraction, _update, _zero, contractions
from kernelpro.profilers.analysis.affine import const, index_poly, poly_c, poly_text
from kernelpro.profilers.analysis.loops import statements, text, unparen, writes_in
from kernelpro.profilers.analysis.spelling import balanced
from kernelpro.profilers.source import SourceFile, parse_source, walk

from .launch import launch_sites, _call_args
from .text import NotThisShape, Refuse, in_terms_of, leaving_jump, span_text

LOW = ("__nv_bfloat16", "nv_bfloat16", "__half", "half", "bfloat16")
SWAP_HELPER = ("#ifndef KERNELPRO_SWAP_XY\n#define KERNELPRO_SWAP_XY\n// the launch's x and y exchanged "
               "(KernelPro's coalescing remap)\nstatic __host__ __device__ inline dim3 kp_swap_xy(dim3 d) "
               "{ return dim3(d.y, d.x, d.z); }\n#endif\n")
XY = {"threadIdx", "blockIdx", "blockDim", "gridDim"}


def product(src: SourceFile, kernel: str) -> Contraction:
    """The kernel's one matrix product; NotThisShape when it has none, Refuse with the reason."""
    k = src.kernel(kernel)
    if k is None:
        raise NotThisShape("no kernel")
    f = contractions(src, k)
    if not f.products:
        real = [r for r in f.refused if "not a matrix product" not in r.reason]  # dot products: other plans'
        if real:
            raise Refuse(real[0].reason)
        raise NotThisShape("no matrix product")
    if len(f.products) > 1:
        raise Refuse(f"{len(f.products)} matrix products in one kernel (one is rewritten at a time)")
    return f.products[0]


def one_output(src: SourceFile, kernel: str, block: list | None = None) -> str | None:
    """A thread that computes a small tile of outputs in named sums (`s0` at row, `s1` at row + 16, each updated in
    the k loop under its own guard and stored once after it under the same guard) read as the kernel of one
    output per thread that the tiles take: the first sum alone, its row from the thread's position. Only for the
    tiles and tensor cores, which set their own launch (the kernel made here covers the outputs with one thread
    each, not with the old grid). None where the sums are not the same product at rows (or columns) a constant apart.
    """
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    got = _one_output(src, k, kernel, block)
    if got is None and block:  # `row1 = row0 + blockDim.y`: the old launch's block read as numbers, offsets inlined
        fixed = block_as_numbers(src, k, block)
        if fixed is not None:
            src2 = parse_source(fixed, src.path)
            got = _one_output(src2, src2.kernel(kernel), kernel, block)
    return got


def one_of_grid(src: SourceFile, kernel: str, block: list | None) -> str | None:
    k = src.kernel(kernel)
    return _one_of_grid(src, k, block) if k is not None and k.body is not None else None


def _one_of_grid(src: SourceFile, k, block: list | None) -> str | None:
    """A thread's R x C tile of outputs in named sums (`c00 .. c11`, a lecture's register blocking): the k loop's
    body declares loads (`const float a1 = (r1 < M) ? A[r1 * K + k] : 0.f;`) and updates each sum once
    (`c10 += a1 * b0;`), each sum is stored once after the loop, and every sum's update and store, with its
    loads written in and their zero edges dropped, is the first one's with coordinates `r1 = r0 + 1` read as r0:
    the offsets fill 0..R-1 along one coordinate and 0..C-1 along the other, and each coordinate is R (C) times the
    thread's index. Read as the first sum alone, its coordinates the thread's own (the tiles set their own launch);
    the thread's bound is the kernel's early exit. None otherwise."""
    norm = lambda t: re.sub(r"\s+", "", t)  # noqa: E731
    written = {n for n, _ in writes_in(src, k.body)}
    moved: dict[str, tuple[str, int]] = {}  # `r1` -> ("r0", 1): a coordinate a constant after another
    for d in walk(k.body):
        if d.type == "init_declarator" and d.child_by_field_name("value") is not None:
            name = text(src, d.child_by_field_name("declarator"))
            m = re.fullmatch(r"\(?([A-Za-z_]\w*)\+(\d+)\)?", norm(text(src, d.child_by_field_name("value"))))
            if m and name not in written and m.group(1) not in written:
                moved[name] = (m.group(1), int(m.group(2)))
    for lp in k.loops:
        body = lp.node.child_by_field_name("body")
        if lp.node.type != "for_statement" or body is None or body.type != "compound_statement":
            continue
        local, ups = {}, []
        for st in statements(body):
            if st.type == "declaration" and len(st.children_by_field_name("declarator")) == 1:
                d = st.children_by_field_name("declarator")[0]
                if d.type == "init_declarator" and d.child_by_field_name("declarator").type == "identifier":
                    local[text(src, d.child_by_field_name("declarator"))] = (text(src, d.child_by_field_name("value")), st)
                    continue
            e = st.named_children[0] if st.type == "expression_statement" and st.named_children else None
            if e is None or e.type != "assignment_expression" or text(src, e.child_by_field_name("operator")) != "+=" \
                    or e.child_by_field_name("left").type != "identifier":
                ups = None
                break
            ups.append((text(src, e.child_by_field_name("left")), e.child_by_field_name("right"), st))
        if not ups or len(ups) < 2 or len({u[0] for u in ups}) != len(ups) or set(local) & written:
            continue
        accs = {u[0] for u in ups}
        if not _same_sums(src, k, accs, local):
            continue
        bound = {}  # base coordinate -> E of the kernel's early exit `if (.. || r0 >= E ..) return;`
        for b in {base for base, _ in moved.values()}:
            ex = _early_exit(src, k, lp.node, b, lambda n: norm(text(src, n)))
            part = next((x for x in _or_parts(norm(text(src, ex.child_by_field_name("condition"))))
                         if x.startswith(f"{b}>=")), None) if ex is not None else None
            if part is not None:
                bound[b] = part[len(b) + 2:]

        def edge(g: str) -> tuple[str, int] | None:
            """(base, offset) where g is `X < E`, X a moved coordinate and E its base's bound: an edge's guard."""
            g = g.strip("()")
            m = re.fullmatch(r"([A-Za-z_]\w*)<(.+)", g)
            if m is None or m.group(1) not in moved or bound.get(moved[m.group(1)][0]) != m.group(2):
                return None
            return moved[m.group(1)]

        def plain(node, text_=None):  # (text with the loop's locals written in and zero edges dropped, offsets)
            t = text(src, node) if text_ is None else text_
            for _ in range(4):
                t = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: f"({local[m.group(0)][0]})" if m.group(0) in local else m.group(0), t)
            q = parse_source(f"void kp_f() {{ kp_x = {t}; }}")
            subs = []
            for n in walk(q.root):  # `(r1 < M) ? v : 0.f` -> v (an edge's zero: the same product inside the bounds)
                alt = n.child_by_field_name("alternative") if n.type == "conditional_expression" else None
                if alt is not None and _zero(text(q, alt)) and not any(a <= n.start_byte < b for a, b, _ in subs):
                    if edge(norm(text(q, n.child_by_field_name("condition")))) is None:
                        return None, None  # (another condition: not an edge of the tile)
                    kept = text(q, n.child_by_field_name("consequence"))
                    subs.append((n.start_byte, n.end_byte, kept if n.parent.type == "parenthesized_expression"
                                 else f"({kept})"))
            t = span_text(q, 0, len(q.data), sorted(subs)).split("kp_x = ", 1)[1].rsplit(";", 1)[0]
            offs, names = {}, set(re.findall(r"\b[A-Za-z_]\w*\b", t))
            for name in names & set(moved):
                base, d = moved[name]
                if offs.get(base, d) != d or base in names:  # (`r1` beside `r0`: not one coordinate moved)
                    return None, None
                offs[base] = d
                t = re.sub(rf"\b{name}\b", base, t)
            return norm(t), offs
        reads = {}
        for n in walk(k.body):  # each sum read once after the loop: its store `out[..] = sum;`
            if n.type == "identifier" and text(src, n) in accs and n.start_byte > lp.node.end_byte:
                reads.setdefault(text(src, n), []).append(n)
        shapes, stores = [], {}
        for acc, rhs, _ in ups:
            r = reads.get(acc, [])
            a = r[0].parent if len(r) == 1 else None
            if a is None or a.type != "assignment_expression" or a.child_by_field_name("right") != r[0] \
                    or text(src, a.child_by_field_name("operator")) != "=" or a.parent.type != "expression_statement":
                break
            u, uo = plain(rhs)
            w, wo = plain(a.child_by_field_name("left"))
            if u is None or w is None or {b: d for b, d in uo.items() if d} != {b: d for b, d in wo.items() if d}:
                break  # (the sum's loads and its store at the same moved coordinates)
            guards, up = [], a.parent.parent
            while up is not None and (up.start_byte, up.end_byte) != (k.body.start_byte, k.body.end_byte):
                if up.type == "if_statement":
                    if up.child_by_field_name("alternative") is not None:
                        guards.append(None)
                    else:
                        guards += [edge(x) for x in norm(text(src, up.child_by_field_name("condition"))).strip(
                            "()").split("&&")]
                elif up.type not in ("compound_statement", "expression_statement"):
                    guards.append(None)
                up = up.parent
            if any(g is None or wo.get(g[0]) != g[1] for g in guards):
                break  # (a store guarded by anything but its own moved coordinates' bounds)
            shapes.append((u, w, wo))
            stores[acc] = a.parent
        else:
            if len({(u, w) for u, w, _ in shapes}) != 1:
                continue  # not the same product at moved coordinates
            bases = sorted({b for _, _, o in shapes for b in o})
            counts = {b: 1 + max(o.get(b, 0) for _, _, o in shapes) for b in bases}
            tiles = {tuple(o.get(b, 0) for b in bases) for _, _, o in shapes}
            want = 1
            for b in bases:
                want *= counts[b]
            if not bases or len(tiles) != len(shapes) or len(shapes) != want:
                continue  # the offsets fill the R x C tile once each
            first = next(i for i, (_, _, o) in enumerate(shapes) if not any(o.values()))
            subs = []
            for b in bases:
                d = _decl_of(src, k, b)
                v = d.child_by_field_name("value") if d is not None else None
                dim = _thread_times(src, k, v, counts[b], block) if v is not None and b not in written else None
                if dim is None or b not in bound:  # (the thread's bound: the kernel's early exit)
                    break
                subs.append((v.start_byte, v.end_byte, f"blockIdx.{dim} * blockDim.{dim} + threadIdx.{dim}"))
            else:
                keep = ups[first]
                used = set(re.findall(r"\b[A-Za-z_]\w*\b", text(src, keep[1])))
                for _ in range(4):
                    used |= {w for name in list(used) if name in local
                             for w in re.findall(r"\b[A-Za-z_]\w*\b", local[name][0])}
                gone = [st for name, (_, st) in local.items() if name not in used]
                for acc, _, st in ups:
                    if acc != keep[0]:
                        gone.append(st)
                        gone.append(stores[acc])
                        d = _decl_of(src, k, acc)
                        if d is not None:
                            subs.append(_declarator_span(src, d))
                gone = _emptied(src, gone)
                subs += [(g.start_byte, g.end_byte, "") for g in gone]
                return span_text(src, 0, len(src.data), sorted(subs))
    return None


def _same_sums(src: SourceFile, k, accs: set, local: dict) -> bool:
    """The named sums are declared alike, each zero and written only by its update; the loop's locals alike too."""
    writes = [n for n, _ in writes_in(src, k.body)]
    types = set()
    for acc in accs:
        d = _decl_of(src, k, acc)
        v = d.child_by_field_name("value") if d is not None else None
        if v is None or not _zero(text(src, v)) or writes.count(acc) != 1:
            return False
        types.add(text(src, d.parent.child_by_field_name("type")).replace("const", "").strip())
    for _, st in local.values():
        types_l = text(src, st.child_by_field_name("type")).replace("const", "").strip()
        if types_l not in types:
            return False
    return len(types) == 1


def _thread_times(src: SourceFile, k, v, n: int, block: list | None) -> str | None:
    """D where v is `n * (blockIdx.D * blockDim.D + threadIdx.D)` (either order; n and the block's size along D
    as numbers or the file's constants: `(blockIdx.y * BY + threadIdx.y) * MICRO`), else None."""
    got = _strided_threads(src, v, k)
    if got is not None:
        return got[0] if got[1] == n else None
    v = unparen(v)
    if v is None or v.type != "binary_expression" or text(src, v.child_by_field_name("operator")) != "*":
        return None
    consts = {**src.constants, **src.instantiated(k)}
    a, b = v.child_by_field_name("left"), v.child_by_field_name("right")
    inner = b if src.eval_int(a, consts) == n else a if src.eval_int(b, consts) == n else None
    t = re.sub(r"\s+", "", text(src, unparen(inner))) if inner is not None else ""
    m = re.fullmatch(r"blockIdx\.([xyz])\*(\w+)\+threadIdx\.\1", t) or \
        re.fullmatch(r"threadIdx\.([xyz])\+blockIdx\.\1\*(\w+)", t)
    if m is None:
        return None
    d, size = m.group(1), m.group(2)
    num = int(size) if size.isdigit() else consts.get(size)
    ok = block and len(block) > "xyz".index(d) and str(block["xyz".index(d)]).isdigit() and \
        int(block["xyz".index(d)]) == num
    return d if ok else None


def _emptied(src: SourceFile, gone: list) -> list:
    """The statements to remove, each replaced by its if (without else) or block when that holds nothing else."""
    ids = {g.id for g in gone}
    changed = True
    while changed:
        changed = False
        for g in list(gone):
            p = g.parent
            if p is None or p.id in ids:
                continue
            if p.type == "compound_statement" and p.parent is not None and p.parent.type == "if_statement" and \
                    all(c.id in ids for c in statements(p)):
                p = p.parent
            elif not (p.type == "if_statement" and p.child_by_field_name("consequence") is not None and
                      p.child_by_field_name("consequence").id == g.id):
                continue
            if p.type == "if_statement" and p.child_by_field_name("alternative") is None and p.id not in ids:
                gone.append(p)
                ids.add(p.id)
                changed = True
    return [g for g in gone if not any(o.id != g.id and o.start_byte <= g.start_byte and g.end_byte <= o.end_byte
                                       for o in gone)]


def block_as_numbers(src: SourceFile, k, block: list) -> str | None:
    """The file with the kernel's blockDim.d written as the launch's numbers and each local declared
    `int r1 = r0 + <number>;` (never assigned again) inlined as `(r0 + <number>)`; None where nothing changes."""
    subs = []
    for n in walk(k.body):
        if n.type == "field_expression" and text(src, n.child_by_field_name("argument")) == "blockDim":
            d = "xyz".index(text(src, n.child_by_field_name("field"))[-1])
            try:
                subs.append((n.start_byte, n.end_byte, str(int(block[d]) if d < len(block) else 1)))
            except (TypeError, ValueError):
                return None
    if not subs:
        return None
    once = parse_source(span_text(src, 0, len(src.data), subs), src.path)
    k1 = once.kernel(k.name)
    assigned = {name for name, _ in writes_in(once, k1.body)}
    subs = []
    for d in walk(k1.body):
        if d.type != "declaration" or len(d.children_by_field_name("declarator")) != 1:
            continue
        x = d.children_by_field_name("declarator")[0]
        v = x.child_by_field_name("value") if x.type == "init_declarator" else None
        name = text(once, x.child_by_field_name("declarator")) if v is not None else None
        m = re.fullmatch(r"(\w+)\s*\+\s*\d+", text(once, v).strip()) if name is not None else None
        if name is None or name in assigned or m is None or m.group(1) in assigned:
            continue
        subs.append((d.start_byte, d.end_byte, ""))
        subs += [(n.start_byte, n.end_byte, f"({text(once, v)})") for n in walk(k1.body)
                 if n.type == "identifier" and text(once, n) == name and not (d.start_byte <= n.start_byte < d.end_byte)]
    from .taps import fold
    return fold(span_text(once, 0, len(once.data), subs) if subs else once.text, src.path, k.name)


def _one_output(src: SourceFile, k, kernel: str, block: list | None):
    norm = lambda n: re.sub(r"\s+", "", text(src, n))  # noqa: E731
    for lp in k.loops:
        body = lp.node.child_by_field_name("body")
        if lp.node.type != "for_statement" or body is None or body.type != "compound_statement":
            continue
        ups = []  # (sum, guard text, the whole statement, the update's value)
        for st in body.named_children:
            if st.type == "comment" or st.type == "declaration":
                continue
            guard, inner = None, st
            if st.type == "if_statement" and st.child_by_field_name("alternative") is None:
                guard, inner = norm(st.child_by_field_name("condition")).strip("()"), st.child_by_field_name("consequence")
                inner = inner.named_children[0] if inner.type == "compound_statement" and len(inner.named_children) == 1 \
                    else inner
            e = inner.named_children[0] if inner.type == "expression_statement" and inner.named_children else None
            if e is None or e.type != "assignment_expression" or text(src, e.child_by_field_name("operator")) != "+=" \
                    or e.child_by_field_name("left").type != "identifier":
                ups = None
                break
            ups.append((text(src, e.child_by_field_name("left")), guard, st, norm(e.child_by_field_name("right"))))
        if not ups or len(ups) < 2 or len({u[0] for u in ups}) != len(ups):
            continue
        # each later sum: the first one's value, guard and store at a coordinate moved by a constant
        stores = {}
        for n in walk(k.body):
            if n.type == "assignment_expression" and n.start_byte > lp.node.end_byte \
                    and text(src, n.child_by_field_name("operator")) == "=":
                r = n.child_by_field_name("right")
                if r is not None and r.type == "identifier" and text(src, r) in {u[0] for u in ups}:
                    stmt = n.parent
                    g = stmt.parent if stmt.parent is not None and stmt.parent.type == "if_statement" else None
                    stores.setdefault(text(src, r), []).append((stmt, g))
        if any(len(stores.get(u[0], [])) != 1 for u in ups):
            continue
        writes = [n for n in walk(k.body) if n.type == "assignment_expression"
                  and n.child_by_field_name("left").type in ("subscript_expression", "pointer_expression")]
        if len(writes) != len(ups):  # the sums' stores are all the thread writes
            continue
        first, s0_store = ups[0], stores[ups[0][0]][0]
        moved = _moved_coordinate(src, k, first, ups[1:], stores, norm, lp.node)
        if moved is None:
            continue
        coord, offs = moved
        exit_ = _early_exit(src, k, lp.node, coord, norm)  # `if (row >= M || col >= N) return;` before the loop
        if (s0_store[1] is None or not re.search(rf"\b{coord}<", norm(s0_store[1].child_by_field_name("condition")))) \
                and exit_ is None:
            continue  # the output's bound must be its own guard (the old launch's reach is not the new kernel's)
        d = _decl_of(src, k, coord)
        v = d.child_by_field_name("value") if d is not None else None
        per = _rows_per_block(src, v) if v is not None else None
        strided = _strided_threads(src, v, k) if v is not None and per is None else None  # `2 * (bx * bd + tx)`
        if strided is not None:  # each thread's C adjacent outputs: C times the thread's index, offsets 0..C-1
            if sorted([0] + offs) != list(range(strided[1])):
                continue
            dim = strided[0]
        else:
            if per is None or block is None or len(block) <= "xyz".index(per[0]):
                continue
            dim, rows = per
            b = int(block["xyz".index(dim)])
            if sorted([0] + offs) != [b * u for u in range(len(offs) + 1)] or b * (len(offs) + 1) != rows:
                continue  # the block's threads and the sums' offsets cover each block's rows once, no more, no less
        subs = []
        for name, guard, st, _ in ups[1:]:
            subs.append((st.start_byte, st.end_byte, ""))
            stmt, g = stores[name][0]
            node = g if g is not None else stmt
            subs.append((node.start_byte, node.end_byte, ""))
            decl = _decl_of(src, k, name)
            if decl is not None:  # `float s0 = 0.f, s1 = 0.f;`: s1's declarator (and its comma) goes
                subs.append(_declarator_span(src, decl))
        if s0_store[1] is not None:
            cond = text(src, s0_store[1].child_by_field_name("condition"))
            if first[1] is not None and norm(s0_store[1].child_by_field_name("condition")).strip("()") == first[1]:
                inner = first[2].child_by_field_name("consequence")  # the sum's guard is its store's: unmasked
                subs.append((first[2].start_byte, first[2].end_byte, text(src, inner)))
            # the one output left is stored under its guard alone: the thread ends without it (its bound, read by
            # the recogniser)
            subs.append((lp.node.start_byte, lp.node.start_byte, f"if ({_negated(cond)}) return;\n  "))
        subs.append((v.start_byte, v.end_byte, f"blockIdx.{dim} * blockDim.{dim} + threadIdx.{dim}"))
        return span_text(src, 0, len(src.data), subs)
    return None


def _negated(cond: str) -> str:
    """`(a < b && c < d)` as `a >= b || c >= d` (the early-exit spelling of a guard), else `!(cond)`."""
    inner = cond.strip()
    inner = inner[1:-1] if inner.startswith("(") and inner.endswith(")") else inner
    flip = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}
    parts = []
    for part in inner.split("&&"):
        m = re.fullmatch(r"\s*([\w.+\-* ()]+?)\s*(<=|>=|<|>)\s*([\w.+\-* ()]+?)\s*", part)
        if m is None or "(" in part and part.count("(") != part.count(")"):
            return f"!({inner})"
        parts.append(f"{m.group(1)} {flip[m.group(2)]} {m.group(3)}")
    return " || ".join(parts)


def _strided_threads(src: SourceFile, v, k=None) -> tuple[str, int] | None:
    """(D, C) of `C * (blockIdx.D * blockDim.D + threadIdx.D)` (either order inside and out), C a number: each
    thread starts C outputs along D."""
    t = re.sub(r"\s+", "", text(src, v))
    m = re.fullmatch(r"(\d+)\*(\([^()]*\)|[A-Za-z_]\w*)", t) or re.fullmatch(r"(\([^()]*\)|[A-Za-z_]\w*)\*(\d+)", t)
    if m is None:
        return None
    c, inner = (m.group(1), m.group(2)) if m.group(1).isdigit() else (m.group(2), m.group(1))
    inner = inner[1:-1] if inner.startswith("(") else inner
    if re.fullmatch(r"[A-Za-z_]\w*", inner) and k is not None:  # `2 * gx_` with `const int gx_ = bx * bd + tx;`
        d = _decl_of(src, k, inner)
        if d is None or any(w == inner for w, _ in writes_in(src, k.body)):
            return None
        inner = re.sub(r"\s+", "", text(src, d.child_by_field_name("value")))
    dims = set(re.findall(r"(?:blockIdx|blockDim|threadIdx)\.([xyz])", inner))
    if len(dims) != 1 or int(c) < 2:
        return None
    d = dims.pop()
    if inner not in (f"blockIdx.{d}*blockDim.{d}+threadIdx.{d}", f"threadIdx.{d}+blockIdx.{d}*blockDim.{d}",
                     f"blockDim.{d}*blockIdx.{d}+threadIdx.{d}", f"threadIdx.{d}+blockDim.{d}*blockIdx.{d}"):
        return None
    return d, int(c)


def _or_parts(cond: str) -> list[str]:
    """`(a>=b||c>=d)` -> ['a>=b', 'c>=d']; [] where the condition is not such an `||` of parts (an `&&` in it)."""
    c = cond
    while c.startswith("(") and c.endswith(")") and balanced(c[1:-1]):
        c = c[1:-1]
    if "&&" in c or "?" in c:
        return []
    parts = [x.strip("()") if balanced(x.strip("()")) else x for x in c.split("||")]
    return parts if all(balanced(x) for x in parts) else []


def _early_exit(src: SourceFile, k, loop, coord: str, norm):
    """`if (... || coord >= E ...) return;` at the kernel's top level before the loop, or None."""
    for st in k.body.named_children:
        if st.start_byte >= loop.start_byte:
            break
        if st.type == "if_statement" and st.child_by_field_name("alternative") is None \
                and norm(st.child_by_field_name("consequence")).rstrip(";").strip("{}").rstrip(";") == "return" \
                and any(re.fullmatch(rf"{coord}>=\w+", part) for part in _or_parts(norm(st.child_by_field_name("condition")))):
            return st
    return None


def _rows_per_block(src: SourceFile, v) -> tuple[str, int] | None:
    """(D, C) of `blockIdx.D * C + threadIdx.D` (either order), C a number: each block's rows along D."""
    t = re.sub(r"\((\d+)\)", r"\1", re.sub(r"\s+", "", text(src, v))) if v is not None else ""
    m = re.fullmatch(r"blockIdx\.([xyz])\*(\d+)\+threadIdx\.\1", t) or \
        re.fullmatch(r"threadIdx\.([xyz])\+blockIdx\.\1\*(\d+)", t)
    return (m.group(1), int(m.group(2))) if m else None


def _moved_coordinate(src: SourceFile, k, first, rest, stores, norm, loop=None):
    """(coordinate, offsets) where every later sum's update, guard and store are the first's with one coordinate
    `r` read as `r + c` (c a distinct positive number); None otherwise. An unguarded first store after an early
    exit `if (r >= E) return;` is guarded by `r < E`."""
    name0, guard0, _, value0 = first
    stmt0, g0 = stores[name0][0]
    store0 = norm(stmt0) + (norm(g0.child_by_field_name("condition")) if g0 is not None else "")
    exits = {}
    if g0 is None and loop is not None:
        for st in k.body.named_children:
            if st.start_byte >= loop.start_byte:
                break
            if st.type == "if_statement" and "return" in norm(st.child_by_field_name("consequence")):
                for part in _or_parts(norm(st.child_by_field_name("condition"))):
                    m = re.fullmatch(r"(\w+)>=(\w+)", part)
                    if m:
                        exits[m.group(1)] = m.group(2)

    def own(guard, g):  # an update under its own store's guard is the unguarded one: the sum counts only if stored
        return "" if g is not None and guard == norm(g.child_by_field_name("condition")).strip("()") else guard or ""
    guard0 = own(guard0, g0)
    for coord in re.findall(r"[A-Za-z_]\w*", value0):
        offs = []
        if g0 is None and coord in exits:
            store0 = norm(stmt0) + f"(({coord}<{exits[coord]}))"
        for name, guard, _, value in rest:
            m = re.search(rf"\(?\b{coord}\+(\d+)\)?", value)
            if m is None:
                break
            c = m.group(1)
            put = lambda t: re.sub(rf"\b{coord}\b", f"({coord}+{c})", t)  # noqa: E731
            same = lambda a, b: _same_expr(a, b)  # noqa: E731
            stmt, g = stores[name][0]
            store = norm(stmt).replace(name, name0) + (norm(g.child_by_field_name("condition")) if g is not None else "")
            if not (same(put(value0), value) and same(put(guard0), own(guard, g)) and same(put(store0), store)):
                break
            offs.append(int(c))
        else:
            if offs and len(set(offs)) == len(offs) and 0 not in offs:
                return coord, offs
    return None


def _same_expr(a: str, b: str) -> bool:
    """Two C expressions (or statements) the same up to redundant parentheses: compared as parsed trees (`(r+16)*K`
    is not `r+16*K`); False where either is not plain arithmetic, subscripts and comparisons."""
    import ast

    def canon(n):  # sums and products as sorted lists of their terms: `k*N+(c+16)` is `k*N+c+16`
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub)):
            terms = []

            def walk_sum(x, sign):
                if isinstance(x, ast.BinOp) and isinstance(x.op, (ast.Add, ast.Sub)):
                    walk_sum(x.left, sign)
                    walk_sum(x.right, sign if isinstance(x.op, ast.Add) else -sign)
                else:
                    terms.append((sign, canon(x)))
            walk_sum(n, 1)
            return ("sum", tuple(sorted(terms)))
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult):
            fs = []

            def walk_prod(x):
                if isinstance(x, ast.BinOp) and isinstance(x.op, ast.Mult):
                    walk_prod(x.left)
                    walk_prod(x.right)
                else:
                    fs.append(canon(x))
            walk_prod(n)
            return ("prod", tuple(sorted(fs)))
        if isinstance(n, ast.AST):
            return (type(n).__name__,) + tuple((f, canon(v)) for f, v in ast.iter_fields(n) if f != "ctx")
        if isinstance(n, list):
            return tuple(canon(x) for x in n)
        return repr(n)

    def tree(t: str):
        t = t.strip().rstrip(";").replace("&&", " and ").replace("||", " or ")
        try:
            return canon(ast.parse(t, mode="exec"))
        except SyntaxError:
            return None
    ta, tb = tree(a), tree(b)
    return ta is not None and ta == tb


def _equal_sizes(a: str, b: str) -> bool:
    """Two size expressions equal: the same tree, or the same polynomial of the sizes (`(N * N) / (N)` is N; C's
    integer `/` as the spec expressions' `//`)."""
    from kernelpro.profilers.runtime import symbolic

    if _same_expr(a, b):
        return True
    pa, pb = (symbolic.parse(re.sub(r"(?<!/)/(?!/)", "//", x)) for x in (a, b))
    return pa is not None and pa == pb


def symmetric(c: Contraction) -> bool:
    """C = A Aᵀ: one product of an array with itself, the column's index where the row's is (same strides and
    offset), over a square output, nothing depending on the row apart from the column: C[i][j] = C[j][i], and
    bit for bit (the same products summed in the same order). Only the tiles on and below the diagonal need
    computing, each written twice."""
    if len(c.terms) != 1 or not c.plain or c.causal or c.mask or c.condition or c.per_thread != (1, 1):
        return False  # (a distance of an array's rows to each other is symmetric too, but not every function is)
    if len(c.row.atoms) != 1 or len(c.col.atoms) != 1 or not _equal_sizes(c.M, c.N):
        return False
    (a, b), r, q = c.terms[0], c.row.atoms[0], c.col.atoms[0]
    if a.array != b.array or not _same_expr(a.k_stride, b.k_stride) or not _same_expr(a.offset, b.offset):
        return False
    if r not in a.strides or q not in b.strides or r in b.strides or q in a.strides:
        return False
    rest_a = {x: v for x, v in a.strides.items() if x != r}
    rest_b = {x: v for x, v in b.strides.items() if x != q}
    return _same_expr(a.strides[r], b.strides[q]) and rest_a.keys() == rest_b.keys() and all(
        _same_expr(v, rest_b[x]) for x, v in rest_a.items())


SYMMETRIC = ("; C is symmetric (C = A Aᵀ: the same array, the row's index where the column's is), so only the "
             "tiles on and below the diagonal are computed, each also written to its mirror (half the work)")


def _upper_half(sym: bool, bm: int, bn: int, kept: bool, ind: str) -> list[str]:
    if not sym:
        return []
    assert bm == bn and not kept, "a symmetric product's tiles are square, on the grid of tiles"
    return [f"{ind}if (kp_j0 > kp_i0) return;  // C is symmetric: the tiles above the diagonal are the mirrors of "
            "those below"]


def _mirror(replay: str, ind: str) -> list[str]:
    """The kernel as written for the mirrored output (kp_j, kp_i) of an off-diagonal tile (see symmetric)."""
    return [f"{ind}if (kp_i0 != kp_j0) {{  // C is symmetric: this tile's mirror above the diagonal, the same sums",
            f"{ind}  const long long kp_mi = kp_j, kp_mj = kp_i;",
            f"{ind}  const long long kp_i = kp_mi, kp_j = kp_mj;",
            f"{ind}  [&]() {{", f"{ind}    {replay}", f"{ind}  }}();", f"{ind}}}"]


def _declarator_span(src: SourceFile, decl) -> tuple[int, int, str]:
    """The bytes that remove one declarator of a declaration, with the comma before (or after) it."""
    parent = decl.parent
    decls = parent.children_by_field_name("declarator")
    if len(decls) == 1:
        return parent.start_byte, parent.end_byte, ""
    i = next(j for j, d in enumerate(decls) if d.start_byte == decl.start_byte)
    if i > 0:
        return decls[i - 1].end_byte, decl.end_byte, ""
    return decl.start_byte, decls[1].start_byte, ""


def unstride(src: SourceFile, kernel: str) -> str | None:
    """The kernel with its grid- or block-stride loops over the outputs, `for (T i = first; i < E; i += stride)
    body` (stride through gridDim or blockDim, first through threadIdx) as the kernel's only statement (after
    declarations), or as the only statement of such a loop's body (a 2-D grid-stride nest), read as one output
    per thread: `{ T i = first; if (i < E) body }`. Only for the analysis: the tiled kernels launch a grid of
    their own over every output. None where there is no such loop."""
    out, cur = None, src
    for _ in range(3):
        one = _unstride_one(cur, kernel, exits=out is None)  # (an exit only before the outermost loop: one inside
        # a loop read one pass a thread ended the thread's later passes)
        if one is None:
            break
        out, cur = one, SourceFile(one, src.path)
    return out


def strides_by_grid(src: SourceFile, k, step, dims: str = "gridDim blockDim") -> bool:
    """The loop's update steps by gridDim or blockDim (the names in `dims`), as written or through a local of the
    kernel's top level declared with it (`const size_t step = (size_t)gridDim.x * blockDim.x;`)."""
    def grid(t: str) -> bool:
        return any(d in t for d in dims.split())
    if grid(text(src, step)):
        return True
    names = {text(src, n) for n in walk(step) if n.type == "identifier"}
    for d in k.body.named_children:
        if d.type != "declaration":
            continue
        for dec in d.children_by_field_name("declarator"):
            if dec.type == "init_declarator" and text(src, dec.child_by_field_name("declarator")) in names and \
                    grid(text(src, dec.child_by_field_name("value"))):
                return True
    return False


def _unstride_one(src: SourceFile, kernel: str, exits: bool = True) -> str | None:
    from kernelpro.profilers.analysis.loops import _header

    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    lp, block = None, k.body
    for _ in range(6):  # down through the single statements: `{ i = ..; if (i < M) for (j ...) }`, and early exits
        # at the kernel's top level (`if (row >= M) return;`)
        top = exits and (block.start_byte, block.end_byte) == (k.body.start_byte, k.body.end_byte)
        stmts = [s for s in block.named_children if s.type not in ("comment", "declaration")
                 and not (top and _exits(src, s))] if block.type == "compound_statement" else [block]
        if len(stmts) != 1:
            return None
        st = stmts[0]
        if st.type == "for_statement":
            step, init = st.child_by_field_name("update"), st.child_by_field_name("initializer")
            if step is not None and init is not None and strides_by_grid(src, k, step) \
                    and "threadIdx" in text(src, init):
                lp = st
                break
            return None
        if st.type == "if_statement" and st.child_by_field_name("alternative") is None:
            block = st.child_by_field_name("consequence")
        elif st.type == "compound_statement":
            block = st
        else:
            return None
    if lp is None:
        return None
    h = _header(src, lp)
    if h.get("cmp") != "<" or leaving_jump(lp) is not None or any(
            n.type == "return_statement" for n in walk(lp.child_by_field_name("body"))):
        return None  # (a return in the body ends the thread's later passes too: not one output a thread)
    init = lp.child_by_field_name("initializer")
    cond = text(src, lp.child_by_field_name("condition"))
    body = text(src, lp.child_by_field_name("body"))
    init_t = text(src, init).rstrip(";")
    subs = [(lp.start_byte, lp.end_byte, f"{{ {init_t}; if ({cond}) {body} }}")]
    subs += [(d.start_byte, d.end_byte, "") for d in stride_locals(src, k, lp.child_by_field_name("update"))]
    return span_text(src, 0, len(src.data), sorted(subs))


def _exits(src: SourceFile, st) -> bool:
    """`if (row >= M) return;`: a statement that only leaves the kernel (no else)."""
    if st.type != "if_statement" or st.child_by_field_name("alternative") is not None:
        return False
    cons = st.child_by_field_name("consequence")
    inner = statements(cons) if cons.type == "compound_statement" else [cons]
    return len(inner) == 1 and inner[0].type == "return_statement" and not inner[0].named_children


def stride_locals(src: SourceFile, k, update) -> list:
    """The kernel's top-level declarations of locals that a grid-stride loop's update alone reads
    (`const size_t step = (size_t)gridDim.x * blockDim.x;`): they go with the loop when it is read one pass a
    thread (they read gridDim, which a new launch changes)."""
    used = [text(src, n) for n in walk(k.body) if n.type == "identifier"]
    stepped = {text(src, n) for n in walk(update) if n.type == "identifier"}
    out = []
    for d in k.body.named_children:
        decs = d.children_by_field_name("declarator") if d.type == "declaration" else []
        if len(decs) == 1 and decs[0].type == "init_declarator":
            name = text(src, decs[0].child_by_field_name("declarator"))
            if name in stepped and used.count(name) == 2 and "Dim" in text(src, decs[0].child_by_field_name("value")):
                out.append(d)
    return out


# ---------------------------------------------------------------- coalescing remap


def needs_remap(c: Contraction) -> bool:
    """The output's contiguous dimension comes from threadIdx.y while its other one comes from x."""
    cont = c.out.contiguous
    axis = c.col if cont in c.col.atoms else c.row if cont in c.row.atoms else None
    other = c.row if axis is c.col else c.col
    return axis is not None and axis.thread == "y" and other.thread == "x"


def swap_xy(src: SourceFile, kernel: str) -> str:
    """The file with x and y exchanged in the kernel's thread indices and in its own launches."""
    k = src.kernel(kernel)
    for n in walk(k.body):
        if n.type == "call_expression":
            name = text(src, n.child_by_field_name("function"))
            if "shfl" in name or "syncwarp" in name or "ballot" in name or "__activemask" in name:
                raise Refuse(f"line {n.start_point[0] + 1}: {name} depends on which threads form a warp")
    subs = []
    for n in walk(k.body):
        if n.type == "field_expression" and text(src, n.child_by_field_name("argument")) in XY:
            f = n.child_by_field_name("field")
            t = text(src, f)
            if t in ("x", "y"):
                subs.append((f.start_byte, f.end_byte, "y" if t == "x" else "x"))
    for call, cfg, args, host in launch_sites(src, kernel):
        if len(args) >= 2:
            for a in args[:2]:
                subs.append((a.start_byte, a.end_byte, f"kp_swap_xy({text(src, a)})"))
    new = span_text(src, 0, len(src.data), subs)
    at = _top_of(src, k)
    return new[:at] + SWAP_HELPER + new[at:] if "kp_swap_xy(" in new[at:] else new


def _top_of(src: SourceFile, k) -> int:
    """Where to insert a helper: before the kernel's definition (and its template header)."""
    n = k.node
    while n.parent is not None and n.parent.type in ("template_declaration", "linkage_specification"):
        n = n.parent
    return n.start_byte


# ---------------------------------------------------------------- shared-memory tiles


def _acc_type(t: str) -> str:
    """Sums in float for float, half and bf16 inputs; in double for double; a template parameter's
    sums in that type."""
    if "double" in t:
        return "double"
    words = t.replace("const", "").split()
    if words and (set(words) <= {"unsigned", "signed", "int", "long", "short", "char"} or
                  re.fullmatch(r"u?int(8|16|32|64)_t|size_t", words[0]) and len(words) == 1):
        # integer sums stay integers (packed words summed by __dp4a would lose bits in float); narrow ones in int
        if "long" in words or words[0] in ("int64_t", "uint64_t", "size_t"):
            return " ".join(words)
        return "unsigned" if "unsigned" in words or words[0].startswith("uint") else "int"
    known = ("float", "half", "bfloat16", "__half", "int", "long", "short", "char", "unsigned")
    return t if t.isidentifier() and not any(w in t for w in known) else "float"


_NAME = r"(?<![\w.])[A-Za-z_]\w*"  # a name, not a literal's suffix (`1.0f`, `2u`) or a member (`.x`)


def _names_ok(src: SourceFile, k, expr: str) -> bool:
    params = {p.name for p in k.params} | {n for kind, n in (k.template_params or []) if kind == "value"}
    return all(w in params or w in src.constants or w in src.macros or w in ("NULL", "nullptr", "size_t", "long",
                                                                            "int", "unsigned", "gridDim", "min", "max")
               or w in ("x", "y", "z") for w in re.findall(_NAME, expr))


def in_params(src: SourceFile, k, expr: str | None, depth: int = 0) -> str | None:
    """expr with each local it reads replaced by its value, where that is written in the parameters (`hs` for
    `int hs = C / NH;`, a local never assigned again): the sizes the tiled kernel's launch is written in."""
    if expr is None or _names_ok(src, k, expr) or depth > 4:
        return expr if expr is not None and _names_ok(src, k, expr) else None
    assigned = {text(src, unparen(n.child_by_field_name("left") or n.child_by_field_name("argument")))
                for n in walk(k.body) if n.type in ("assignment_expression", "update_expression")}

    def one(m):
        w = m.group(0)
        if _names_ok(src, k, w):
            return w
        d = _decl_of(src, k, w)
        v = d.child_by_field_name("value") if d is not None and w not in assigned else None
        got = in_params(src, k, text(src, v), depth + 1) if v is not None else None
        return f"({got})" if got is not None else "\0"
    out = re.sub(_NAME, one, expr)
    return None if "\0" in out else out


def axis_loops(src: SourceFile, k, c: Contraction) -> dict:
    """var -> loop node, for the output's row or column given by a loop around the k loop
    (`for (int i = 0; i < hs; i++) { ... the k loop ...; out[i] = sum; }`, what passes.sums_into_locals makes of
    llm.c's attention_value_kernel1)."""
    out = {}
    for axis in (c.row, c.col):
        if axis.thread == "loop" and len(axis.atoms) == 1:
            lp = loop_around(src, k, c, axis.atoms[0])
            if lp is not None:
                out[axis.atoms[0]] = lp
    return out


def _grid_reads(src: SourceFile, k, c: Contraction, kept: bool) -> str | None:
    """A read of the launch's shape outside the coordinates' definitions that the tiles' new launch changes
    (`scale[blockIdx.z]` where the grid's z is now the whole batch, `gridDim.y` as a head count, any blockDim):
    said with its line. The grid's z is as it was without a batch or with blockIdx.z alone; kept, x and y too."""
    decls = [d for d in (_decl_of(src, k, a) for a in c.coords) if d is not None]
    same_z = c.batch is None or c.batch.thread == "block z"
    for n in walk(k.body):
        if n.type != "field_expression" or text(src, n.child_by_field_name("argument")) not in ("blockIdx", "gridDim",
                                                                                               "blockDim"):
            continue
        if any(d.start_byte <= n.start_byte < d.end_byte for d in decls):
            continue
        what, axis = text(src, n.child_by_field_name("argument")), text(src, n.child_by_field_name("field"))
        if what != "blockDim" and (kept and axis in ("x", "y") or same_z and axis == "z"):
            continue
        return (f"line {n.start_point[0] + 1} reads `{what}.{axis}` outside the output's coordinates, and the tiles "
                f"launch another {'block' if what == 'blockDim' else 'grid'}")
    return None


def check_tiles(src: SourceFile, kernel: str, c: Contraction, kept: bool = False) -> dict:
    """Why the tiled rewrite does not apply (Refuse), else the names it needs."""
    k = src.kernel(kernel)
    if c.per_thread != (1, 1):
        raise Refuse(f"each thread already computes {c.per_thread[0]} x {c.per_thread[1]} outputs")
    if c.mask:
        raise Refuse(f"the update is masked in the k loop (`{c.mask}`)")
    if c.combine is not None and c.causal:  # (one operand zero past the bound: its function of the other need not be)
        raise Refuse(f"a causal bound on a sum of `{c.combine}` (the tiles zero one operand past it)")
    causal = None
    if c.causal:  # k < bound(row): the row's operand is zero past its bound, loaded so
        causal = _causal_axis(src, k, c)
    if c.batch is not None and c.batch.thread not in ("block z", "blocks", "loop", "digits"):
        raise Refuse("the batch index is neither block positions counted from 0 (`blockIdx.z`, `blockIdx.x / n`), "
                     "a loop around the product, nor the higher digits of the index the row and column split")
    if c.batch is not None and c.batch.thread == "blocks":
        params = {p.name for p in k.params} | set(src.constants) | set(src.macros)
        for a in set(c.batch.atoms) - set(c.batch.parts):  # computed from the parts as the kernel writes it
            stray = set(re.findall(_NAME, c.coords.get(a, "?"))) - set(c.batch.atoms) - params
            if stray:
                raise Refuse(f"the batch coordinate `{a}` is computed from `{sorted(stray)[0]}` besides the batch")
        last = list(c.batch.parts)[-1]
        for a, e in c.batch.parts.items():
            if e is None or not (_names_ok(src, k, e) and "gridDim" not in e or a == last and _OLD_GRID.fullmatch(e)):
                raise Refuse(f"the batch coordinate `{a}` (`{c.coords.get(a, a)}`) has no count written in the "
                             f"kernel's parameters (a guard such as `if ({a} >= count) return;`), so the tiles cannot "
                             "put it on the grid's z")
    if c.batch is not None and c.batch.thread == "loop":
        bl = batch_loop(src, k, c)
        if bl is None:
            raise Refuse(f"the batch loop over `{c.batch.atoms[0]}` is not `for (b = 0; b < B; b++)` around the k "
                         "loop alone")
        if k.param(c.batch.extent or "") is None and not _names_ok(src, k, c.batch.extent or "?"):
            raise Refuse(f"the batch count `{c.batch.extent}` is not written in the kernel's parameters")
    looped = axis_loops(src, k, c)
    for what, axis in (("row", c.row), ("column", c.col)):
        if axis.thread == "loop" and len(axis.atoms) == 1 and axis.atoms[0] in looped:
            if axis.extent is None or not _names_ok(src, k, axis.extent):
                raise Refuse(f"the output's {what} runs in a loop whose bound `{axis.extent}` is not written in the "
                             "kernel's parameters")
            continue  # a loop around the k loop gives it: the tile runs that loop's body once per output
        if len(axis.atoms) != 1 or axis.atoms[0] not in c.coords:
            raise Refuse(f"the output's {what} is not one named index of the thread's position "
                         f"(`int row = blockIdx.y * blockDim.y + threadIdx.y;`)")
        if axis.extent is None:
            raise Refuse(f"no bound on the output's {what} (a guard such as `if (row < M && col < N)`)")
    for e in (c.M, c.N, c.k_start) + (() if causal or _k_poly_ok(src, k, c) else (c.K,)):
        if not _names_ok(src, k, e):
            raise Refuse(f"the size `{e}` is not written in the kernel's parameters")
    if "__shared__" in src.node_text(k.body):
        raise Refuse("the kernel already uses shared memory")
    grid = _grid_reads(src, k, c, kept)
    if grid:
        raise Refuse(grid)
    if sum(1 for lp in k.loops) != 1 + (c.batch is not None and c.batch.thread == "loop") + len(looped):
        raise Refuse("the kernel has loops besides the k loop")
    body = c.loop.child_by_field_name("body")
    upds = {u.parent for u in ([x[0] for x in c.sums] or [c.update])}
    for s in statements(body):
        if s not in upds and s.type != "declaration":
            raise Refuse(f"line {s.start_point[0] + 1} does more in the k loop than the sum's update")
    operands = {o.array for t in c.terms for o in t}
    for n in walk(k.body):
        if n.type in ("assignment_expression", "update_expression"):
            left = unparen(n.child_by_field_name("left") or n.child_by_field_name("argument"))
            if left is not None and left.type == "identifier" and src.node_text(left) in operands:
                raise Refuse(f"line {n.start_point[0] + 1} moves the pointer {src.node_text(left)}")
    _replay(src, k, c, "")  # (what the tiles' replay of the kernel refuses, refused here, when plans are made)
    coords = {c.row.atoms[0]: "kp_i", c.col.atoms[0]: "kp_j", c.k: "kp_k"}
    if c.batch is not None and c.batch.thread not in ("digits", "blocks") and len(c.batch.atoms) == 1:
        coords[c.batch.atoms[0]] = "kp_b"  # (several digits of blockIdx.z: declared as written, _head)
    allowed = set(coords) | {"blockIdx.z"} | (set(c.batch.atoms) if c.batch is not None else set())
    for a, b in c.terms:
        for o in (a, b):
            for m in o.index:
                inner = [x for x in m if x in coords]
                if len(inner) > 1:
                    raise Refuse(f"{o.array}'s index multiplies two coordinates")
                for x in m:
                    if x not in coords and (x.split(".")[0] in XY - {"blockDim", "gridDim"} and x not in allowed):
                        raise Refuse(f"{o.array}'s index uses {x}")
                    if x not in allowed and not x.startswith("(") and "." not in x and not _names_ok(src, k, x):
                        raise Refuse(f"{o.array}'s index uses {x}, which is not a parameter")
    # builtins outside the coordinates' declarations
    decls = {name: _decl_of(src, k, name) for name in c.coords}
    for n in walk(k.body):
        if n.type == "field_expression" and text(src, n.child_by_field_name("argument")) in ("threadIdx", "blockIdx") \
                and text(src, n) not in ("blockIdx.z",) and not any(
                d is not None and d.start_byte <= n.start_byte < d.end_byte for d in decls.values()):
            raise Refuse(f"line {n.start_point[0] + 1} uses {text(src, n)} besides the output's row and column")
    return coords, causal


def _causal_axis(src: SourceFile, k, c: Contraction) -> str:
    """"row" or "col": the one coordinate the k loop's bound grows with (`t2 <= t`)."""
    from kernelpro.profilers.analysis.affine import coefficient, depends

    if c.bound is None:
        raise Refuse("the k loop's bound depends on the output in a way that is not followed")
    for what, axis in (("row", c.row), ("col", c.col)):
        a = axis.atoms[0] if len(axis.atoms) == 1 else None
        if a is None or not depends(c.bound, a):
            continue
        coef = coefficient(c.bound, a)
        rest = {m: v for m, v in c.bound.items() if a not in m}
        other = (c.row if what == "col" else c.col).atoms
        if coef is None or list(coef) != [()] or coef[()] <= 0 or any(depends(c.bound, o) for o in other) \
                or not all(_names_ok(src, k, x) for m in rest for x in m):
            raise Refuse(f"the k loop's bound `{c.K}` is not a growing function of the output's {what}")
        return what
    raise Refuse(f"the k loop's bound `{c.K}` depends on the output in a way that is not followed")


def _k_poly_ok(src, k, c: Contraction) -> bool:
    """The k loop's end followed to the kernel's parameters (through int locals): every atom of its
    polynomial a parameter, a constant, or an opaque value of those (`(C / NH)`)."""
    if c.bound is None:
        return False
    names = set(c.coords) | {c.k}
    for m in c.bound:
        for a in m:
            words = set(re.findall(r"[A-Za-z_]\w*", a))
            if words & names or "threadIdx" in a or "blockIdx" in a or "[" in a:
                return False
            if src is not None and not _names_ok(src, k, a):
                return False
    return True


def batch_loop(src: SourceFile, k, c: Contraction):
    """The loop over the batch around the k loop: `for (int b = 0; b < B; b++)`; None otherwise."""
    return loop_around(src, k, c, c.batch.atoms[0])


def loop_around(src: SourceFile, k, c: Contraction, var: str):
    """The loop over `var` around the k loop, `for (int var = 0; var < E; var++)`; None otherwise."""
    from kernelpro.profilers.analysis.loops import _header

    for lp in k.loops:
        if lp.var == var and lp.node.start_byte < c.loop.start_byte and c.loop.end_byte <= lp.node.end_byte:
            h = _header(src, lp.node)
            if lp.node.type == "for_statement" and h["step"] == 1 and h["cmp"] == "<" and h["start"] is not None \
                    and text(src, h["start"]) == "0" and h["declared"]:
                return lp.node
    return None


def _decl_of(src: SourceFile, k, name: str):
    for d in walk(k.body):
        if d.type == "init_declarator" and text(src, d.child_by_field_name("declarator")) == name:
            return d
    return None


def tile_body(src: SourceFile, kernel: str, c: Contraction, coords: dict, bm: int, bn: int, bk: int, tm: int, tn: int,
              pad: int, vec: int = 1, causal: str | None = None, stages: int = 1, swz: int = 0, kept: bool = False,
              pre: int = 0, sym: bool = False) -> str:
    """The kernel with its body replaced by the tiled product (the body as written runs per output).
    stages 2: the next slabs copied with cp.async while this one is used, or with pre 1 loaded into registers
    before this one is used and stored to the other buffer after it (one barrier a step, as hand-written SGEMMs
    do, any element type); swz 1: the slabs stored
    transposed (an operand read along k) get an XOR-swizzled row instead of padding; kept: the launch's grid
    stays (see _origin); sym: C is symmetric (see symmetric; BM = BN), the tiles on and below the diagonal
    computed and mirrored."""
    k = src.kernel(kernel)
    threads = (bm // tm) * (bn // tn)
    acc = _acc_type(c.acc_type if c.accumulate == "local" else c.out.elem)
    rename = {a: v for a, v in coords.items()}
    ind = "    "
    slabs = [(_Slab(a, f"kp_As{t}", bm, "kp_i", "kp_M", "kp_i0", c.row.atoms[0], True, pad, swz),
              _Slab(b, f"kp_Bs{t}", bn, "kp_j", "kp_N", "kp_j0", c.col.atoms[0], True, pad, swz))
             for t, (a, b) in enumerate(c.terms)]
    for sa, sb in slabs:
        sa.ptr, sb.ptr = _flat_ptr(src, k, sa.o), _flat_ptr(src, k, sb.o)
    layout = "XOR-swizzled rows where stored transposed" if swz else f"+{pad} padding"
    L = [f"{{  // kernelpro: {bm} x {bn} output tiles per block, {bk}-deep slabs of the operands in shared memory "
         f"({layout}{_buffering(stages, pre)}), {tm} x {tn} sums per thread"]
    L += _head(c, bm, bn, causal, ind)
    L += [f"{ind}const int kp_tid = threadIdx.x, kp_tn = kp_tid % {bn // tn}, kp_tm = kp_tid / {bn // tn};"]
    L += _origin(bm, bn, kept, ind) + _upper_half(sym, bm, bn, kept, ind)
    for t, (sa, sb) in enumerate(slabs):
        L += [f"{ind}alignas(16) __shared__ {acc} {sa.name}[{stages}][{bk}][{sa.width(bk)}];",
              f"{ind}alignas(16) __shared__ {acc} {sb.name}[{stages}][{bk}][{sb.width(bk)}];",
              f"{ind}{acc} kp_acc{t}[{tm}][{tn}];",
              f"{ind}for (int m = 0; m < {tm}; ++m)",
              f"{ind}  for (int n = 0; n < {tn}; ++n) kp_acc{t}[m][n] = ({acc})0;"]
    i3 = ind * 3
    # a thread's rows (columns): interleaved (`kp_tm + m * BM/TM`, scalar reads from the slab without bank
    # conflicts) or, where the slab allows 16-byte reads, in runs of 4 (`kp_tm * 4 + (m / 4) * BM/(TM/4) + m % 4`,
    # one float4 per run: a quarter of the shared-memory instructions, as hand-written SGEMMs do)
    quad = {"m": all(_quad_ok(sa, tm, acc, bk) for sa, _ in slabs), "n": all(_quad_ok(sb, tn, acc, bk) for _, sb in slabs)}
    place = {"m": _place("kp_tm", "m", bm, tm, quad["m"]), "n": _place("kp_tn", "n", bn, tn, quad["n"])}
    use = []
    for t, (sa, sb) in enumerate(slabs):
        use += [f"{i3}{acc} kp_a{t}[{tm}], kp_b{t}[{tn}];"]
        for x, sl, cnt, reg, who, rows in (("m", sa, tm, f"kp_a{t}", "kp_tm", bm), ("n", sb, tn, f"kp_b{t}", "kp_tn", bn)):
            if quad[x]:
                use += [f"{i3}#pragma unroll",
                        f"{i3}for (int g = 0; g < {cnt // 4}; ++g) {{",
                        f"{i3}  const float4 kp_v = *reinterpret_cast<const float4*>("
                        f"&{sl.at('kp_st', 'kp_kk', f'{who} * 4 + g * {rows // (cnt // 4)}', bk)});",
                        f"{i3}  {reg}[4 * g] = kp_v.x; {reg}[4 * g + 1] = kp_v.y; {reg}[4 * g + 2] = kp_v.z; "
                        f"{reg}[4 * g + 3] = kp_v.w;", f"{i3}}}"]
            else:
                use += [f"{i3}#pragma unroll",
                        f"{i3}for (int {x} = 0; {x} < {cnt}; ++{x}) {reg}[{x}] = {sl.at('kp_st', 'kp_kk', place[x], bk)};"]
        use += [f"{i3}#pragma unroll", f"{i3}for (int m = 0; m < {tm}; ++m)", f"{i3}  #pragma unroll",
                f"{i3}  for (int n = 0; n < {tn}; ++n) kp_acc{t}[m][n] += {_combined(c, f'kp_a{t}[m]', f'kp_b{t}[n]')};"]
    use = [f"{ind * 2}#pragma unroll", f"{ind * 2}for (int kp_kk = 0; kp_kk < {bk}; ++kp_kk) {{"] + use + [f"{ind * 2}}}"]

    def loads(stage):
        return [ln for sa, sb in slabs for sl in (sa, sb)
                for ln in _slab_loads(c, sl, bk, threads, acc, rename, causal, vec, stages == 2, stage, f"({acc})0", ind)]
    if stages == 2 and pre:
        parts = [_slab_regs(c, sl, bk, threads, acc, rename, causal, vec, ind) for sa, sb in slabs for sl in (sa, sb)]
        L += [ln for d, _, _ in parts for ln in d]
        L += _pipeline_regs(bk, lambda: [ln for _, f, _ in parts for ln in f],
                            lambda stage: [ln for _, _, p in parts for ln in p(stage)], use, ind)
    else:
        L += _pipeline(bk, stages, loads, use, ind)
    # every output of the thread's tile runs the kernel's code as written
    i2 = ind * 2
    L += [f"{ind}for (int kp_m = 0; kp_m < {tm}; ++kp_m)", f"{ind}  for (int kp_n = 0; kp_n < {tn}; ++kp_n) {{",
          f"{i2}const long long kp_i = kp_i0 + {_place('kp_tm', 'kp_m', bm, tm, quad['m'])}, "
          f"kp_j = kp_j0 + {_place('kp_tn', 'kp_n', bn, tn, quad['n'])};",
          f"{i2}if (kp_i >= kp_M || kp_j >= kp_N) continue;",
          f"{i2}[&]() {{  // the kernel as written, for output (kp_i, kp_j), its k loop's sum given",
          f"{i3}" + _replay(src, k, c, ind * 3), f"{i2}}}();"]
    if sym:
        L += _mirror(_replay(src, k, c, ind * 3), i2)
    L += [f"{ind}  }}", "}"]
    new = span_text(src, 0, k.body.start_byte) + "\n".join(L) + span_text(src, k.body.end_byte, len(src.data))
    return _include(new, "cuda_pipeline.h") if stages == 2 and not pre else new


def _buffering(stages: int, pre: int) -> str:
    if stages != 2:
        return ""
    return ", double-buffered through registers" if pre else ", double-buffered through cp.async"


def _pipeline_regs(bk: int, fetch, put, use: list[str], ind: str) -> list[str]:
    """The k loop with the next slabs loaded into registers while this one is used, then stored into the other
    buffer: the buffer written in a step was last read in the step before, so one barrier a step suffices."""
    i2 = ind * 2
    return ([f"{ind}int kp_st = 0;", f"{ind}{{  // the first slabs", f"{i2}const long long kp_kt = kp_k0;"]
            + fetch() + [f"{ind}}}"] + put("0") + [f"{ind}__syncthreads();",
                                                   f"{ind}for (long long kp_kt0 = kp_k0; kp_kt0 < kp_K; kp_kt0 += {bk}, kp_st ^= 1) {{",
                                                   f"{i2}const bool kp_more = kp_kt0 + {bk} < kp_K;",
                                                   f"{i2}if (kp_more) {{  // the next slabs, into registers",
                                                   f"{i2}  const long long kp_kt = kp_kt0 + {bk};"]
            + fetch() + [f"{i2}}}"] + use + [f"{i2}if (kp_more) {{  // ... and into the other buffer"]
            + put("kp_st ^ 1") + [f"{i2}}}", f"{i2}__syncthreads();", f"{ind}}}"])


def _slab_regs(c: Contraction, sl: "_Slab", bk: int, threads: int, smem: str, rename: dict, causal: str | None,
               vec: int, ind: str):
    """(declarations, fetch lines, put(stage) -> lines) of one operand's slab staged through registers: each
    thread loads its pieces (16 bytes where aligned and in bounds, else element by element, zero past the
    bounds) for k from kp_kt into `kp_r<slab>[piece][v]` (the slab's type), and stores them into `stage`."""
    o = sl.o
    along = sl.along()
    es = ESIZE.get(o.elem)
    mine = causal == ("row" if sl.name.startswith("kp_As") else "col")
    kend = poly_c(c.bound, {(c.row if causal == "row" else c.col).atoms[0]: sl.coord}) if mine else "kp_K"
    v = 16 // es if vec > 1 and es and along and not mine and not (o.shift or o.scale) else 1
    if v > 1 and (bk if along == "k" else sl.rows) % v:
        v = 1
    ak = along == "k"
    pieces = sl.rows * bk // v
    per = -(-pieces // threads)
    reg = f"kp_r{sl.name[3:]}"
    idx = poly_c(o.index, rename)
    arr = sl.ptr or o.array
    i2, i3, i4 = ind * 2, ind * 3, ind * 4
    decl = [f"{ind}alignas(16) {smem} {reg}[{per}][{v}];  // this thread's pieces of {o.array}'s next slab"]
    head = [f"{i2}#pragma unroll", f"{i2}for (int kp_q = 0; kp_q < {per}; ++kp_q) {{",
            f"{i3}const int kp_e = kp_tid + kp_q * {threads};"]
    if pieces % threads:
        head.append(f"{i3}if (kp_e >= {pieces}) continue;")
    head.append(f"{i3}const int kp_kk = (kp_e % {bk // v}) * {v}, kp_r = kp_e / {bk // v};" if ak else
                f"{i3}const int kp_r = (kp_e % {sl.rows // v}) * {v}, kp_kk = kp_e / {sl.rows // v};")
    cond = f"{sl.coord} < {sl.lim} && kp_k < {kend}"
    each = [f"{i3}for (int kp_v = 0; kp_v < {v}; ++kp_v) {{",
            f"{i4}const long long {sl.coord} = {sl.base} + kp_r{'' if ak else ' + kp_v'}, kp_k = kp_kt + kp_kk"
            f"{' + kp_v' if ak else ''};",
            f"{i4}{reg}[kp_q][kp_v] = ({cond}) ? {_loaded(sl, smem, arr, idx, rename)} : ({smem})0;", f"{i3}}}"]
    if v > 1:
        last = f"kp_k + {v - 1} < kp_K && {sl.coord} < {sl.lim}" if ak else f"{sl.coord} + {v - 1} < {sl.lim} && kp_k < kp_K"
        fast = ([f"{i4}  *reinterpret_cast<int4*>({reg}[kp_q]) = *reinterpret_cast<const int4*>(kp_p);"]
                if o.elem == smem else
                [f"{i4}  alignas(16) {o.elem} kp_w[{v}];",
                 f"{i4}  *reinterpret_cast<int4*>(kp_w) = *reinterpret_cast<const int4*>(kp_p);",
                 f"{i4}  for (int kp_v = 0; kp_v < {v}; ++kp_v) {reg}[kp_q][kp_v] = ({smem})(kp_w[kp_v]);"])
        body = ([f"{i3}{{", f"{i4}const long long {sl.coord} = {sl.base} + kp_r, kp_k = kp_kt + kp_kk;",
                 f"{i4}const {o.elem}* kp_p = {arr} + ({idx});",
                 f"{i4}if ({last} && ((unsigned long long)(const void*)kp_p & 15) == 0) {{"] + fast
                + [f"{i4}  continue;", f"{i4}}}", f"{i3}}}"] + each)
    else:
        body = each
    fetch = head + body + [f"{i2}}}"]

    def put(stage: str) -> list[str]:
        ssize = ESIZE.get(smem, 0)
        whole = (ak != sl.kmajor) and not sl.swizzled() and v * ssize == 16 and (sl.width(bk) * ssize) % 16 == 0
        dst0 = sl.at(stage, "kp_kk", "kp_r", bk)
        kk_v, r_v = ("kp_kk + kp_v", "kp_r") if ak else ("kp_kk", "kp_r + kp_v")
        store = ([f"{i3}*reinterpret_cast<int4*>(&{dst0}) = *reinterpret_cast<const int4*>({reg}[kp_q]);"] if whole
                 else [f"{i3}for (int kp_v = 0; kp_v < {v}; ++kp_v) {sl.at(stage, kk_v, r_v, bk)} = {reg}[kp_q][kp_v];"])
        return head + store + [f"{i2}}}"]
    return decl, fetch, put


def kept_grid_axis(src: SourceFile, k, c: Contraction, axis) -> tuple[str, int] | None:
    """(D, C) where the output index is `C * blockIdx.D + threadIdx.D` (through int locals), C a number:
    with no guard, the rows (columns) are those the launch's grid gives, gridDim.D * C, for blocks
    of C threads along D (the CUDA sample's matrixMul, whose host alone knows the row count)."""
    from kernelpro.profilers.analysis.affine import build_env

    if len(axis.atoms) != 1 or axis.atoms[0] not in c.coords:
        return None
    d = _decl_of(src, k, axis.atoms[0])
    p = build_env(src, k).poly(d.child_by_field_name("value")) if d is not None else None
    if not p or len(p) != 2:
        return None
    inst = src.instantiated(k)  # `blockIdx.y * TILE` with every launch's TILE = 16
    terms = {}
    for m, coef in p.items():
        rest = [a for a in m if a not in inst]
        for a in m:
            coef = coef * inst[a] if a in inst else coef
        terms[tuple(rest)] = coef
    for dim in "xyz":
        per = terms.get((f"blockIdx.{dim}",))
        if terms.get((f"threadIdx.{dim}",)) == 1 and isinstance(per, int) and per > 0:
            return dim, per
    return None


def _origin(bm: int, bn: int, kept: bool, ind: str) -> list[str]:
    """The block's first output row and column. kept: the launch's grid stays as it was (the output's size
    is known only from it: gridDim times the rows and columns each old block had); its blocks, flattened,
    take the BM x BN tiles in turn and the ones left over return (there are fewer tiles than blocks)."""
    if not kept:
        return [f"{ind}const long long kp_i0 = (long long)blockIdx.y * {bm}, kp_j0 = (long long)blockIdx.x * {bn};"]
    return [f"{ind}const long long kp_tj = (kp_N + {bn - 1}) / {bn}, kp_t = (long long)blockIdx.y * gridDim.x + blockIdx.x;"
            "  // the launch's grid, its blocks taking the tiles in turn",
            f"{ind}if (kp_t >= kp_tj * ((kp_M + {bm - 1}) / {bm})) return;",
            f"{ind}const long long kp_i0 = (kp_t / kp_tj) * {bm}, kp_j0 = (kp_t % kp_tj) * {bn};"]


def _flat_ptr(src: SourceFile, k, o) -> str:
    """`reinterpret_cast<const T*>(A)` for a parameter declared as an array (`float A[N][N]`, whose name is a
    pointer to rows); '' for a plain pointer (used as it is, its __restrict__ kept)."""
    p = k.param(o.array)
    return f"reinterpret_cast<const {o.elem}*>({o.array})" if p is not None and \
        "[" in src.data[p.decl_start:p.decl_end].decode() else ""


def _quad_ok(sl: "_Slab", count: int, acc: str, bk: int) -> bool:
    """A thread's `count` values of this slab read 16 bytes at a time: float sums, runs of 4, rows of the
    slab a multiple of 16 bytes, and a swizzle (if any) that moves whole runs of 4."""
    if acc != "float" or count % 4 or not sl.kmajor or sl.width(bk) % 4:
        return False
    return not sl.swizzled() or (32 // min(bk, 32)) % 4 == 0


def _place(who: str, m: str, rows: int, count: int, quad: bool) -> str:
    """The offset in the block's tile of a thread's m-th row (column): see tile_body."""
    if quad:
        return f"{who} * 4 + ({m} / 4) * {rows // (count // 4)} + {m} % 4"
    return f"{who} + {m} * {rows // count}"


def _include(text_: str, header: str) -> str:
    return text_ if f"#include <{header}>" in text_ else f"#include <{header}>\n" + text_


def _pipeline(bk: int, stages: int, loads, use: list[str], ind: str) -> list[str]:
    """The k loop over BK-deep slabs: loads(stage) fills a stage (for k from kp_kt), `use` reads stage
    kp_st. With 2 stages the next slab's copies (cp.async) are in flight while this one is used: each
    thread waits for its own copies, then the barrier makes every thread's visible."""
    i2 = ind * 2
    if stages == 1:
        return ([f"{ind}for (long long kp_kt = kp_k0; kp_kt < kp_K; kp_kt += {bk}) {{", f"{i2}const int kp_st = 0;"]
                + loads("0") + [f"{i2}__syncthreads();"] + use + [f"{i2}__syncthreads();", f"{ind}}}"])
    return ([f"{ind}int kp_st = 0;", f"{ind}{{  // the first slabs", f"{i2}const long long kp_kt = kp_k0;"]
            + loads("0") + [f"{ind}}}", f"{ind}__pipeline_commit();",
                            f"{ind}for (long long kp_kt0 = kp_k0; kp_kt0 < kp_K; kp_kt0 += {bk}, kp_st ^= 1) {{",
                            f"{i2}if (kp_kt0 + {bk} < kp_K) {{  // the next slabs, into the other stage",
                            f"{i2}  const long long kp_kt = kp_kt0 + {bk};"]
            + loads("kp_st ^ 1") + [f"{i2}}}", f"{i2}__pipeline_commit();", f"{i2}__pipeline_wait_prior(1);",
                                    f"{i2}__syncthreads();"]
            + use + [f"{i2}__syncthreads();", f"{ind}}}", f"{ind}__pipeline_wait_prior(0);", f"{ind}__syncthreads();"])


def _head(c: Contraction, bm: int, bn: int, causal: str | None, ind: str) -> list[str]:
    """The sizes, the k range (to the bound of the block's last row where it is causal), the batch."""
    L = [f"{ind}const long long kp_M = (long long)({c.M}), kp_N = (long long)({c.N});"]
    if causal is None:
        kt = poly_c(c.bound) if _k_poly_ok(None, None, c) else f"(long long)({c.K})"  # a local such as hs = C / NH
        L.append(f"{ind}const long long kp_K = {kt}, kp_k0 = (long long)({c.k_start});")
    else:  # k runs to the bound of the block's last row (or column); each row's operand is zero past its own
        atom_ = (c.row if causal == "row" else c.col).atoms[0]
        last = "kp_M" if causal == "row" else "kp_N"
        first = f"(long long)blockIdx.{'y' if causal == 'row' else 'x'} * {bm if causal == 'row' else bn}"
        size = bm if causal == "row" else bn
        L.append(f"{ind}const long long kp_last = {first} + {size - 1} < {last} ? {first} + {size - 1} : {last} - 1;")
        L.append(f"{ind}const long long kp_K = {poly_c(c.bound, {atom_: 'kp_last'})}, kp_k0 = (long long)({c.k_start});")
    if c.batch is not None and c.batch.thread == "digits":  # the grid's z is the flat index's high part
        d = c.batch.digits
        L.append(f"{ind}const long long kp_b = (long long)blockIdx.z;")
        for a in c.batch.atoms:  # each batch digit as the kernel splits it, from kp_b at the batch's place
            value = re.sub(rf"\b{re.escape(d.root)}\b", f"({d.flat})", d.spelled(c.coords[a]))
            L.append(f"{ind}const long long {a} = {value};")
    elif c.batch is not None and c.batch.thread == "blocks":  # block positions: digits of the grid's z
        L.append(f"{ind}const long long kp_b = (long long)blockIdx.z;")
        L += [f"{ind}const long long {name} = {value};" for name, value in block_digits(c)]
        L += [f"{ind}const long long {a} = {c.coords[a]};" for a in c.coords  # (the kernel's order)
              if a in c.batch.atoms and a not in c.batch.parts]
    elif c.batch is not None and len(c.batch.atoms) > 1:  # digits of blockIdx.z: the kernel's own definitions
        L.append(f"{ind}const long long kp_b = (long long)blockIdx.{c.batch.thread[-1]};")
        L += [f"{ind}const long long {name} = {value};" for name, value in _block_only(c)]
    elif c.batch is not None:  # blockIdx.z as the kernel names it, or the grid's z for a batch loop
        bval = c.coords.get(c.batch.atoms[0], "blockIdx.z")
        L.append(f"{ind}const long long kp_b = (long long)({bval});")
    return L


ESIZE = {"float": 4, "double": 8, "__nv_bfloat16": 2, "nv_bfloat16": 2, "__half": 2, "half": 2}


@dataclass
class _Slab:
    """One operand's BK-deep slab in shared memory: [stage][k][row] (kmajor) or [stage][row][k]."""
    o: object
    name: str
    rows: int
    coord: str  # kp_i or kp_j
    lim: str  # kp_M or kp_N
    base: str  # the block's first row or column
    atom: str  # the output coordinate the operand's rows follow
    kmajor: bool
    pad: int
    swz: int = 0  # XOR-swizzle the row index by k (kmajor slabs read along k only)
    ptr: str = ""  # the operand as a flat pointer where its name is not one (a `float A[N][N]` parameter)

    def along(self) -> str | None:
        """'k' or 'r': the dimension the operand is contiguous along in global memory."""
        return "k" if self.o.k_stride == "1" else "r" if self.o.strides.get(self.atom) == "1" else None

    def swizzled(self) -> bool:
        return bool(self.swz) and self.kmajor and self.along() == "k" and self.rows & (self.rows - 1) == 0

    def width(self, bk: int) -> int:
        return (self.rows if self.kmajor else bk) + (0 if self.swz else self.pad)

    def at(self, stage: str, kk: str, r: str, bk: int) -> str:
        if not self.kmajor:
            return f"{self.name}[{stage}][{r}][{kk}]"
        if self.swizzled():  # a warp storing along k (rows of 32 floats apart) hits 32 banks
            lanes = min(bk, 32)
            r = f"({r}) ^ ((({kk}) % {lanes}) * {32 // lanes} & {self.rows - 1})"
        return f"{self.name}[{stage}][{kk}][{r}]"


def _loaded(sl: "_Slab", smem: str, arr: str, idx: str, rename: dict) -> str:
    """One element of the operand as the slab holds it: converted, centered where the operand is (`x - mean[j1]`
    with j1 the slab's row), weighted where it is (`C[..] * occ[kp_k]`)."""
    got = f"({smem})({arr}[{idx}])"
    if sl.o.shift:
        shift = re.sub(rf"\b{re.escape(sl.atom)}\b", sl.coord, sl.o.shift)
        got = f"({got} - ({smem})({shift}))"
    if sl.o.scale:  # a weight along k (the loaders' kp_k is the element's k)
        got = f"({got} * ({smem})({sl.o.scale}))"
    return got


def _slab_loads(c: Contraction, sl: _Slab, bk: int, threads: int, smem: str, rename: dict, causal: str | None,
                vec: int, async_: bool, stage: str, zero: str, ind: str) -> list[str]:
    """One operand's slab for k from kp_kt into `stage`, along its contiguous dimension, guarded (and
    zero past a causal bound). vec: 16-byte pieces where aligned and in bounds (else element by
    element); async_: cp.async (__pipeline_memcpy_async, zero-filled out of bounds) where shared memory
    takes the operand's bytes as they are (its type, 4 bytes or more, or 16 contiguous bytes)."""
    o = sl.o
    along = sl.along()
    es = ESIZE.get(o.elem)
    mine = causal == ("row" if sl.name.startswith("kp_As") else "col")
    kend = poly_c(c.bound, {(c.row if causal == "row" else c.col).atoms[0]: sl.coord}) if mine else "kp_K"
    copy = async_ and o.elem == smem and es is not None and es >= 4 and not (o.shift or o.scale)  # element-wise cp.async
    v = 16 // es if vec > 1 and es and along and not mine and not (o.shift or o.scale) else 1
    if v > 1 and (bk if along == "k" else sl.rows) % v:
        v = 1
    idx = poly_c(o.index, rename)
    i2, i3, i4 = ind * 2, ind * 3, ind * 4
    what = f"// {o.array}: {'along k' if along == 'k' else 'along its rows'}"
    arr = sl.ptr or o.array

    def one(kk: str, r: str, at: str) -> list[str]:
        cond = f"{sl.coord} < {sl.lim} && kp_k < {kend}"
        dst = sl.at(stage, kk, r, bk)
        if copy:
            return [f"{at}{{ const bool kp_in = {cond};",
                    f"{at}  __pipeline_memcpy_async(&{dst}, kp_in ? (const void*)({arr} + ({idx})) : "
                    f"(const void*){arr}, {es}, kp_in ? 0 : {es}); }}"]
        return [f"{at}{dst} = ({cond}) ? {_loaded(sl, smem, arr, idx, rename)} : {zero};"]

    if v == 1:
        return ([f"{i2}for (int kp_e = kp_tid; kp_e < {sl.rows * bk}; kp_e += {threads}) {{  {what}",
                 f"{i3}const int kp_kk = kp_e % {bk}, kp_r = kp_e / {bk};" if along == "k" else
                 f"{i3}const int kp_r = kp_e % {sl.rows}, kp_kk = kp_e / {sl.rows};",
                 f"{i3}const long long {sl.coord} = {sl.base} + kp_r, kp_k = kp_kt + kp_kk;"]
                + one("kp_kk", "kp_r", i3) + [f"{i2}}}"])
    ak = along == "k"
    last = f"kp_k + {v - 1} < kp_K && {sl.coord} < {sl.lim}" if ak else f"{sl.coord} + {v - 1} < {sl.lim} && kp_k < kp_K"
    kk_v, r_v = ("kp_kk + kp_v", "kp_r") if ak else ("kp_kk", "kp_r + kp_v")
    ssize = ESIZE.get(smem, 0)
    whole = (ak != sl.kmajor) and not sl.swizzled() and o.elem == smem and (sl.width(bk) * ssize) % 16 == 0
    L = [f"{i2}for (int kp_e = kp_tid; kp_e < {sl.rows * bk // v}; kp_e += {threads}) {{  {what}, 16-byte pieces",
         f"{i3}const int kp_kk = (kp_e % {bk // v}) * {v}, kp_r = kp_e / {bk // v};" if ak else
         f"{i3}const int kp_r = (kp_e % {sl.rows // v}) * {v}, kp_kk = kp_e / {sl.rows // v};",
         f"{i3}const long long {sl.coord}_r = {sl.base} + kp_r, kp_k_r = kp_kt + kp_kk;",
         f"{i3}{{",
         f"{i4}const long long {sl.coord} = {sl.coord}_r, kp_k = kp_k_r;",
         f"{i4}const {o.elem}* kp_p = {arr} + ({idx});",
         f"{i4}if ({last} && ((unsigned long long)(const void*)kp_p & 15) == 0) {{"]
    dst0, dst_v = sl.at(stage, "kp_kk", "kp_r", bk), sl.at(stage, kk_v, r_v, bk)
    if whole and async_:
        L.append(f"{i4}  __pipeline_memcpy_async(&{dst0}, kp_p, 16);")
    elif copy:
        L.append(f"{i4}  for (int kp_v = 0; kp_v < {v}; ++kp_v) __pipeline_memcpy_async(&{dst_v}, kp_p + kp_v, {es});")
    elif whole:
        L.append(f"{i4}  *reinterpret_cast<int4*>(&{dst0}) = *reinterpret_cast<const int4*>(kp_p);")
    else:
        L += [f"{i4}  alignas(16) {o.elem} kp_w[{v}];",
              f"{i4}  *reinterpret_cast<int4*>(kp_w) = *reinterpret_cast<const int4*>(kp_p);",
              f"{i4}  for (int kp_v = 0; kp_v < {v}; ++kp_v) {dst_v} = ({smem})(kp_w[kp_v]);"]
    L += [f"{i4}  continue;", f"{i4}}}", f"{i3}}}",
          f"{i3}for (int kp_v = 0; kp_v < {v}; ++kp_v) {{",
          f"{i4}const long long {sl.coord} = {sl.coord}_r{'' if ak else ' + kp_v'}, kp_k = kp_k_r{' + kp_v' if ak else ''};"]
    return L + one(kk_v, r_v, i4) + [f"{i3}}}", f"{i2}}}"]


def _replay(src: SourceFile, k, c: Contraction, ind: str, sums: list[str] | None = None) -> str:
    subs = []
    looped = axis_loops(src, k, c)
    for name, value in ((c.row.atoms[0], "kp_i"), (c.col.atoms[0], "kp_j")):
        if name in looped:  # the loop over the outputs runs once, for this one
            lp = looped[name]
            body = lp.child_by_field_name("body")
            t = text(src, lp.child_by_field_name("initializer").child_by_field_name("type"))
            subs.append((lp.start_byte, body.start_byte, f"{{ const {t} {name} = ({t})({value}); "))
            subs.append((body.end_byte, body.end_byte, " }"))
            continue
        d = _decl_of(src, k, name)
        v = d.child_by_field_name("value")
        subs.append((v.start_byte, v.end_byte, f"({value})"))
    # a root split into the row and column (`r = idx / N, c = idx % N`): idx = r * N + c
    block_only = {n for n, _ in _block_only(c)} if c.batch is not None and len(c.batch.atoms) > 1 else set()
    if c.batch is not None and c.batch.thread == "blocks":  # each block position from the grid's z
        for name, value in block_digits(c):
            d = _decl_of(src, k, name)
            if d is not None:
                v = d.child_by_field_name("value")
                subs.append((v.start_byte, v.end_byte, f"({value})"))
    for name, value in c.coords.items():
        if c.batch is not None and c.batch.thread == "blocks" and name in c.batch.atoms:
            continue
        d = _decl_of(src, k, name)
        if name in (c.row.atoms[0], c.col.atoms[0]) or (c.batch is not None and name == c.batch.atoms[0]) \
                or name in block_only:  # (the grid's z is as it was: such names keep their values)
            continue
        if d is None or (c.batch is not None and c.batch.thread == "digits" and name in c.batch.atoms):
            continue  # a batch digit: computed as written from the flat index rebuilt below
        if c.batch is not None and c.batch.thread == "digits" and name == c.batch.digits.root:
            g = c.batch.digits
            subs.append((d.child_by_field_name("value").start_byte, d.child_by_field_name("value").end_byte,
                         f"{g.flat} + kp_i * ({g.row_place})" + (f" + kp_j * ({g.col_place})" if g.col_place else "")))
            continue
        split = _split_value(src, k, name, c) or _batch_root(src, k, name, c)
        if split is None and _only_in_coordinates(src, k, name, c):
            continue  # `int tx = threadIdx.x;` read only by the row's and column's definitions: unused now
        v = unparen(d.child_by_field_name("value")) if split is None else None
        kept = (c.row.atoms[0], c.col.atoms[0]) + ((c.batch.atoms[0],) if c.batch is not None and c.batch.thread
                                                     not in ("digits", "blocks") else ())
        if v is not None and v.type == "binary_expression" and text(src, v.child_by_field_name("operator")) in ("/", "%") \
                and text(src, unparen(v.child_by_field_name("left"))) in kept \
                and not any(x.type == "identifier" and text(src, x) in c.coords for x in walk(v.child_by_field_name("right"))):
            continue  # a digit of the row, the column or a batch kept as it was (`b = bt / T` with bt the row, `h = bh %
            # NH` with bh the grid's z): computed from it as written
        if split is None:
            raise Refuse(f"`{name}` is a thread index besides the output's row and column")
        v = d.child_by_field_name("value")
        subs.append((v.start_byte, v.end_byte, split))
    # the k loop: its update, the tile's sum in place of each product
    lines = []
    for upd, t0, t1 in c.sums or ((c.update, 0, len(c.terms)),):  # each sum's update once, its terms' sums given
        inner = []
        for t in range(t0, t1):
            a, b = c.terms[t]
            if c.combine is not None or any(o.shift for o in (a, b)):  # the whole added value (`diff * diff`,
                # `(x - mu1) * (y - mu2)`)
                added = _update(src, upd)[1]
                inner.append((added.start_byte, added.end_byte, f"({sums[t] if sums else f'kp_acc{t}[kp_m][kp_n]'})"))
                continue
            inner.append((a.nodes[0].start_byte, a.nodes[0].end_byte, sums[t] if sums else f"kp_acc{t}[kp_m][kp_n]"))
            inner.append((b.nodes[0].start_byte, b.nodes[0].end_byte, "1"))
            for o in (a, b):  # a weight along k, in the tiles' sum already (`alpha * occ[i] * ..`: alpha stays)
                if o.scale_node is not None:
                    inner.append((o.scale_node.start_byte, o.scale_node.end_byte, "1"))
        stmt = upd.parent
        lines.append(span_text(src, stmt.start_byte, stmt.end_byte, inner))
    subs.append((c.loop.start_byte, c.loop.end_byte, " ".join(lines)))
    if c.batch is not None and c.batch.thread == "loop":  # the batch loop runs this block's batch only
        bl = batch_loop(src, k, c)
        body = bl.child_by_field_name("body")
        t = text(src, bl.child_by_field_name("initializer").child_by_field_name("type"))
        subs.append((bl.start_byte, body.start_byte, f"{{ const {t} {c.batch.atoms[0]} = ({t})(kp_b); "))
        subs.append((body.end_byte, body.end_byte, " }"))
    body = textwrap.dedent(span_text(src, k.body.start_byte + 1, k.body.end_byte - 1, subs).strip("\n"))
    return textwrap.indent(body, ind).strip()


_OLD_GRID = re.compile(r"gridDim\.([xyz])")  # a batch part counted by the old launch's grid (see api)


def batch_z(c: Contraction, table: dict, old: list[str]) -> str | None:
    """The tiled launch's grid z: the batch's count in the names of `table` (spec values or a launch's
    arguments), a part counted by the old grid (`gridDim.y`) taken from `old`, that grid's x, y and z."""
    if c.batch.thread != "blocks":
        return in_terms_of(c.batch.extent or "?", table)
    out = []
    for e in c.batch.parts.values():
        m = _OLD_GRID.fullmatch(e or "")
        t = f"({old['xyz'.index(m.group(1))]})" if m else in_terms_of(e or "?", table)
        if t is None:
            return None
        out.append(t if m else f"({t})")
    return " * ".join(out)


def block_digits(c: Contraction) -> list[tuple[str, str]]:
    """(name, value over kp_b) for a batch of block positions ("blocks"): each coordinate a digit of the grid's
    z, the first the fastest (`h = kp_b % (NH)`, `b = kp_b / (NH)`)."""
    out, place = [], "1"
    names = list(c.batch.parts)
    for i, a in enumerate(names):
        q = "kp_b" if place == "1" else f"(kp_b / ({place}))"
        out.append((a, q if i == len(names) - 1 else f"{q} % ({c.batch.parts[a]})"))
        place = f"({c.batch.parts[a]})" if place == "1" else f"{place} * ({c.batch.parts[a]})"
    return out


def _block_only(c: Contraction) -> list[tuple[str, str]]:
    """(name, definition) of the coordinates computed from block indices alone (`bh = blockIdx.z`, `b = bh / H`),
    in the kernel's order: a batch of several digits of blockIdx.z is declared from them as written."""
    out, seen = [], set()
    z = f"blockIdx.{c.batch.thread[-1]}" if c.batch is not None and c.batch.thread else "blockIdx.z"
    for name, value in c.coords.items():
        ids = set(re.findall(r"[A-Za-z_]\w*(?:\.[xyz])?", value))
        builtins = {i for i in ids if "." in i}
        if builtins - {z} or not (z in ids or ids & seen) or ids & (set(c.coords) - seen):
            continue  # (another thread or block index, or a coordinate not computed from the batch's alone)
        out.append((name, value))
        seen.add(name)
    return out


def _only_in_coordinates(src: SourceFile, k, name: str, c: Contraction) -> bool:
    """name is read only inside the declarations of the output's row and column (replaced in the replay)."""
    decls = [d for d in (_decl_of(src, k, a) for a in (c.row.atoms[0], c.col.atoms[0])) if d is not None]
    own = _decl_of(src, k, name)
    return all(any(d.start_byte <= n.start_byte < d.end_byte for d in decls + [own])
               for n in walk(k.body) if n.type == "identifier" and src.node_text(n) == name)


def _split_value(src: SourceFile, k, root: str, c: Contraction) -> str | None:
    """`root` as the row and column give it back: rq * D + rr where the row is root / D and the
    column root % D (or the other way round); or a part of the row (column) written `row = by * S + ty` (by a
    block index, ty a thread index, as tiled kernels name them): by = row / S, ty = row % S."""
    part = _part_of(src, k, root, c)
    if part is not None:
        return part
    got = {}
    for name in (c.row.atoms[0], c.col.atoms[0]):
        d = _decl_of(src, k, name)
        v = unparen(d.child_by_field_name("value")) if d is not None else None
        if v is None or v.type != "binary_expression" or text(src, unparen(v.child_by_field_name("left"))) != root:
            return None
        got[text(src, v.child_by_field_name("operator"))] = (name, text(src, v.child_by_field_name("right")))
    if set(got) != {"/", "%"} or got["/"][1] != got["%"][1]:
        return None
    q = "kp_i" if got["/"][0] == c.row.atoms[0] else "kp_j"
    r = "kp_j" if q == "kp_i" else "kp_i"
    return f"({q} * ({got['/'][1]}) + {r})"


def _batch_root(src: SourceFile, k, root: str, c: Contraction) -> str | None:
    """`root` given back from two parts of a batch of block positions that split it (llm.c's `bh` beside
    `b = bh / NH, h = bh % NH`): `(b * (NH) + h)`, the parts as the grid's z gives them; else None."""
    if c.batch is None or c.batch.thread != "blocks":
        return None
    got = {}
    for name in c.batch.parts:
        d = _decl_of(src, k, name)
        v = unparen(d.child_by_field_name("value")) if d is not None else None
        if v is not None and v.type == "binary_expression" and text(src, unparen(v.child_by_field_name("left"))) == root:
            got[text(src, v.child_by_field_name("operator"))] = (name, text(src, v.child_by_field_name("right")))
    if set(got) != {"/", "%"} or got["/"][1] != got["%"][1]:
        return None
    return f"({got['/'][0]} * ({got['/'][1]}) + {got['%'][0]})"


def _part_of(src: SourceFile, k, root: str, c: Contraction) -> str | None:
    """`root` from the output's row (column) where that is declared `B * S + T` with `B = blockIdx.d` and
    `T = threadIdx.d` or a quotient or remainder of it (the kernel's tile S rows of its block, T below S):
    B = kp_i / S, T = kp_i % S; else None."""
    for name, mine in ((c.row.atoms[0], "kp_i"), (c.col.atoms[0], "kp_j")):
        d = _decl_of(src, k, name)
        v = unparen(d.child_by_field_name("value")) if d is not None else None
        if v is None or v.type != "binary_expression" or text(src, v.child_by_field_name("operator")) != "+":
            continue
        left, right = unparen(v.child_by_field_name("left")), unparen(v.child_by_field_name("right"))
        for prod, rem in ((left, right), (right, left)):
            if prod is None or rem is None or prod.type != "binary_expression" or \
                    text(src, prod.child_by_field_name("operator")) != "*" or rem.type != "identifier":
                continue
            a, b = unparen(prod.child_by_field_name("left")), unparen(prod.child_by_field_name("right"))
            for q, size in ((a, b), (b, a)):
                if q is None or q.type != "identifier":
                    continue
                qv, rv = _decl_of(src, k, text(src, q)), _decl_of(src, k, text(src, rem))
                qt = text(src, qv.child_by_field_name("value")).replace(" ", "") if qv is not None else ""
                rt = text(src, rv.child_by_field_name("value")).replace(" ", "") if rv is not None else ""
                if not (re.fullmatch(r"blockIdx\.[xyz]", qt) and (rt == "threadIdx." + qt[-1] or re.fullmatch(
                        r"threadIdx\.[xyz][/%]\(?\w+\)?", rt))):  # (siboehm's `threadRow = threadIdx.x / BS`)
                    continue
                if src.eval_int(size, src.instantiated(k) or None) is None:
                    continue  # (a tile as wide as the old block only where it is a number: blockDim.y is not one now)
                if root == text(src, q):
                    return f"({mine} / ({text(src, size)}))"
                if root == text(src, rem):
                    return f"({mine} % ({text(src, size)}))"
    return None


def grid_text(c: Contraction, table: dict, bm: int, bn: int, z: str | None) -> tuple[str, str] | None:
    """(N tiles, M tiles) in the names of `table` (spec values or a launch's arguments)."""
    n, m = in_terms_of(c.N, table), in_terms_of(c.M, table)
    if n is None or m is None:
        return None
    return f"(((long long)({n}) + {bn - 1}) / {bn})", f"(((long long)({m}) + {bm - 1}) / {bm})"


def host_launches(src: SourceFile, kernel: str, c: Contraction, text_: str, bm: int, bn: int,
                  threads: int, kept: bool = False) -> tuple[str, list[str]]:
    """The file's own launches of the kernel with the tiled grid and block (kept: the grid as it was)."""
    s2 = SourceFile(text_, src.path)
    subs, notes = [], []
    for call, cfg, args, host in launch_sites(s2, kernel):
        if len(args) < 2:
            continue
        if kept:
            subs.append((args[1].start_byte, args[1].end_byte, str(threads)))
            continue
        table = _call_args(s2, kernel, call)
        g = grid_text(c, table, bm, bn, None)
        if g is None:
            notes.append(f"line {call.start_point[0] + 1}: launch {kernel} with grid (cdiv({c.N}, {bn}), cdiv({c.M}, "
                         f"{bm}), the batch) and {threads} threads (its arguments could not be matched)")
            continue
        old = s2.node_text(args[0])
        zs = f"dim3({old}).z"
        if c.batch is not None and c.batch.thread in ("loop", "digits", "blocks"):
            z = batch_z(c, table, [f"dim3({old}).{d}" for d in "xyz"])
            if z is None:
                notes.append(f"line {call.start_point[0] + 1}: launch {kernel} with the batch count {c.batch.extent} "
                             "as the grid's z")
                continue
            zs = f"(unsigned)({z})"
        subs.append((args[0].start_byte, args[0].end_byte,
                     f"dim3((unsigned){g[0]}, (unsigned){g[1]}, {zs})"))
        subs.append((args[1].start_byte, args[1].end_byte, str(threads)))
    return (span_text(s2, 0, len(s2.data), subs) if subs else text_), notes


def packed(c: Contraction) -> bool:
    """Some operand can be read 16 bytes at a time (4 floats, 8 half/bf16 or 2 doubles along a contiguous
    dimension)."""
    return any(o.elem in ESIZE and (o.k_stride == "1" or "1" in o.strides.values()) for t in c.terms for o in t)


def describe(c: Contraction) -> str:
    from kernelpro.profilers.analysis.contraction import describe as d
    return d(c)


# ---------------------------------------------------------------- the knob space


SHAPES = [(128, 128, 8, 8, 8), (64, 64, 8, 4, 4), (128, 64, 8, 8, 4), (64, 128, 8, 4, 8), (64, 64, 16, 4, 4),
          (128, 128, 16, 8, 8), (32, 32, 16, 2, 2), (64, 32, 16, 4, 2), (32, 64, 16, 2, 4), (16, 16, 16, 1, 1)]


def simt_features(c: Contraction, arch_num: int) -> dict:
    """What the tiles' knobs can change for this product: 16-byte loads (a float operand contiguous
    somewhere), cp.async double buffering (sm_80+, an operand whose shared copy keeps its bytes: float
    sums of float operands, double of double), a swizzle (an operand read along k, stored transposed)."""
    acc = _acc_type(c.acc_type if c.accumulate == "local" else c.out.elem)
    ops = [o for t in c.terms for o in t]
    if c.shifted:  # (centered operands are converted one element at a time: no 16-byte pieces, no cp.async)
        return {"packs": False, "async_ok": False, "swz_ok": any(o.k_stride == "1" for o in ops)}
    return {"packs": packed(c),
            "async_ok": arch_num >= 80 and any(o.elem == acc and ESIZE.get(o.elem, 0) >= 4 for o in ops),
            "swz_ok": any(o.k_stride == "1" for o in ops)}


def _wave_share(bm: int, bn: int, m, n, batch, sms: int, per_sm: int) -> float:
    """The share of the machine the tiles keep busy: in one wave, the SMs that get a tile; past one,
    the share of the last wave's slots that does work (1.0: every wave full)."""
    tiles = (-(-(m or 4096) // bm)) * (-(-(n or 4096) // bn)) * (batch or 1)
    slots = sms * per_sm
    return min(tiles, sms) / sms if tiles <= slots else tiles / (-(-tiles // slots) * slots)


def tile_space(terms: int, acc_bytes: int, m: float | None, n: float | None, batch: float | None,
               arch: str = "sm_90", sms: int = 132, packs: bool = True, async_ok: bool = False,
               swz_ok: bool = False) -> list[dict]:
    """Tile settings the occupancy calculator admits (48 KB of static shared memory and an estimate of
    the registers per block), ordered by a small model: loads saved per multiply-add (BM*BN/(BM+BN))
    times the share of the last wave that does work, for the largest size of the spec; then padding 4
    (or the swizzle) over 1 and 0, two cp.async stages over one, 16-byte loads over single ones."""
    from kernelpro.profilers.occupancy import occupancy

    out = []
    layouts = [(4, 0), (1, 0), (0, 0)] + ([(0, 1)] if swz_ok else [])
    for bm, bn, bk, tm, tn in SHAPES:
        threads = (bm // tm) * (bn // tn)
        pipes = ([(2, 0)] if async_ok else []) + [(1, 0), (2, 1)]  # (stages, pre): cp.async, none, registers
        for (pad, swz), (stages, pre) in ((lay, sp) for lay in layouts for sp in pipes):
            smem = stages * terms * bk * (bm + bn + 2 * pad) * acc_bytes
            regs = min(255, terms * tm * tn * (acc_bytes // 4) + tm + tn + 40 + 8 * (stages - 1)
                       + pre * terms * -(-(bm + bn) * bk // threads) * (acc_bytes // 4))
            if smem > 48 * 1024 or not 32 <= threads <= 1024:
                continue
            try:
                occ = occupancy(arch, threads, regs, smem)
            except Exception:
                continue
            if not occ.blocks_per_sm:
                continue
            score = min(bm * bn / (bm + bn), 64) * _wave_share(bm, bn, m, n, batch, sms, occ.blocks_per_sm) \
                * (0.99 if swz else {4: 1.0, 1: 0.97, 0: 0.9}[pad]) \
                * (1.02 if pre else 1.0 if stages == 2 or not async_ok else 0.93)  # the register pipeline first:
            # on the H100 at 4096^3 it ran 3.22 ms against 3.70 for cp.async (gemm_fp32; the chain 1.62 against 1.87)
            for vec in ((4, 1) if packs else (1,)):
                knobs = {"bm": bm, "bn": bn, "bk": bk, "tm": tm, "tn": tn, "pad": pad, "vec": vec, "stages": stages,
                         "swz": swz}
                out.append(({**knobs, "pre": 1} if pre else knobs, score * (1.0 if vec == 4 or not packs else 0.95)))
    out.sort(key=lambda x: -x[1])
    return [k for k, _ in out]


# ---------------------------------------------------------------- tensor cores (WMMA)

WMMA_TYPES = {"__nv_bfloat16": "__float2bfloat16", "nv_bfloat16": "__float2bfloat16", "__half": "__float2half",
              "half": "__float2half"}
WMMA_SHAPES = ((128, 64, 32), (64, 128, 32), (64, 64, 32), (128, 128, 32), (64, 64, 16), (128, 64, 16), (64, 128, 16),
               (32, 64, 32), (64, 32, 32), (32, 32, 32))  # (the small ones for products of a few hundred a side)


def _combined(c: Contraction, a: str, b: str) -> str:
    """What the sum adds for elements a of A and b of B: their product, or the kernel's own function of them."""
    if c.combine is None:
        return f"{a} * {b}"
    return "(" + re.sub(r"\bkp_[xy]\b", lambda m: a if m.group(0) == "kp_x" else b, c.combine) + ")"


def not_a_product(c: Contraction) -> str | None:
    """Why tensor cores and the library GEMM (which multiply) do not apply to a sum of another function."""
    if c.sums:
        return (f"the loop updates {len(c.sums)} sums of products stored at one position (tensor cores and GEMMs "
                "compute one product; shared-memory tiles apply)")
    if c.shifted:
        what = [f"{o.array} - {o.shift}" for t in c.terms for o in t if o.shift]
        what += [f"{o.array} x {o.scale.replace('kp_k', 'k')}" for t in c.terms for o in t if o.scale]
        return ("the operands are " + ("centered" if any(o.shift for t in c.terms for o in t) else "weighted along k")
                + " (" + ", ".join(what) + "): tensor cores and GEMMs multiply the elements as stored (shared-memory "
                "tiles convert them as they load)")
    if c.combine is None:
        return None
    x, y = c.terms[0][0].array, c.terms[0][1].array
    return (f"the sum adds `{c.combine.replace('kp_x', 'x').replace('kp_y', 'y')}` of x in {x} and y in {y}, not "
            "their product (tensor cores and GEMMs multiply; shared-memory tiles apply)")


def check_wmma(c: Contraction) -> str:
    """The 16-bit element type both operands share (WMMA takes it with fp32 sums); Refuse otherwise."""
    if not_a_product(c):
        raise Refuse(not_a_product(c))
    if len(c.terms) != 1:
        raise Refuse("a sum of several products (tensor cores take one)")
    a, b = c.terms[0]
    if a.elem != b.elem or a.elem not in WMMA_TYPES:
        raise Refuse(f"the operands are {a.elem} and {b.elem}: WMMA here takes bf16 or fp16 operands "
                     "(fp32 through TF32 where the tolerance admits it, else 3xTF32)")
    return a.elem


TF32_U = 2.0 ** -11  # TF32's unit roundoff (10-bit mantissa, rounded to nearest)


def tf32_admits(c: Contraction, tolerance, kmax):
    """(True, what to say) where the spec's tolerance admits TF32's error for sums of kmax products of
    unit-scale values: a product's relative error up to 2u, summed as a random walk (3 sigma), against
    the absolute tolerance (atol, plus atol_rms times the outputs' rms, sqrt(kmax) for such sums, where the
    tolerance is (rtol, atol, atol_rms)) and rtol; else the reason (a str)."""
    a, b = c.terms[0] if len(c.terms) == 1 else (None, None)
    if not_a_product(c):
        return not_a_product(c)
    if a is None or a.elem != "float" or b.elem != "float":
        return "only for one product of float operands"
    if tolerance is None or kmax is None:
        return "no spec tolerance (or K) to check TF32's error against"
    rtol, atol, *scaled = tolerance
    scaled = scaled[0] if scaled else 0.0
    atol = atol + scaled * kmax ** 0.5  # (rtol x rms(C) where the spec gives no atol)
    said = f"rtol {rtol:g}, atol {atol:.2g}" + (f" ({scaled:g} x the outputs' rms, about sqrt(K) here)" if scaled else "")
    err = 3 * 2 * TF32_U * (kmax ** 0.5)
    if atol < err or rtol < 4 * TF32_U:
        return (f"the spec's tolerance ({said}) does not admit TF32's error at K = {kmax:g} "
                f"(about {err:.2g} absolute, {4 * TF32_U:.1g} relative)")
    return True, f"TF32 admitted by the spec's tolerance ({said}) at K = {kmax:g}: expected error about {err:.2g}"


def split_tf32_ok(c: Contraction) -> bool:
    """3xTF32 applies: one product of float operands (the tensor cores' fp32-accurate mode)."""
    return len(c.terms) == 1 and all(o.elem == "float" for o in c.terms[0]) and c.plain


SPLIT_POLICY = ("3xTF32 split precision: each fp32 operand is big + small with big = tf32(x) and small = "
                "tf32(x - big); the sums add big*big + big*small + small*big in fp32 (small*small dropped), "
                "close to fp32's accuracy for three tensor-core products per step; each slab's sums are added to the "
                "running sums in fp32 registers, so no K-long chain of sums stays inside the tensor cores")


def _wmma_slabs(c: Contraction, bm: int, bn: int, pad: int) -> tuple[_Slab, _Slab]:
    """A's and B's slabs, each kept in shared memory the way it lies in global memory (A read along its
    rows is stored [k][row] and taken as a col_major fragment; B read along k, [column][k], col_major),
    so 16-byte pieces go straight in."""
    a, b = c.terms[0]
    sa = _Slab(a, "kp_As0", bm, "kp_i", "kp_M", "kp_i0", c.row.atoms[0], False, pad)
    sb = _Slab(b, "kp_Bs0", bn, "kp_j", "kp_N", "kp_j0", c.col.atoms[0], True, pad)
    sa.kmajor = sa.along() == "r"
    sb.kmajor = sb.along() != "k"
    return sa, sb


def _slab_bytes(sl: _Slab, bk: int, stages: int, eb: int) -> int:
    return stages * (bk if sl.kmajor else sl.rows) * sl.width(bk) * eb


def wmma_smem(c: Contraction, tf32: bool, bm: int, bn: int, bk: int, stages: int) -> int:
    """Shared bytes of wmma_body's setting: the slabs' stages, the sums' tile reusing them after."""
    eb, pad = (4, 4) if tf32 else (2, 8)
    sa, sb = _wmma_slabs(c, bm, bn, pad)
    return max(_slab_bytes(sa, bk, stages, eb) + _slab_bytes(sb, bk, stages, eb), 4 * bm * (bn + 4))


def wmma_space(c: Contraction, precision: str, m, n, batch, arch: str = "sm_90", sms: int = 132) -> list[dict]:
    """WMMA settings (bm, bn, bk, stages) within 48 KB of static shared memory that the occupancy
    calculator admits (registers estimated from the fragments), the likely best first: tiles that
    save the most loads and fill the last wave, 32-deep slabs, two cp.async stages."""
    from kernelpro.profilers.occupancy import occupancy

    tf32 = precision != "16-bit"
    base = {"16-bit": 64, "tf32": 64, "3xtf32": 96}[precision]  # registers besides the sums' fragments
    out = []
    for (bm, bn, bk), stages, (wm, wn) in ((s, st, w) for s in WMMA_SHAPES for st in (2, 1) for w in WARP_TILES):
        if bm % wm or bn % wn or (bm // wm) * (bn // wn) < 2:
            continue
        threads = (bm // wm) * (bn // wn) * 32
        smem = wmma_smem(c, tf32, bm, bn, bk, stages)
        if smem > 48 * 1024:
            continue
        regs = min(255, base + (wm // 16) * (wn // 16) * 8 * (2 if precision == "3xtf32" else 1))
        try:
            occ = occupancy(arch, threads, regs, smem)
        except Exception:
            continue
        if not occ.blocks_per_sm:
            continue
        # a larger warp tile reuses each fragment more (fewer shared-memory reads per MMA) but leaves fewer
        # warps: a small preference for 32 x 32 until the GPU says otherwise (tuning tries the others)
        score = min(bm * bn / (bm + bn), 64) * _wave_share(bm, bn, m, n, batch, sms, occ.blocks_per_sm) \
            * (1.0 if bk == 32 else 0.95) * (1.0 if stages == 2 else 0.9) * (1.0 if (wm, wn) == (32, 32) else 0.97)
        knobs = {"bm": bm, "bn": bn, "bk": bk, "stages": stages}
        if (wm, wn) != (32, 32):
            knobs.update(wm=wm, wn=wn)
        out.append((knobs, score))
    out.sort(key=lambda x: -x[1])
    return [k for k, _ in out]


WARP_TILES = ((32, 32), (64, 32), (32, 64), (64, 64), (16, 32), (32, 16), (16, 16))  # a warp's outputs: (rows, columns)


def wmma_body(src: SourceFile, kernel: str, c: Contraction, coords: dict, bm: int, bn: int, bk: int,
              causal: str | None = None, tf32: bool = False, stages: int = 1, split: bool = False,
              wm: int = 32, wn: int = 32, kept: bool = False, sym: bool = False) -> str:
    """The kernel with its body replaced by a tensor-core product: BM x BN tiles per block, each warp
    WM x WN outputs (32 x 32 by default) as WM/16 x WN/16 WMMA fragments (16-bit operands, or fp32 as TF32, or as 3xTF32 with
    split; fp32 sums), the operands' slabs in padded shared memory in their global layout (16-byte
    pieces; with 2 stages through cp.async, the next slab in flight), the sums put back through shared
    memory over the slabs, then every output runs the kernel's code as written."""
    k = src.kernel(kernel)
    tf32 = tf32 or split
    t = "float" if tf32 else check_wmma(c)
    zero = "0.0f" if tf32 else f"{WMMA_TYPES[t]}(0.0f)"
    kf, ft, pad = (8, "nvcuda::wmma::precision::tf32", 4) if tf32 else (16, t, 8)
    eb = 4 if tf32 else 2
    fm, fn = wm // 16, wn // 16  # a warp's fragments along the rows and the columns
    warps_n = bn // wn
    threads = (bm // wm) * warps_n * 32
    sa, sb = _wmma_slabs(c, bm, bn, pad)
    sa.ptr, sb.ptr = _flat_ptr(src, k, sa.o), _flat_ptr(src, k, sb.o)
    ab = _slab_bytes(sa, bk, stages, eb)
    smem = wmma_smem(c, tf32, bm, bn, bk, stages)
    ind, i2, i3 = "    ", "        ", "            "
    kind = "3xTF32 (fp32 split in two TF32 parts)" if split else "TF32" if tf32 else t
    L = [f"{{  // kernelpro: tensor cores: {bm} x {bn} tiles per block, {wm} x {wn} per warp as WMMA 16x16x{kf} "
         f"fragments ({kind} operands, fp32 sums), {bk}-deep slabs in shared memory"
         + (", double-buffered through cp.async" if stages == 2 else "")]
    L += _head(c, bm, bn, causal, ind)
    dims = [f"[{stages}][{bk if sl.kmajor else sl.rows}][{sl.width(bk)}]" for sl in (sa, sb)]
    L += [f"{ind}const int kp_tid = threadIdx.x, kp_wm = (kp_tid / 32) / {warps_n}, kp_wn = (kp_tid / 32) % {warps_n};",
          *_origin(bm, bn, kept, ind), *_upper_half(sym, bm, bn, kept, ind),
          f"{ind}alignas(128) __shared__ unsigned char kp_smem[{smem}];  // the slabs, then the sums' tile",
          f"{ind}{t} (&kp_As0){dims[0]} = *reinterpret_cast<{t} (*){dims[0]}>(kp_smem);",
          f"{ind}{t} (&kp_Bs0){dims[1]} = *reinterpret_cast<{t} (*){dims[1]}>(kp_smem + {ab});",
          f"{ind}float (&kp_Cs)[{bm}][{bn + 4}] = *reinterpret_cast<float (*)[{bm}][{bn + 4}]>(kp_smem);",
          f"{ind}nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, {kf}, float> kp_f[{fm}][{fn}];",
          f"{ind}for (int m = 0; m < {fm}; ++m)",
          f"{ind}  for (int n = 0; n < {fn}; ++n) nvcuda::wmma::fill_fragment(kp_f[m][n], 0.0f);"]
    lay = {sa.name: "col_major" if sa.kmajor else "row_major", sb.name: "row_major" if sb.kmajor else "col_major"}
    use = [f"{i2}for (int kp_kk = 0; kp_kk < {bk}; kp_kk += {kf}) {{",
           f"{i3}nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, {kf}, {ft}, nvcuda::wmma::{lay[sa.name]}> "
           f"kp_a[{fm}]{f', kp_as[{fm}]' if split else ''};",
           f"{i3}nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, {kf}, {ft}, nvcuda::wmma::{lay[sb.name]}> "
           f"kp_b[{fn}]{f', kp_bs[{fn}]' if split else ''};",
           f"{i3}for (int m = 0; m < {fm}; ++m) nvcuda::wmma::load_matrix_sync(kp_a[m], "
           f"&{sa.at('kp_st', 'kp_kk', f'kp_wm * {wm} + m * 16', bk)}, {sa.width(bk)});",
           f"{i3}for (int n = 0; n < {fn}; ++n) nvcuda::wmma::load_matrix_sync(kp_b[n], "
           f"&{sb.at('kp_st', 'kp_kk', f'kp_wn * {wn} + n * 16', bk)}, {sb.width(bk)});"]
    for f, s, nq in (("kp_a", "kp_as", fm), ("kp_b", "kp_bs", fn)) if tf32 else ():
        if split:  # x = big + small, each a TF32 value
            use += [f"{i3}for (int q = 0; q < {nq}; ++q)",
                    f"{i3}  for (int e = 0; e < {f}[q].num_elements; ++e) {{",
                    f"{i3}    const float kp_x = {f}[q].x[e];",
                    f"{i3}    {f}[q].x[e] = nvcuda::wmma::__float_to_tf32(kp_x);",
                    f"{i3}    {s}[q].x[e] = nvcuda::wmma::__float_to_tf32(kp_x - {f}[q].x[e]);",
                    f"{i3}  }}"]
        else:  # the fp32 values rounded to TF32, as the instruction takes them
            use += [f"{i3}for (int q = 0; q < {nq}; ++q)",
                    f"{i3}  for (int e = 0; e < {f}[q].num_elements; ++e) {f}[q].x[e] = "
                    f"nvcuda::wmma::__float_to_tf32({f}[q].x[e]);"]
    acc = "kp_g" if split else "kp_f"  # 3xTF32: each slab's sums apart, added to kp_f after it (below)
    mma = "nvcuda::wmma::mma_sync(" + acc + "[m][n], {}, {}, " + acc + "[m][n]);"
    steps = [mma.format("kp_as[m]", "kp_b[n]"), mma.format("kp_a[m]", "kp_bs[n]")] if split else []
    use += [f"{i3}for (int m = 0; m < {fm}; ++m)", f"{i3}  for (int n = 0; n < {fn}; ++n) {{"]
    use += [f"{i3}    {s}" for s in steps + [mma.format("kp_a[m]", "kp_b[n]")]]  # the small parts first
    use += [f"{i3}  }}", f"{i2}}}"]
    if split:  # the MMAs sum with truncation: a K-long chain inside them drifts past fp32's error (519 of 16.7 M
        # elements of a 4096^3 product on an H100); one slab's sums there, then rounded sums in registers
        use = ([f"{i2}nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, {kf}, float> kp_g[{fm}][{fn}];",
                f"{i2}for (int m = 0; m < {fm}; ++m)",
                f"{i2}  for (int n = 0; n < {fn}; ++n) nvcuda::wmma::fill_fragment(kp_g[m][n], 0.0f);"]
               + use + [f"{i2}for (int m = 0; m < {fm}; ++m)",
                        f"{i2}  for (int n = 0; n < {fn}; ++n)",
                        f"{i2}    for (int e = 0; e < kp_f[m][n].num_elements; ++e) kp_f[m][n].x[e] += kp_g[m][n].x[e];"])

    def loads(stage):
        return [ln for sl in (sa, sb)
                for ln in _slab_loads(c, sl, bk, threads, t, dict(coords), causal, 2, stages == 2, stage, zero, ind)]
    L += _pipeline(bk, stages, loads, use, ind)
    L += [f"{ind}for (int m = 0; m < {fm}; ++m)",
          f"{ind}  for (int n = 0; n < {fn}; ++n)",
          f"{ind}    nvcuda::wmma::store_matrix_sync(&kp_Cs[kp_wm * {wm} + m * 16][kp_wn * {wn} + n * 16], kp_f[m][n], "
          f"{bn + 4}, nvcuda::wmma::mem_row_major);",
          f"{ind}__syncthreads();",
          f"{ind}for (int kp_e = kp_tid; kp_e < {bm * bn}; kp_e += {threads}) {{",
          f"{i2}const long long kp_i = kp_i0 + kp_e / {bn}, kp_j = kp_j0 + kp_e % {bn};",
          f"{i2}if (kp_i >= kp_M || kp_j >= kp_N) continue;",
          f"{i2}[&]() {{  // the kernel as written, for output (kp_i, kp_j), its k loop's sum given",
          f"{i3}" + _replay(src, k, c, i3, [f"kp_Cs[kp_e / {bn}][kp_e % {bn}]"]), f"{i2}}}();", f"{ind}}}"]
    if sym:  # the mirror, the tile read down its columns: neighbouring threads write along a row of C
        L += [f"{ind}for (int kp_e = kp_tid; kp_e < {bm * bn}; kp_e += {threads}) {{",
              f"{i2}const long long kp_i = kp_i0 + kp_e % {bm}, kp_j = kp_j0 + kp_e / {bm};",
              f"{i2}if (kp_i >= kp_M || kp_j >= kp_N) continue;",
              *_mirror(_replay(src, k, c, ind * 3, [f"kp_Cs[kp_e % {bm}][kp_e / {bm}]"]), i2), f"{ind}}}"]
    L += ["}"]
    text_ = span_text(src, 0, k.body.start_byte) + "\n".join(L) + span_text(src, k.body.end_byte, len(src.data))
    text_ = _include(text_, "mma.h")
    return _include(text_, "cuda_pipeline.h") if stages == 2 else text_


def first_of_coarsened(src: SourceFile, kernel: str) -> str | None:
    """A thread coarsened over C outputs with an array of sums (PMPP's `float Pvalue[COARSE]`, every use
    `Pvalue[c]` inside a loop `for (int c = 0; c < COARSE; ++c)`) read as the kernel of its first output: each
    such loop its body for c = 0, the array one scalar. Only for the tiles and tensor cores, which set their own
    launch (the kernel made here covers 1 in C outputs). None where the kernel has no such array, or one of its
    elements is used other than at the loop's own counter."""
    from kernelpro.profilers.analysis.loops import _header

    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    named = _counter_positions_named(src, k)
    if named is not None:  # `if (row0 + r < M) acc[r] += A[(row0 + r) * K + k] * bk;`: the position a local
        first = first_of_coarsened(parse_source(named[0], src.path), kernel)
        return _unstrided_starts(first, src.path, kernel, named[1]) if first is not None else None
    consts = {**src.constants, **src.instantiated(k)}
    arrays: dict[str, int] = {}
    decls = {}
    for d in walk(k.body):
        if d.type != "declaration" or "__shared__" in text(src, d) or "static" in text(src, d):
            continue
        ds = d.children_by_field_name("declarator")
        init = None
        if len(ds) == 1 and ds[0].type == "init_declarator" and \
                ds[0].child_by_field_name("declarator").type == "array_declarator":
            init = ds[0].child_by_field_name("value")  # `float acc[4] = {0.f, 0.f, 0.f, 0.f};`: zeros only
            if init is None or init.type != "initializer_list" or not _zero(text(src, init)):
                continue
        if len(ds) == 1 and (ds[0].type == "array_declarator" or init is not None):
            arr = ds[0] if init is None else ds[0].child_by_field_name("declarator")
            size = arr.child_by_field_name("size")
            inner = arr.child_by_field_name("declarator")
            n = src.eval_int(size, consts) if size is not None else None
            if inner is not None and inner.type == "identifier" and n is not None and n > 1:
                arrays[text(src, inner)] = n
                decls[text(src, inner)] = (d, arr if init is None else ds[0])
    if not arrays:
        return None
    loops = {}  # loop node -> its counter, for `for (int c = 0; c < C; ++c)` loops with C an array's size
    for lp in walk(k.body):
        if lp.type != "for_statement":
            continue
        h = _header(src, lp)
        if h["var"] and h["declared"] and h["start"] is not None and src.eval_int(h["start"], consts) == 0 \
                and h["cmp"] == "<" and h["step"] == 1 and h["bound"] is not None \
                and src.eval_int(h["bound"], consts) in arrays.values():
            body = lp.child_by_field_name("body")
            if not any(n == h["var"] for n, _ in writes_in(src, body)) and leaving_jump(lp) is None:
                loops[lp] = (h["var"], src.eval_int(h["bound"], consts))
    used = set()
    for n in walk(k.body):
        if n.type != "identifier" or text(src, n) not in arrays:
            continue
        name = text(src, n)
        d = decls[name][1]
        if d.start_byte <= n.start_byte < d.end_byte:
            continue
        sub = n.parent
        if sub is None or sub.type != "subscript_expression" or sub.child_by_field_name("argument") != n:
            return None
        idx = text(src, sub.child_by_field_name("indices") or sub.child_by_field_name("index") or sub).strip("[] ")
        owner = next((lp for lp in loops if lp.start_byte <= n.start_byte < lp.end_byte and loops[lp][0] == idx), None)
        if owner is None or loops[owner][1] != arrays[name]:
            return None
        if any(o is not owner and o.start_byte <= owner.start_byte and owner.end_byte <= o.end_byte for o in loops):
            return None  # a coarsening loop inside another: a 2-D tile of sums, not this form
        used.add(name)
    if not used or not any(any(lp.start_byte <= n.start_byte < lp.end_byte for n in walk(k.body)
                                   if n.type == "identifier" and text(src, n) in used) for lp in loops):
        return None
    loops = {lp: v for lp, v in loops.items() if any(n.type == "identifier" and text(src, n) in used for n in walk(lp))}
    for lp, (var, _) in loops.items():  # slice c is the same product at another output position, nothing else
        if not _counter_moves_a_position(src, lp, var, used):
            return None
    subs = []
    for name in used:
        d, ad = decls[name]
        subs.append((ad.start_byte, ad.end_byte, name if ad.type == "array_declarator" else f"{name} = 0"))
    for n in walk(k.body):
        if n.type == "subscript_expression":
            a = n.child_by_field_name("argument")
            if a is not None and a.type == "identifier" and text(src, a) in used:
                subs.append((n.start_byte, n.end_byte, text(src, a)))
    loop_subs = []
    for lp, (var, _) in loops.items():
        if not any(n.type == "identifier" and text(src, n) in used for n in walk(lp)):
            continue
        body = lp.child_by_field_name("body")
        inner = [(n.start_byte, n.end_byte, "0") for n in walk(body) if n.type == "identifier" and text(src, n) == var]
        # the body's locals set once (`int col = colStart + c * TILE;`) written into their uses, so the guards
        # and indices after the loops name the same position as the product
        written = {n for n, _ in writes_in(src, body)}
        for st in statements(body):
            ds = st.children_by_field_name("declarator") if st.type == "declaration" else []
            if len(ds) != 1 or ds[0].type != "init_declarator":
                continue
            name = text(src, ds[0].child_by_field_name("declarator"))
            value = ds[0].child_by_field_name("value")
            if name in written or value is None or value.type == "initializer_list":
                continue
            at0 = index_poly(src, value, {var: const(0)})  # `colStart + c * TILE` at c = 0: `colStart`
            vtext = poly_text(at0) if at0 is not None else span_text(src, value.start_byte, value.end_byte, sorted(
                (n.start_byte, n.end_byte, "0") for n in walk(value) if n.type == "identifier" and text(src, n) == var))
            vtext = vtext if re.fullmatch(r"[A-Za-z_][\w.]*", vtext) else f"({vtext})"
            inner += [(n.start_byte, n.end_byte, vtext) for n in walk(body) if n.type == "identifier"
                      and text(src, n) == name and n.start_byte >= st.end_byte]
            inner.append((st.start_byte, st.end_byte, ""))
        inner += [x for x in subs if body.start_byte <= x[0] and x[1] <= body.end_byte]
        subs = [x for x in subs if not (body.start_byte <= x[0] and x[1] <= body.end_byte)]
        new = span_text(src, body.start_byte, body.end_byte, sorted(inner))
        own = set()
        for st in statements(body):
            for x in (st.children_by_field_name("declarator") if st.type == "declaration" else []):
                while x is not None and x.type != "identifier":
                    x = x.child_by_field_name("declarator")
                if x is not None:
                    own.add(text(src, x))
        # the body's declarations move into the loop's scope only where nothing else there names them
        scope = lp.parent
        clash = scope is None or any(n.type == "identifier" and text(src, n) in own and not
                                     (lp.start_byte <= n.start_byte < lp.end_byte) for n in walk(scope))
        if body.type == "compound_statement" and not clash and scope is not None and scope.type == "compound_statement":
            new = new.strip()[1:-1]  # (under an unbraced `if` the braces keep the whole body guarded)
        loop_subs.append((lp.start_byte, lp.end_byte, new))
        prev = lp.prev_sibling
        if prev is not None and prev.type.startswith("preproc") and "unroll" in text(src, prev):
            loop_subs.append((prev.start_byte, prev.end_byte, ""))
    subs = [x for x in subs if not any(a <= x[0] and x[1] <= b for a, b, _ in loop_subs)] + loop_subs
    return span_text(src, 0, len(src.data), sorted(subs))


def _counter_positions_named(src: SourceFile, k):
    """The kernel with each position the counter of a loop over a thread's array of sums moves (`acc[r]`), `row0 + r`
    where a guard compares it (`if (row0 + r < M)`), named once at the top of the loop's body (`const auto kp_pos0 =
    row0 + r;`; nothing in the body writes row0 or r) and read through that name, the
    form _counter_moves_a_position reads: (text, {start: the loop's trip count} for each start every use of which
    is such a position), or None where no loop has such a position."""
    from kernelpro.profilers.analysis.loops import _header

    norm = lambda n: re.sub(r"\s+", "", text(src, unparen(n)))  # noqa: E731
    consts = {**src.constants, **src.instantiated(k)}
    arrays = {text(src, d.child_by_field_name("declarator")) for d in walk(k.body) if d.type == "array_declarator"
              and d.child_by_field_name("declarator") is not None}  # the thread's own arrays (of sums)
    subs, covered, trips = [], [], {}
    for lp in walk(k.body):
        h = _header(src, lp) if lp.type == "for_statement" else None
        body = lp.child_by_field_name("body") if h else None
        if not h or not h["var"] or body is None or body.type != "compound_statement":
            continue
        var = h["var"]
        if not any(x.type == "subscript_expression" and text(src, x.child_by_field_name("argument")) in arrays
                   and norm(x).endswith(f"[{var}]") for x in walk(body)):
            continue  # (a loop over the outputs a thread keeps in an array, `acc[r]`: not a loop over k tiles)
        written = {n for n, _ in writes_in(src, body)}
        compared = {norm(x.child_by_field_name(side)) for x in walk(body) if x.type == "binary_expression"
                    and text(src, x.child_by_field_name("operator")) in ("<", "<=", ">", ">=")
                    for side in ("left", "right")}
        names, mine = {}, []
        for x in walk(body):
            if x.type != "binary_expression" or text(src, x.child_by_field_name("operator")) != "+" or norm(x) not in compared:
                continue
            parts = [norm(x.child_by_field_name("left")), norm(x.child_by_field_name("right"))]
            if var not in parts or re.search(rf"\b{var}\b", parts[1 - parts.index(var)]) or \
                    any(a <= x.start_byte < b for a, b, _ in subs + mine) or var in written or \
                    set(re.findall(r"[A-Za-z_]\w*", parts[1 - parts.index(var)])) & written:
                continue  # (a start the body changes would be read before the change, where it is named)
            name = names.setdefault(norm(x), f"kp_pos{len(covered) + len(names)}")
            mine.append((x.start_byte, x.end_byte, name))
            trip = src.eval_int(h["bound"], consts) if h["bound"] is not None else None
            if trip:
                trips.setdefault(parts[1 - parts.index(var)], set()).add(trip)
        if mine:
            covered += list(names.values())
            subs += mine + [(body.start_byte + 1, body.start_byte + 1,
                             " " + " ".join(f"const auto {n} = {e};" for e, n in names.items()))]
    if not subs:
        return None
    starts = {}
    for base, ts in trips.items():
        uses = [x for x in walk(k.body) if x.type == "identifier" and text(src, x) == base
                and x.parent is not None and x.parent.type != "init_declarator"]
        if len(ts) == 1 and uses and all(any(a <= x.start_byte < b for a, b, n in subs if n in covered) for x in uses):
            starts[base] = ts.pop()
    return span_text(src, 0, len(src.data), sorted(subs)), starts


def _unstrided_starts(text_: str, path: str, kernel: str, starts: dict) -> str:
    """A coarsened kernel's first output with each thread's start `row0 = gy * 4` (4 outputs a thread, every one
    read as row0 + r) read as the thread's own position `row0 = gy`, so that its one output per thread covers every
    row (the tiles set their own launch); the text unchanged where a start is not such a product."""
    src = parse_source(text_, path)
    k = src.kernel(kernel)
    subs = []
    for d in walk(k.body) if k is not None and k.body is not None else ():
        if d.type != "init_declarator" or text(src, d.child_by_field_name("declarator")) not in starts:
            continue
        v = unparen(d.child_by_field_name("value"))
        if v is None or v.type != "binary_expression" or text(src, v.child_by_field_name("operator")) != "*":
            continue
        consts = {**src.constants, **src.instantiated(k)}
        left, right = v.child_by_field_name("left"), v.child_by_field_name("right")
        want = starts[text(src, d.child_by_field_name("declarator"))]
        keep = left if src.eval_int(right, consts) == want else right if src.eval_int(left, consts) == want else None
        if keep is not None and src.eval_int(keep, consts) is None:
            kd = _decl_of(src, k, text(src, keep)) if keep.type == "identifier" and not any(
                n == text(src, keep) for n, _ in writes_in(src, k.body)) else None
            kv = kd.child_by_field_name("value") if kd is not None else None  # (`gy_` written as its value: the
            # row is then row0's own coordinate, which the kernel's guards name)
            subs.append((v.start_byte, v.end_byte, text(src, kv) if kv is not None else text(src, keep)))
    return span_text(src, 0, len(src.data), subs) if subs else text_


def _counter_moves_a_position(src: SourceFile, lp, var: str, used: set) -> bool:
    """Every use of the coarsening counter in lp is the array of sums' index (`acc[c]`) or the c-term of a local
    set once to a position plus c times a step (`int col = colStart + c * TILE;`): slice c is then the c = 0
    reading's product at another output position (its guards and indices through that local). A counter read
    anywhere else (a batch's offset, `A[b * M * K + ..]`) makes slice c another product."""
    body = lp.child_by_field_name("body")
    for n in walk(body):
        if n.type != "identifier" or text(src, n) != var:
            continue
        p = n.parent
        if p is not None and p.type == "subscript_argument_list":
            p = p.parent
        if p is not None and p.type == "subscript_expression" and text(src, p.child_by_field_name("argument")) in used:
            continue
        d = n
        while d is not None and d.type != "init_declarator" and d is not body:
            d = d.parent
        if d is None or d.type != "init_declarator":
            return False
        value = d.child_by_field_name("value")
        poly = index_poly(src, value, {}) if value is not None else None
        if poly is None or not (value.start_byte <= n.start_byte < value.end_byte):
            return False
        moving = {m: c for m, c in poly.items() if var in m}
        if not moving or any(m.count(var) != 1 for m in moving) or len(poly) == len(moving):
            return False  # c once in each of its terms, beside a position that does not move with it
        name = text(src, d.child_by_field_name("declarator"))
        if not any(x.type == "binary_expression" and text(src, x.child_by_field_name("operator")) in ("<", "<=", ">", ">=")
                   and name in (text(src, unparen(x.child_by_field_name("left"))),
                                text(src, unparen(x.child_by_field_name("right")))) for x in walk(body)):
            return False  # a position some guard bounds (`col < N`), not an offset
    return True
