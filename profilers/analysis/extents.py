"""How far a kernel reads and writes each pointer: bounds of affine indices under guards and loops.

Every access's index is a polynomial over atoms (affine.py, lane view, so `idx / N` and `idx % N`
are followed, with `recording` noting what each opaque atom stands for). The conditions around an
access become bounds `q <= u`: `q` the part in variable atoms (thread and block indices, loop
counters, quotients of them, values read from memory), `u` the part in size atoms (parameters,
blockDim, gridDim, constants). The highest index is bounded by writing the index as a sum of
bounded parts (`reach`): `A[row * K + k]` under `row < M` and `k < K` is at most
`K * (M - 1) + (K - 1)`, so A holds M * K elements, and its strides K and 1 give the shape [M, K].

Bounds come from `if` conditions (an `else` negates them), `?:`, `&&`, loop conditions, early exits
(`if (i >= n) return;`), and the launch itself (`threadIdx.x < blockDim.x`, `blockIdx.x <
gridDim.x`), the launch's only where the guards leave an index unbounded (`uses_grid`).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import tree_sitter as ts

from ..source import Kernel, SourceFile, walk
from .affine import (IndexEnv, Poly, _updates, add, atom, atoms, build_env, const, global_accesses, mul,
                     poly_text, recording, subscript_parts)
from .types import table_for, words

DIMS = "xyz"
THREADS = tuple(f"threadIdx.{d}" for d in DIMS)
BLOCKS = tuple(f"blockIdx.{d}" for d in DIMS)
BLOCK_DIMS = tuple(f"blockDim.{d}" for d in DIMS)
GRID_DIMS = tuple(f"gridDim.{d}" for d in DIMS)
ATOMICS = ("atomicAdd", "atomicSub", "atomicMax", "atomicMin", "atomicExch", "atomicCAS", "atomicAnd",
           "atomicOr", "atomicXor", "atomicInc", "atomicDec")
_FLIP = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
_MAX_RESULTS = 160


# --- atoms ---------------------------------------------------------------------------------------
@dataclass
class Atoms:
    """What the atoms of a kernel's polynomials are: variable (differs between threads or iterations)
    or size (the same for the whole launch), their signs, and their values at given sizes."""
    notes: dict  # opaque atom -> (op, a, b), from affine.recording
    stepped: dict  # loop counter -> +1 / -1 (the sign of its steps)
    ranged: set = field(default_factory=set)  # arrays whose values are filled from 0 (a gather's indices)

    def is_var(self, a: str) -> bool:
        if a.startswith(("threadIdx.", "blockIdx.")) or a in self.stepped:
            return True
        note = self.notes.get(a)
        if note is None:
            return False
        op, x, y = note
        if op in ("load", "floor"):
            return True
        return any(self.is_var(b) for p in (x, y) if isinstance(p, dict) for b in atoms(p))

    def base_vars(self, a: str, depth: int = 0) -> set[str]:
        """The thread, block and loop variables a variable atom depends on (a quotient of the thread's index on
        those of the index): two bounds over disjoint base variables can both reach their limits at once."""
        note = self.notes.get(a)
        if note is None or note[0] == "load" or depth > 8:
            return {a}
        out = {b for p in note[1:] if isinstance(p, dict) for m in p for x in m if self.is_var(x)
               for b in self.base_vars(x, depth + 1)}
        return out or {a}

    def var_part(self, p: Poly) -> Poly:
        return {m: c for m, c in p.items() if any(self.is_var(a) for a in m)}

    def size_part(self, p: Poly) -> Poly:
        return {m: c for m, c in p.items() if not any(self.is_var(a) for a in m)}

    def sign(self, a: str) -> int | None:
        if a in self.stepped:
            return self.stepped[a]
        note = self.notes.get(a)
        if note is not None and note[0] == "load":
            return 1 if note[1] in self.ranged else None
        return 1  # thread and block indices, sizes, quotients and remainders of indices

    def nonpositive(self, m: tuple, c: int) -> bool:
        """The term c * m is <= 0 wherever the atoms have their signs."""
        s = 1 if c > 0 else -1
        for a in m:
            g = self.sign(a)
            if g is None:
                return False
            s *= g
        return s < 0

    def value(self, a: str, env: dict):
        """The atom's value with the size atoms in env (None where it is not a size or not given)."""
        if a in env:
            return env[a]
        note = self.notes.get(a)
        if note is None:
            return None
        op, x, y = note
        if op == "load":
            return None
        vx, vy = self.eval(x, env), self.eval(y, env)
        if vx is None or vy is None:
            return None
        try:
            if op in ("/", "floor"):
                return _cdiv_trunc(vx, vy) if op == "/" else vx // vy
            if op == "%":
                return vx - vy * _cdiv_trunc(vx, vy)
            return {"min": min, "max": max}[op](vx, vy) if op in ("min", "max") else \
                {"<<": lambda: vx << vy, ">>": lambda: vx >> vy, "&": lambda: vx & vy, "|": lambda: vx | vy,
                 "^": lambda: vx ^ vy}[op]()
        except (KeyError, ZeroDivisionError, ValueError, TypeError):
            return None

    def eval(self, p: Poly, env: dict):
        total = 0
        for m, c in p.items():
            v = c
            for a in m:
                x = self.value(a, env)
                if x is None:
                    return None
                v *= x
            total += v
        return total


def _cdiv_trunc(a: int, b: int) -> int:
    """C's integer division (toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


# --- bounds --------------------------------------------------------------------------------------
@dataclass
class Bound:
    """q <= u: q over variable atoms, u over size atoms."""
    q: Poly
    u: Poly
    text: str  # the condition as written (negated where an else or an exit negates it)
    line: int
    kind: str  # guard, loop, block (threadIdx < blockDim), grid (blockIdx < gridDim), derived


def _unparen(n):
    while n is not None and n.type in ("parenthesized_expression", "condition_clause") and n.named_children:
        n = n.child_by_field_name("value") if n.type == "condition_clause" and n.child_by_field_name("value") \
            else n.named_children[0]
    return n


class Facts:
    """The bounds and accesses of one kernel (see the module docstring)."""

    def __init__(self, src: SourceFile, k: Kernel, ranges: dict | None = None):
        src = with_defines(src, k)
        self.src, self.kernel = src, k
        self.ranges: dict[str, Poly] = dict(ranges or {})  # int array -> the range of its values (a gather's)
        self.rec = recording(loads=True)
        with self.rec:
            self.env: IndexEnv = build_env(src, k, lanes=True)
        self.atoms = Atoms(self.rec.notes, _steps(src, k), set(self.ranges))
        self.types = table_for(src)
        self.flags = _flag_locals(src, k)

    def poly(self, n) -> Poly | None:
        with self.rec:
            return self.env.poly(n)

    def text(self, n) -> str:
        return " ".join(self.src.node_text(n).split())

    # conditions -> bounds
    def comparisons(self, cond, negate: bool = False) -> list[Bound]:
        c = _unparen(cond)
        if c is None:
            return []
        if c.type == "unary_expression" and self.src.node_text(c.child_by_field_name("operator")) == "!":
            return self.comparisons(c.child_by_field_name("argument"), not negate)
        if c.type == "identifier" and self.src.node_text(c) in self.flags:  # bool up = r > 0; ... up ? ...
            return self.comparisons(self.flags[self.src.node_text(c)], negate)
        if c.type != "binary_expression":
            return []
        op = self.src.node_text(c.child_by_field_name("operator"))
        left, right = c.child_by_field_name("left"), c.child_by_field_name("right")
        if op in ("&&", "||"):
            if (op == "&&") != negate:  # a conjunction: every part holds
                return self.comparisons(left, negate) + self.comparisons(right, negate)
            return []
        if op not in _FLIP:
            return []
        if negate:
            op = _FLIP[op]
        text = f"{self.text(left)} {op} {self.text(right)}"
        line = c.start_point[0] + 1
        out = []
        for lp in self._sides(left, op in ("<", "<=")):
            for rp in self._sides(right, op in (">", ">=")):
                out += self._bounds(lp, op, rp, text, line)
        return out

    def _sides(self, n, upper: bool) -> list[Poly]:
        """A comparison operand's polynomials: `min(a, b)` on the upper side is both a and b."""
        m = _unparen(n)
        if m is not None and m.type == "call_expression":
            fn = self.src.node_text(m.child_by_field_name("function")).strip().rsplit("::", 1)[-1]
            args = m.child_by_field_name("arguments")
            if fn in (("min", "umin", "fminf", "fmin") if upper else ("max", "umax", "fmaxf", "fmax")) \
                    and args is not None and len(args.named_children) == 2:
                ps = [self.poly(a) for a in args.named_children]
                return [p for p in ps if p is not None]
        p = self.poly(n)
        return [p] if p is not None else []

    def _bounds(self, lp: Poly, op: str, rp: Poly, text: str, line: int) -> list[Bound]:
        d = add(lp, rp, -1)  # lp - rp
        forms = {"<": [(d, -1)], "<=": [(d, 0)], ">": [(mul(d, const(-1)), -1)], ">=": [(mul(d, const(-1)), 0)],
                 "==": [(d, 0), (mul(d, const(-1)), 0)]}.get(op, [])
        if op == "!=":  # kept aside: with a bound at the same value it moves it by one (derived)
            q = self.atoms.var_part(d)
            return [Bound(q, mul(self.atoms.size_part(d), const(-1)), text, line, "not")] if q else []
        out = []
        for e, c in forms:
            q = self.atoms.var_part(e)
            if q:
                out.append(Bound(q, add(const(c), self.atoms.size_part(e), -1), text, line, "guard"))
        return out

    def _last_step(self, loop, b: "Bound") -> Poly:
        """The bound's end made the counter's last value where a literal start, step and end say it: `for (j = 0;
        j < 32; j += 8)` gives j <= 24, not 31 (the rows of a TILE x ROWS loop end where they do)."""
        if loop.type != "for_statement" or set(b.q) != {(next(iter(b.q))[0],)} or len(b.q) != 1 \
                or set(b.u) - {()} or next(iter(b.q.values())) != 1:
            return b.u
        var = next(iter(b.q))[0]
        init, upd = loop.child_by_field_name("initializer"), loop.child_by_field_name("update")
        start = step = None
        for d in ([init] if init is not None and init.type == "declaration" else []):
            for dd in d.children_by_field_name("declarator"):
                if dd.type == "init_declarator" and self.src.node_text(dd.child_by_field_name("declarator")) == var:
                    start = self.src.eval_int(dd.child_by_field_name("value"))
        if init is not None and init.type == "assignment_expression" \
                and self.src.node_text(init.child_by_field_name("left")) == var:
            start = self.src.eval_int(init.child_by_field_name("right"))
        if upd is not None and upd.type == "assignment_expression" and \
                self.src.node_text(upd.child_by_field_name("left")) == var and \
                self.src.node_text(upd.child_by_field_name("operator")) == "+=":
            step = self.src.eval_int(upd.child_by_field_name("right"))
        end = b.u.get((), 0)
        if start is None or step is None or step < 2 or end < start:
            return b.u
        return const(start + (end - start) // step * step)

    def guards(self, node) -> list[Bound]:
        """The bounds that hold wherever `node` runs: its ifs, loops, `?:`, `&&` and earlier exits."""
        out: list[Bound] = []
        child, p = node, node.parent
        body = self.kernel.body
        while p is not None and child != body:
            t = p.type
            if t == "if_statement":
                if child == p.child_by_field_name("consequence"):
                    out += self.comparisons(p.child_by_field_name("condition"))
                elif child == p.child_by_field_name("alternative"):
                    out += self.comparisons(p.child_by_field_name("condition"), negate=True)
            elif t in ("for_statement", "while_statement"):
                if child in (p.child_by_field_name("body"), p.child_by_field_name("update")):
                    out += [Bound(b.q, self._last_step(p, b), b.text, b.line, "loop")
                            for b in self.comparisons(p.child_by_field_name("condition"))]
            elif t == "conditional_expression":
                if child == p.child_by_field_name("consequence"):
                    out += self.comparisons(p.child_by_field_name("condition"))
                elif child == p.child_by_field_name("alternative"):
                    out += self.comparisons(p.child_by_field_name("condition"), negate=True)
            elif t == "binary_expression" and child == p.child_by_field_name("right"):
                op = self.src.node_text(p.child_by_field_name("operator"))
                if op in ("&&", "||"):
                    out += self.comparisons(p.child_by_field_name("left"), negate=op == "||")
            elif t == "compound_statement":
                for s in p.named_children:
                    if s.start_byte >= child.start_byte:
                        break
                    if s.type == "if_statement" and s.child_by_field_name("alternative") is None \
                            and _exits(s.child_by_field_name("consequence")):
                        out += self.comparisons(s.child_by_field_name("condition"), negate=True)
            child, p = p, p.parent
        return out

    def launch_bounds(self) -> tuple[list[Bound], list[Bound]]:
        """(threadIdx.d <= blockDim.d - 1, blockIdx.d <= gridDim.d - 1) for every dimension."""
        blk = [Bound(atom(t), add(atom(b), const(-1)), f"{t} < {b}", 0, "block") for t, b in zip(THREADS, BLOCK_DIMS)]
        grd = [Bound(atom(t), add(atom(g), const(-1)), f"{t} < {g}", 0, "grid") for t, g in zip(BLOCKS, GRID_DIMS)]
        return blk, grd

    def quotient(self, u: Poly, y: Poly) -> Poly:
        """u // y for sizes: (U + 1) / y - 1 when y divides U + 1 (H * W - 1 by W gives H - 1), else an atom noted
        as the quotient."""
        u1 = add(u, const(1))
        if len(y) == 1:
            (my, cy), = y.items()
            q = {}
            for m, c in u1.items():
                d = _divides(my, m)
                if d is None or c % cy:
                    q = None
                    break
                q[d] = c // cy
            if q is not None and mul(q, y) == u1:
                return add(q, const(-1))
        name = f"(({poly_text(u)}) / ({poly_text(y)}))"
        self.atoms.notes.setdefault(name, ("/", u, y))
        return atom(name)

    def derived(self, bounds: list[Bound]) -> list[Bound]:
        """Bounds the opaque atoms bring: a remainder below its divisor, a quotient times its divisor at most
        the dividend, the quotient's bound from the dividend's and back (followed through nested quotients:
        `idx % (H * N * d) / (N * d)`), a gathered value below its array's range, the loop counters that step
        down."""
        out: list[Bound] = []
        def key(b):
            return repr(sorted(b.q.items())), repr(sorted(b.u.items())), b.kind == "not"
        seen = {key(b) for b in bounds}
        for _ in range(4):
            new = []
            for b in self._derive_once(bounds + out):
                key_b = key(b)
                if key_b not in seen:
                    seen.add(key_b)
                    new.append(b)
            if not new:
                break
            out += new
        return out

    def _derive_once(self, bounds: list[Bound]) -> list[Bound]:
        out = []
        A = self.atoms
        for b in bounds:  # x != c: with x >= c (or x >= 0, c = 0) x >= c + 1; with x <= c, x <= c - 1
            if b.kind != "not":
                continue
            neg = mul(b.q, const(-1))
            if not b.u and len(b.q) == 1 and not A.nonpositive(*next(iter(b.q.items()))) and all(
                    A.sign(a) == 1 for m in b.q for a in m):
                out.append(Bound(neg, const(-1), b.text, b.line, "derived"))
            for c in bounds:
                if c.kind in ("not",):
                    continue
                if c.q == b.q and c.u == b.u:
                    out.append(Bound(b.q, add(b.u, const(-1)), b.text, b.line, "derived"))
                elif c.q == neg and c.u == mul(b.u, const(-1)):
                    out.append(Bound(neg, add(c.u, const(-1)), b.text, b.line, "derived"))
        for name, (op, arr, _) in list(A.notes.items()):
            if op == "load" and arr in self.ranges:
                out.append(Bound(atom(name), add(self.ranges[arr], const(-1)), f"the values of {arr}", 0, "derived"))
        for name, (op, x, y) in list(A.notes.items()):
            if op in ("%",) and isinstance(y, dict) and not A.var_part(y) and A.is_var(name):
                out.append(Bound(atom(name), add(y, const(-1)), f"{name} < {poly_text(y)}", 0, "derived"))
            if op in ("/", "floor") and isinstance(y, dict) and not A.var_part(y) and A.is_var(name):
                f = atom(name)
                vx = A.var_part(x)
                if not vx:
                    continue
                # x - y*f <= y - 1 (the remainder) and y*f - x <= 0
                r = add(x, mul(y, f), -1)
                out.append(Bound(A.var_part(r), add(add(y, const(-1)), A.size_part(r), -1), f"{name} remainder", 0,
                                 "derived"))
                out.append(Bound(mul(A.var_part(r), const(-1)), A.size_part(r), f"{name} quotient", 0, "derived"))
                for b in bounds:
                    if b.kind == "not":
                        continue
                    if b.q == f:  # f <= U  =>  x <= y*U + y - 1
                        u = add(add(mul(y, b.u), y), const(-1))
                        out.append(Bound(vx, add(u, A.size_part(x), -1), b.text, b.line, "derived"))
                    elif b.q == vx:  # x <= U  =>  f <= U // y  (a flat index's row: idx < N * C gives idx / C < N)
                        out.append(Bound(f, self.quotient(add(b.u, A.size_part(x)), y), b.text, b.line, "derived"))
            if op == "min" and A.is_var(name):
                for side in (x, y):
                    e = add(atom(name), side, -1)
                    out.append(Bound(A.var_part(e), mul(A.size_part(e), const(-1)), name, 0, "derived"))
            if op == "max" and A.is_var(name):
                for v, other in ((x, y), (y, x)):  # max(i - 1, 0): at most i - 1 (taken as above 0 at its top)
                    if A.var_part(v) and not A.var_part(other):
                        e = add(atom(name), v, -1)
                        out.append(Bound(A.var_part(e), mul(A.size_part(e), const(-1)), name, 0, "derived"))
        for name, s in A.stepped.items():
            if s < 0:
                out.append(Bound(atom(name), {}, f"{name} steps down", 0, "loop"))
        return out


def _flag_locals(src: SourceFile, k: Kernel) -> dict:
    """Locals set once to a comparison (`bool up = r > 0;`): name -> the comparison node."""
    out, assigned = {}, set()
    if k.body is None:
        return out
    for n in walk(k.body):
        if n.type in ("assignment_expression", "update_expression"):
            left = n.child_by_field_name("left") or n.child_by_field_name("argument")
            if left is not None and left.type == "identifier":
                assigned.add(src.node_text(left))
        if n.type != "declaration":
            continue
        for d in n.children_by_field_name("declarator"):
            name, value = d.child_by_field_name("declarator"), d.child_by_field_name("value")
            v = _unparen(value)
            if d.type == "init_declarator" and name is not None and name.type == "identifier" and v is not None and (
                    v.type == "binary_expression" and src.node_text(v.child_by_field_name("operator")) in
                    ("<", "<=", ">", ">=", "==", "!=", "&&", "||") or v.type == "unary_expression"):
                out[src.node_text(name)] = v
    return {k2: v for k2, v in out.items() if k2 not in assigned}


def with_defines(src: SourceFile, k: Kernel | None = None) -> SourceFile:
    """The file with its object-like `#define`s of integer expressions among the constants
    (`#define PER_LANE (COLS / 32)`), as a view sharing the parse; for a kernel, without the constants
    its parameters shadow or that another function declares (`const int n = 3000;` in main)."""
    extra = {}
    for n in walk(src.root):
        if n.type != "preproc_def":
            continue
        name, value = n.child_by_field_name("name"), n.child_by_field_name("value")
        if name is None or value is None or src.node_text(name) in src.constants:
            continue
        text = src.node_text(value).strip()
        if not text or any(c in text for c in "\"{}\";"):
            continue
        probe = SourceFile(f"int kp_x = {text};")
        probe.constants = {**src.constants, **extra}
        d = next((x for x in walk(probe.root) if x.type == "init_declarator"), None)
        v = probe.eval_int(d.child_by_field_name("value")) if d is not None else None
        if v is not None:
            extra[src.node_text(name)] = v
    drop = set()
    if k is not None and k.is_template:  # `template <int BLOCK_SIZE>`: the value its launches (or the spec) give
        extra.update(src.instantiated(k))
    if k is not None:
        own = {src.node_text(n) for n in walk(k.body) if n.type == "identifier"} if k.body is not None else set()
        local = declared_in_body(src, k)
        drop = {p.name for p in k.params} | {n for n in getattr(src, "_scoped", set()) if n not in local and n in own}
    if not extra and not drop & set(src.constants):
        return src
    view = src.view(src.kernels)
    view.constants = {n: v for n, v in {**src.constants, **extra}.items() if n not in drop}
    return view


def declared_in_body(src: SourceFile, k: Kernel) -> set[str]:
    from .types import declared_in
    return set(declared_in(src, k.body)) if k.body is not None else set()


def _exits(n) -> bool:
    """The statement always leaves the block: return, continue or break (a block ending in one)."""
    if n is None:
        return False
    if n.type in ("return_statement", "continue_statement", "break_statement"):
        return True
    if n.type == "compound_statement":
        kids = [c for c in n.named_children if c.type != "comment"]
        return bool(kids) and _exits(kids[-1])
    return False


def _steps(src: SourceFile, k: Kernel) -> dict[str, int]:
    """Loop counters stepped by uniform amounts (affine's view of them), with their step's sign."""
    stepped, _, _ = _updates(src, k)
    out = {}
    if k.body is None:
        return out
    for name in stepped:
        sign = None
        for n in walk(k.body):
            if n.type == "update_expression":
                arg = n.child_by_field_name("argument")
                if arg is None or src.node_text(arg) != name:
                    continue
                s = 1 if "++" in src.node_text(n) else -1
            elif n.type == "assignment_expression":
                left = n.child_by_field_name("left")
                if left is None or src.node_text(left) != name:
                    continue
                op = src.node_text(n.child_by_field_name("operator"))
                right = n.child_by_field_name("right")
                if op in ("+=", "-="):
                    t = src.node_text(right).strip()
                    s = -1 if (op == "-=") != t.startswith("-") else 1
                elif op == "=":
                    t = src.node_text(right).replace(" ", "")
                    s = -1 if t.startswith(f"{name}-") else 1
                else:
                    continue
            else:
                continue
            sign = s if sign in (None, s) else 0
        if sign:
            out[name] = sign
    return out


# --- the highest index ---------------------------------------------------------------------------
@dataclass
class Term:
    """One bounded part of an index: mult * q with q <= u."""
    mult: Poly
    bound: Bound


@dataclass
class Reach:
    """An upper bound of an index: index <= sum(mult * u) + rest, so `end` = that + 1 elements."""
    end: Poly
    terms: list[Term]
    rest: Poly

    @property
    def uses_grid(self) -> bool:
        return any(t.bound.kind == "grid" for t in self.terms)


def _divides(small: tuple, big: tuple) -> tuple | None:
    rest = list(big)
    for a in small:
        if a not in rest:
            return None
        rest.remove(a)
    return tuple(rest)


def reach(p: Poly, bounds: list[Bound], A: Atoms, sample: dict, depth: int = 7, exact: bool = False,
          sizes_first: bool = False) -> Reach | None:
    """The smallest upper bound of p found by writing it as bounded parts (None: unbounded): the one with the
    fewest bounds of the grid, then the smallest at `sample`; with `sizes_first` (a buffer's extent), the
    fewest of the launch's bounds (block or grid) first; with `exact` (sample holds the real sizes and
    launch), the smallest at sample."""
    found: list[tuple[Poly, list[Term]]] = []
    order = {"guard": 0, "loop": 0, "derived": 1, "block": 2, "grid": 3}  # the launch's bounds last
    _search(p, sorted((b for b in bounds if b.kind != "not"), key=lambda b: order.get(b.kind, 1)), A, depth, [],
            found)
    if not found:
        return None

    def key(f):
        v = A.eval(f[0], sample)
        v = v if v is not None else math.inf
        grids = sum(t.bound.kind == "grid" for t in f[1])
        # the launch's bounds only where the guards leave none: `thid < n` in a one-block scan of 512 threads
        # holds n elements (the host allocates n), not 512 (which hid the sizes past 512 that leave outputs
        # unwritten)
        launch = grids + sum(t.bound.kind == "block" for t in f[1]) if sizes_first else grids
        return (v, grids, len(f[1])) if exact else (launch, v, len(f[1]))
    best, terms = min(found, key=key)
    rest = dict(best)
    for t in terms:
        rest = add(rest, mul(t.mult, t.bound.u), -1)
    return Reach(add(best, const(1)), terms, rest)


def _search(p: Poly, bounds: list[Bound], A: Atoms, depth: int, terms: list, found: list) -> None:
    if len(found) >= _MAX_RESULTS:
        return
    var = A.var_part(p)
    pos = [m for m, c in var.items() if not A.nonpositive(m, c)]
    if not pos:
        found.append((A.size_part(p), list(terms)))
        pos = list(var)  # what is left is at most 0; a bound on it may still tighten the result
    if depth == 0 or not pos:
        return
    target = max(pos, key=lambda m: (len(m), m))
    cands = []
    for i, b in enumerate(bounds):
        for t, ct in b.q.items():
            if not any(A.is_var(a) for a in t):
                continue
            mono = _divides(t, target)
            if mono is None or any(A.is_var(a) for a in mono) or p[target] % ct:
                continue
            k = p[target] // ct
            if k <= 0:
                continue
            mult = {mono: k}
            rest = add(p, mul(mult, b.q), -1)
            gone, new = len(set(p) - set(rest)), len(set(rest) - set(p))
            cands.append((gone - new, -i, i, b, mult, rest))
    for _, _, i, b, mult, rest in sorted(cands, key=lambda c: (c[0], c[1]), reverse=True):  # most cancelled first
        before = len(found)
        # a bound on one atom (`t <= T - 1`) may bound it again in another term (t * T + t2 with t2 <= t); others once
        left = bounds if len(b.q) == 1 and len(next(iter(b.q))) == 1 else bounds[:i] + bounds[i + 1:]
        _search(rest, left, A, depth - 1, terms + [Term(mult, b)], found)
        for j in range(before, len(found)):
            found[j] = (add(found[j][0], mul(mult, b.u)), found[j][1])
        if len(found) >= _MAX_RESULTS:
            return


# --- accesses ------------------------------------------------------------------------------------
@dataclass
class Use:
    """One access of a pointer parameter: its element index, how many elements it touches from there
    (a float4 access through a float pointer: 4), whether it reads and writes, and its bounds."""
    array: str
    index: Poly | None
    width: int
    read: bool
    write: bool
    plain_write: bool  # `a[i] = v` (no read of a[i] in the same statement)
    text: str
    line: int
    node: ts.Node = field(repr=False)
    guards: list[Bound] = field(default_factory=list)


def _role(src: SourceFile, n) -> tuple[bool, bool, bool]:
    """(read, write, plain write) of an access node."""
    p = n.parent
    while p is not None and p.type == "parenthesized_expression":
        n, p = p, p.parent
    if p is not None and p.type == "assignment_expression" and p.child_by_field_name("left") == n:
        plain = src.node_text(p.child_by_field_name("operator")) == "="
        return not plain, True, plain
    if p is not None and p.type == "update_expression":
        return True, True, False
    if p is not None and p.type == "pointer_expression" and src.node_text(p).startswith("&"):
        call = p.parent.parent if p.parent is not None and p.parent.type == "argument_list" else None
        if call is not None and call.type == "call_expression":
            fn = src.node_text(call.child_by_field_name("function")).strip().rsplit("::", 1)[-1]
            if fn.startswith("__ld"):
                return True, False, False
            if fn.startswith("__st") and p.parent.named_children and p.parent.named_children[0] == p:
                return False, True, True
        return True, True, False  # an address taken: atomics, or a helper that may write through it
    return True, False, False


def uses(f: Facts) -> list[Use]:
    """Every access of a pointer parameter, with its guards; an index not followed is None."""
    src, k = f.src, f.kernel
    out: list[Use] = []
    with f.rec:
        accs = global_accesses(f.env, include_unknown=True)
    vec = _vector_pointers(f)
    seen = set()
    arrays = _array_params(f)
    for a in accs:
        if a.node.type == "call_expression":  # __ldg(&x[i]) / __stcs(&y[i], v): the subscript is seen too
            continue
        if a.array in arrays:  # A[i][j] of `float A[N][M]`: below
            continue
        name = a.array
        width, index = 1, a.index
        if a.node.type == "subscript_expression":
            parts = subscript_parts(src, a.node)
            if parts is not None and parts[0] in vec:
                continue  # through a vector pointer: below
        if name == "?" or k.param(name) is None:
            continue
        r, w, plain = _role(src, a.node)
        seen.add(a.node.id)
        out.append(Use(name, index, width, r, w, plain, f.text(a.node), a.line, a.node, f.guards(a.node)))
    # arrays of arrays: `float A[N][M]` or `float (*A)[M]` read as A[i][j] (row-major: i * M + j)
    for n in walk(k.body) if k.body is not None else []:
        if n.type != "subscript_expression" or (n.parent is not None and n.parent.type == "subscript_expression"
                                                and n.parent.child_by_field_name("argument") == n):
            continue
        idx, cur = [], n
        while cur is not None and cur.type == "subscript_expression":
            i = cur.child_by_field_name("indices")
            idx.insert(0, i.named_children[0] if i is not None and len(i.named_children) == 1 else None)
            cur = cur.child_by_field_name("argument")
        if cur is None or cur.type != "identifier" or src.node_text(cur) not in arrays:
            continue
        inner = arrays[src.node_text(cur)]
        if len(idx) != len(inner) + 1 or any(i is None for i in idx):
            continue
        polys = [f.poly(i) for i in idx]
        index = None
        if all(p is not None for p in polys):
            index = polys[0]
            for dim, p in zip(inner, polys[1:]):
                index = add(mul(index, dim), p)
        r, w, plain = _role(src, n)
        out.append(Use(src.node_text(cur), index, 1, r, w, plain, f.text(n), n.start_point[0] + 1, n, f.guards(n)))
    # atomics on a pointer itself: atomicAdd(sum, v), atomicAdd(out + i, v); and a pointer handed to the file's own
    # __device__ helper that writes through that parameter (`atomicMaxFloat(d_max, v)`: an output)
    for n in walk(k.body) if k.body is not None else []:
        if n.type != "call_expression":
            continue
        fn = src.node_text(n.child_by_field_name("function")).strip().rsplit("::", 1)[-1]
        args = n.child_by_field_name("arguments")
        if args is None or not args.named_children:
            continue
        positions = [0] if fn in ATOMICS else [i for i in range(len(args.named_children)) if _helper_writes(src, fn, i)]
        for i in positions:
            first = args.named_children[i]
            if first.type == "pointer_expression":
                continue  # &x[i]: the subscript is an access already
            with f.rec:
                from .affine import _pointer_base
                base = _pointer_base(src, first, f.env.values_at(first.start_byte), f.env.pointers)
            if base is None and fn in ATOMICS:  # `atomicAdd(hist + ((d >> 2) & 0x3F), 1)`: at an index not followed
                sides, todo = [], [_unparen(first)]
                while todo:  # the terms of a `+` chain, `hist + off + (d & 63)`
                    e = todo.pop()
                    if e is not None and e.type == "binary_expression" and \
                            src.node_text(e.child_by_field_name("operator")) == "+":
                        todo += [_unparen(e.child_by_field_name(x)) for x in ("left", "right")]
                    elif e is not None:
                        sides.append(e)
                ptrs = [x for x in sides if x.type == "identifier" and k.param(src.node_text(x)) is not None
                        and k.param(src.node_text(x)).is_pointer]
                ptr = ptrs[0] if len(ptrs) == 1 else None
                if ptr is not None:
                    base = (src.node_text(ptr), None)
            if base is not None and k.param(base[0]) is not None:
                out.append(Use(base[0], base[1], 1, True, True, False, f.text(n), n.start_point[0] + 1, n, f.guards(n)))
    # vector accesses: p[i] with p = reinterpret_cast<float4*>(x + off), or reinterpret_cast<float4*>(x)[i]
    for n in walk(k.body) if k.body is not None else []:
        if n.type != "subscript_expression" or n.id in seen:
            continue
        arg = n.child_by_field_name("argument")
        idx_node = n.child_by_field_name("indices")
        if arg is None or idx_node is None or len(idx_node.named_children) != 1:
            continue
        base = None
        if arg.type == "identifier" and src.node_text(arg) in vec:
            base = vec[src.node_text(arg)]
        else:
            base = _cast_base(f, arg)
        if base is None:
            continue
        param, off, scale = base
        i = f.poly(idx_node.named_children[0])
        index = None if i is None or off is None else add(off, mul(i, const(scale)))
        r, w, plain = _role(src, n)
        out.append(Use(param, index, scale, r, w, plain, f.text(n), n.start_point[0] + 1, n, f.guards(n)))
    return out


def _helper_writes(src: SourceFile, fn: str, i: int, depth: int = 0) -> bool:
    """The file's own function `fn` writes through its i-th parameter (a pointer): a store at it (`p[j] = v`,
    `*p = v`), an atomic at it (through a cast: `atomicMax((int*)p, ..)`), or another such helper given it."""
    if depth > 3 or fn not in src.device_functions:
        return False  # (math functions and intrinsics: not the file's own)
    key = ("helper_writes", fn, i)
    if key not in src.memo:
        src.memo[key] = _helper_writes_scan(src, fn, i, depth)
    return src.memo[key]


def _helper_writes_scan(src: SourceFile, fn: str, i: int, depth: int) -> bool:
    for d in walk(src.root):
        if d.type != "function_definition":
            continue
        dec = d.child_by_field_name("declarator")
        while dec is not None and dec.type != "function_declarator":
            dec = dec.child_by_field_name("declarator")
        if dec is None or src.node_text(dec.child_by_field_name("declarator")).rsplit("::", 1)[-1] != fn:
            continue
        params = [p for p in dec.child_by_field_name("parameters").named_children if p.type == "parameter_declaration"]
        if i >= len(params) or "*" not in src.node_text(params[i]):
            return False
        x = params[i].child_by_field_name("declarator")
        while x is not None and x.type != "identifier":
            x = x.child_by_field_name("declarator")
        if x is None:
            return False
        name, body = src.node_text(x), d.child_by_field_name("body")
        names = {name}

        def is_p(e):
            while e is not None and e.type in ("parenthesized_expression", "cast_expression"):
                e = e.child_by_field_name("value") if e.type == "cast_expression" else \
                    (e.named_children[0] if e.named_children else None)
            return e is not None and e.type == "identifier" and src.node_text(e) in names
        for n in walk(body) if body is not None else []:  # `int* p_int = (int*)p;`: the same pointer
            if n.type == "init_declarator" and n.child_by_field_name("declarator").type == "pointer_declarator" \
                    and is_p(n.child_by_field_name("value")):
                inner = n.child_by_field_name("declarator").child_by_field_name("declarator")
                if inner is not None and inner.type == "identifier":
                    names.add(src.node_text(inner))
        for n in walk(body) if body is not None else []:
            if n.type == "assignment_expression":
                left = n.child_by_field_name("left")
                if left is not None and left.type in ("subscript_expression", "pointer_expression") and \
                        is_p(left.child_by_field_name("argument")):
                    return True
            elif n.type == "call_expression":
                g = src.node_text(n.child_by_field_name("function")).strip().rsplit("::", 1)[-1]
                a = n.child_by_field_name("arguments")
                for j, arg in enumerate(a.named_children if a is not None else []):
                    if is_p(arg) and ((g in ATOMICS and j == 0) or (g != fn and _helper_writes(src, g, j, depth + 1))):
                        return True
        return False
    return False


def _array_params(f: Facts) -> dict[str, list[Poly]]:
    """Parameters declared as arrays of arrays, with their inner dimensions: `float A[N][M]` and `float (*A)[M]`
    give [M]."""
    src, out = f.src, {}
    for p in f.kernel.params:
        text = src.data[p.decl_start:p.decl_end].decode("utf-8", "replace")
        m = re.search(rf"(\(\s*\*\s*)?\b{re.escape(p.name)}\b\s*\)?\s*((?:\[[^\]]*\]\s*)+)$", text)
        if not m:
            continue
        dims = re.findall(r"\[([^\]]*)\]", m.group(2))
        inner = dims if m.group(1) else dims[1:]
        if not inner:
            continue
        polys = []
        for d in inner:
            v = SourceFile(f"int kp_x = {d};") if d.strip() else None
            node = next((x for x in walk(v.root) if x.type == "init_declarator"), None) if v else None
            if v is not None:
                v.constants = src.constants
            val = v.eval_int(node.child_by_field_name("value")) if node is not None else None
            polys.append(const(val) if val is not None else atom(d.strip()) if d.strip().isidentifier() else None)
        if all(x is not None for x in polys):
            out[p.name] = polys
    return out


def pointer_cast(src, n) -> tuple[str, object] | None:
    """(the pointer type's text, the cast expression's node) of `reinterpret_cast<V*>(e)`, `static_cast<V*>(e)`
    or `(V*)(e)`; None for anything else."""
    n = _unparen(n)
    tname, inner = None, None
    if n is not None and n.type == "call_expression":
        fn = n.child_by_field_name("function")
        args = n.child_by_field_name("arguments")
        ft = src.node_text(fn) if fn is not None else ""
        if ft.startswith(("reinterpret_cast", "static_cast")) and "<" in ft and args is not None \
                and len(args.named_children) == 1:
            tname, inner = ft[ft.index("<") + 1:ft.rindex(">")], args.named_children[0]
    elif n is not None and n.type == "cast_expression":
        t = n.child_by_field_name("type")
        tname, inner = (src.node_text(t) if t is not None else None), n.child_by_field_name("value")
    if tname is None or "*" not in tname or inner is None:
        return None
    return tname, inner


def _cast_base(f: Facts, n) -> tuple[str, Poly | None, int] | None:
    """(param, offset, elements per vector) of `reinterpret_cast<V*>(p + off)` or `(V*)(p + off)`."""
    src = f.src
    cast = pointer_cast(src, n)
    if cast is None:
        return None
    tname, inner = cast
    with f.rec:
        from .affine import _pointer_base
        base = _pointer_base(src, inner, f.env.values_at(inner.start_byte), f.env.pointers)
    if base is None:
        return None
    param, off = base
    p = f.kernel.param(param)
    if p is None:
        return None
    vb, eb = f.types.bytes(words(tname)), f.types.bytes(p.base_type)
    if not vb or not eb or vb % eb or vb == eb:
        return None
    return param, off, vb // eb


def _vector_pointers(f: Facts) -> dict[str, tuple[str, Poly | None, int]]:
    """Local pointers of a wider element type made from a parameter: name -> (param, offset, scale)."""
    src, k = f.src, f.kernel
    out = {}
    if k.body is None:
        return out
    for d in walk(k.body):
        if d.type != "declaration":
            continue
        tnode = d.child_by_field_name("type")
        for dec in d.children_by_field_name("declarator"):
            if dec.type != "init_declarator":
                continue
            target, value = dec.child_by_field_name("declarator"), dec.child_by_field_name("value")
            if target is None or value is None or target.type != "pointer_declarator":
                continue
            name = target.child_by_field_name("declarator")
            if name is None or name.type != "identifier":
                continue
            b = _cast_base(f, value)
            if b is None and tnode is not None:  # float4* p = x4 + i where x4 is itself such a pointer
                continue
            if b is not None:
                out[src.node_text(name)] = b
    return out


# --- per pointer ---------------------------------------------------------------------------------
@dataclass
class Pointer:
    """What a kernel does with one pointer parameter."""
    name: str
    uses: list[Use]
    reads: bool
    writes: bool
    own_reads: bool  # every read is of an element the same thread stored before (C[i] = 0; C[i] += ...)
    reach: Reach | None = None  # the widest access (None: not bounded, or not accessed)
    use: Use | None = None  # the access that reaches furthest
    low: int | None = None  # the lowest index at the sample (negative: reads before the start)
    unbounded: Use | None = None  # the first access whose index could not be bounded
    index_of: list[str] = field(default_factory=list)  # arrays whose indices this one's values are
    bounded: list[tuple[Use, Reach]] = field(default_factory=list)  # every access that has a bound

    @property
    def role(self) -> str:
        if self.writes and (not self.reads or self.own_reads):
            return "output"
        if self.writes:
            return "inout"
        return "input"


def _own_reads(p_uses: list[Use]) -> bool:
    reads = [u for u in p_uses if u.read]
    for r in reads:
        prior = [w for w in p_uses if w.plain_write and w.index is not None and w.index == r.index
                 and _statement_of(w.node).end_byte <= r.node.start_byte
                 and (_encloses(_block_of(w.node), r.node) or {b.text for b in w.guards} <= {b.text for b in r.guards})]
        if not prior:
            return False
    return bool(reads)


def _statement_of(n):
    while n.parent is not None and not n.type.endswith("statement") and n.type != "declaration":
        n = n.parent
    return n


def _block_of(n):
    p = n.parent
    while p is not None and p.type != "compound_statement":
        p = p.parent
    return p


def _encloses(outer, n) -> bool:
    return outer is not None and outer.start_byte <= n.start_byte and n.end_byte <= outer.end_byte


def sample_env(A: Atoms, polys) -> dict:
    """Sample values of the size atoms (for choosing among bounds): distinct, plausible sizes."""
    names = sorted({a for p in polys for m in p for a in m if not A.is_var(a) and a not in A.notes})
    env = {}
    for i, a in enumerate(names):
        if a.startswith("blockDim."):
            env[a] = {"x": 128, "y": 8, "z": 4}[a[-1]]
        elif a.startswith("gridDim."):
            env[a] = {"x": 4000, "y": 600, "z": 60}[a[-1]]
        else:
            env[a] = 1000 + 37 * i
    return env


@dataclass
class KernelShapes:
    """The pointers of a kernel and the facts the launch inference reads."""
    facts: Facts
    pointers: dict[str, Pointer]
    block_bounds: list[Bound]
    grid_bounds: list[Bound]


def analyse(src: SourceFile, k: Kernel, ranges: dict | None = None) -> KernelShapes:
    """The pointers of kernel k; `ranges` gives the range of an int array's values where they index another
    array (a gather): {array: Poly}."""
    f = Facts(src, k, ranges)
    blk, grd = f.launch_bounds()
    all_uses = uses(f)
    pointers: dict[str, Pointer] = {}
    for p in k.params:
        if not p.is_pointer:
            continue
        us = [u for u in all_uses if u.array == p.name]
        reads = any(u.read for u in us)
        writes = any(u.write for u in us) and not p.is_const
        pointers[p.name] = Pointer(p.name, us, reads, writes, writes and _own_reads(us))
    # which arrays' values index others (a gather, a histogram, CSR offsets)
    for name, (op, arr, _) in f.atoms.notes.items():
        if op == "load" and arr in pointers:
            for q in pointers.values():
                if any(u.index is not None and any(name in m for m in u.index) for u in q.uses) \
                        and q.name not in pointers[arr].index_of:
                    pointers[arr].index_of.append(q.name)
    for ptr in pointers.values():
        try:
            _bound_pointer(f, ptr, blk, grd)
        except RecursionError:  # an index too deep to follow: said as unbounded, like any other
            ptr.reach, ptr.bounded = None, []
            ptr.unbounded = ptr.unbounded or next((u for u in ptr.uses), None)
    return KernelShapes(f, pointers, blk, grd)


def use_bounds(f: Facts, u: Use, blk: list[Bound], grd: list[Bound], launch: bool = True) -> list[Bound]:
    """The bounds that hold at an access: its guards, the block's, the grid's (launch=True) and derived ones."""
    base = u.guards + blk + (grd if launch else [])
    return base + f.derived(base)


def _bound_pointer(f: Facts, ptr: Pointer, blk: list[Bound], grd: list[Bound]) -> None:
    A = f.atoms
    best = None
    for u in ptr.uses:
        if u.index is None:
            ptr.unbounded = ptr.unbounded or u
            continue
        base = u.guards + blk
        bounds = base + f.derived(base)
        sample = sample_env(A, [u.index] + [b.u for b in bounds + grd])
        r = reach(u.index, bounds, A, sample, sizes_first=True)
        if r is None:
            bounds = base + grd + f.derived(base + grd)
            r = reach(u.index, bounds, A, sample, sizes_first=True)
        if r is None:
            ptr.unbounded = ptr.unbounded or u
            continue
        if u.width > 1:
            r = Reach(add(r.end, const(u.width - 1)), r.terms, add(r.rest, const(u.width - 1)))
        low = reach(mul(u.index, const(-1)), bounds, A, sample)
        if low is not None:
            lv = A.eval(low.end, sample)
            if lv is not None:
                lo = 1 - lv  # min index = -(max of -index)
                ptr.low = lo if ptr.low is None else min(ptr.low, lo)
        ptr.bounded.append((u, r))
        v = A.eval(r.end, sample)
        if best is None or (v is not None and v > best[0]):
            best = (v if v is not None else -1, r, u)
    if best is not None:
        ptr.reach, ptr.use = best[1], best[2]


def gathers(ks: KernelShapes) -> list[str]:
    """Int arrays whose values index a pointer the analysis cannot otherwise bound (an embedding's token ids)."""
    A = ks.facts.atoms
    out = []
    for p in ks.pointers.values():
        if p.reach is not None or p.unbounded is None:
            continue
        for u in p.uses:
            for m in (u.index or {}):
                for a in m:
                    note = A.notes.get(a)
                    if note is not None and note[0] == "load" and note[1] in ks.pointers and note[1] not in out:
                        out.append(note[1])
    return out
