"""Shared-memory bank conflicts of 2-D `__shared__` tiles read or written down a column.

Shared memory has 32 banks of 4 bytes. For each access `tile[a][b]` the rule evaluates
the word address of every lane of the first warp (threadIdx from the launch's block shape;
block-uniform values such as blockIdx, parameters and loop counters held fixed) and counts
the distinct words that fall into one bank: that is the number of serialized wavefronts.
8-byte elements are served per half warp and 16-byte elements per quarter warp, so the
count is taken within each such phase.
"""
from __future__ import annotations

from collections import defaultdict
from math import gcd

from ..advice import Evidence, Location, Severity
from ..source import Kernel, SourceFile, walk
from ..tools import Context, tool
from .common import advice_at, nodes, shared_declarations, shared_pointers
from .unroll import macro_constants

ELEMENT_BYTES = {
    **dict.fromkeys(("float", "int", "unsigned", "unsigned int", "uint32_t", "int32_t", "half2", "__half2",
                     "__nv_bfloat162", "char4", "uchar4", "short2"), 4),
    **dict.fromkeys(("double", "float2", "int2", "uint2", "long long", "unsigned long long", "int64_t",
                     "uint64_t", "double1", "long"), 8),
    **dict.fromkeys(("float4", "int4", "uint4", "double2"), 16),
}
UNIFORM_FIELDS = ("blockIdx", "gridDim")
WARP = 32
MIN_WAYS = 4  # 2-way conflicts are cheap and often the best a layout can do


class Unknown(Exception):
    pass


class SharedTile:
    def __init__(self, name, elem_type, elem_bytes, rows, cols, decl, size_node):
        self.name, self.elem_type, self.elem_bytes = name, elem_type, elem_bytes
        self.rows, self.cols, self.decl, self.size_node = rows, cols, decl, size_node


def shared_tiles(src: SourceFile, k: Kernel, env: dict[str, int]) -> dict[str, SharedTile]:
    out = {}
    for d, tt in shared_declarations(src, k):
        eb = ELEMENT_BYTES.get(tt)
        for decl in d.children_by_field_name("declarator"):
            outer = decl
            inner = outer.child_by_field_name("declarator") if outer.type == "array_declarator" else None
            if eb is None or inner is None or inner.type != "array_declarator":
                continue
            ident = inner.child_by_field_name("declarator")
            if ident is None or ident.type != "identifier":
                continue  # 3-D and deeper: not modelled
            rows = src.eval_int(inner.child_by_field_name("size"), env)
            size = outer.child_by_field_name("size")
            cols = src.eval_int(size, env)
            if rows and cols:
                out[src.node_text(ident)] = SharedTile(src.node_text(ident), tt, eb, rows, cols, d, size)
    return out


def _launch_calls(src: SourceFile) -> dict[str, list]:
    """kernel name -> its launch call nodes, in source order (once per file)."""
    memo = src.memo.get("launch_calls")
    if memo is None:
        memo = {}
        for n in walk(src.root):
            if n.type == "call_expression" and any(c.type == "kernel_call_syntax" for c in n.children):
                fn = n.child_by_field_name("function")
                if fn is not None:
                    memo.setdefault(src.node_text(fn).split("<")[0].split("::")[-1].strip(), []).append(n)
        src.memo["launch_calls"] = memo
    return memo


def block_shape(src: SourceFile, k: Kernel, env: dict[str, int]) -> tuple[tuple[int, int, int] | None, str]:
    """(x, y, z) threads of the first launch site with a constant block, else None."""
    for site_call in _launch_calls(src).get(k.name, []):
        cfg = next((c for c in site_call.children if c.type == "kernel_call_syntax"), None)
        if cfg is None:
            continue
        args = cfg.named_children
        if len(args) < 2:
            continue
        b = args[1]
        v = src.eval_int(b, env)
        line = site_call.start_point[0] + 1
        if v is not None:
            return (v, 1, 1), f"launch site line {line}"
        if b.type == "call_expression" and src.node_text(b.child_by_field_name("function")) == "dim3":
            vals = [src.eval_int(a, env) for a in b.child_by_field_name("arguments").named_children]
            if vals and all(x is not None for x in vals):
                vals = (vals + [1, 1])[:3]
                return (vals[0], vals[1], vals[2]), f"launch site line {line}"
    if k.launch_bounds:
        return (k.launch_bounds[0], 1, 1), "__launch_bounds__"
    return None, "assumed: blockDim.x >= 32"


class Evaluator:
    """Integer value of an index expression for one lane; block-uniform names take `uniform`."""

    def __init__(self, src: SourceFile, k: Kernel, env: dict[str, int], block):
        self.src, self.env, self.block, self.body = src, env, block, k.body
        self.params = {p.name for p in k.params if not p.is_pointer}
        self.defs: dict[str, list] = defaultdict(list)
        self.writes: dict[str, list] = defaultdict(list)  # declarations and assignments, as nodes
        for n in walk(k.body):
            if n.type == "init_declarator":
                nm = n.child_by_field_name("declarator")
                if nm is not None and nm.type == "identifier":
                    self.defs[src.node_text(nm)].append(n.child_by_field_name("value"))
                    self.writes[src.node_text(nm)].append(n)
            elif n.type == "assignment_expression":
                left = n.child_by_field_name("left")
                if left is not None and left.type == "identifier":
                    self.defs[src.node_text(left)].append(None)  # reassigned: value unknown
                    self.writes[src.node_text(left)].append(n)
            elif n.type == "update_expression":
                arg = n.child_by_field_name("argument")
                if arg is not None and arg.type == "identifier":
                    self.defs[src.node_text(arg)].append(None)
                    self.writes[src.node_text(arg)].append(n)
        self.loop_vars = {l.var: l for l in k.loops if l.var}
        self.fixed: dict[str, int] = {}  # loop counters held at one iteration's value

    def _scoped_init(self, name: str, use):
        """The value of the declaration of `name` that is in scope at `use` (a name declared in two
        blocks), when nothing writes it in that scope."""
        best = None
        for w in self.writes.get(name, []):
            if w.type == "init_declarator" and w.start_byte < use.start_byte:
                scope = w.parent.parent if w.parent is not None else None
                if scope is not None and scope.start_byte <= use.start_byte < scope.end_byte:
                    if best is None or w.start_byte > best[0].start_byte:
                        best = (w, scope)
        if best is None:
            return None
        w, scope = best
        if any(x is not w and x.type != "init_declarator" and scope.start_byte <= x.start_byte < scope.end_byte
               for x in self.writes[name]):
            return None
        return w.child_by_field_name("value")

    def value(self, n, lane: dict[str, int], uniform: int, depth: int = 0) -> int:
        if depth > 20:
            raise Unknown()
        src, t = self.src, n.type
        if t == "number_literal":
            v = src.eval_int(n)
            if v is None:
                raise Unknown()
            return v
        if t == "parenthesized_expression":
            return self.value(n.named_children[0], lane, uniform, depth + 1)
        if t == "cast_expression":
            return self.value(n.child_by_field_name("value"), lane, uniform, depth + 1)
        if t == "field_expression":
            base, fld = n.child_by_field_name("argument"), n.child_by_field_name("field")
            b, f = src.node_text(base), src.node_text(fld)
            if b == "threadIdx" and f in "xyz":
                return lane[f]
            if b == "blockDim" and f in "xyz" and self.block:
                return self.block["xyz".index(f)]
            if b in UNIFORM_FIELDS or b == "blockDim":
                return uniform + "xyz".find(f) + 1
            raise Unknown()
        if t == "identifier":
            name = src.node_text(n)
            if name in self.fixed:
                return self.fixed[name]
            if name in self.env:
                return self.env[name]
            if name in self.params:
                return uniform + sum(map(ord, name)) % 7
            if name in self.loop_vars:
                loop = self.loop_vars[name]
                if loop.node.type == "for_statement":
                    init = loop.node.child_by_field_name("initializer")
                    val = _init_value(src, init, name)
                    if val is not None:  # the first iteration; later ones add a uniform step
                        return self.value(val, lane, uniform, depth + 1)
                raise Unknown()
            defs = self.defs.get(name, [])
            if len(defs) == 1 and defs[0] is not None:
                return self.value(defs[0], lane, uniform, depth + 1)
            init = self._scoped_init(name, n)
            if init is not None:
                return self.value(init, lane, uniform, depth + 1)
            raise Unknown()
        if t == "unary_expression":
            op = src.node_text(n.child_by_field_name("operator"))
            v = self.value(n.child_by_field_name("argument"), lane, uniform, depth + 1)
            if op == "-":
                return -v
            if op == "+":
                return v
            if op == "!":
                return int(not v)
            raise Unknown()
        if t == "binary_expression":
            op = src.node_text(n.child_by_field_name("operator"))
            a = self.value(n.child_by_field_name("left"), lane, uniform, depth + 1)
            b = self.value(n.child_by_field_name("right"), lane, uniform, depth + 1)
            try:
                return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a // b,
                        "%": lambda: a % b, "<<": lambda: a << b, ">>": lambda: a >> b, "&": lambda: a & b,
                        "|": lambda: a | b, "^": lambda: a ^ b, "<": lambda: int(a < b), ">": lambda: int(a > b),
                        "<=": lambda: int(a <= b), ">=": lambda: int(a >= b), "==": lambda: int(a == b),
                        "!=": lambda: int(a != b), "&&": lambda: int(bool(a and b)), "||": lambda: int(bool(a or b))}[op]()
            except (KeyError, ZeroDivisionError, ValueError):
                raise Unknown() from None
        raise Unknown()


def _init_value(src, init, name):
    if init is None:
        return None
    if init.type == "declaration":
        for d in init.children_by_field_name("declarator"):
            if d.type == "init_declarator" and src.node_text(d.child_by_field_name("declarator")) == name:
                return d.child_by_field_name("value")
    if init.type == "assignment_expression" and src.node_text(init.child_by_field_name("left")) == name:
        return init.child_by_field_name("right")
    return None


def lanes(block) -> list[dict[str, int]]:
    bx, by, bz = block or (WARP, 1, 1)
    out = []
    for l in range(min(WARP, bx * by * bz)):
        out.append({"x": l % bx, "y": (l // bx) % by, "z": l // (bx * by)})
    return out


def conflict_ways(words_per_lane: list[int], elem_bytes: int) -> int:
    """Serialized wavefronts of one warp access, given each lane's first 4-byte word."""
    span = max(1, elem_bytes // 4)
    phase = WARP // span
    worst = 1
    for p in range(0, len(words_per_lane), phase):
        banks: dict[int, set[int]] = defaultdict(set)
        for w in words_per_lane[p : p + phase]:
            for s in range(span):
                banks[(w + s) % WARP].add(w + s)
        worst = max([worst] + [len(v) for v in banks.values()])
    return worst


def access_ways(ev: Evaluator, tile: SharedTile, a, b, block, cols: int, width: int | None = None) -> tuple[int, bool] | None:
    """(ways, row index varies across the warp) for tile[a][b] with `cols` columns, or None (an
    access of `width` bytes per lane when the element's address is cast to a wider type)."""
    results = []
    for uniform in (0, 13):
        try:
            rows = [ev.value(a, ln, uniform) for ln in lanes(block)]
            cs = [ev.value(b, ln, uniform) for ln in lanes(block)]
        except Unknown:
            return None
        words = [(r * cols + c) * tile.elem_bytes // 4 for r, c in zip(rows, cs)]
        results.append((conflict_ways(words, width or tile.elem_bytes), len(set(rows)) > 1))
    return results[0] if results[0] == results[1] else None


# --- 1-D arrays: buf[2 * s * t], temp[offset * (2 * t + 1) - 1] ------------------------------

MAX_STEPS = 16


def shared_vectors(src: SourceFile, k: Kernel, type_of) -> dict[str, tuple[str, int]]:
    """1-D __shared__ arrays of the kernel -> (element type, bytes), template types resolved."""
    out = {}
    for d, tt in shared_declarations(src, k):
        eb = ELEMENT_BYTES.get(" ".join(type_of(tt).split()))
        for decl in d.children_by_field_name("declarator"):
            ident = decl.child_by_field_name("declarator") if decl.type == "array_declarator" else None
            if eb is not None and ident is not None and ident.type == "identifier":
                out[src.node_text(ident)] = (tt, eb)
    for name, (_, tt) in shared_pointers(src, k).items():  # `T* s = SharedMemory<T>();`
        eb = ELEMENT_BYTES.get(" ".join(type_of(tt).split()))
        if eb is not None:
            out.setdefault(name, (tt, eb))
    return out


def _enclosing(k: Kernel, n):
    """(innermost enclosing for loop, conditions of the enclosing ifs whose then-branch holds n)."""
    loop, conds = None, []
    child, p = n, n.parent
    while p is not None and p != k.body:
        if p.type == "if_statement" and child == p.child_by_field_name("consequence"):
            c = p.child_by_field_name("condition")
            if c is not None and c.type == "condition_clause":
                c = c.child_by_field_name("value") or (c.named_children[0] if c.named_children else None)
            conds.append(c)
        elif p.type == "for_statement" and loop is None and child == p.child_by_field_name("body"):
            loop = p
        child, p = p, p.parent
    return loop, conds


def _iterations(ev: Evaluator, loop, lane0) -> tuple[str | None, list[int]]:
    """(counter, its values) for a for loop with a block-uniform counter; (None, []) otherwise."""
    src = ev.src
    init, cond, upd = (loop.child_by_field_name(f) for f in ("initializer", "condition", "update"))
    name = None
    if init is not None and init.type == "declaration":
        d = next((c for c in init.children_by_field_name("declarator") if c.type == "init_declarator"), None)
        name = src.node_text(d.child_by_field_name("declarator")) if d is not None else None
    if name is None or cond is None or upd is None:
        return None, []
    try:
        v = ev.value(_init_value(src, init, name), lane0, 0)
        values = []
        while len(values) < MAX_STEPS:
            ev.fixed[name] = v
            if not ev.value(cond, lane0, 0):
                break
            values.append(v)
            if upd.type == "update_expression":
                v += -1 if "--" in src.node_text(upd) else 1
            elif upd.type == "assignment_expression":
                op = src.node_text(upd.child_by_field_name("operator"))
                r = ev.value(upd.child_by_field_name("right"), lane0, 0)
                v = {"+=": v + r, "-=": v - r, "*=": v * r, "/=": v // r if r else 0, "<<=": v << r,
                     ">>=": v >> r, "=": r}.get(op, None)
                if v is None:
                    return None, []
            else:
                return None, []
    except Unknown:
        return None, []
    finally:
        ev.fixed.pop(name, None)
    return name, values


_STEP_OPS = {"+=": lambda v, r: v + r, "-=": lambda v, r: v - r, "*=": lambda v, r: v * r,
             "<<=": lambda v, r: v << r, ">>=": lambda v, r: v >> r, "/=": lambda v, r: v // r if r else 0}


def _companions(ev: Evaluator, loop, access, steps: int, lane0) -> dict[str, list[int]]:
    """Variables stepped along with the loop counter (`int offset = 1;` before the loop, `offset *= 2;`
    in its body and nowhere else): their value at each of the loop's `steps` iterations, at `access`."""
    src, out = ev.src, {}
    body = loop.child_by_field_name("body")
    updates: dict[str, list] = {}
    for st in body.named_children if body is not None and body.type == "compound_statement" else []:
        e = st.named_children[0] if st.type == "expression_statement" and st.named_children else None
        if e is not None and e.type == "assignment_expression" and e.child_by_field_name("left").type == "identifier":
            op = src.node_text(e.child_by_field_name("operator"))
            if op in _STEP_OPS:
                updates.setdefault(src.node_text(e.child_by_field_name("left")), []).append((st, op, e.child_by_field_name("right")))
    for name, ups in updates.items():
        inits = [d for d in ev.defs.get(name, []) if d is not None]
        mine = {st.named_children[0].start_byte for st, _, _ in ups}  # tree-sitter nodes: compare positions
        elsewhere = [w for w in walk(ev.body) if w.type in ("assignment_expression", "update_expression")
                     and w.start_byte not in mine and src.node_text(w.child_by_field_name("left") or w.child_by_field_name("argument")
                                                             or w) == name and w.start_byte < loop.end_byte]
        if len(inits) != 1 or elsewhere or inits[0].start_byte > loop.start_byte:
            continue  # written before or inside the loop other than by its steps: not followed
        try:
            v = ev.value(inits[0], lane0, 0)
            rs = [(st, _STEP_OPS[op], ev.value(r, lane0, 0)) for st, op, r in ups]
        except Unknown:
            continue
        vals = []
        for _ in range(steps):
            here = v
            for st, f, r in rs:
                if st.start_byte < access.start_byte and not (st.start_byte <= access.start_byte < st.end_byte):
                    here = f(here, r)  # stepped earlier in this iteration
            vals.append(here)
            for _, f, r in rs:
                v = f(v, r)
        out[name] = vals
    return out


def cast_access(src: SourceFile, n) -> tuple[int, object] | None:
    """(bytes, the access node) when `n` (`buf[4 * t]`) is reached through a cast of its address
    to a wider type: `*reinterpret_cast<float4*>(&buf[4 * t]) = v`, `((float2*)&buf[i])[0]`."""
    p = n.parent
    if p is None or p.type != "pointer_expression" or not src.node_text(p).lstrip().startswith("&"):
        return None
    cur = p
    while cur.parent is not None and cur.parent.type == "parenthesized_expression":
        cur = cur.parent
    up = cur.parent
    ctype = None
    if up is not None and up.type == "cast_expression":
        t = up.child_by_field_name("type")
        ctype, cur = (src.node_text(t) if t is not None else None), up
    elif up is not None and up.type == "argument_list" and up.parent is not None and up.parent.type == "call_expression":
        fn = up.parent.child_by_field_name("function")
        text = src.node_text(fn) if fn is not None else ""
        if text.replace(" ", "").startswith(("reinterpret_cast<", "static_cast<")):
            ctype, cur = text[text.index("<") + 1:text.rindex(">")], up.parent
    if ctype is None:
        return None
    base = " ".join(ctype.replace("const", " ").replace("volatile", " ").replace("*", " ").split())
    width = ELEMENT_BYTES.get(base)
    if width is None:
        return None
    while cur.parent is not None and cur.parent.type == "parenthesized_expression":
        cur = cur.parent
    up = cur.parent
    if up is not None and (up.type == "subscript_expression" and up.child_by_field_name("argument") == cur
                           or up.type == "pointer_expression" and src.node_text(up).lstrip().startswith("*")):
        return width, up
    return None


def vector_ways(ev: Evaluator, idx, eb: int, block, conds, width: int | None = None) -> tuple[int, int, int] | None:
    """(ways, word stride between the first two active lanes, active lanes) of one warp access
    (of `width` bytes per lane when the element's address is cast to a wider type)."""
    results = []
    for uniform in (0, 13):
        words = []
        for ln in lanes(block):
            try:
                if not all(ev.value(c, ln, uniform) for c in conds if c is not None):
                    continue
            except Unknown:
                pass  # a guard it cannot evaluate: the lane is taken as active
            try:
                words.append(ev.value(idx, ln, uniform) * eb // 4)
            except Unknown:
                return None
        if len(words) < 2:
            return 1, 0, len(words)
        results.append((conflict_ways(words, width or eb), words[1] - words[0], len(words)))
    return results[0] if results[0] == results[1] else None


def vector_conflicts(ctx: Context, k: Kernel, env, block, origin, ev: Evaluator):
    src = ctx.source
    arrays = shared_vectors(src, k, lambda t: ctx.type_of(k, t))
    if not arrays or not block:
        return []
    out, seen = [], set()
    lane0 = lanes(block)[0]
    for n in nodes(k, "subscript_expression"):
        ident = n.child_by_field_name("argument")
        if ident is None or ident.type != "identifier" or src.node_text(ident) not in arrays:
            continue
        if n.parent is not None and n.parent.type == "subscript_expression":
            continue
        ix = n.child_by_field_name("indices")
        if ix is None or not ix.named_children:
            continue
        idx = ix.named_children[0]
        wide = cast_access(src, n)  # a 16-byte store through a float4 cast is served per quarter warp
        loop, conds = _enclosing(k, n)
        var, values = _iterations(ev, loop, lane0) if loop is not None else (None, [])
        along = _companions(ev, loop, n, len(values), lane0) if values else {}
        worst = None
        for i, v in enumerate(values or [None]):
            if var is not None:
                ev.fixed[var] = v
            ev.fixed.update({name: vals[i] for name, vals in along.items()})
            r = vector_ways(ev, idx, arrays[src.node_text(ident)][1], block, conds, wide[0] if wide else None)
            for name in [var, *along]:
                ev.fixed.pop(name, None)
            if r is None:
                worst = None
                break
            if worst is None or r[0] > worst[0]:
                worst = (*r, v)
        line = n.start_point[0] + 1
        if worst is None or worst[0] < MIN_WAYS or (line, src.node_text(ident)) in seen:
            continue
        seen.add((line, src.node_text(ident)))
        out.append(_vector_advice(ctx, k, n, src.node_text(ident), arrays[src.node_text(ident)], worst, var,
                                  block, origin, wide))
    return out


def _vector_advice(ctx, k, n, name, elem, worst, var, block, origin, wide=None):
    src = ctx.source
    written = _is_write(wide[1] if wide else n)
    ways, stride, active, at = worst
    line = n.start_point[0] + 1
    shown = " ".join(src.node_text(n).split())
    when = f" (at {var} = {at}, the worst step of the loop)" if var is not None else ""
    return advice_at(
        ctx, "shared-bank-conflict", Severity.WARNING, k, n,
        f"{ways}-way bank conflict on line {line}: the active lanes of a warp {'write' if written else 'read'} "
        f"{shown} {stride} words apart{when}, so each access is split into {ways} serialized wavefronts",
        f"let consecutive threads use consecutive words of {name}: in a tree reduction, sequential addressing "
        f"(thread t combines {name}[t] and {name}[t + s] while s halves) instead of an index that grows with "
        "the step; otherwise skip one word every 32 (index + index / 32) or swizzle the index",
        [Evidence("conflict degree", ways, "ways", "source"),
         Evidence("word stride between lanes", stride, "4-byte words", "source"),
         Evidence("active lanes", active, "of the first warp", "source"),
         Evidence("element size", elem[1], "bytes", "source"),
         *([Evidence("access size", wide[0], "bytes per lane (a cast of the address)", "source")] if wide else []),
         Evidence("block shape", "x".join(map(str, block)), origin, "launch")],
    )


def _is_write(n) -> bool:
    p = n.parent
    return p is not None and p.type == "assignment_expression" and p.child_by_field_name("left") == n


@tool(
    "bank_conflicts",
    """Shared-memory bank conflicts: 2-D __shared__ tiles (4-, 8- or 16-byte elements) whose
    row stride is a multiple of the 32 banks, read or written down a column (the first index
    varies with threadIdx.x, as in tile[threadIdx.x][k] or the read phase of a transpose), and
    1-D arrays indexed with a stride between threads (buf[2 * s * tid] in a tree reduction).
    Computes the conflict degree for the first warp of the launch's block shape, reports 4-way
    or worse, and proposes padding the row by one element ([32][33]). Use it on kernels with shared-memory tiles:
    transposes, tiled matrix multiplies, stencils.""",
    needs=("source",),
    rules=("shared-bank-conflict",),
)
def bank_conflicts(ctx: Context):
    src = ctx.source
    env = macro_constants(src)
    out = []
    for k in src.kernels:
        if k.body is None:
            continue
        env = {**macro_constants(src), **ctx.constants(k)}
        tiles = shared_tiles(src, k, env)
        block, origin = block_shape(src, k, env)
        ev = Evaluator(src, k, env, block)
        out += vector_conflicts(ctx, k, env, block, origin, ev)
        if not tiles:
            continue
        seen = set()
        for n in nodes(k, "subscript_expression"):
            inner = n.child_by_field_name("argument")
            if inner is None or inner.type != "subscript_expression":
                continue
            ident = inner.child_by_field_name("argument")
            if ident is None or ident.type != "identifier" or src.node_text(ident) not in tiles:
                continue
            tile = tiles[src.node_text(ident)]
            ia, ib = inner.child_by_field_name("indices"), n.child_by_field_name("indices")
            if not ia or not ib or not ia.named_children or not ib.named_children:
                continue
            a, b = ia.named_children[0], ib.named_children[0]
            wide = cast_access(src, n)
            res = access_ways(ev, tile, a, b, block, tile.cols, wide[0] if wide else None)
            if res is None:
                continue
            ways, column = res
            if ways < MIN_WAYS or not column:
                continue
            line = n.start_point[0] + 1
            if (line, tile.name) in seen:
                continue
            seen.add((line, tile.name))
            padded = access_ways(ev, tile, a, b, block, tile.cols + 1, wide[0] if wide else None)
            out.append(_advice(ctx, k, n, tile, ways, padded, block, origin, a))
    return out


def _advice(ctx, k, n, tile: SharedTile, ways, padded, block, origin, a):
    src = ctx.source
    line = n.start_point[0] + 1
    stride_words = tile.cols * tile.elem_bytes // 4
    verb = "writes" if _is_write(n) else "reads"
    shown = f"{tile.name}[{' '.join(src.node_text(a).split())}][...]"
    size_text = src.node_text(tile.size_node)
    new_size = str(tile.cols + 1) if tile.size_node.type == "number_literal" else f"{size_text} + 1"
    dl, dc, _, dec = src.pos(tile.size_node)
    fix = None
    if padded is not None and padded[0] < MIN_WAYS:
        fix = {"title": f"Pad {tile.name} to [{tile.rows}][{tile.cols + 1}]", "edits": [
            {"line": dl, "column": dc, "end_line": dl, "end_column": dec, "new_text": new_size}]}
    phase = {4: "", 8: " (8-byte elements: per half warp)", 16: " (16-byte elements: per quarter warp)"}[tile.elem_bytes]
    decl_line = tile.decl.start_point[0] + 1
    return advice_at(
        ctx, "shared-bank-conflict", Severity.WARNING, k, n,
        f"{ways}-way bank conflict on line {line}: a warp {verb} {shown} down a column with a "
        f"{stride_words}-word row stride ({tile.elem_type} {tile.name}[{tile.rows}][{tile.cols}], line {decl_line}), "
        f"so each access is split into {ways} serialized wavefronts{phase}",
        f"pad each row by one element: declare {tile.name}[{tile.rows}][{size_text} + 1] so consecutive rows "
        f"start in different banks" + ("" if fix else " (check the other accesses of the tile after padding)")
        + "; or swizzle the column index (col ^ row) if the padding does not fit",
        [Evidence("conflict degree", ways, "ways", "source"),
         Evidence("row stride", stride_words, "4-byte words", "source"),
         Evidence("gcd(stride, 32 banks)", gcd(stride_words, WARP), "", "source"),
         Evidence("element size", tile.elem_bytes, "bytes", "source"),
         Evidence("block shape", "x".join(map(str, block)) if block else "unknown", origin, "launch")],
        gain=None, fix=fix,
        related=[Location(ctx.path, dl, dc, dl, dec, message=f"row length of {tile.name}")],
    )
