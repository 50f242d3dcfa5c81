"""Pointers walked through a loop, read at the loop's counter: `for (r = 0; r < rows; ++r) { acc += *p; p += N;
}` is `acc += p[r * N]`, and a step written in the loop's update (`++r, p += N`) is moved to the body's end first.
Text-to-text passes over a kernel, shared by the restructuring plans (optimizer/restructure/passes.py) and the
spec inference (runtime/infer.py: the analysis' view only; the snapshot keeps the file as written), so both read
the pointer's reach the same way.
"""
from __future__ import annotations

from ..source import SourceFile, parse_source, span_text, walk
from .affine import subscript_parts
from .loops import analyze_kernel, text


def _writes_scalars(src: SourceFile, nodes) -> set:
    out = set()
    for s in nodes:
        for n in walk(s):
            if n.type == "assignment_expression":
                left = n.child_by_field_name("left")
                if left is not None and left.type == "identifier":
                    out.add(src.node_text(left))
            elif n.type == "update_expression":
                arg = n.child_by_field_name("argument")
                if arg is not None and arg.type == "identifier":
                    out.add(src.node_text(arg))
    return out


def _idents(src: SourceFile, node) -> set:
    return {src.node_text(n) for n in walk(node) if n.type == "identifier"}


def _whole_lines(src: SourceFile, node) -> tuple[int, int, str]:
    """A substitution removing node, and its line when nothing else is on it."""
    a, b = node.start_byte, node.end_byte
    ls = src.data.rfind(b"\n", 0, a) + 1
    le = src.data.find(b"\n", b)
    le = len(src.data) if le < 0 else le
    if not src.data[ls:a].strip() and not src.data[b:le].strip():
        return ls, min(le + 1, len(src.data)), ""
    return a, b, ""


def _stepped_name(src: SourceFile, e) -> str | None:
    """x of `x += e`, `++x` or `x++`."""
    if e.type == "update_expression" and "++" in text(src, e):
        return text(src, e.child_by_field_name("argument"))
    if e.type == "assignment_expression" and text(src, e.child_by_field_name("operator")) == "+=":
        return text(src, e.child_by_field_name("left"))
    return None


def _loop_of(n):
    """The loop a `continue` or `break` at n belongs to (None outside loops)."""
    p = n.parent
    while p is not None and p.type not in ("for_statement", "while_statement", "do_statement"):
        p = p.parent
    return p


def comma_steps_into_body(src_text: str, path: str, kernel: str) -> str | None:
    """A `for` whose update also steps pointers (`for (r = 0; r < rows; ++r, p += cols) acc += *p;`)
    with those steps moved to the end of its body (`for (r = 0; r < rows; ++r) { acc += *p; p += cols; }`),
    so `index_pointer_steps` reads the pointer at the counter: only where the body has no `continue` of this
    loop (it would skip the moved steps); the counter's own step (the first part) stays. None if none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    for f in walk(k.body):
        upd = f.child_by_field_name("update") if f.type == "for_statement" else None
        body = f.child_by_field_name("body") if upd is not None else None
        if upd is None or body is None or upd.type != "comma_expression":
            continue
        parts, e = [], upd
        while e is not None and e.type == "comma_expression":
            parts.append(e.child_by_field_name("left"))
            e = e.child_by_field_name("right")
        parts.append(e)
        if any(p is None for p in parts) or any(
                n.type == "continue_statement" and _loop_of(n) == f for n in walk(body)):
            continue
        pointers = {text(src, d.child_by_field_name("declarator") or d) for d in walk(k.body)
                    if d.type == "pointer_declarator" and d.start_byte < f.start_byte}
        if not all(_stepped_name(src, p) in pointers for p in parts[1:]):  # (a second counter, `a += s, b += t`,
            continue  # is the loop's own: index_pointer_steps is for pointers)
        moved = "".join(f" {text(src, p)};" for p in parts[1:])
        subs = [(upd.start_byte, upd.end_byte, text(src, parts[0]))]
        if body.type == "compound_statement":
            close = body.end_byte - 1
            subs.append((close, close, moved.strip() + " "))
        else:
            subs.append((body.start_byte, body.end_byte, "{ " + text(src, body) + moved + " }"))
        return span_text(src, 0, len(src.data), subs)
    return None


def _integer_local(src: SourceFile, k, name: str, loop) -> bool:
    """`name` is a local of an integer type declared in the kernel before the loop (an index it steps)."""
    ints = ("int", "unsigned", "long", "size_t", "ptrdiff_t", "int64_t", "uint64_t", "int32_t", "uint32_t", "short")
    for d in walk(k.body):
        if d.type == "declaration" and d.start_byte < loop.start_byte and any(
                w in ints for w in text(src, d.child_by_field_name("type")).split()):
            for dec in d.children_by_field_name("declarator"):
                inner = dec.child_by_field_name("declarator") if dec.type == "init_declarator" else dec
                if inner is not None and inner.type == "identifier" and text(src, inner) == name:
                    return True
    return False


def index_pointer_steps(src_text: str, path: str, kernel: str) -> str | None:
    """A pointer stepped once per iteration of a counted loop (`for (r = a; r < b; ++r) { acc += *p;
    p += OC; }`, or `++p;`) read at the counter instead: `p[(long long)(r - a) * (OC)]`, its step dropped, so the
    accesses have an index the plans follow; an integer index stepped the same way (`c += plane;`) read as
    `(c + (long long)(r - a) * (plane))`. Only where the step is the body's last statement, reads
    nothing the loop writes, nothing else writes p in the loop, there is no `continue` or `break`, p
    is read only as `*p` or `p[k]` there, and p is not used after the loop; None if none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    kl, subs = None, []
    for f in walk(k.body):
        body = f.child_by_field_name("body") if f.type == "for_statement" else None
        if body is None or body.type != "compound_statement" or not body.named_children:
            continue
        last = body.named_children[-1]
        e = last.named_children[0] if last.type == "expression_statement" and last.named_children else None
        if e is not None and e.type == "update_expression" and "++" in text(src, e) \
                and e.child_by_field_name("argument").type == "identifier":  # `++p;`: a step of 1
            ptr, step = text(src, e.child_by_field_name("argument")), None
        elif e is not None and e.type == "assignment_expression" and text(src, e.child_by_field_name("operator")) \
                == "+=" and e.child_by_field_name("left").type == "identifier":
            ptr, step = text(src, e.child_by_field_name("left")), e.child_by_field_name("right")
        else:
            continue
        kl = kl or analyze_kernel(src, k)  # only for a loop ending in `x += e;`
        lp = kl.at(f)
        if lp is None or lp.var is None or lp.step != 1 or lp.start is None:
            continue
        others = [s for s in body.named_children[:-1]]
        written = _writes_scalars(src, others) | {lp.var}
        if (step is not None and _idents(src, step) & written) or ptr in _writes_scalars(src, others) or any(
                n.type in ("continue_statement", "break_statement", "return_statement") for n in walk(body)):
            continue
        pointer = any(d.type == "pointer_declarator" and text(src, d.child_by_field_name("declarator") or d) == ptr
                      for d in walk(k.body) if d.start_byte < f.start_byte)
        if not pointer and not _integer_local(src, k, ptr, f):
            continue
        if any(n.type == "identifier" and text(src, n) == ptr for n in walk(k.body) if n.start_byte >= f.end_byte):
            continue
        start = text(src, lp.start)
        off = f"(long long)({lp.var}{'' if start == '0' else f' - ({start})'})" + (
            f" * ({text(src, step)})" if step is not None else "")
        edits, ok = [], True
        for n in walk(body):
            if n.type != "identifier" or text(src, n) != ptr or n.start_byte >= last.start_byte:
                continue
            if not pointer:  # an index stepped a plane a pass (`c += plane;`): its value at the counter
                edits.append((n.start_byte, n.end_byte, f"({ptr} + {off})"))
                continue
            par = n.parent
            if par.type == "pointer_expression" and text(src, par).lstrip().startswith("*"):
                edits.append((par.start_byte, par.end_byte, f"{ptr}[{off}]"))
            elif par.type == "subscript_expression" and par.child_by_field_name("argument") == n \
                    and subscript_parts(src, par) is not None:
                edits.append((par.start_byte, par.end_byte, f"{ptr}[{off} + ({text(src, subscript_parts(src, par)[1])})]"))
            else:
                ok = False
                break
        if ok and edits:
            subs += edits + [_whole_lines(src, last)]
    return span_text(src, 0, len(src.data), subs) if subs else None
