"""Loops of a kernel: their variable and range, what each iteration writes, and whether the
iterations are independent up to reductions.

A scalar written in a loop but declared outside it is a reduction when every write is one
associative update of it (sum, product, max, min, or, and, xor: `s += e`, `s = s * e`,
`s = fmaxf(s, e)`, `if (e > s) s = e;`, `s = e > s ? e : s`, ...) and it is read nowhere else
in the loop. Two such scalars that update together like an online softmax (a running max and
a sum rescaled by exp(old max - new max)) are recognised by running the loop body on sample
values (analysis/interp.py). Any other outer scalar written in the loop is carried: the
iterations depend on each other.

Memory: an array written at an index whose coefficient in the loop variable is not zero, and
accessed only at that same index (by any pointer that may alias it), keeps iterations apart.
Distinct pointer parameters are assumed to be either the same buffer or disjoint (partial
overlaps are not considered); `__restrict__` on one of them rules the same buffer out.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

import tree_sitter as ts

from ..source import Kernel, SourceFile, walk
from .affine import Access, IndexEnv, Poly, build_env, coefficient, global_accesses, index_poly
from .interp import Interp, Unsupported, close

SUM, PROD, MAX, MIN, OR, AND, XOR, ONLINE = "sum", "prod", "max", "min", "or", "and", "xor", "online"
_COMPOUND = {"+=": SUM, "-=": SUM, "*=": PROD, "|=": OR, "&=": AND, "^=": XOR}
_MAXF = {"fmaxf", "fmax", "max", "::max", "std::max", "cuda::std::max", "__hmax", "fmaxl"}
_MINF = {"fminf", "fmin", "min", "::min", "std::min", "cuda::std::min", "__hmin", "fminl"}
SYNC = {"__syncthreads", "__syncwarp", "__syncthreads_or", "__syncthreads_and", "__syncthreads_count",
        "__threadfence", "__threadfence_block", "sync", "barrier"}


@dataclass
class Reduction:
    var: str
    op: str  # SUM, PROD, MAX, MIN, OR, AND, XOR, ONLINE
    partner: str | None = None  # ONLINE: the rescaled sum (on the max) / the max (on the sum)
    exp_fn: str | None = None  # ONLINE: the exponential the body uses (expf, __expf, exp2f, ...)
    fn: str | None = None  # MAX/MIN: the function the body uses (fmaxf, max, ...), None for comparisons
    role: str | None = None  # ONLINE: "max" or "sum"


@dataclass
class LoopInfo:
    node: ts.Node = field(repr=False)
    form: str  # for, while, do
    var: str | None
    var_type: str | None  # declared type text of the loop variable
    declared_in_header: bool
    start: ts.Node | None = field(repr=False, default=None)  # initial value
    cmp: str | None = None  # <, <=, !=, >, >=
    bound: ts.Node | None = field(repr=False, default=None)
    step: int | None = None  # constant step (1 for j++)
    step_node: ts.Node | None = field(repr=False, default=None)  # the step expression when not constant
    body: ts.Node | None = field(repr=False, default=None)
    increment: ts.Node | None = field(repr=False, default=None)  # while loops: the trailing `j++;`
    privates: set = field(default_factory=set)
    reductions: list = field(default_factory=list)
    carried: dict = field(default_factory=dict)  # name -> why the iterations depend on it
    accesses: list = field(default_factory=list)  # Access objects inside the loop
    memory_deps: list = field(default_factory=list)  # why memory links iterations
    escapes: list = field(default_factory=list)  # break, return, goto, barriers, atomics, calls

    @property
    def canonical(self) -> bool:
        """`for (v = S; v < E; v += const)` or the equivalent while loop."""
        return self.var is not None and self.cmp in ("<", "<=", "!=") and self.step is not None and self.step > 0

    @property
    def independent(self) -> bool:
        """Iterations independent up to the reductions (safe to spread over threads)."""
        return self.canonical and not self.carried and not self.memory_deps and not self.escapes

    def reduction(self, var: str) -> Reduction | None:
        return next((r for r in self.reductions if r.var == var), None)


# ---------------------------------------------------------------- helpers


LOOPS = ("for_statement", "while_statement", "do_statement")  # the loop statements

def unparen(n):
    while n is not None and n.type in ("parenthesized_expression", "condition_clause") and n.named_children:
        n = n.named_children[0]
    return n


def operands(n, op: str = "&&") -> list:
    """The operands of a chain of one binary operator (`a && b && c`: [a, b, c]), parentheses dropped."""
    n = unparen(n)
    if n is not None and n.type == "binary_expression" and n.child_by_field_name("operator").type == op:
        return operands(n.child_by_field_name("left"), op) + operands(n.child_by_field_name("right"), op)
    return [n] if n is not None else []


def text(src: SourceFile, n) -> str:
    return " ".join(src.node_text(n).split()) if n is not None else ""


def statements(n) -> list:
    if n is None:
        return []
    if n.type == "compound_statement":
        return [c for c in n.named_children if c.type not in ("comment",)]
    return [n]


def writes_in(src: SourceFile, node) -> list[tuple[str, ts.Node]]:
    """(name, assignment or update node) of every scalar identifier written below node."""
    out = []
    for n in walk(node):
        if n.type == "assignment_expression":
            left = unparen(n.child_by_field_name("left"))
            if left is not None and left.type == "identifier":
                out.append((src.node_text(left), n))
        elif n.type == "update_expression":
            arg = unparen(n.child_by_field_name("argument"))
            if arg is not None and arg.type == "identifier":
                out.append((src.node_text(arg), n))
    return out


def declared_names(src: SourceFile, node) -> set[str]:
    out = set()
    for n in walk(node):
        if n.type in ("declaration", "for_range_loop"):
            for d in n.children_by_field_name("declarator"):
                while d is not None and d.type != "identifier":
                    d = d.child_by_field_name("declarator")
                if d is not None:
                    out.add(src.node_text(d))
    return out


def uses(src: SourceFile, node, name: str) -> list:
    return [n for n in walk(node) if n.type == "identifier" and src.node_text(n) == name]


def inside(n, outer) -> bool:
    return outer is not None and outer.start_byte <= n.start_byte and n.end_byte <= outer.end_byte


def call_names(src: SourceFile, node) -> list[tuple[str, ts.Node]]:
    out = []
    for n in walk(node):
        if n.type == "call_expression":
            fn = n.child_by_field_name("function")
            if fn is not None:
                out.append((src.node_text(fn).strip(), n))
    return out


# ---------------------------------------------------------------- loop headers


def _header(src: SourceFile, n) -> dict:
    out = {"var": None, "start": None, "cmp": None, "bound": None, "step": None, "step_node": None,
           "declared": False, "var_type": None, "increment": None}
    if n.type == "for_statement":
        init, cond, upd = (n.child_by_field_name(f) for f in ("initializer", "condition", "update"))
        if init is not None and init.type == "declaration":
            ds = init.children_by_field_name("declarator")
            if len(ds) == 1 and ds[0].type == "init_declarator":
                out["var"] = text(src, ds[0].child_by_field_name("declarator"))
                out["start"] = ds[0].child_by_field_name("value")
                out["declared"] = True
                t = init.child_by_field_name("type")
                out["var_type"] = text(src, t) if t is not None else None
        elif init is not None and init.type == "assignment_expression" and text(src, init.child_by_field_name("operator")) == "=":
            left = init.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                out["var"] = text(src, left)
                out["start"] = init.child_by_field_name("right")
        _condition(src, cond, out)
        _step(src, upd, out)
    elif n.type == "while_statement":
        cond = n.child_by_field_name("condition")
        body = n.child_by_field_name("body")
        stmts = statements(body)
        c = unparen(cond)
        if c is not None and c.type == "binary_expression" and stmts:
            left = unparen(c.child_by_field_name("left"))
            if left is not None and left.type == "identifier":
                var = text(src, left)
                last = stmts[-1]
                e = last.named_children[0] if last.type == "expression_statement" and last.named_children else None
                probe = {"var": var, "step": None, "step_node": None}
                if e is not None:
                    _step(src, e, probe)
                if probe["step"] is not None or probe["step_node"] is not None:
                    out.update(var=var, increment=last, step=probe["step"], step_node=probe["step_node"])
                    _condition(src, cond, out)
    return out


def _condition(src, cond, out) -> None:
    c = unparen(cond)
    var = out["var"]
    if var is None or c is None or c.type != "binary_expression":
        return
    op = text(src, c.child_by_field_name("operator"))
    left, right = unparen(c.child_by_field_name("left")), c.child_by_field_name("right")
    if left is not None and text(src, left) == var:
        out["cmp"], out["bound"] = op, right
    elif right is not None and text(src, unparen(right)) == var:
        flip = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "!=": "!="}
        out["cmp"], out["bound"] = flip.get(op), c.child_by_field_name("left")


def _step(src, upd, out) -> None:
    var = out["var"]
    if var is None or upd is None:
        return
    u = text(src, upd).replace(" ", "")
    if u in (f"++{var}", f"{var}++"):
        out["step"] = 1
    elif u in (f"--{var}", f"{var}--"):
        out["step"] = -1
    elif upd.type == "assignment_expression" and text(src, upd.child_by_field_name("left")) == var:
        op = text(src, upd.child_by_field_name("operator"))
        right = upd.child_by_field_name("right")
        if op in ("+=", "-="):
            v = src.eval_int(right)
            if v is not None:
                out["step"] = v if op == "+=" else -v
            elif op == "+=":
                out["step_node"] = right
        elif op == "=" and right is not None and right.type == "binary_expression" \
                and text(src, right.child_by_field_name("operator")) == "+" \
                and text(src, right.child_by_field_name("left")) == var:
            v = src.eval_int(right.child_by_field_name("right"))
            if v is not None:
                out["step"] = v
            else:
                out["step_node"] = right.child_by_field_name("right")


# ---------------------------------------------------------------- reductions


def single_update(src: SourceFile, var: str, w) -> tuple[str, str | None] | None:
    """(op, function) when the write node w is one associative update of var; else None. var may
    be an element's text (`sh[tid]`) for the compare-and-pick spellings (`a > b ? a : b`, `if (a > b) x = a`)."""
    if w.type == "update_expression":
        return SUM, None
    op = text(src, w.child_by_field_name("operator"))
    right = w.child_by_field_name("right")
    if op in _COMPOUND:
        return (_COMPOUND[op], None) if not uses(src, right, var) else None
    if op != "=":
        return None
    r = unparen(right)
    if r is None:
        return None
    if r.type == "binary_expression":
        bop = text(src, r.child_by_field_name("operator"))
        a, b = unparen(r.child_by_field_name("left")), unparen(r.child_by_field_name("right"))
        sides = [(a, b)] if bop == "-" else [(a, b), (b, a)]
        for x, y in sides:
            if x is not None and x.type == "identifier" and text(src, x) == var and not uses(src, y, var):
                if bop in ("+", "-"):
                    return SUM, None
                if bop == "*":
                    return PROD, None
                if bop in ("|", "&", "^"):
                    return {"|": OR, "&": AND, "^": XOR}[bop], None
        return None
    if r.type == "call_expression":
        fn = text(src, r.child_by_field_name("function"))
        args = r.child_by_field_name("arguments")
        vals = [unparen(a) for a in (args.named_children if args is not None else [])]
        kind = MAX if fn in _MAXF else MIN if fn in _MINF else helper_pick(src, fn)
        if kind is not None and len(vals) == 2:
            mine = [v for v in vals if v.type == "identifier" and text(src, v) == var]
            other = [v for v in vals if not (v.type == "identifier" and text(src, v) == var)]
            if len(mine) == 1 and len(other) == 1 and not uses(src, other[0], var):
                return kind, fn
        return None
    if r.type == "conditional_expression":
        return _compare_pick(src, var, unparen(r.child_by_field_name("condition")),
                             unparen(r.child_by_field_name("consequence")), unparen(r.child_by_field_name("alternative")))
    # `if (e > s) s = e;`: a plain assignment whose enclosing if compares the same two values
    stmt = w.parent
    if stmt is None or stmt.type != "expression_statement":
        return None
    holder = stmt.parent
    if holder is not None and holder.type == "compound_statement" and len(statements(holder)) == 1:
        holder = holder.parent
    if holder is None or holder.type != "if_statement" or holder.child_by_field_name("alternative") is not None:
        return None
    cond = unparen(holder.child_by_field_name("condition"))
    return _compare_pick(src, var, cond, r, None)


def helper_pick(src: SourceFile, fn: str) -> str | None:
    """MAX or MIN when `fn` is one of the file's functions of two parameters whose body is one
    `return` of their max or min (`return a > b ? a : b;`, `return fmaxf(a, b);`); else None."""
    memo = src.memo.setdefault("helper_pick", {})
    if fn not in memo:
        memo[fn] = _helper_pick(src, fn)
    return memo[fn]


def _helper_pick(src: SourceFile, fn: str) -> str | None:
    name = fn.split("<")[0].strip()
    if not name.isidentifier():
        return None
    for n in walk(src.root):
        if n.type != "function_definition":
            continue
        decl = n.child_by_field_name("declarator")
        while decl is not None and decl.type in ("pointer_declarator", "reference_declarator"):
            decl = decl.child_by_field_name("declarator") or (decl.named_children[-1] if decl.named_children else None)
        if decl is None or decl.type != "function_declarator":
            continue
        ident = decl.child_by_field_name("declarator")
        if ident is None or text(src, ident).split("::")[-1] != name:
            continue
        plist = decl.child_by_field_name("parameters")
        params = [text(src, p.child_by_field_name("declarator")).lstrip("&*") for p in plist.named_children
                  if p.type == "parameter_declaration" and p.child_by_field_name("declarator") is not None]
        body = statements(n.child_by_field_name("body")) if n.child_by_field_name("body") is not None else []
        if len(params) != 2 or len(body) != 1 or body[0].type != "return_statement" or not body[0].named_children:
            return None
        r = unparen(body[0].named_children[0])
        a, b = params
        if r is not None and r.type == "call_expression":
            f = text(src, r.child_by_field_name("function"))
            args = [text(src, unparen(x)) for x in r.child_by_field_name("arguments").named_children]
            if sorted(args) == sorted(params) and (f in _MAXF or f in _MINF):
                return MAX if f in _MAXF else MIN
            return None
        if r is not None and r.type == "conditional_expression":
            got = _compare_pick(src, a, unparen(r.child_by_field_name("condition")),
                                unparen(r.child_by_field_name("consequence")), unparen(r.child_by_field_name("alternative")))
            if got is not None and text(src, unparen(r.child_by_field_name("alternative"))) in params:
                return got[0]
        return None
    return None


def _compare_pick(src, var, cond, then, other) -> tuple[str, None] | None:
    """`e > s ? e : s` (other given) or `if (e > s) s = e` (other None): max or min."""
    if cond is None or cond.type != "binary_expression":
        return None
    op = text(src, cond.child_by_field_name("operator"))
    if op not in ("<", ">", "<=", ">="):
        return None
    a, b = unparen(cond.child_by_field_name("left")), unparen(cond.child_by_field_name("right"))
    ta, tb, tt = text(src, a), text(src, b), text(src, then)
    to = text(src, other) if other is not None else var
    if {ta, tb} != {tt, to} or var not in (ta, tb) or tt == to:
        return None
    e = a if ta != var else b
    if uses(src, e, var):
        return None
    greater_first = op in (">", ">=")  # cond: a > b
    picks_a = tt == ta  # the chosen value when cond holds
    is_max = greater_first == picks_a
    return (MAX if is_max else MIN), None


def _reads_outside_updates(src: SourceFile, body, var: str, updates: list) -> bool:
    """A use of var in the body that is not part of one of its update statements."""
    for u in uses(src, body, var):
        owned = False
        for w in updates:
            holder = w
            if w.type == "assignment_expression" and w.parent is not None and w.parent.type == "expression_statement":
                st = w.parent
                h = st.parent
                if h is not None and h.type == "compound_statement" and len(statements(h)) == 1:
                    h = h.parent
                if h is not None and h.type == "if_statement" and inside(u, h.child_by_field_name("condition")):
                    holder = h
            if inside(u, holder):
                owned = True
                break
        if not owned:
            return True
    return False


def _online_pair(src: SourceFile, body, stmts, names: list[str], fixed: dict[str, float]) -> list[Reduction] | None:
    """Two carried scalars that update like an online softmax: (running max, rescaled sum)."""
    if len(names) != 2:
        return None
    reads = sorted({text(src, n) for n in walk(body) if n.type == "subscript_expression"
                    and not (n.parent is not None and n.parent.type == "assignment_expression"
                             and n.parent.child_by_field_name("left") == n)})
    if not reads or any(n.type == "subscript_expression" and n.parent is not None
                        and n.parent.type == "assignment_expression"
                        and n.parent.child_by_field_name("left") == n for n in walk(body)):
        return None
    exp_fns = [f for f, _ in call_names(src, body) if f in ("expf", "__expf", "exp", "exp2f", "exp2", "__exp2f")]
    if not exp_fns:
        return None
    base2 = exp_fns[0] in ("exp2f", "exp2", "__exp2f")
    ex = (lambda x: 2.0 ** x) if base2 else (lambda x: math.exp(x) if x < 700 else math.inf)
    rng = random.Random(1234)

    def run(m0, s0, m_name, s_name, vals):
        env = dict(fixed)
        env[m_name], env[s_name] = m0, s0
        it = Interp(src, env, dict(zip(reads, vals)))
        out = it.run(stmts)
        return out[m_name], out[s_name]

    for m_name, s_name in (names, names[::-1]):
        try:
            ok = True
            for _ in range(6):
                vals = [rng.uniform(-4, 4) for _ in reads]
                m1, s1 = run(-math.inf, 0.0, m_name, s_name, vals)
                if not (math.isfinite(m1) and close(s1, 1.0, 1e-6)):
                    ok = False
                    break
                f = m1
                for m0 in (f - 1.5, f + 2.0, f):
                    s0 = rng.uniform(0.5, 3.0)
                    m2, s2 = run(m0, s0, m_name, s_name, vals)
                    want_m = max(m0, f)
                    if not close(m2, want_m, 1e-9) or not close(s2, s0 * ex(m0 - want_m) + ex(f - want_m), 1e-6):
                        ok = False
                        break
                if not ok:
                    break
            if ok:
                return [Reduction(m_name, ONLINE, partner=s_name, exp_fn=exp_fns[0], role="max"),
                        Reduction(s_name, ONLINE, partner=m_name, exp_fn=exp_fns[0], role="sum")]
        except (Unsupported, TypeError, ValueError, OverflowError, ZeroDivisionError):
            continue
    return None


# ---------------------------------------------------------------- the loop


def analyze_loop(src: SourceFile, env: IndexEnv, n: ts.Node, accesses: list[Access] | None = None) -> LoopInfo:
    h = _header(src, n)
    form = {"for_statement": "for", "while_statement": "while", "do_statement": "do"}[n.type]
    body = n.child_by_field_name("body")
    info = LoopInfo(node=n, form=form, var=h["var"], var_type=h["var_type"], declared_in_header=h["declared"],
                    start=h["start"], cmp=h["cmp"], bound=h["bound"], step=h["step"], step_node=h["step_node"],
                    body=body, increment=h["increment"])
    if body is None:
        info.escapes.append("no body")
        return info
    stmts = [s for s in statements(body) if info.increment is None or s != info.increment]
    # control flow leaving the iteration, barriers, atomics
    for c in walk(body):
        if c.type in ("break_statement", "return_statement", "goto_statement"):
            info.escapes.append(c.type.replace("_statement", ""))
        elif c.type == "continue_statement" and form != "for":
            info.escapes.append("continue in a while loop")
    for name, _ in call_names(src, body):
        base = name.split("::")[-1].split(".")[-1]
        if base in SYNC:
            info.escapes.append(f"barrier {name}")
        elif base.startswith("atomic"):
            info.escapes.append(f"atomic {name}")
    if form == "do":
        info.escapes.append("do loop")
    # scalars
    declared = declared_names(src, body)
    info.privates = set(declared)
    writes: dict[str, list] = {}
    for name, w in writes_in(src, body):
        if name in declared or name == info.var:
            continue
        writes.setdefault(name, []).append(w)
    if info.var is not None:
        for name, w in writes_in(src, body):
            if name == info.var and not (info.increment is not None and inside(w, info.increment)):
                info.carried[info.var] = "the loop variable is changed inside the body"
    pending = []
    for name, ws in writes.items():
        ops = [single_update(src, name, w) for w in ws]
        if None in ops or len({o[0] for o in ops}) != 1 or _reads_outside_updates(src, body, name, ws):
            pending.append(name)
            continue
        fns = {o[1] for o in ops if o[1]}
        info.reductions.append(Reduction(name, ops[0][0], fn=next(iter(fns)) if len(fns) == 1 else None))
    if pending:
        fixed = _probe_values(src, body, set(pending) | declared | ({info.var} if info.var else set()))
        if info.var:
            fixed[info.var] = 3.0
        pair = _online_pair(src, body, stmts, pending, fixed) if fixed is not None else None
        if pair:
            info.reductions += pair
        else:
            for name in pending:
                info.carried[name] = f"`{name}` is updated in a way that depends on the previous iteration"
    # memory
    accs = [a for a in (accesses if accesses is not None else global_accesses(env, include_unknown=True))
            if inside(a.node, body)]
    info.accesses = accs
    if info.var is not None:
        info.memory_deps = memory_dependences(env, accs, info.var)
    for n in walk(body):  # writes to local arrays (or unknown pointers) that outlive an iteration
        if n.type in ("subscript_expression", "pointer_expression") and n.parent is not None \
                and n.parent.type in ("assignment_expression", "update_expression") \
                and (n.parent.child_by_field_name("left") == n or n.parent.child_by_field_name("argument") == n):
            if n.type == "pointer_expression" and not src.node_text(n).startswith("*"):
                continue
            base = unparen(n.child_by_field_name("argument"))
            while base is not None and base.type in ("subscript_expression", "field_expression"):
                base = unparen(base.child_by_field_name("argument"))
            name = src.node_text(base) if base is not None and base.type == "identifier" else None
            if name is None or (name not in declared and name not in env.pointers):
                info.memory_deps.append(f"line {n.start_point[0] + 1} writes through `{text(src, n)}`, "
                                        "which is not a kernel buffer nor private to the iteration")
    return info


def _probe_values(src, body, written: set) -> dict[str, float] | None:
    """Random values for the outer scalars a loop only reads (fixed per probe)."""
    rng = random.Random(99)
    out = {}
    for n in walk(body):
        if n.type == "identifier":
            name = src.node_text(n)
            p = n.parent
            if p is not None and p.type in ("call_expression",) and p.child_by_field_name("function") == n:
                continue
            if p is not None and p.type == "subscript_expression" and p.child_by_field_name("argument") == n:
                continue
            if name not in written and name not in out:
                out[name] = rng.uniform(0.5, 2.0)
    return out


def may_alias(env: IndexEnv, a: str, b: str) -> bool:
    if a == b:
        return True
    pa, pb = env.kernel.param(a), env.kernel.param(b)
    if pa is None or pb is None:
        return True
    return not (pa.is_restrict or pb.is_restrict)


def memory_dependences(env: IndexEnv, accs: list[Access], var: str) -> list[str]:
    """Why iterations of a loop over var are linked through memory ([] when they are not)."""
    deps = []
    for w in (a for a in accs if a.is_write):
        if w.index is None:
            deps.append(f"the write to {w.array} on line {w.line} has an index that cannot be followed")
            continue
        cw = coefficient(w.index, var)
        if cw is None or not cw:
            deps.append(f"{w.array}[...] on line {w.line} is written at the same place by every iteration")
            continue
        for o in accs:
            if o is w or not may_alias(env, o.array, w.array):
                continue
            if o.index != w.index:
                deps.append(f"{o.array} on line {o.line} and the write to {w.array} on line {w.line} "
                            f"touch different elements that may overlap")
                break
    return sorted(set(deps))


@dataclass
class KernelLoops:
    kernel: Kernel
    env: IndexEnv
    loops: list[LoopInfo]

    def at(self, node) -> LoopInfo | None:
        return next((lp for lp in self.loops if lp.node == node), None)


def analyze_kernel(src: SourceFile, k: Kernel, keep=()) -> KernelLoops:
    """Every loop of k; names in `keep` (a row index) stay symbolic in the index polynomials."""
    env = build_env(src, k, keep=keep)
    accs = global_accesses(env, include_unknown=True)
    loops = [analyze_loop(src, env, lp.node, accs) for lp in k.loops]
    return KernelLoops(k, env, loops)


def poly_of(env: IndexEnv, n) -> Poly | None:
    return index_poly(env.src, n, env.values_at(n.start_byte)) if n is not None else None


def loop_start(src: SourceFile, lp) -> ts.Node | None:
    """The value the loop variable starts from: a for loop's initialiser, or for a while loop its
    declaration or `var = e;` right before the loop in the same block, nothing in between using it."""
    if lp.form == "for":
        return lp.start
    sib = lp.node.prev_named_sibling
    while sib is not None:
        if sib.type == "declaration":
            for d in sib.children_by_field_name("declarator"):
                if d.type == "init_declarator" and text(src, d.child_by_field_name("declarator")) == lp.var:
                    return d.child_by_field_name("value")
        if sib.type == "expression_statement" and sib.named_children:
            e = sib.named_children[0]
            if e.type == "assignment_expression" and text(src, e.child_by_field_name("left")) == lp.var \
                    and text(src, e.child_by_field_name("operator")) == "=":
                return e.child_by_field_name("right")
        if uses(src, sib, lp.var):
            return None
        sib = sib.prev_named_sibling
    return None
