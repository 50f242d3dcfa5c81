"""Index expressions as polynomials over atoms, and the global accesses of a kernel.

An integer expression becomes a polynomial over atoms (threadIdx.x, blockIdx.x, blockDim.x,
parameters, loop variables), following the kernel's local definitions of any integer type
(`int`, `unsigned`, `uint`, `size_t`, `int64_t`, typedefs of them, `auto`, `const`) and
pointer offsets (`const float* x = in + row * C;`). A quotient or remainder that does not
depend on threadIdx.x becomes an opaque atom; one that does makes the index unknown.
The coefficient of threadIdx.x is the stride between neighbouring threads of a warp; the
coefficient of a loop variable is the stride between iterations.

The lane view (`build_env(..., lanes=True)`) follows a quotient or remainder of a
thread-dependent value e by a uniform D too: `e / D` becomes an atom `floor(e / D)` taken as
the same across a warp, and `e % D` becomes `e - D * floor(e / D)`, so `j = idx % N` moves by
idx's stride between lanes (exact except in the warps that cross a multiple of D). Rules that
ask how neighbouring lanes move (coalescing) use it; the transforms keep the strict view.
"""
from __future__ import annotations

import bisect
import contextvars
import re
from dataclasses import dataclass

import tree_sitter as ts

from ..source import Kernel, SourceFile, walk
from .types import TypeTable, declared_in, table_for, words

TID = "threadIdx.x"
BUILTINS = ("threadIdx", "blockIdx", "blockDim", "gridDim")
Poly = dict  # {tuple of atom names (sorted): int coefficient}; () is the constant
LOAD_INTRINSICS = {"__ldg", "__ldcs", "__ldcg", "__ldca", "__ldlu", "__ldcv"}
STORE_INTRINSICS = {"__stcs", "__stcg", "__stwb", "__stwt"}


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


def _mentions(atom_name: str, name: str) -> bool:
    """An opaque atom "(...)" built from substituted polynomials mentions `name` inside."""
    if atom_name == name or not atom_name.startswith("("):
        return False
    import re
    return re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", atom_name) is not None


def depends(p: Poly, name: str = TID) -> bool:
    return any(name in m or any(_mentions(a, name) for a in m) for m in p)


def atoms(p: Poly) -> set[str]:
    return {a for m in p for a in m}


def coefficient(p: Poly, name: str = TID) -> Poly | None:
    """The coefficient of `name` in p; None when p is not linear in it (an opaque atom that
    depends on it, such as x[j] in an index, counts as not linear)."""
    out: Poly = {}
    for m, c in p.items():
        if any(_mentions(a, name) for a in m):
            return None
        k = m.count(name)
        if k > 1:
            return None
        if k == 1:
            rest = list(m)
            rest.remove(name)
            out[tuple(rest)] = out.get(tuple(rest), 0) + c
    return {m: c for m, c in out.items() if c}


def without(p: Poly, name: str) -> Poly:
    """The terms of p that do not contain `name`."""
    return {m: c for m, c in p.items() if name not in m}


def is_const(p: Poly, value: int | None = None) -> bool:
    if any(m for m in p):
        return False
    return value is None or p.get((), 0) == value


def poly_text(p: Poly) -> str:
    if not p:
        return "0"
    parts = []
    for m, c in sorted(p.items(), key=lambda x: (-len(x[0]), x[0])):
        term = "*".join(m)
        parts.append(str(c) if not m else term if c == 1 else f"{c}*{term}")
    return " + ".join(parts).replace("+ -", "- ")


def _operand(p: Poly) -> str:
    """An operand of an opaque atom's operator as C text: bracketed unless one atom or a
    non-negative number, so that `(C + 7) / 8` stays that and never reads `(C + 7 / 8)`."""
    if len(p) == 1:
        (m, c), = p.items()
        if (not m and c >= 0) or (len(m) == 1 and c == 1):
            return poly_text(p)
    return f"({poly_text(p)})"


def poly_c(p: Poly, rename: dict[str, str] | None = None, cast: str = "(long long)") -> str:
    """C text of a polynomial (64-bit arithmetic), atoms renamed: {"c": "kp_c0"}."""
    rename = rename or {}
    if not p:
        return "0"
    terms = []
    for m, c in sorted(p.items(), key=lambda x: (-len(x[0]), x[0])):
        factors = [f"{cast}({rename.get(a, a)})" for a in m]
        if c != 1 or not factors:
            factors.insert(0, f"{cast}{c}" if c >= 0 else f"({cast}{c})")
        terms.append(" * ".join(factors))
    return " + ".join(terms)


# --- the kernel's index environment ------------------------------------------
@dataclass
class IndexEnv:
    src: SourceFile
    kernel: Kernel
    types: TypeTable
    snapshots: list  # [(byte offset, {local int name: Poly or None})], in source order
    pointers: dict  # pointer name -> (param name, offset Poly)
    declared: dict  # name -> declared type text
    lanes: bool = False  # the lane view (module docstring)

    def values_at(self, byte: int) -> dict:
        i = bisect.bisect_right([b for b, _ in self.snapshots], byte) - 1
        return self.snapshots[max(i, 0)][1]

    def poly(self, n: ts.Node | None) -> Poly | None:
        if n is None:
            return None
        with lane_view(self.lanes):
            return index_poly(self.src, n, self.values_at(n.start_byte))

    def element_type(self, array: str) -> str | None:
        """The declared element type text of a kernel pointer parameter ('floatX', 'const float')."""
        p = self.kernel.param(array)
        return p.base_type if p is not None else None

    def element_bytes(self, array: str) -> int | None:
        t = self.element_type(array)
        return self.types.bytes(t) if t is not None else None


def _is_index_type(types: TypeTable, type_text: str) -> bool:
    return types.is_int(type_text)


def build_env(src: SourceFile, k: Kernel, types: TypeTable | None = None, keep=(), lanes: bool = False) -> IndexEnv:
    with lane_view(lanes):
        env = _build_env(src, k, types, keep)
    env.lanes = lanes
    return env


def _build_env(src: SourceFile, k: Kernel, types: TypeTable | None = None, keep=()) -> IndexEnv:
    """Follow integer definitions (any spelling of an integer type, or `auto` with an integer
    value) and top-level `x = ...;` reassignments in source order.

    A variable stepped only by uniform amounts (`j++`, `i += blockDim.x * gridDim.x`) keeps the
    thread stride of its start value plus an atom for the step; one reassigned under a branch or
    in a loop, or stepped by a thread-dependent amount, becomes unknown. Names in `keep` stay
    atoms (a row index kept symbolic, so that what derives from it is an opaque uniform atom).
    """
    types = types or table_for(src)
    declared = declared_in(src, k.node)
    params = {p.name for p in k.params}
    values: dict = {n: None for n in declared if n not in params}  # unknown until defined
    pointers = {p.name: (p.name, {}) for p in k.params if p.is_pointer}
    stepped, unknown, plain = _updates(src, k)
    events = []
    if k.body is not None:
        for d in walk(k.body):
            if d.type != "declaration":
                continue
            tnode = d.child_by_field_name("type")
            ttext = src.node_text(tnode) if tnode is not None else ""
            auto = words(ttext) in ("auto", "decltype(auto)")
            for dec in d.children_by_field_name("declarator"):
                if dec.type != "init_declarator":
                    continue
                target, value = dec.child_by_field_name("declarator"), dec.child_by_field_name("value")
                if target is None or value is None:
                    continue
                if target.type == "pointer_declarator":
                    inner = target.child_by_field_name("declarator")
                    while inner is not None and inner.type == "pointer_declarator":
                        inner = inner.child_by_field_name("declarator")
                    if inner is not None and inner.type == "identifier":
                        events.append((dec.start_byte, "ptr", src.node_text(inner), value))
                elif target.type == "identifier" and (auto or _is_index_type(types, ttext)):
                    events.append((dec.start_byte, "auto" if auto else "int", src.node_text(target), value))
    events += [(n.start_byte, "int" if src.node_text(n.child_by_field_name("operator")) == "=" else "op", name,
                n.child_by_field_name("right") if src.node_text(n.child_by_field_name("operator")) == "=" else n)
               for name, n in plain]
    snapshots = [(k.body.start_byte if k.body is not None else 0, dict(values))]
    for byte, kind, name, value in sorted(events, key=lambda e: e[0]):
        if kind == "ptr":
            pointers.pop(name, None)
            base = _pointer_base(src, value, values, pointers)
            if base is not None and name not in stepped | unknown and name not in dict(plain):
                pointers[name] = base
            else:  # derived from a parameter in a way not followed: its accesses are unknown
                roots = [src.node_text(c) for c in walk(value) if c.type == "identifier" and src.node_text(c) in pointers]
                if roots:
                    pointers[name] = (pointers[roots[0]][0], None)
            continue
        if kind == "auto" and (_is_pointer_value(src, value, pointers)):
            pointers.pop(name, None)
            base = _pointer_base(src, value, values, pointers)
            if base is not None and name not in stepped | unknown:
                pointers[name] = base
            continue
        if kind == "op":  # recording(): `t /= d;` as `t = t / d;`
            op = src.node_text(value.child_by_field_name("operator"))[:-1]
            right = index_poly(src, value.child_by_field_name("right"), values)
            p = None if name in unknown else binary_poly(op, values.get(name), right)
        else:
            p = None if name in unknown else index_poly(src, value, values)
        if name in keep:
            p = atom(name)
        if kind == "auto" and p is not None and not _int_valued(src, value):
            p = None
        if p is not None and name in stepped and name not in keep:
            p = add(p, atom(name))
        values = dict(values)
        values[name] = p
        snapshots.append((byte + 1, values))
    return IndexEnv(src, k, types, snapshots, pointers, declared)


def _is_pointer_value(src, value, pointers) -> bool:
    v = value
    while v.type == "parenthesized_expression" and v.named_children:
        v = v.named_children[0]
    if v.type == "identifier":
        return src.node_text(v) in pointers
    if v.type == "binary_expression":
        return any(c.type == "identifier" and src.node_text(c) in pointers
                   for c in (v.child_by_field_name("left"), v.child_by_field_name("right")))
    return v.type == "pointer_expression" and src.node_text(v).startswith("&")


def _int_valued(src, n) -> bool:
    """No floating literal, cast to a floating type or call in an `auto` initializer."""
    for c in walk(n):
        if c.type == "number_literal" and any(ch in src.node_text(c) for ch in ".eEfF") \
                and not src.node_text(c).lower().startswith("0x"):
            return False
        if c.type in ("call_expression", "cast_expression"):
            return False
    return True


def _updates(src: SourceFile, k: Kernel):
    """(names stepped by uniform amounts, names made unknown, [(name, top-level `name = e`)])."""
    stepped, unknown, plain = set(), set(), []
    if k.body is None:
        return stepped, unknown, plain
    last_use: dict[str, int] = {}  # each name's last read or write in the body (one walk, not one a statement)
    for c in walk(k.body):
        if c.type == "identifier":
            last_use[src.node_text(c)] = c.start_byte
    for n in walk(k.body):
        if n.type not in ("assignment_expression", "update_expression"):
            continue
        left = n.child_by_field_name("left") or n.child_by_field_name("argument")
        if left is None or left.type != "identifier":
            continue
        name = src.node_text(left)
        if n.type == "update_expression":
            stepped.add(name)
            continue
        op = src.node_text(n.child_by_field_name("operator"))
        inc_node = n.child_by_field_name("right") if op in ("+=", "-=") else _self_step(src, name, n)
        if inc_node is not None:
            inc = index_poly(src, inc_node, {})
            (stepped if inc is not None and not depends(inc) else unknown).add(name)
        elif op == "=" and n.parent is not None and n.parent.type == "expression_statement" \
                and _straight_line(src, k, n.parent, name, last_use):
            plain.append((name, n))
        elif op == "=" and _NOTES.get() is not None and n.parent is not None and n.parent.type == "for_statement" \
                and n.parent.child_by_field_name("initializer") == n:
            plain.append((name, n))  # recording(): `int k; for (k = 0; ...)` starts k where the loop does
        elif op in ("/=", "%=", "*=", "<<=") and _NOTES.get() is not None and n.parent is not None \
                and n.parent.type == "expression_statement" and _straight_line(src, k, n.parent, name, last_use):
            plain.append((name, n))  # recording(): `t /= d;` is `t = t / d;` (unravelling a flat index)
        else:
            unknown.add(name)
    return stepped, unknown, plain


def _straight_line(src: SourceFile, k: Kernel, stmt, name: str, last_use: dict) -> bool:
    """A statement that runs once wherever it is reached: at the kernel body's top level, or in
    blocks nested in it through plain blocks and the bodies of `if`s without `else` (a guard),
    with `name` not used after the innermost such `if` (where it may or may not have run: `if (b < 0) b = 0;`
    inside a guard leaves b one of two values for what follows)."""
    n, inner_if = stmt, None
    while n.parent is not None and n.parent != k.body:
        p = n.parent
        if p.type == "compound_statement":
            pass
        elif p.type == "if_statement" and p.child_by_field_name("consequence") == n \
                and p.child_by_field_name("alternative") is None:
            inner_if = inner_if or p
        else:
            return False
        n = p
    if n.parent != k.body:
        return False
    if inner_if is None:
        return True
    return last_use.get(name, -1) < inner_if.end_byte


def _self_step(src: SourceFile, name: str, n):
    """The step e of `name = name + e`, `name = e + name` or `name = name - e`; else None."""
    if src.node_text(n.child_by_field_name("operator")) != "=":
        return None
    r = n.child_by_field_name("right")
    while r is not None and r.type == "parenthesized_expression" and r.named_children:
        r = r.named_children[0]
    if r is None or r.type != "binary_expression":
        return None
    op = src.node_text(r.child_by_field_name("operator"))
    left, right = r.child_by_field_name("left"), r.child_by_field_name("right")
    pairs = ((left, right),) if op == "-" else ((left, right), (right, left)) if op == "+" else ()
    for x, e in pairs:
        if x.type == "identifier" and src.node_text(x) == name and not any(
                c.type == "identifier" and src.node_text(c) == name for c in walk(e)):
            return e
    return None


def _pointer_base(src, value, values, pointers):
    """`param + e` or `&param[e]` -> (param, e)."""
    v = value
    while v.type in ("parenthesized_expression", "cast_expression") and v.named_children:
        v = v.child_by_field_name("value") if v.type == "cast_expression" else v.named_children[0]
        if v is None:
            return None
    if v.type == "identifier" and src.node_text(v) in pointers:
        return pointers[src.node_text(v)] if pointers[src.node_text(v)][1] is not None else None
    if v.type == "binary_expression" and src.node_text(v.child_by_field_name("operator")) in ("+", "-"):
        op = src.node_text(v.child_by_field_name("operator"))
        left, right = v.child_by_field_name("left"), v.child_by_field_name("right")
        pairs = ((left, right),) if op == "-" else ((left, right), (right, left))
        for a, b in pairs:
            inner = _pointer_base(src, a, values, pointers) if a is not None else None
            if inner is not None:
                off = index_poly(src, b, values)
                if off is not None:
                    base, o = inner
                    return base, add(o, off, -1 if op == "-" else 1)
    if v.type == "pointer_expression" and src.node_text(v).startswith("&"):
        arg = v.child_by_field_name("argument")
        if arg is not None and arg.type == "subscript_expression":
            acc = subscript_parts(src, arg)
            if acc and acc[0] in pointers:
                off = index_poly(src, acc[1], values)
                if off is not None:
                    base, o = pointers[acc[0]]
                    return base, add(o, off)
    return None


def subscript_index(n: ts.Node) -> ts.Node | None:
    """The index node of one `x[i]`, whatever x is (`A[i][k]`'s outer index too); None for other shapes."""
    idx = n.child_by_field_name("indices")
    if idx is None:
        idx = next((c for c in n.named_children if c.type == "subscript_argument_list"), None)
    if idx is None or len(idx.named_children) != 1:
        return None
    return idx.named_children[0]


def subscript_parts(src: SourceFile, n: ts.Node):
    """(array name, index node) of `a[i]`; None for other shapes."""
    arg = n.child_by_field_name("argument")
    idx = subscript_index(n)
    if arg is None or idx is None or arg.type != "identifier":
        return None
    return src.node_text(arg), idx


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
        if name == "warpSize":
            return const(32)
        return atom(name)
    if t == "field_expression":
        base = n.child_by_field_name("argument")
        if base is not None and src.node_text(base) in BUILTINS:
            return atom(src.node_text(n).replace(" ", ""))
        return None
    if t == "parenthesized_expression":
        return index_poly(src, n.named_children[0] if n.named_children else None, values)
    if t == "cast_expression":
        return index_poly(src, n.child_by_field_name("value"), values)
    if t == "call_expression":  # functional casts: size_t(x), (int64_t)(x) parsed as a call
        fn = n.child_by_field_name("function")
        args = n.child_by_field_name("arguments")
        if fn is not None and args is not None and (src.node_text(fn).strip() in src.macros
                                                    or src.node_text(fn).strip() in src.index_functions):
            return _macro_poly(src, src.node_text(fn).strip(), args, values)
        if fn is not None and args is not None and len(args.named_children) == 1:
            name = src.node_text(fn).strip("() ")
            if name.startswith("static_cast") and name.endswith(">") and "<" in name:
                name = name[name.index("<") + 1:-1].strip()
            if table_for(src).is_int(name):
                return index_poly(src, args.named_children[0], values)
        if _NOTES.get() is not None and fn is not None and args is not None and len(args.named_children) == 2:
            op = src.node_text(fn).strip().rsplit("::", 1)[-1]  # recording(): min and max of ints as atoms
            if op in ("min", "max", "umin", "umax", "llmin", "llmax"):
                a, b = (index_poly(src, x, values) for x in args.named_children)
                if a is not None and b is not None:
                    op = op[-3:]
                    return _noted(f"({op}({poly_text(a)}, {poly_text(b)}))", op, a, b)
        return None
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
        return binary_poly(op, a, b)
    if t == "subscript_expression":  # a value loaded from memory, uniform across the warp
        parts = subscript_parts(src, n)
        if parts is not None:
            i = index_poly(src, parts[1], values)
            if i is not None and (not depends(i) or _NOTES.get() is not None and _NOTES.get().loads):
                return _noted(f"({parts[0]}[{poly_text(i)}])", "load", parts[0], i)
        return None
    return None


def binary_poly(op: str, a: Poly | None, b: Poly | None) -> Poly | None:
    """The polynomial of `a op b` (None where it cannot be followed)."""
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
        return _noted(f"({_operand(a)} {op} {_operand(b)})", op, a, b)
    if _LANES.get() and op in ("/", "%") and not depends(b) and b and not (is_const(b) and b.get((), 0) <= 0):
        q = _noted(f"floor({_operand(a)} / {_operand(b)})", "floor", a, b)  # the same for the lanes of a warp
        return q if op == "/" else add(a, mul(b, q), -1)
    return None


_NOTES = contextvars.ContextVar("kp_atom_notes", default=None)  # recording(): what each opaque atom stands for


def _noted(name: str, op: str, a, b) -> Poly:
    """atom(name), and within recording() what it stands for: (op, a, b)."""
    rec = _NOTES.get()
    if rec is not None:
        rec.notes.setdefault(name, (op, a, b))
    return atom(name)


class recording:
    """Within it, index_poly notes what each opaque atom it makes stands for, in `notes`: name ->
    (op, a, b), op one of the C operators of a uniform quotient or remainder (`(a / b)`), "floor" (a
    lane view quotient), "min" or "max" (of two ints: only within recording) or "load" (a value read
    from memory: a is the array, b the index). A loop counter declared before its loop and set in the
    loop's header (`int k; for (k = 0; ...)`) is followed within it too. With
    loads=True a value read at a thread-dependent index is an atom too (a gather's index)."""

    def __init__(self, loads: bool = False):
        self.notes: dict = {}
        self.loads = loads
        self.token = None

    def __enter__(self):
        self.token = _NOTES.set(self)
        return self.notes

    def __exit__(self, *exc):
        _NOTES.reset(self.token)


_MACRO_DEPTH = [0]  # expansions in progress (a macro naming itself is not expanded again)
_LANES = contextvars.ContextVar("kp_lane_view", default=False)  # per thread: the language server profiles in threads


class lane_view:
    """Within it, index_poly follows thread-dependent quotients and remainders (lane view)."""

    def __init__(self, on: bool = True):
        self.on, self.token = on, None

    def __enter__(self):
        self.token = _LANES.set(self.on or _LANES.get())

    def __exit__(self, *exc):
        _LANES.reset(self.token)


def _macro_poly(src: SourceFile, name: str, args, values: dict) -> Poly | None:
    """The index of a function-like macro's expansion (`IDX(r, c, ld)` defined as
    `((size_t)(r) * (ld) + (c))`): the body with each parameter replaced by its argument in
    parentheses, parsed as an expression of the same file's constants and macros; an index helper
    (`__device__ int at(int x, int y, int nx) { return y * nx + x; }`, SourceFile.index_functions) the same way."""
    params, body = src.macros[name] if name in src.macros else src.index_functions[name]
    vals = [src.node_text(a) for a in args.named_children if a.type != "comment"]
    if len(vals) != len(params) or _MACRO_DEPTH[0] > 8 or "#" in body:
        return None
    table = dict(zip(params, vals))
    expanded = re.sub(r"[A-Za-z_]\w*", lambda m: f"({table[m.group(0)]})" if m.group(0) in table else m.group(0), body)
    _MACRO_DEPTH[0] += 1
    try:
        return text_poly(src, expanded, values)
    finally:
        _MACRO_DEPTH[0] -= 1


def text_poly(src: SourceFile, expr: str, values: dict | None = None) -> Poly | None:
    """The polynomial of an index expression given as text, read with src's constants, macros and index helpers
    (casts dropped as in the file)."""
    sub = SourceFile(f"void kp_expr() {{ long long kp_x = {expr}; }}", src.path)
    sub.constants, sub.macros, sub.index_functions = src.constants, src.macros, src.index_functions
    init = next((d for d in walk(sub.root) if d.type == "init_declarator"), None)
    return index_poly(sub, init.child_by_field_name("value"), values or {}) if init is not None else None


# --- accesses ---------------------------------------------------------------
@dataclass
class Access:
    array: str  # the kernel parameter it reads or writes
    node: ts.Node  # the subscript expression (or the intrinsic call / dereference)
    index: Poly | None  # None: not followed (only with include_unknown)
    stride: Poly | None  # coefficient of threadIdx.x
    is_write: bool

    @property
    def line(self) -> int:
        return self.node.start_point[0] + 1


def _is_write(n: ts.Node) -> bool:
    parent = n.parent
    return parent is not None and parent.type in ("assignment_expression", "update_expression") and (
        parent.child_by_field_name("left") == n or parent.child_by_field_name("argument") == n)


def _pointer_index(env: IndexEnv, ptr: ts.Node) -> tuple[str, Poly] | None:
    values = env.values_at(ptr.start_byte)
    base = _pointer_base(env.src, ptr, values, env.pointers)
    return base


_UNEVALUATED = {"decltype", "sizeof_expression", "alignof_expression", "type_descriptor", "template_argument_list"}


def unevaluated(n) -> bool:
    """n sits in an unevaluated operand (decltype, sizeof, a type): no access happens there."""
    p = n.parent
    while p is not None:
        if p.type in _UNEVALUATED:
            return True
        if p.type in ("expression_statement", "compound_statement", "declaration"):
            return False
        p = p.parent
    return False


def global_accesses(env: IndexEnv, include_unknown: bool = False) -> list[Access]:
    """Accesses to kernel pointer parameters (through local pointers too); with include_unknown,
    also those whose index cannot be followed (index None), so that no access goes unseen."""
    with lane_view(env.lanes):
        return _global_accesses(env, include_unknown)


def _global_accesses(env: IndexEnv, include_unknown: bool) -> list[Access]:
    out = []
    src = env.src
    if env.kernel.body is None:
        return out
    for n in walk(env.kernel.body):
        if n.type in ("subscript_expression", "pointer_expression", "call_expression") and unevaluated(n):
            continue
        if n.type == "subscript_expression":
            acc = subscript_parts(src, n)
            if acc is None or acc[0] not in env.pointers:
                continue
            base, off = env.pointers[acc[0]]
            p = env.poly(acc[1]) if off is not None else None
            if p is None:
                if include_unknown:
                    out.append(Access(base, n, None, None, _is_write(n)))
                continue
            p = add(off, p)
            out.append(Access(base, n, p, coefficient(p), _is_write(n)))
        elif n.type == "pointer_expression" and src.node_text(n).startswith("*"):
            arg = n.child_by_field_name("argument")
            r = _pointer_index(env, arg) if arg is not None else None
            if r is not None:
                out.append(Access(r[0], n, r[1], coefficient(r[1]), _is_write(n)))
            elif include_unknown:
                out.append(Access("?", n, None, None, _is_write(n)))
        elif n.type == "call_expression":
            fn = n.child_by_field_name("function")
            name = src.node_text(fn) if fn is not None else ""
            args = n.child_by_field_name("arguments")
            if name not in LOAD_INTRINSICS | STORE_INTRINSICS or args is None or not args.named_children:
                continue
            r = _pointer_index(env, args.named_children[0])
            if r is not None:
                out.append(Access(r[0], n, r[1], coefficient(r[1]), name in STORE_INTRINSICS))
            elif include_unknown:
                out.append(Access("?", n, None, None, name in STORE_INTRINSICS))
    return out


def element_bytes(k: Kernel, array: str, types: TypeTable | None = None) -> int | None:
    p = k.param(array)
    if p is None:
        return None
    if types is None:
        from .types import SCALARS, VECTORS
        t = words(p.base_type)
        s = SCALARS.get(t)
        if s is not None:
            return s.bytes
        v = VECTORS.get(t)
        return SCALARS[v[0]].bytes * v[1] if v and v[0] in SCALARS else None
    return types.bytes(p.base_type)


def finite_values(src: SourceFile, k: Kernel, limit: int = 8) -> dict[str, set[int]]:
    """Int locals that only ever hold a few constants: every definition and `=` assignment of the name is an
    expression of literals and other such locals (`int pout = 0; ... pout = 1 - pout; pin = 1 - pout;`, the
    double buffer of a scan), never stepped. name -> the values (at most `limit`)."""
    if k.body is None:
        return {}
    defs: dict[str, list] = {}
    bad = set()
    for n in walk(k.body):
        if n.type == "init_declarator" and n.child_by_field_name("declarator") is not None \
                and n.child_by_field_name("declarator").type == "identifier":
            if n.child_by_field_name("value") is None:
                continue
            defs.setdefault(src.node_text(n.child_by_field_name("declarator")), []).append(n.child_by_field_name("value"))
        elif n.type in ("assignment_expression", "update_expression"):
            left = n.child_by_field_name("left") or n.child_by_field_name("argument")
            if left is None or left.type != "identifier":
                continue
            name = src.node_text(left)
            if n.type == "assignment_expression" and src.node_text(n.child_by_field_name("operator")) == "=":
                defs.setdefault(name, []).append(n.child_by_field_name("right"))
            else:
                bad.add(name)
    ints = {n for n in defs if n not in bad}
    known: dict[str, set[int]] = {}

    def values(e) -> set[int] | None:
        t = e.type
        if t == "parenthesized_expression":
            return values(e.named_children[0]) if e.named_children else None
        if t == "number_literal":
            try:
                return {int(src.node_text(e).rstrip("uUlL"), 0)}
            except ValueError:
                return None
        if t == "identifier":  # a candidate not yet valued counts as none yet (`pout = 1 - pout` grows from 0)
            name = src.node_text(e)
            return known.get(name, set()) if name in ints else None
        if t == "binary_expression":
            a, b = values(e.child_by_field_name("left")), values(e.child_by_field_name("right"))
            op = src.node_text(e.child_by_field_name("operator"))
            fn = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
                  "^": lambda x, y: x ^ y}.get(op)
            if a is None or b is None or fn is None:
                return None
            return {fn(x, y) for x in a for y in b}
        return None

    for _ in range((limit + 2) * (len(ints) + 1)):  # to a fixed point: a name's values, the union of its definitions'
        changed = False
        for name in sorted(ints):
            got: set[int] = set()
            for v in defs[name]:
                s = values(v)
                if s is None:
                    got = None
                    break
                got |= s
            if got is None or len(got) > limit:
                if name in known:
                    del known[name]
                    changed = True
                ints.discard(name)
                continue
            if got and known.get(name) != got:
                known[name] = got
                changed = True
        if not changed:
            break
    else:
        return {}  # no fixed point within the rounds: nothing claimed
    return {n: v for n, v in known.items() if n in ints}


def poly_cases(env: IndexEnv, n: ts.Node, few: dict[str, set[int]], limit: int = 16) -> list[Poly] | None:
    """The index's polynomial for each combination of the values its few-valued locals take (`pout * blockDim.x +
    tid` with pout in {0, 1}: two), where the plain poly cannot follow them; None if some name is still unknown."""
    names = sorted({env.src.node_text(x) for x in walk(n) if x.type == "identifier"} & set(few))
    combos = [{}]
    for name in names:
        combos = [dict(c, **{name: v}) for c in combos for v in sorted(few[name])]
        if len(combos) > limit:
            return None
    if not names:
        return None
    out = []
    with lane_view(env.lanes):
        for c in combos:
            vals = dict(env.values_at(n.start_byte))
            vals.update({name: const(v) for name, v in c.items()})
            p = index_poly(env.src, n, vals)
            if p is None:
                return None
            out.append(p)
    return out
