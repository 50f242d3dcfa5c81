"""Launch-spec expressions as polynomials, simplified: `(n + 255) // 256` is `cdiv(n, 256)`, `(M - 1) * K + K`
is `M * K`.

A polynomial is {tuple of atom names (sorted): int coefficient} (the shape of analysis/affine.py's). An atom
is a size name or an opaque part written as spec text (`cdiv(n, 256)`, `n // 4`, `min(a, b)`), whose
structure `STRUCT` keeps, so that `cdiv(cdiv(n, 4), 256)` becomes `cdiv(n, 1024)`.
"""
from __future__ import annotations

import ast

from ..analysis.affine import add, atom, const, mul  # the one polynomial arithmetic
from .expr import ExprError, parse_expr
from ..source import closes_at_end

Poly = dict
STRUCT: dict[str, tuple] = {}  # atom text -> (op, a, b) with polynomials a, b


def name(n: str) -> Poly:
    return atom(n)


def number(p: Poly) -> int | None:
    """The value of a constant polynomial, else None."""
    if any(m for m in p):
        return None
    return p.get((), 0)


def _opaque(op: str, a: Poly, b: Poly) -> Poly:
    ta, tb = render(a), render(b)
    text = {"//": f"{_wrap(ta)} // {_wrap(tb)}", "%": f"{_wrap(ta)} % {_wrap(tb)}", "/": f"{_wrap(ta)} / {_wrap(tb)}",
            "cdiv": f"cdiv({ta}, {tb})", "min": f"min({ta}, {tb})", "max": f"max({ta}, {tb})"}[op]
    STRUCT.setdefault(text, (op, a, b))
    return name(text)


def _wrap(t: str) -> str:
    return t if _simple(t) else f"({t})"


def _simple(t: str) -> bool:
    return t.replace("_", "a").replace(".", "a").isalnum() or (t.startswith(("cdiv(", "min(", "max(")) and _closed(t))


def _closed(t: str) -> bool:
    """t is one call: its first '(' closes at the end."""
    return closes_at_end(t[t.find("("):]) if "(" in t else False


def _split(a: Poly, d: int) -> tuple[Poly, Poly]:
    """a = d * q + r, q taking the terms whose coefficients d divides."""
    q, r = {}, {}
    for m, c in a.items():
        if c % d == 0:
            q[m] = c // d
        else:
            r[m] = c
    return q, r


def floordiv(a: Poly, b: Poly) -> Poly:
    """a // b for non-negative sizes, simplified where it can be."""
    d = number(b)
    if d == 1:
        return a
    if d is not None and d > 0:
        na = number(a)
        if na is not None:
            return const(na // d)
        q, r = _split(a, d)
        nr = number(r)
        if nr is not None and -d < nr < d:  # d*q + r with a constant remainder
            return add(q, const(nr // d))
        s = add(r, const(-(d - 1)))  # (x + d - 1) // d is cdiv(x, d)
        if r.get((), 0) == d - 1 and s and number(s) is None and all(c > 0 for c in s.values()):
            return add(q, cdiv(s, b))
        if q and r:
            return add(q, floordiv(r, b))
    elif b and len(b) == 1 and number(b) is None:  # a monomial divisor: exact terms, or (x*b + c) // b
        (mb, cb), = b.items()
        q, rest = {}, {}
        for m, c in a.items():
            left = list(m)
            ok = all(x in left and not left.remove(x) for x in mb) and c % cb == 0
            (q.__setitem__(tuple(left), c // cb) if ok else rest.__setitem__(m, c))
        nr = number(rest)
        if q and nr is not None and -1 <= nr <= 0:  # (b*q - 1) // b = q - 1 for b >= 1
            return add(q, const(-1 if nr < 0 else 0))
        if not rest:
            return q
    return _opaque("//", a, b)


def cdiv(a: Poly, b: Poly) -> Poly:
    """ceil(a / b) for sizes, simplified: cdiv(cdiv(x, 4), 256) is cdiv(x, 1024)."""
    d = number(b)
    if d == 1:
        return a
    if d is not None and d > 0:
        na = number(a)
        if na is not None:
            return const(-(-na // d))
        q, r = _split(a, d)
        if not r:
            return q
        if len(a) == 1 and len(next(iter(a))) == 1:
            inner = STRUCT.get(next(iter(a))[0])
            if inner is not None and inner[0] == "cdiv" and number(inner[2]) is not None \
                    and next(iter(a.values())) == 1:
                return cdiv(inner[1], const(number(inner[2]) * d))
    return _opaque("cdiv", a, b)


def pmin(a: Poly, b: Poly) -> Poly:
    if a == b:
        return a
    na, nb = number(a), number(b)
    if na is not None and nb is not None:
        return const(min(na, nb))
    return _opaque("min", a, b)


def pmax(a: Poly, b: Poly) -> Poly:
    if a == b:
        return a
    na, nb = number(a), number(b)
    if na is not None and nb is not None:
        return const(max(na, nb))
    return _opaque("max", a, b)


def mod(a: Poly, b: Poly) -> Poly:
    na, nb = number(a), number(b)
    if na is not None and nb:
        return const(na % nb)
    return _opaque("%", a, b)


# --- text <-> polynomial ------------------------------------------------------------------------------
def parse(text: str) -> Poly | None:
    """A spec expression as a polynomial (None: a float, or not an expression)."""
    try:
        tree = ast.parse(str(text).strip(), mode="eval").body
    except SyntaxError:
        return None
    try:
        return _from_ast(tree)
    except (_NotPoly, RecursionError):
        return None


class _NotPoly(Exception):
    pass


def _from_ast(n) -> Poly:
    if isinstance(n, ast.Constant) and isinstance(n.value, int) and not isinstance(n.value, bool):
        return const(n.value)
    if isinstance(n, ast.Name):
        return name(n.id)
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
        p = _from_ast(n.operand)
        return mul(p, const(-1)) if isinstance(n.op, ast.USub) else p
    if isinstance(n, ast.BinOp):
        a, b = _from_ast(n.left), _from_ast(n.right)
        if isinstance(n.op, ast.Add):
            return add(a, b)
        if isinstance(n.op, ast.Sub):
            return add(a, b, -1)
        if isinstance(n.op, ast.Mult):
            return mul(a, b)
        if isinstance(n.op, ast.FloorDiv):
            return floordiv(a, b)
        if isinstance(n.op, ast.Mod):
            return mod(a, b)
        if isinstance(n.op, ast.Pow):
            e = number(b)
            if e is None or not 0 <= e <= 64:
                raise _NotPoly()
            out = const(1)
            for _ in range(e):
                out = mul(out, a)
            return out
        if isinstance(n.op, ast.Div):
            d = number(b)
            if d:
                q, r = _split(a, d)
                if not r:
                    return q
            return _opaque("/", a, b)
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and len(n.args) == 2 and not n.keywords:
        a, b = _from_ast(n.args[0]), _from_ast(n.args[1])
        f = n.func.id
        if f in ("cdiv", "ceil_div"):
            return cdiv(a, b)
        if f == "min":
            return pmin(a, b)
        if f == "max":
            return pmax(a, b)
    raise _NotPoly()


def render(p: Poly) -> str:
    """Spec text of a polynomial: `M * K`, `2 * n + 1`, `cdiv(n, 256)`."""
    if not p:
        return "0"
    terms = sorted(p.items(), key=lambda x: (-len(x[0]), [_order(a) for a in x[0]]))
    if len(terms) == 1 and terms[0][1] == 1 and len(terms[0][0]) == 1:
        return terms[0][0][0]
    out = []
    for i, (m, c) in enumerate(terms):
        factors = [a if _simple(a) else f"({a})" for a in m]
        mag = abs(c)
        body = " * ".join(([str(mag)] if mag != 1 or not factors else []) + factors)
        out.append((("-" if c < 0 else "") if i == 0 else (" - " if c < 0 else " + ")) + body)
    return "".join(out)


def _order(a: str):
    return (not a.replace("_", "a").isalnum(), a.lower(), a)


def substitute(p: Poly, table: dict[str, Poly]) -> Poly:
    """p with its atoms replaced by polynomials (an atom not in the table stays)."""
    out: Poly = {}
    for m, c in p.items():
        term = const(c)
        for a in m:
            term = mul(term, table.get(a, name(a)))
        out = add(out, term)
    return out


def evaluate(p: Poly, env: dict[str, int]) -> int | float | None:
    """The value of p at env (None where a name is missing or an operation fails)."""
    try:
        v = parse_expr(render(p)).evaluate(env)
    except (ExprError, KeyError, ZeroDivisionError, ValueError, OverflowError):
        return None
    return int(v) if isinstance(v, float) and v.is_integer() else v


def names(p: Poly) -> set[str]:
    """The size names a polynomial uses (inside opaque parts too)."""
    out = set()
    for m in p:
        for a in m:
            s = STRUCT.get(a)
            if s is not None:
                out |= names(s[1]) | names(s[2])
            else:
                out.add(a)
    return out


def simplify(text: str) -> str:
    """The text of a spec expression, simplified (unchanged where it is not a polynomial of sizes)."""
    p = parse(text)
    return render(p) if p is not None else text


def is_number(p: Poly) -> bool:
    return number(p) is not None


