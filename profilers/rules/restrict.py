"""Read-only pointer parameters without `const ... __restrict__`."""
from __future__ import annotations

import re

import tree_sitter as ts

from ..advice import Evidence, Location, Severity
from ..source import Kernel, Param, SourceFile, walk
from ..tools import Context, tool
from .common import advice_at

READ_ONLY_CALLS = {"__ldg", "__ldca", "__ldcg", "__ldcs", "__ldlu", "__ldcv"}
CASTS = {"reinterpret_cast", "static_cast", "const_cast"}


def _call_name(src: SourceFile, call: ts.Node) -> str:
    fn = call.child_by_field_name("function")
    if fn is None:
        return ""
    if fn.type == "template_function":
        fn = fn.child_by_field_name("name") or fn
    return src.node_text(fn).split("::")[-1].strip()


def classify(src: SourceFile, ident: ts.Node) -> str:
    """How one use of a pointer is used: 'read', 'write', 'escape', 'alias:NAME' or 'none'."""
    cur = ident
    while True:
        parent = cur.parent
        if parent is None:
            return "none"
        t = parent.type
        if t in ("parenthesized_expression", "cast_expression"):
            cur = parent
        elif t == "binary_expression" and src.node_text(parent.child_by_field_name("operator")) in ("+", "-"):
            cur = parent  # pointer arithmetic: still the same array
        elif t == "argument_list":
            call = parent.parent
            name = _call_name(src, call) if call is not None else ""
            if name in CASTS:
                cur = call
            elif name in READ_ONLY_CALLS:
                return "read"
            else:
                return "escape"  # passed to a function that may write through it
        elif (t == "subscript_expression" and parent.child_by_field_name("argument") == cur) or (
                t == "pointer_expression" and src.node_text(parent).lstrip().startswith("*")) or (
                t == "field_expression" and src.node_text(parent.child_by_field_name("operator")) == "->"):
            elem = parent
            while elem.parent is not None and elem.parent.type in ("field_expression", "parenthesized_expression") \
                    and elem.parent.child_by_field_name("argument") in (elem, None):
                elem = elem.parent
            up = elem.parent
            if up is None:
                return "read"
            if up.type == "assignment_expression" and up.child_by_field_name("left") == elem:
                return "write"
            if up.type == "update_expression":
                return "write"
            if up.type == "pointer_expression" and src.node_text(up).lstrip().startswith("&"):
                cur = up  # &p[i]: a pointer again
                continue
            return "read"
        elif t == "init_declarator" and parent.child_by_field_name("value") == cur:
            d = parent.child_by_field_name("declarator")
            while d is not None and d.type != "identifier":
                d = d.child_by_field_name("declarator")
            return f"alias:{src.node_text(d)}" if d is not None else "escape"
        elif t == "assignment_expression":
            if parent.child_by_field_name("right") == cur:
                left = parent.child_by_field_name("left")
                return f"alias:{src.node_text(left)}" if left is not None and left.type == "identifier" else "escape"
            return "none"  # the pointer itself reassigned
        else:
            return "none"


def pointer_uses(src: SourceFile, k: Kernel, name: str) -> tuple[set[str], list[int]]:
    """(kinds of use of `name` and of its local aliases, lines where it is read: once per read)."""
    kinds: set[str] = set()
    lines: list[int] = []
    todo, seen = [name], set()
    while todo:
        nm = todo.pop()
        if nm in seen:
            continue
        seen.add(nm)
        for n in walk(k.body):
            if n.type == "identifier" and src.node_text(n) == nm:
                c = classify(src, n)
                if c.startswith("alias:"):
                    todo.append(c[6:])
                    continue
                kinds.add(c)
                if c == "read":
                    lines.append(n.start_point[0] + 1)
    return kinds, sorted(lines)


def param_node(k: Kernel, p: Param) -> ts.Node | None:
    return next((n for n in walk(k.node) if n.type == "parameter_declaration" and n.start_byte == p.decl_start), None)


def simple_pointer(src: SourceFile, node: ts.Node) -> bool:
    """`T* name` with one level of pointer (no arrays, references, or pointer-to-pointer)."""
    d = node.child_by_field_name("declarator")
    return d is not None and d.type == "pointer_declarator" and (d.child_by_field_name("declarator") or d).type == "identifier"


@tool(
    "restrict",
    """Pointer parameters that a kernel only reads but that lack `const` and/or
    `__restrict__`, where it matters: the SASS shows such a pointer loaded more than once per
    thread or after a global store (or in a loop that stores), not on the read-only path
    (LDG.E...CONSTANT), so the compiler could neither use the read-only cache nor reorder or
    reuse loads across stores. Reads the source (every use of each pointer: element writes,
    atomics, pointers passed to functions, local aliases) and the SASS. Use it on stencils,
    gathers and loops over pointer parameters.""",
    needs=("source",),
    rules=("missing-restrict",),
)
def restrict_tool(ctx: Context):
    out = []
    src = ctx.source
    for k in src.kernels:
        if k.body is None:
            continue
        by_line = ctx.sass_by_line(k) if ctx.artifact is not None and ctx.artifact.ok else {}
        read_only, written = [], []
        for p in k.params:
            if not p.is_pointer:
                continue
            node = param_node(k, p)
            if node is None or not simple_pointer(src, node):
                continue
            kinds, lines = pointer_uses(src, k, p.name)
            if p.is_const:  # a const pointee cannot be written through: a helper it goes to only reads it
                kinds.discard("escape")
            if kinds & {"write", "escape"}:
                written.append((p, node))
            elif "read" in kinds:
                read_only.append((p, node, lines))
        bad = [(p, n, ln) for p, n, ln in read_only if not (p.is_const and p.is_restrict)]
        if bad and _launched_aliased(ctx.launch_sites or src.launch_sites, k, [p for p, _ in written]):
            continue  # the file itself passes one buffer as a written pointer and another: restrict would be wrong
        if not bad or (ctx.artifact is not None and not _matters(ctx, k, bad, by_line)):
            continue  # with a compile, only where the SASS shows it matters (a source-only context: the source)
        out.append(_advice(ctx, k, bad, [(p, n) for p, n in written if not p.is_restrict], written, by_line))
    return out


def _buffer(arg: str) -> str:
    """The buffer an argument points into: `d`, `(float*)d`, `d + n`, `&d[i]` -> `d`."""
    t = re.sub(r"\(\s*(?:const\s+)?[A-Za-z_][\w:<>, ]*\*\s*\)", "", arg)  # C casts
    t = re.sub(r"\b(?:reinterpret|static|const)_cast\s*<[^<>]*>", "", t)
    t = t.replace("&", " ").replace("(", " ").replace(")", " ")
    m = re.match(r"\s*([A-Za-z_][\w.]*(?:->\w+)*)", t)
    return m.group(1) if m else arg.strip()


def _launched_aliased(sites: list, k: Kernel, written: list[Param]) -> bool:
    """Whether a launch in the file (or one of its project headers) passes the same buffer to a
    written pointer parameter and to another pointer parameter (`k<<<g, b>>>(d, d, n)`, in place)."""
    wnames = {p.name for p in written}
    pointers = [i for i, p in enumerate(k.signature) if p.is_pointer]
    for s in sites:
        if s.kernel != k.name or len(s.args) != len(k.signature):
            continue
        seen: dict[str, int] = {}
        for i in pointers:
            b = _buffer(s.args[i])
            if b in seen and (k.signature[i].name in wnames or k.signature[seen[b]].name in wnames):
                return True
            seen.setdefault(b, i)
    return False


STORES = ("STG", "RED", "ATOM", "ATOMG", "REDG")


def _matters(ctx: Context, k: Kernel, bad, by_line) -> bool:
    """Whether the SASS shows a load the read-only path or reordering would change: a pointer loaded
    more than once per thread (reuse a read-only cache serves), or loaded after a global store or
    in a loop that stores (the compiler must assume the store changed it), and not already on the
    read-only path. Without SASS there is no evidence: say nothing."""
    builds = ctx.builds(k)
    if not by_line or not builds:
        return False
    from .unroll import back_edges

    for b in builds:
        stores = [i.offset for i in b.sass if i.base in STORES]
        if not stores:
            continue  # nothing written to global memory: nothing to alias
        loops = [(b.sass[e.target].offset, e.offset) for e in back_edges(ctx, b)]
        mine = {id(i) for i in b.sass}
        for _, _, reads in bad:
            lines = sorted(set(reads))
            loads = [i for ln in lines for i in by_line.get(ln, []) if id(i) in mine and i.base == "LDG"]
            plain = [i for i in loads if "CONSTANT" not in i.mods]
            if not plain:
                continue
            if len(reads) >= 2 or any(i.offset > min(stores) for i in plain) or any(
                    lo <= i.offset <= hi and any(lo <= s <= hi for s in stores) for i in plain for lo, hi in loops):
                return True
    return False


def _decl(p: Param, const: bool) -> str:
    base = " ".join(w for w in p.base_type.split() if w != "const")
    return f"{'const ' if const else ''}{base}* __restrict__ {p.name}"


def _advice(ctx, k, bad, unrestricted_written, written, by_line):
    src = ctx.source
    names = ", ".join(f"`{p.name}`" for p, _, _ in bad)
    ev, loads, const_loads = [], 0, 0
    for p, _, reads in bad:
        lines = sorted(set(reads))
        ins = [i for ln in lines for i in by_line.get(ln, []) if i.base == "LDG"]
        c = sum(1 for i in ins if "CONSTANT" in i.mods)
        loads, const_loads = loads + len(ins), const_loads + c
        if by_line:
            ev.append(Evidence(f"LDG on lines reading {p.name} ({', '.join(map(str, lines))})",
                               f"{c} of {len(ins)} read-only (.CONSTANT)", "", "sass"))
    ev.append(Evidence("read-only pointers lacking const __restrict__", len(bad), "", "source"))
    ev.append(Evidence("written pointers", ", ".join(p.name for p, _ in written) or "none", "", "source"))
    what = "are only read" if len(bad) > 1 else "is only read"
    alias = f" may alias {', '.join(p.name for p, _ in written)}" if written else " may alias each other"
    sass = (f"; {const_loads} of the {loads} loads on the lines that read them use the read-only path (LDG...CONSTANT)"
            if by_line and loads else "")
    msg = (f"{names} {what} by {k.name} but {'are' if len(bad) > 1 else 'is'} not declared "
           f"`const T* __restrict__`: the compiler must assume {'they' if len(bad) > 1 else 'it'}{alias}{sass}")
    edits = []
    for p, node, _ in bad:
        edits.append(_edit(src, node, _decl(p, True)))
    for p, node in unrestricted_written:
        edits.append(_edit(src, node, _decl(p, p.is_const)))  # an existing const stays
    remedy = "declare " + ", ".join(f"`{_decl(p, True)}`" for p, _, _ in bad)
    if unrestricted_written:
        remedy += (" and the written " + ", ".join(f"`{_decl(p, p.is_const)}`" for p, _ in unrestricted_written)
                   + " (the compiler assumes no aliasing only when every pointer is __restrict__)")
    remedy += "; only when the buffers really never overlap"
    first = bad[0][1]
    a = advice_at(ctx, "missing-restrict", Severity.INFO, k, first, msg, remedy, ev,
                  fix={"title": "Declare read-only pointers const __restrict__", "edits": edits},
                  related=[Location(ctx.path, n.start_point[0] + 1, src.col(n.start_point),
                                    message=f"{p.name} is only read") for p, n, _ in bad[1:]])
    return a


def _edit(src: SourceFile, node: ts.Node, text: str) -> dict:
    line, col, end_line, end_col = src.pos(node)
    return {"line": line, "column": col, "end_line": end_line, "end_column": end_col, "new_text": text}
