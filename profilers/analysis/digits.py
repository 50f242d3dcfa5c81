"""Flat indices split in mixed radix: the digits of one thread index read through quotients and remainders.

A digit of the flat index `idx` is `(idx / P) % R`: its place P and radix R (None for a last quotient), both
monomials over the kernel's parameters and constants. `digit_of` reads an expression as a digit: `idx / W`,
`idx % W`, `(idx / W) % H`, `idx / (H * W)`, a digit of a digit (`rest / d` with `rest = idx % (N * d)`: a
quotient by a divisor of the radix) and `x - (x / W) * W` (the remainder written out). `flat_index(src, k)`
finds a kernel's one-dimensional thread index `blockIdx.x * blockDim.x + threadIdx.x` (any spelling the
affine analysis follows) and every expression that is a digit of it, following locals through
reassignments in straight-line code (`rest = rest % (N * d)`), and the row length: the smallest radix or
place every other one is a multiple of. A rewrite can then give the index a 2-D view (column = idx % W,
row = idx / W on a 2-D grid) and write each digit in those terms (`FlatIndex.view`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..source import Kernel, SourceFile, walk
from .affine import Poly, build_env
from .loops import LOOPS, unparen
from .refusal import Refusal

THREAD = ("threadIdx", "blockIdx", "blockDim", "gridDim")
ONE_DIM = ("threadIdx.y", "threadIdx.z", "blockIdx.y", "blockIdx.z", "blockDim.y", "blockDim.z", "gridDim")


@dataclass(frozen=True)
class Digit:
    place: tuple  # a monomial as ((atoms...), coefficient)
    radix: tuple | None  # None: the last quotient (no remainder)


def monomial(p: Poly | None) -> tuple | None:
    """p as (sorted atoms, positive coefficient) where it is one term of names without thread indices."""
    if p is None or len(p) != 1:
        return None
    (m, c), = p.items()
    if c <= 0 or any(a.startswith("(") or a.split(".")[0] in THREAD for a in m):
        return None
    return tuple(sorted(m)), c


ONE = ((), 1)


def times(a: tuple, b: tuple) -> tuple:
    return tuple(sorted(a[0] + b[0])), a[1] * b[1]


def divide(a: tuple, b: tuple) -> tuple | None:
    """a / b where b divides a (its names a sub-multiset, its coefficient a divisor), else None."""
    rest = list(a[0])
    for n in b[0]:
        if n not in rest:
            return None
        rest.remove(n)
    return (tuple(rest), a[1] // b[1]) if a[1] % b[1] == 0 else None


def c_text(m: tuple) -> str:
    """A monomial as C: `H * W`, `4 * d`, `1`."""
    parts = ([str(m[1])] if m[1] != 1 or not m[0] else []) + list(m[0])
    return " * ".join(parts)


def quotient(d: Digit, q: tuple) -> Digit | None:
    """(digit) / q."""
    if d.radix is None:
        return Digit(times(d.place, q), None)
    r = divide(d.radix, q)
    return None if r is None else Digit(times(d.place, q), r)


def remainder(d: Digit, q: tuple) -> Digit | None:
    """(digit) % q: a digit where q divides the radix."""
    if d.radix is not None and divide(d.radix, q) is None:
        return None
    return Digit(d.place, q)


@dataclass
class FlatIndex:
    kernel: str
    name: str  # the local holding the flat index
    decl: object = field(repr=False)  # its init_declarator
    type: str = "int"  # its declared type
    uses: list = field(default_factory=list, repr=False)  # [(node, Digit)]: expressions that are digits
    updates: list = field(default_factory=list, repr=False)  # [(node, name, Digit)]: `rest %= X` statements
    row: tuple = ONE  # the row length (a monomial): the shortest of `rows`
    rows: list = field(default_factory=list, repr=False)  # every row length no digit cuts, shortest first

    @property
    def row_c(self) -> str:
        return c_text(self.row)

    def canonical(self, d: Digit) -> str:
        """The digit read from the flat index itself: `((idx / (P)) % (R))`."""
        out = self.name if d.place == ONE else f"({self.name} / ({c_text(d.place)}))"
        return out if d.radix is None else f"({out} % ({c_text(d.radix)}))"

    def view(self, d: Digit, col: str, row: str) -> str | None:
        """The digit in terms of the 2-D view's column (idx % row length) and row (idx / row length); None
        where the digit cuts a row."""
        w = self.row
        inner = divide(w, times(d.place, d.radix)) if d.radix is not None else None
        if inner is not None and (d.place != ONE or d.radix != w):  # the digit lies within a row: from the column
            out = col if d.place == ONE else f"({col} / ({c_text(d.place)}))"
            return out if inner == ONE and d.place == ONE else f"({out} % ({c_text(d.radix)}))"
        if d.place == ONE:
            if d.radix == w:
                return col
            if d.radix is None:
                return f"({row} * ({c_text(w)}) + {col})"
            q = divide(d.radix, w)
            return None if q is None else f"(({row} % ({c_text(q)})) * ({c_text(w)}) + {col})"
        q = divide(d.place, w)
        if q is None:
            return None
        out = row if q == ONE else f"({row} / ({c_text(q)}))"
        return out if d.radix is None else f"({out} % ({c_text(d.radix)}))"


def _flat_value(src: SourceFile, env, k: Kernel):
    """The init_declarator of the local that holds blockIdx.x * blockDim.x + threadIdx.x."""
    want = {("blockDim.x", "blockIdx.x"): 1, ("threadIdx.x",): 1}
    for n in walk(k.body):
        if n.type == "init_declarator":
            target, value = n.child_by_field_name("declarator"), n.child_by_field_name("value")
            if target is not None and target.type == "identifier" and env.poly(value) == want:
                return n
    return None


def flat_index(src: SourceFile, k: Kernel) -> FlatIndex | Refusal:
    """The kernel's flat thread index and its digits (module docstring)."""
    if k.body is None:
        return Refusal(k.name, "no body", not_this_shape=True)
    body = src.node_text(k.body)
    if any(w in body for w in ONE_DIM) or "__shared__" in body:
        return Refusal(k.name, "not a one-dimensional thread index", not_this_shape=True)
    env = build_env(src, k)
    decl = _flat_value(src, env, k)
    if decl is None:
        return Refusal(k.name, "no flat index blockIdx.x * blockDim.x + threadIdx.x", not_this_shape=True)
    name = src.node_text(decl.child_by_field_name("declarator"))
    tnode = decl.parent.child_by_field_name("type")
    ttype = " ".join(src.node_text(tnode).split()) if tnode is not None else "int"
    fi = FlatIndex(k.name, name, decl, "long long" if ttype == "auto" else ttype)
    digits = {name: Digit(ONE, None)}
    denv = build_env(src, k, keep={name})

    def divisor(n) -> tuple | None:
        return monomial(denv.poly(n))

    def digit_of(n) -> Digit | None:
        n = unparen(n)
        if n is None:
            return None
        if n.type == "identifier":
            return digits.get(src.node_text(n))
        if n.type == "cast_expression":
            return digit_of(n.child_by_field_name("value"))
        if n.type != "binary_expression":
            return None
        op = src.node_text(n.child_by_field_name("operator"))
        left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
        if op in ("/", "%"):
            d, q = digit_of(left), divisor(right)
            if d is None or q is None:
                return None
            return quotient(d, q) if op == "/" else remainder(d, q)
        if op == "-":  # x - (x / q) * q: the remainder written out
            d = digit_of(left)
            r = unparen(right)
            if d is None or r is None or r.type != "binary_expression" or \
                    src.node_text(r.child_by_field_name("operator")) != "*":
                return None
            for a, b in ((r.child_by_field_name("left"), r.child_by_field_name("right")),
                         (r.child_by_field_name("right"), r.child_by_field_name("left"))):
                e, q = digit_of(a), divisor(b)
                if e is not None and q is not None and e == quotient(d, q):
                    return remainder(d, q)
        return None

    refusal, declared, moved = [], {}, set()

    def visit(n):
        if refusal:
            return
        if n.type == "identifier" and src.node_text(n) in moved and src.node_text(n) in digits:
            fi.uses.append((n, digits[src.node_text(n)]))  # `n = (int)t;` after `t /= H;`: the digit t holds now
            return
        if n.type == "binary_expression" and src.node_text(n.child_by_field_name("operator")) in "/%-":
            d = digit_of(n)
            if d is not None:
                fi.uses.append((n, d))
                return
        if n.type in ("init_declarator", "assignment_expression", "update_expression"):
            target = n.child_by_field_name("declarator" if n.type == "init_declarator" else
                                           "left" if n.type == "assignment_expression" else "argument")
            tname = src.node_text(target) if target is not None and target.type == "identifier" else None
            value = n.child_by_field_name("value" if n.type == "init_declarator" else "right")
            for c in n.children:
                if c != target:
                    visit(c)
            if tname is None or n == decl:
                return
            if n.type != "init_declarator" and tname == name:
                refusal.append(None)  # a grid-stride loop or an index stepped by hand: another shape
                return
            if n.type != "init_declarator" and tname in digits and _branches(n, k.body, declared.get(tname)):
                refusal.append(f"line {n.start_point[0] + 1}: {tname}, a digit of {name}, changes in a loop or "
                               "under a condition")
                return
            if n.type == "init_declarator":
                declared[tname] = n
            op = src.node_text(n.child_by_field_name("operator")) if n.type == "assignment_expression" else "="
            if n.type == "update_expression":
                digits.pop(tname, None)
            elif op == "=":
                d = digit_of(value)
                digits.pop(tname, None)
                if d is not None:
                    digits[tname] = d
            elif op in ("/=", "%=") and tname in digits:
                q = divisor(value)
                d = None if q is None else (quotient if op == "/=" else remainder)(digits[tname], q)
                digits.pop(tname)
                if d is not None:
                    digits[tname] = d
                    moved.add(tname)
                    fi.updates.append((n, tname, d))
            else:
                digits.pop(tname, None)
            return
        for c in n.children:
            visit(c)

    visit(k.body)
    if refusal:
        return Refusal(k.name, refusal[0] or f"{name} changes", not_this_shape=refusal[0] is None)
    if not fi.uses:
        return Refusal(k.name, f"{name} is not split into digits", not_this_shape=True)
    # the row length: a place-1 radix or a place every other radix and place is a multiple of
    found = {d.radix for _, d in fi.uses if d.place == ONE and d.radix is not None} | \
            {d.place for _, d in fi.uses if d.place != ONE}
    found |= {d.radix for _, _, d in fi.updates if d.place == ONE and d.radix is not None}
    every = fi.uses + [(n, d) for n, _, d in fi.updates]
    cut = None
    for w in sorted(found, key=lambda m: (len(m[0]), m[1])):
        fi.row = w
        bad = next((n for n, d in every if fi.view(d, "c", "r") is None), None)
        if bad is None:
            fi.rows.append(w)
        elif cut is None:
            cut = (w, bad)
    if not fi.rows:
        if cut is None:
            return Refusal(k.name, f"the digits of {name} do not nest (no row length that every quotient and "
                                   "remainder is a multiple of)")
        fi.row = cut[0]
        return Refusal(k.name, f"line {cut[1].start_point[0] + 1}: a digit of {name} cuts the rows of {fi.row_c}")
    fi.row = fi.rows[0]
    return fi


def _branches(n, body, decl) -> bool:
    """n runs in a loop, or under a condition its variable's declaration is not under too."""
    p = n.parent
    while p is not None and p != body:
        if p.type in LOOPS:
            return True
        if p.type in ("if_statement", "conditional_expression", "switch_statement", "case_statement") and \
                not (decl is not None and p.start_byte <= decl.start_byte < p.end_byte):
            return True
        p = p.parent
    return False

