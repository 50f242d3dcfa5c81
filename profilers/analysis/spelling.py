"""Spellings read as their plain forms before any analysis: function-like macros expanded, one-expression
`__device__` helpers inlined (`at(A, r, k, K)` read as `A[r * K + k]`), and declarations of several names
split into one declaration each (`int r = ..., c = ...;`). The restructuring plans and the spec inference
both start from `plain_form`."""
from __future__ import annotations

import re

from ..source import parse_source, span_text, walk
from .loops import declared_names, operands, text, unparen, writes_in
from .macros import _primary, expand_macros

_SIDE_EFFECTS = ("assignment_expression", "update_expression", "call_expression")


def plain_form(src_text: str, path: str, kernel: str) -> str | None:
    """The kernel's file with its macros expanded, its one-expression helpers inlined and its multi-name
    declarations split; None when nothing changed."""
    out = None
    for _ in range(4):  # a helper calling a macro, a macro calling a helper
        changed = False
        for step in (expand_macros, guarded_return_helpers, inline_expression_helpers):
            new = step(out or src_text, path, kernel)
            if new is not None:
                out, changed = new, True
        if not changed:
            break
    for step in (split_declarations, ceil_divisions, inline_conditions, inline_scaled_loads, negated_guards):
        for _ in range(16 if step is inline_scaled_loads else 1):  # (one local a call)
            new = step(out or src_text, path, kernel)
            if new is None:
                break
            out = new
    return out



def inline_scaled_loads(src_text: str, path: str, kernel: str) -> str | None:
    """A loop body's `float A_PART = ALPHA * A[i * lda + k];` read where the very next statement, an expression,
    uses it once (Darknet's `C[..] += A_PART * B[..];` as `C[..] += (ALPHA * A[i * lda + k]) * B[..];`): one element
    of a parameter of the local's own type times scalars no statement writes, read there before that statement
    writes anything (it writes none of the names the value reads); None if none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    written = {name for name, _ in writes_in(src, k.body)}
    for body in walk(k.body):
        if body.type != "compound_statement" or body.parent is None or body.parent.type not in (
                "for_statement", "while_statement", "do_statement"):
            continue
        kids = [c for c in body.named_children if c.type != "comment"]
        for d, nxt in zip(kids, kids[1:]):
            decs = d.children_by_field_name("declarator") if d.type == "declaration" else []
            if len(decs) != 1 or decs[0].type != "init_declarator" or \
                    decs[0].child_by_field_name("declarator").type != "identifier":
                continue
            ty = text(src, d.child_by_field_name("type")).replace("const", "").strip()
            name, value = text(src, decs[0].child_by_field_name("declarator")), decs[0].child_by_field_name("value")
            factors = operands(value, "*")
            loads = [f for f in factors if f.type == "subscript_expression"]
            scalars = [f for f in factors if f.type in ("identifier", "number_literal")]
            if ty not in ("float", "double") or not loads or len(loads) > 2 or \
                    len(loads) + len(scalars) != len(factors) or any(text(src, f) in written for f in scalars):
                continue
            arrs = [f.child_by_field_name("argument") for f in loads]
            if any(a is None or a.type != "identifier" or _pointee(src, k, text(src, a)) != ty for a in arrs):
                continue
            uses = [x for x in walk(body) if x.type == "identifier" and text(src, x) == name and x.start_byte > d.end_byte]
            if len(uses) != 1 or name in written:
                continue
            at = next((s for s in kids if s.start_byte <= uses[0].start_byte < s.end_byte), None)
            between = kids[kids.index(d) + 1:kids.index(at) + 1] if at is not None else []
            reads = {text(src, x) for x in walk(value) if x.type == "identifier"}
            top = at.named_children[0] if at is not None and at.type == "expression_statement" and at.named_children \
                else None
            if top is None or top.type != "assignment_expression" or \
                    not (top.child_by_field_name("right").start_byte <= uses[0].start_byte) or \
                    any(x.type in ("assignment_expression", "update_expression")
                        for x in walk(top.child_by_field_name("right"))) or reads & {n for n, _ in writes_in(src, at)} or \
                    any(not _plain_declaration(src, x) or reads & set(declared_names(src, x)) for x in between[:-1]):
                continue  # (a loop would read it again each pass; only declarations of plain locals that name
                # nothing the value reads may stand between, and the use's statement stores only after reading it)
            return span_text(src, 0, len(src.data), [(d.start_byte, d.end_byte, ""),
                                                      (uses[0].start_byte, uses[0].end_byte, f"({text(src, value)})")])
    return None


def local_types(src, k) -> dict:
    """name -> (its type as declared without const, whether a pointer) for the kernel's parameters and locals (the
    first declaration of a name); a pointer's type is its element's."""
    out = {p.name: (" ".join(w for w in (p.base_type if p.is_pointer else p.type_text).split() if w != "const"),
                    p.is_pointer) for p in k.params}
    for d in walk(k.body) if k.body is not None else ():
        if d.type != "declaration" or d.child_by_field_name("type") is None:
            continue
        ty = " ".join(w for w in text(src, d.child_by_field_name("type")).split() if w != "const")
        for dec in d.children_by_field_name("declarator"):
            n, pointer = dec, False
            while n is not None and n.type != "identifier":
                pointer = pointer or n.type == "pointer_declarator"
                n = n.child_by_field_name("declarator")
            if n is not None:
                out.setdefault(text(src, n), (ty, pointer))
    return out


def _pointee(src, k, name: str) -> str | None:
    """The element type of a pointer parameter, or of a local pointer (`const float *a = A + row * K;`), without
    const; None otherwise."""
    ty, pointer = local_types(src, k).get(name, (None, False))
    return ty if pointer else None


def _plain_declaration(src, d) -> bool:
    """A declaration of plain locals (no reference or pointer) whose values assign, update and call nothing."""
    if d.type != "declaration":
        return False
    for dec in d.children_by_field_name("declarator"):
        inner = dec.child_by_field_name("declarator") if dec.type == "init_declarator" else dec
        if inner is None or inner.type != "identifier":
            return False
    return not any(x.type in ("assignment_expression", "update_expression", "call_expression") for x in walk(d))


def line_map(written: str, read: str) -> dict[int, int]:
    """Line numbers of a text the passes made (they join, move, drop and add lines) -> the file's as written: a line
    kept (leading and trailing space aside) keeps its number, one that replaces others (an inlined helper's loop)
    takes the number of the first line it replaced, one only added that of the kept line before. The plans'
    descriptions and the spec inference's explanations both give lines through it."""
    import difflib

    a, b = [x.strip() for x in written.split("\n")], [x.strip() for x in read.split("\n")]
    to_old, last = {}, 1
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        for j in range(j1, j2):
            if tag == "equal":
                last = i1 + (j - j1) + 1
            elif i2 > i1:  # lines that replace others (a call inlined): the first of those
                last = i1 + 1
            to_old[j + 1] = last
    return to_old


def inline_conditions(src_text: str, path: str, kernel: str) -> str | None:
    """`bool has2 = (col + 1) < N;` read where it is used (`if (has2)` as `if (((col + 1) < N))`): a `bool` local
    set once from a comparison, none of whose names is assigned in the kernel after it; None if none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    assigned: dict[str, list[int]] = {}
    for name, n in writes_in(src, k.body):
        assigned.setdefault(name, []).append(n.start_byte)
    subs = []
    for d in walk(k.body):
        if d.type != "declaration" or text(src, d.child_by_field_name("type")).replace("const", "").strip() != "bool":
            continue
        decs = d.children_by_field_name("declarator")
        if len(decs) != 1 or decs[0].type != "init_declarator":
            continue
        name, value = text(src, decs[0].child_by_field_name("declarator")), decs[0].child_by_field_name("value")
        v = value
        while v is not None and v.type == "parenthesized_expression" and v.named_children:
            v = v.named_children[0]
        if v is None or v.type != "binary_expression" or text(src, v.child_by_field_name("operator")) not in (
                "<", "<=", ">", ">=", "==", "!=", "&&", "||") or any(x.type in _SIDE_EFFECTS for x in walk(value)):
            continue
        if any(x.type in ("subscript_expression", "pointer_expression") or (x.type == "field_expression" and not re.fullmatch(
                r"(threadIdx|blockIdx|blockDim|gridDim)\.[xyz]", text(src, x))) for x in walk(value)):
            continue  # (a value read from memory may change before the flag is read)
        names = {text(src, x) for x in walk(value) if x.type == "identifier"} | {name}
        if any(b > d.start_byte for nm in names for b in assigned.get(nm, [])) or any(
                x.type == "pointer_expression" and text(src, x).startswith("&") for x in walk(k.body)):
            continue  # (the condition's names, or the flag itself, change after it is set; or an address is taken)
        scope = d.parent  # its uses in the block it is declared in, none of them redeclaring it
        if scope is None or any(x.type == "init_declarator" and text(src, x.child_by_field_name("declarator")) == name
                                and x.start_byte > d.end_byte for x in walk(scope)):
            continue
        uses = [x for x in walk(scope) if x.type == "identifier" and text(src, x) == name and x.start_byte > d.end_byte]
        subs += [(x.start_byte, x.end_byte, f"({text(src, value)})") for x in uses]
        subs.append((d.start_byte, d.end_byte, ""))
    return span_text(src, 0, len(src.data), subs) if subs else None


_FLOAT_CASTS = re.compile(r"^\(\s*(?:float|double)\s*\)\s*|^(?:static_cast<\s*(?:float|double)\s*>|float|double)\s*(?=\()")
_CEILS = ("ceil", "ceilf", "std::ceil", "::ceil")


def ceil_divisions(src_text: str, path: str, kernel: str) -> str | None:
    """`ceil(n / (float)T)` (PMPP's tile count), `ceilf((float)n / T)`, `ceil(n / 16.0)` with integer n and T read
    as the integer `((n + T - 1) / T)` they compute for n >= 0; None when there is none."""
    from .types import table_for

    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    types = table_for(src)
    ints = _integer_names(src, k, types)

    def integer(n) -> str | None:
        """n's text without float casts when n is an integer expression of integer names and literals."""
        t = " ".join(text(src, n).split())
        m = _FLOAT_CASTS.match(t)
        while m:
            t = t[m.end():].strip()
            m = _FLOAT_CASTS.match(t)
        t = re.sub(r"\b(\d+)\.0*[fF]?(?![\w.])", r"\1", t)  # 16.0f -> 16
        words = re.findall(r"[A-Za-z_]\w*(?:\.[xyz])?", t)
        if re.search(r"[^\w\s+\-*()]", t.replace(".x", "").replace(".y", "").replace(".z", "")):
            return None
        if all(w in ints or w in src.constants or re.fullmatch(r"(blockDim|gridDim)\.[xyz]", w) for w in words):
            return t
        return None

    subs = []
    for n in walk(k.body):
        fn = n.child_by_field_name("function") if n.type == "call_expression" else None
        if fn is None or text(src, fn) not in _CEILS:
            continue
        args = n.child_by_field_name("arguments").named_children
        e = args[0] if len(args) == 1 else None
        while e is not None and e.type == "parenthesized_expression" and len(e.named_children) == 1:
            e = e.named_children[0]
        if e is None or e.type != "binary_expression" or text(src, e.child_by_field_name("operator")) != "/":
            continue
        a, b = integer(e.child_by_field_name("left")), integer(e.child_by_field_name("right"))
        if a is not None and b is not None and (any(c in text(src, e) for c in ("float", "double"))
                                                or re.search(r"\d\.", text(src, e))):  # a division in floating point
            up = n.parent
            while up is not None and up.type == "parenthesized_expression":
                up = up.parent
            whole = up is not None and (  # where an integer serves: a comparison, an int's value, an int cast
                (up.type == "binary_expression" and text(src, up.child_by_field_name("operator")) in
                 ("<", "<=", ">", ">=", "==", "!="))
                or (up.type == "cast_expression" and types.is_int(text(src, up.child_by_field_name("type"))))
                or (up.type == "init_declarator" and up.parent is not None and types.is_int(
                    text(src, up.parent.child_by_field_name("type")).replace("const", "").strip())))
            div = f"(({a} + ({b}) - 1) / ({b}))"
            subs.append((n.start_byte, n.end_byte, div if whole else f"((float){div})"))
    return span_text(src, 0, len(src.data), subs) if subs else None


def _integer_names(src, k, types=None) -> set[str]:
    """The kernel's scalar parameters and locals of integer types (through the file's typedefs); a name declared
    with another type anywhere in the kernel too (a float parameter beside an int loop counter) is not one."""
    from .types import table_for

    types = types or table_for(src)
    ints = {p.name for p in k.params if not p.is_pointer and types.is_int(p.base_type)}
    others = {p.name for p in k.params if p.name not in ints}
    for d in walk(k.body):
        if d.type != "declaration":
            continue
        is_int = types.is_int(text(src, d.child_by_field_name("type")).replace("const", "").strip())
        for x in d.children_by_field_name("declarator"):
            nm = x.child_by_field_name("declarator") if x.type == "init_declarator" else x
            if nm is not None and nm.type == "identifier":
                (ints if is_int else others).add(text(src, nm))
            elif nm is not None:  # (an array or pointer declarator: not an integer scalar)
                others |= {text(src, i) for i in walk(nm) if i.type == "identifier"}
    return ints - others


def balanced(t: str) -> bool:
    """Every parenthesis in t closes, none before it opens."""
    depth = 0
    for ch in t:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return False
    return depth == 0


_BUILTINS = re.compile(r"(threadIdx|blockIdx|blockDim|gridDim)\.[xyz]")


def negated_guards(src_text: str, path: str, kernel: str) -> str | None:
    """An if's condition `!(r < M && c < N)` read as `r >= M || c >= N` (De Morgan, each comparison negated), so an
    early return written that way is the guard it stands for: comparisons of integer names, literals and thread
    indices only (a NaN compares false both ways, so a float's negation is no comparison); None if none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    from .extents import _FLIP
    from .types import table_for

    types = table_for(src)
    ints = _integer_names(src, k, types)

    def integral(q, n) -> bool:
        for x in walk(n):
            if x.type in _SIDE_EFFECTS:  # (a call only as an integer static_cast)
                m = re.fullmatch(r"static_cast\s*<(.*)>", text(q, x.child_by_field_name("function"))) \
                    if x.type == "call_expression" else None
                if m is None or not types.is_int(m.group(1).strip()):
                    return False
            if x.type == "cast_expression" and not types.is_int(text(q, x.child_by_field_name("type"))):
                return False
        if any(x.type == "number_literal" and re.search(r"[.eEfFpP]", text(q, x)) and not
               text(q, x).lower().startswith("0x") for x in walk(n)):
            return False
        for x in walk(n):
            if x.type == "field_expression":
                if not _BUILTINS.fullmatch(text(q, x)):
                    return False
            elif x.type == "identifier" and x.parent is not None and x.parent.type not in (
                    "field_expression", "template_function") and text(q, x) not in ints \
                    and text(q, x) not in src.constants:
                return False
        return True

    def chain(q, n, op) -> list:
        n = unparen(n)
        if n.type == "binary_expression" and text(q, n.child_by_field_name("operator")) == op:
            return chain(q, n.child_by_field_name("left"), op) + chain(q, n.child_by_field_name("right"), op)
        return [n]

    def negate_text(t: str) -> str | None:
        """The negation of condition t, parsed alone: inside `!( .. )` tree-sitter reads `x < n - 1 && y >= 1`
        as a template's arguments; as an if's whole condition it reads the comparisons."""
        q = parse_source(f"void kp_f() {{ if ({t}) return; }}")
        ifs = [x for x in walk(q.root) if x.type == "if_statement"]
        return negate(q, ifs[0].child_by_field_name("condition")) if ifs else None

    def negate(q, n) -> str | None:
        n = unparen(n)
        if n is None or any(x.type in ("template_function", "ERROR") for x in walk(n)) and not re.search(
                r"static_cast\s*<", text(q, n)):
            return None
        if n.type == "unary_expression" and text(q, n.child_by_field_name("operator")) == "!":
            arg = unparen(n.child_by_field_name("argument"))
            return f"({text(q, arg)})" if arg is not None and negate_text(text(q, arg)) is not None else None
        if n.type != "binary_expression":
            return None
        op, a, b = (text(q, n.child_by_field_name("operator")), n.child_by_field_name("left"),
                    n.child_by_field_name("right"))
        if op in ("&&", "||"):  # the chain flat, `a && b && c` as `(a' || b' || c')`, as one would write it
            parts = [negate(q, x) for x in chain(q, n, op)]
            return None if None in parts else "(" + f" {'||' if op == '&&' else '&&'} ".join(parts) + ")"
        if op in _FLIP and integral(q, a) and integral(q, b):
            return f"{text(q, a)} {_FLIP[op]} {text(q, b)}"
        return None

    subs = []
    for n in walk(k.body):
        if n.type != "if_statement" or (cond := n.child_by_field_name("condition")) is None:
            continue
        c = unparen(cond.named_children[0]) if cond.named_children else None
        if c is None or c.type != "unary_expression" or text(src, c.child_by_field_name("operator")) != "!":
            continue
        arg = unparen(c.child_by_field_name("argument"))
        new = negate_text(text(src, arg)) if arg is not None else None
        if new is not None:  # (the if's whole condition: its own parentheses are enough)
            subs.append((c.start_byte, c.end_byte, new[1:-1] if new.startswith("(") and balanced(new[1:-1]) else new))
    return span_text(src, 0, len(src.data), subs) if subs else None


def analysis_form(src_text: str, path: str, kernel: str) -> str | None:
    """What the analyses read (the spec inference and `spec check` alike): the plain form, C89 scalars declared at
    their first value, counted `while` loops (and countdowns, `while (k--)`) as `for` loops, an index built up by reassignments as one value, and a
    pointer walked through a loop (`p += N` each pass) read at the loop's counter; None when nothing changed."""
    from .pointer_steps import comma_steps_into_body, index_pointer_steps
    from .scalars import countdown_loops, declare_at_first_assignment, fold_reassignments, while_to_for

    out = plain_form(src_text, path, kernel)
    for step in (declare_at_first_assignment, while_to_for, countdown_loops, fold_reassignments,
                 comma_steps_into_body, index_pointer_steps):
        for _ in range(4):
            out = step(out or src_text, path, kernel) or out
    return out


def _template_types(f) -> list:
    """The type parameters of the template that declares `f` (`template <typename T>`): their names, in order."""
    if f.parent is None or f.parent.type != "template_declaration":
        return []
    ps = f.parent.child_by_field_name("parameters")
    return [n.text.decode() for p in (ps.named_children if ps is not None else ()) if p.type == "type_parameter_declaration"
            for n in p.named_children if n.type == "type_identifier"]


def _functor_name(src, f) -> str | None:
    """`S` for the `operator()` defined inside `struct S { .. }` (or a class), else None."""
    d = f.child_by_field_name("declarator")
    inner = d.child_by_field_name("declarator") if d is not None and d.type == "function_declarator" else None
    if inner is None or inner.type != "operator_name" or "".join(text(src, inner).split()) != "operator()":
        return None
    s = f.parent.parent if f.parent is not None and f.parent.type == "field_declaration_list" else None
    name = s.child_by_field_name("name") if s is not None and s.type in ("struct_specifier", "class_specifier") else None
    return text(src, name) if name is not None else None


def _expression_helpers(src) -> dict:
    """name -> (parameter names, return type, the returned expression node, whether a cast keeps its type)
    of the file's `__device__` functions whose body is one `return e;`, a functor's `operator()` under the key
    `functor:S` (S its struct). A name defined twice (an overload, a template's specialisation) is none of them;
    a template's helper whose return type is one of its type parameters is not cast (its type comes from the
    arguments)."""
    helpers, seen = {}, set()
    for f in walk(src.root):
        if f.type != "function_definition" or "__device__" not in text(src, f).split("(")[0] \
                or "__global__" in text(src, f).split("(")[0]:
            continue
        functor = _functor_name(src, f)
        d = f.child_by_field_name("declarator")
        key = f"functor:{functor}" if functor else None
        if key is None:
            dn = d
            while dn is not None and dn.type in ("pointer_declarator", "reference_declarator"):
                dn = dn.named_children[-1] if dn.type == "reference_declarator" else dn.child_by_field_name("declarator")
            inner = dn.child_by_field_name("declarator") if dn is not None and dn.type == "function_declarator" else None
            if inner is not None and inner.type == "template_function":  # a specialisation, `g<float>`
                inner = inner.child_by_field_name("name")
            key = text(src, inner) if inner is not None else None
        if key is None:
            continue
        if key in seen:  # overloaded or specialised: which body runs depends on the types
            helpers.pop(key, None)
            continue
        seen.add(key)
        tparams = _template_types(f) + (_template_types(f.parent.parent) if functor else [])
        ref = False
        while d is not None and d.type in ("pointer_declarator", "reference_declarator"):
            ref = True  # `float& at(...)`: an lvalue, returned as is
            d = d.named_children[-1] if d.type == "reference_declarator" else d.child_by_field_name("declarator")
        if d is None or d.type != "function_declarator":
            continue
        name, params, body = d.child_by_field_name("declarator"), d.child_by_field_name("parameters"), \
            f.child_by_field_name("body")
        stmts = [s for s in body.named_children if s.type != "comment"] if body is not None else []
        if name is None or name.type not in ("identifier", "operator_name") or params is None or len(stmts) != 1 \
                or stmts[0].type != "return_statement" or not stmts[0].named_children:
            continue
        names, elem, ptypes = [], {}, []
        for p in params.named_children:
            pn = p.child_by_field_name("declarator")
            ptypes.append(" ".join(w for w in text(src, p.child_by_field_name("type")).split() if w != "const")
                          if p.child_by_field_name("type") is not None else "")
            stars = 0
            while pn is not None and pn.type == "pointer_declarator":
                stars += 1
                pn = pn.child_by_field_name("declarator")
            if p.type != "parameter_declaration" or pn is None or pn.type != "identifier":
                names = None
                break
            names.append(text(src, pn))
            ptypes[-1] += "*" * stars
            if stars == 1:
                elem[text(src, pn)] = " ".join(w for w in text(src, p.child_by_field_name("type")).split()
                                               if w not in ("const", "volatile", "__restrict__"))
        if names is None:
            continue
        rtype = " ".join(w for w in text(src, f.child_by_field_name("type")).split()
                         if w not in ("const", "static", "inline", "__forceinline__", "__inline__", "__device__",
                                      "__host__", "__noinline__"))
        expr = stmts[0].named_children[0]
        if (expr.type == "conditional_expression" or expr.type == "call_expression") and len(names) == 2:
            continue  # a max or min of two (`a > b ? a : b`, `fmaxf(a, b)`): the loops' analysis reads the helper
        if any(n.type in _SIDE_EFFECTS and n.type != "call_expression" for n in walk(expr)) \
                or any(n.type == "identifier" and text(src, n) == text(src, name) for n in walk(expr)):
            continue  # assigns, or calls itself
        if functor and any(n.type == "identifier" and text(src, n) not in names and not called(src, n)
                           for n in walk(expr)) or any(n.type == "this" for n in walk(expr)):
            continue  # a functor reading its members (`return s * x;`): not the kernel's names
        # `return p[i];` of a `T*` parameter as a `T`, or a reference: no cast needed
        plain = ref or (expr.type == "subscript_expression" and elem.get(
            text(src, expr.child_by_field_name("argument"))) == rtype)
        helpers[key] = (names, rtype, expr, plain, {"tparams": tparams, "ptypes": ptypes, "functor": bool(functor)})
    return helpers


def called(src, n) -> bool:
    """n names the function of a call (`fmaf` in `fmaf(a, b, c)`)."""
    return n.parent is not None and n.parent.type == "call_expression" and n.parent.child_by_field_name("function") == n


def _arg_type(src, k, a) -> str | None:
    """The type of a call's argument where the kernel says it: an element of a pointer parameter or local, a scalar
    parameter or local, a cast; None otherwise."""
    a = unparen(a)
    if a is None:
        return None
    if a.type == "cast_expression":
        return " ".join(w for w in text(src, a.child_by_field_name("type")).split() if w != "const")
    if a.type == "subscript_expression":
        arr = a.child_by_field_name("argument")
        return _pointee(src, k, text(src, arr)) if arr is not None and arr.type == "identifier" else None
    if a.type != "identifier":
        return None
    ty, pointer = local_types(src, k).get(text(src, a), (None, False))
    return None if pointer else ty


def _functor_objects(src, k, helpers: dict) -> dict:
    """Locals of the kernel declared as a functor with a one-expression `operator()` (`MulAdd<T> op;`,
    `Axpy op{};`): name -> (its helper's key, the template arguments it is declared with)."""
    out = {}
    for d in walk(k.body):
        t = d.child_by_field_name("type") if d.type == "declaration" else None
        if t is None:
            continue
        base = t.child_by_field_name("name") if t.type == "template_type" else t
        key = f"functor:{text(src, base)}" if base is not None else None
        if key not in helpers:
            continue
        targs = t.child_by_field_name("arguments") if t.type == "template_type" else None
        targs = [" ".join(text(src, x).split()) for x in targs.named_children] if targs is not None else []
        for dec in d.children_by_field_name("declarator"):
            if dec.type == "identifier":
                out[text(src, dec)] = (key, targs)
            elif dec.type == "init_declarator" and dec.child_by_field_name("declarator").type == "identifier":
                v = dec.child_by_field_name("value")
                if v is not None and v.type in ("initializer_list", "argument_list") and not v.named_children:
                    out[text(src, dec.child_by_field_name("declarator"))] = (key, targs)
    return out


def guarded_return_helpers(src_text: str, path: str, kernel: str) -> str | None:
    """`__device__` helpers of the file whose body is `if (c) return a; return b;` (a load with zero padding,
    `if (x < 0 || x >= w) return 0.0f; return img[y * w + x];`) written as the one expression `return (c) ? (R)(a) :
    (R)(b);`, R the helper's return type (so the branches keep the values `return` gave them), which
    inline_expression_helpers then inlines where the kernel calls them. None if none."""
    src = parse_source(src_text, path)
    subs = []
    for f in walk(src.root):
        if f.type != "function_definition" or "__device__" not in text(src, f).split("(")[0] \
                or "__global__" in text(src, f).split("(")[0]:
            continue
        body = f.child_by_field_name("body")
        stmts = [x for x in body.named_children if x.type != "comment"] if body is not None else []
        if len(stmts) != 2 or stmts[0].type != "if_statement" or stmts[1].type != "return_statement" \
                or stmts[0].child_by_field_name("alternative") is not None or not stmts[1].named_children:
            continue
        cons = stmts[0].child_by_field_name("consequence")
        inner = [x for x in cons.named_children if x.type != "comment"] if cons.type == "compound_statement" else [cons]
        if len(inner) != 1 or inner[0].type != "return_statement" or not inner[0].named_children:
            continue
        cond = stmts[0].child_by_field_name("condition")
        if cond.type == "condition_clause" and (len(cond.named_children) != 1 or cond.named_children[0].type in (
                "declaration", "init_statement")):
            continue  # (`if (bool t = ..)`, `if (int v = f(); v > 0)`: a declaration the expression cannot hold)
        c = cond.named_children[-1] if cond.type == "condition_clause" and cond.named_children else cond
        a, b = inner[0].named_children[0], stmts[1].named_children[0]
        rtype = " ".join(w for w in text(src, f.child_by_field_name("type")).split()
                         if w not in ("static", "inline", "__forceinline__", "__inline__", "__device__", "__host__",
                                      "__noinline__"))
        if any(n.type in _SIDE_EFFECTS for x in (c, a, b) for n in walk(x)) or not rtype or \
                f.child_by_field_name("declarator").type != "function_declarator":
            continue  # (a reference or pointer return: the branches as written)
        subs.append((body.start_byte, body.end_byte,  # each branch in the helper's type, as `return` converts it
                     f"{{ return ({_compared(src, c)}) ? ({rtype})({text(src, a)}) : ({rtype})({text(src, b)}); }}"))
    return span_text(src, 0, len(src.data), subs) if subs else None


def _compared(src, n) -> str:
    """A condition's text with each comparison in parentheses (`x < 0 || x >= w` as `(x < 0) || (x >= w)`: outside
    an `if`, `x < 0 || x >` would read as a template's arguments)."""
    if n.type == "parenthesized_expression" and n.named_children:
        return f"({_compared(src, n.named_children[0])})"
    if n.type == "binary_expression":
        op = text(src, n.child_by_field_name("operator"))
        inner = f"{_compared(src, n.child_by_field_name('left'))} {op} {_compared(src, n.child_by_field_name('right'))}"
        return f"({inner})" if op in ("<", "<=", ">", ">=", "==", "!=") else inner
    return text(src, n)


def inline_expression_helpers(src_text: str, path: str, kernel: str) -> str | None:
    """Calls in the kernel of the file's one-expression `__device__` helpers (`__device__ float at(const float* p,
    int r, int c, int ld) { return p[r * ld + c]; }`) replaced by the expression with the arguments in
    parentheses, cast to the helper's type unless it returns an element of a parameter of that type (or a
    reference). A call whose argument assigns or calls is left alone where the helper reads that parameter more
    than once. None if none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    helpers = _expression_helpers(src)
    if not helpers:
        return None
    objects = _functor_objects(src, k, helpers)
    subs = []
    for call in walk(k.body):
        fn = call.child_by_field_name("function") if call.type == "call_expression" else None
        obj = objects.get(text(src, fn)) if fn is not None and fn.type == "identifier" else None
        key = obj[0] if obj else (text(src, fn) if fn is not None and fn.type == "identifier" and
                                  text(src, fn) in helpers else None)
        if key is None or any(a <= call.start_byte < b for a, b, _ in subs):
            continue
        names, rtype, expr, plain, meta = helpers[key]
        args = [a for a in call.child_by_field_name("arguments").named_children if a.type != "comment"]
        if len(args) != len(names):
            continue
        bind = {}  # a template's type parameters -> the types this call gives them
        if obj and obj[1]:
            bind = dict(zip(meta["tparams"], obj[1]))
        for pt, a in zip(meta["ptypes"], args):
            base = pt.rstrip("*& ").strip()
            if base in meta["tparams"] and base not in bind:
                pointer = pt.endswith("*")
                got = (_pointee(src, k, text(src, unparen(a))) if unparen(a) is not None and unparen(a).type == "identifier"
                       else None) if pointer else _arg_type(src, k, a)
                if got is None:
                    bind = None
                    break
                bind[base] = got
        used = {t for t in meta["tparams"] if re.search(rf"\b{t}\b", text(src, expr) + " " + rtype)}
        if bind is None or used - set(bind):
            continue  # a template's type the call does not say: left as written
        uses = {p: 0 for p in names}
        reps = []
        for n in walk(expr):
            if n.type == "identifier" and text(src, n) in uses and not (
                    n.parent is not None and n.parent.type == "field_expression" and n.parent.child_by_field_name("field") == n):
                uses[text(src, n)] += 1
                reps.append(n)
        if any(uses[p] > 1 and any(x.type in _SIDE_EFFECTS for x in walk(a)) for p, a in zip(names, args)):
            continue
        value = {p: text(src, a) if a.type in ("identifier", "number_literal") else f"({text(src, a)})"
                 for p, a in zip(names, args)}
        body = span_text(src, expr.start_byte, expr.end_byte,
                         [(n.start_byte, n.end_byte, value[text(src, n)]) for n in reps])
        body = " ".join(body.split())
        ty = rtype
        for t, v in bind.items():  # (`T(0)` in a template's helper: the type this call gives T)
            body = re.sub(rf"\b{t}\b", v, body)
            ty = re.sub(rf"\b{t}\b", v, ty)
        par = call.parent
        if par is not None and par.type == "assignment_expression" and par.child_by_field_name("right") == call and \
                text(src, par.child_by_field_name("operator")) == "=" and \
                _arg_type(src, k, par.child_by_field_name("left")) == ty:
            plain = True  # (`acc = op(..)` into a `T acc`: the assignment converts to T as the return did)
        if plain:
            new = body if _primary(body) else f"({body})"
        else:
            new = f"(({ty})({body}))"
        subs.append((call.start_byte, call.end_byte, new))
    if not subs:
        return None
    return span_text(src, 0, len(src.data), subs)


def split_declarations(src_text: str, path: str, kernel: str) -> str | None:
    """`int r = a, c = b;` in the kernel's statement lists -> `int r = a;` and `int c = b;` (each name its own
    declaration, in order, with the same type and qualifiers; `int* p, q` keeps each declarator's stars).
    Not in a loop's header. None if none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    subs = []
    for d in walk(k.body):
        decs = d.children_by_field_name("declarator") if d.type == "declaration" else []
        if len(decs) < 2 or d.parent is None or d.parent.type != "compound_statement":
            continue
        head = span_text(src, d.start_byte, decs[0].start_byte).rstrip()
        if not re.fullmatch(r"[\w\s:<>,*&]+", head) or "," in head:
            continue
        parts = [f"{head} {' '.join(text(src, x).split())};" for x in decs]
        subs.append((d.start_byte, d.end_byte, " ".join(parts)))  # on one line: the file's line numbers hold
    if not subs:
        return None
    return span_text(src, 0, len(src.data), subs)

