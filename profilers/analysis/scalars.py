"""C89-style scalars and counted loops read as the analyses expect, for the spec inference and the plans alike:
a scalar declared without a value declared where it first gets one, a local index built up by statements right
after its declaration declared with the value they leave, a counted `while` or `do` loop written as its `for`, a
countdown `while (k--)` as the `for` it is."""
from __future__ import annotations

import re

from ..source import SourceFile, parse_source, span_text, walk
from .loops import statements, text, unparen, uses, writes_in
from .pointer_steps import _whole_lines


def declare_at_first_assignment(src_text: str, path: str, kernel: str) -> str | None:
    """C89-style scalars (`int i, j; float m; ... i = blockIdx.x * blockDim.x + threadIdx.x;`,
    `for (j = 0; ...)`) declared where they are first given a value, so the row index, the
    accumulators and the loop counters read as the analysis expects; None if there is none.

    A scalar declared without a value becomes `T x = e;` at its first mention when that is a
    statement `x = e;` (e not reading x) in the declaration's block or a block nested in it
    through plain blocks and guards (not loops or else branches), every later mention being in
    that same block; or, when every mention is inside `for (x = e; ...)` loops, `for (T x = e; ...)`."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    subs, drop = [], {}
    for d in walk(k.body):
        if d.type != "declaration" or d.parent is None or d.parent.type != "compound_statement":
            continue
        head = text(src, d)
        if any(w in head.split() for w in ("__shared__", "static", "extern", "const", "constexpr")):
            continue
        ty = " ".join(text(src, c) for c in d.children if c.type in ("type_qualifier", "storage_class_specifier")
                      ) + " " + text(src, d.child_by_field_name("type"))
        for dec in d.children_by_field_name("declarator"):
            if dec.type != "identifier":
                continue
            x = text(src, dec)
            ms = sorted((n for n in walk(k.body) if n.type == "identifier" and text(src, n) == x
                         and n.start_byte >= d.end_byte), key=lambda n: n.start_byte)
            if not ms:
                continue
            edit = _first_assignment(src, d, x, ms, ty.strip()) or _loop_counters(src, x, ms, ty.strip())
            if edit:
                subs += edit
                drop.setdefault(d, []).append(x)
    if not subs:
        return None
    for d, names in drop.items():
        keep = [text(src, c) for c in d.children_by_field_name("declarator") if text(src, c) not in names]
        if keep:
            ty = text(src, d)[: d.child_by_field_name("declarator").start_byte - d.start_byte]
            subs.append((d.start_byte, d.end_byte, f"{ty}{', '.join(keep)};"))
        else:
            subs.append(_whole_lines(src, d))
    return span_text(src, 0, len(src.data), subs)


def _first_assignment(src: SourceFile, d, x: str, ms, ty: str):
    a = ms[0].parent
    if a is None or a.type != "assignment_expression" or a.child_by_field_name("left") != ms[0] \
            or text(src, a.child_by_field_name("operator")) != "=" or uses(src, a.child_by_field_name("right"), x):
        return None
    s = a.parent
    if s is None or s.type != "expression_statement":
        return None
    block, n = s.parent, s.parent
    while n is not None and n != d.parent:  # plain blocks and guards up to the declaration's block
        p = n.parent
        if p is None or not (p.type == "compound_statement" or (p.type == "if_statement" and p.child_by_field_name(
                "consequence") == n and p.child_by_field_name("alternative") is None)):
            return None
        n = p
    if n != d.parent or block is None or any(m.start_byte >= block.end_byte for m in ms):
        return None
    return [(s.start_byte, s.end_byte, f"{ty} {x} = {text(src, a.child_by_field_name('right'))};")]


def _loop_counters(src: SourceFile, x: str, ms, ty: str):
    out, fors = [], []
    def counts(f) -> bool:
        init = f.child_by_field_name("initializer")
        return init is not None and init.type == "assignment_expression" \
            and text(src, init.child_by_field_name("left")) == x and not uses(src, init.child_by_field_name("right"), x)

    for m in ms:
        f = m.parent
        while f is not None and not (f.type == "for_statement" and counts(f)):
            f = f.parent
        if f is None:
            return None
        init = f.child_by_field_name("initializer")
        if f not in fors:
            fors.append(f)
            out.append((init.start_byte, init.start_byte, f"{ty} "))
    return out


_FOLDABLE = {"=": None, "+=": "+", "-=": "-", "*=": "*", "/=": "/", "%=": "%", "<<=": "<<", ">>=": ">>"}


def while_to_for(src_text: str, path: str, kernel: str) -> str | None:
    """A counted `while` (`unsigned i = 0; while (i < M) { ...; ++i; }`) written as the `for` it is
    (`for (unsigned i = 0; i < M; ++i) { ... }`), so the passes and plans that read counted loops see it:
    only where the counter is declared with a value just before the loop (other declarations that do not name it
    between), the loop's last statement steps
    it (`++i`, `i++`, `i += c`), nothing else in the body writes it or leaves the loop early (`continue`
    would skip the step), and nothing reads it after the loop; None if there is none. A `do { ...; ++k; }
    while (k < K);` likewise: the same loop wherever it runs at least once (a do loop whose first pass ran
    past K read past its operands anyway)."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    for w in walk(k.body):
        if w.type not in ("while_statement", "do_statement") or w.parent is None \
                or w.parent.type != "compound_statement":
            continue
        cond = unparen(w.child_by_field_name("condition"))
        body = w.child_by_field_name("body")
        if cond is None or cond.type != "binary_expression" or body is None or body.type != "compound_statement":
            continue
        var = text(src, unparen(cond.child_by_field_name("left")))
        stmts = statements(body)
        if not stmts or not re.fullmatch(r"\w+", var):
            continue
        step = stmts[-1]
        e = step.named_children[0] if step.type == "expression_statement" and step.named_children else None
        stepping = e is not None and (
            (e.type == "update_expression" and text(src, e.child_by_field_name("argument")) == var
             and "++" in text(src, e)) or
            (e.type == "assignment_expression" and text(src, e.child_by_field_name("left")) == var
             and text(src, e.child_by_field_name("operator")) == "+=" and not uses(src, e.child_by_field_name("right"), var)))
        if not stepping:
            continue
        prev = w.prev_named_sibling  # the counter's declaration: just before the loop, or before other declarations
        while prev is not None and (prev.type == "comment" or (  # that do not name it (`int k = 0; int a = r * p;`)
                prev.type == "declaration" and not uses(src, prev, var) and not any(
                    x.type in ("call_expression", "assignment_expression", "update_expression") for x in walk(prev)))):
            prev = prev.prev_named_sibling
        decs = prev.children_by_field_name("declarator") if prev is not None and prev.type == "declaration" else []
        if len(decs) != 1 or decs[0].type != "init_declarator" or text(src, decs[0].child_by_field_name("declarator")) != var:
            continue
        others = [n for s in stmts[:-1] for n in walk(s)]
        if any(name == var for name, _ in writes_in(src, body) if _ is not e) or any(
                n.type in ("continue_statement", "break_statement", "goto_statement") for n in others):
            continue
        if any(n.type == "identifier" and text(src, n) == var for n in walk(k.body) if n.start_byte >= w.end_byte):
            continue
        ty = text(src, prev)[: decs[0].start_byte - prev.start_byte].strip()
        head = f"for ({ty} {text(src, decs[0])}; {text(src, cond)}; {text(src, e)}) "
        ls = src.data.rfind(b"\n", 0, step.start_byte) + 1
        subs = [(prev.start_byte, prev.end_byte, ""), (w.start_byte, body.start_byte, head),
                (ls if not src.data[ls:step.start_byte].strip() else step.start_byte,
                 step.end_byte + (1 if src.data[step.end_byte:step.end_byte + 1] == b"\n" else 0), "")]
        if w.type == "do_statement":  # `while (k < K);` after the body goes
            subs.append((body.end_byte, w.end_byte, ""))
        return span_text(src, 0, len(src.data), subs)
    return None


def fold_reassignments(src_text: str, path: str, kernel: str) -> str | None:
    """A local integer built up by statements right after its declaration (`int i = blockIdx.x; i = i *
    blockDim.x; i += threadIdx.x;`) declared with the value they leave (`int i = ((blockIdx.x) * blockDim.x)
    + (threadIdx.x);`), so the plans that read an index from its declaration see it: only statements that
    follow the declaration directly in its block, each `x = e` or `x op= e` with e free of calls and of
    updates; None if there is none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    for d in walk(k.body):
        if d.type != "declaration" or d.parent is None or d.parent.type != "compound_statement":
            continue
        decs = d.children_by_field_name("declarator")
        if len(decs) != 1 or decs[0].type != "init_declarator" or decs[0].child_by_field_name("value") is None:
            continue
        ty = text(src, d.child_by_field_name("type")) if d.child_by_field_name("type") is not None else ""
        if not re.search(r"\b(int|unsigned|size_t|long|uint|int64_t|uint32_t)\b", ty) or "const" in text(src, d).split("=")[0]:
            continue
        x = text(src, decs[0].child_by_field_name("declarator"))
        if not re.fullmatch(r"\w+", x):
            continue
        value = text(src, decs[0].child_by_field_name("value"))
        folded, last = 0, d
        s = d.next_named_sibling
        while s is not None and s.type == "expression_statement" and s.named_children:
            e = s.named_children[0]
            if e.type != "assignment_expression" or text(src, e.child_by_field_name("left")) != x:
                break
            op, right = text(src, e.child_by_field_name("operator")), e.child_by_field_name("right")
            if op not in _FOLDABLE or any(n.type in ("call_expression", "assignment_expression", "update_expression")
                                          for n in walk(right)):
                break
            rt = span_text(src, right.start_byte, right.end_byte,
                           [(n.start_byte, n.end_byte, f"({value})") for n in walk(right)
                            if n.type == "identifier" and text(src, n) == x])
            value = rt if _FOLDABLE[op] is None else f"({value}) {_FOLDABLE[op]} ({rt})"
            folded, last = folded + 1, s
            s = s.next_named_sibling
        if not folded:
            continue
        head = text(src, d)[: decs[0].child_by_field_name("value").start_byte - d.start_byte]
        return span_text(src, 0, len(src.data), [(d.start_byte, last.end_byte, f"{head}{value};")])
    return None


_SIGNED = {"int", "long", "long long", "long int", "long long int", "signed", "signed int", "int64_t", "int32_t",
           "ptrdiff_t", "ssize_t"}


def countdown_loops(src_text: str, path: str, kernel: str) -> str | None:
    """`T k = E; while (k--) body` (also `k-- > 0`, `k-- != 0`) of a signed integer T at least an int wide, k
    declared just before, written nowhere else and not read after the loop: `for (T k = (T)(E) - 1; k >= 0; --k)
    body`, the same iterations with the same values of k, which ascending_sum_loops reads forwards where the body
    only accumulates (an unsigned counter would wrap where the body computes k - 1; left alone). None if none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    for blk in walk(k.body):
        kids = statements(blk) if blk.type == "compound_statement" else []
        for d, w in zip(kids, kids[1:]):
            if d.type != "declaration" or w.type != "while_statement" or len(d.children_by_field_name("declarator")) != 1:
                continue
            dec = d.children_by_field_name("declarator")[0]
            name = dec.child_by_field_name("declarator") if dec.type == "init_declarator" else None
            if name is None or name.type != "identifier":
                continue
            var = text(src, name)
            cond = re.sub(r"\s+", "", text(src, w.child_by_field_name("condition")))
            if cond.strip("()") not in (f"{var}--", f"{var}-->0", f"{var}--!=0"):
                continue
            body = w.child_by_field_name("body")
            if any(n == var for n, _ in writes_in(src, body)):
                continue
            if any(n.type == "identifier" and text(src, n) == var for n in walk(k.body) if n.start_byte >= w.end_byte):
                continue  # (k is -1 after the loop: read there, it would differ)
            if any(n.type == "pointer_expression" and text(src, n).startswith("&") and var in text(src, n)
                   for n in walk(k.body)):
                continue  # (its address taken)
            ty = " ".join(text(src, d.child_by_field_name("type")).replace("const", "").split())
            if ty not in _SIGNED:  # (an unsigned or narrow counter wraps, a float one divides otherwise: left alone)
                continue
            header = (f"for ({ty} {var} = ({ty})({text(src, dec.child_by_field_name('value'))}) - 1; "
                      f"{var} >= 0; --{var}) ")
            return span_text(src, 0, len(src.data), [(d.start_byte, body.start_byte, header)])
    return None
