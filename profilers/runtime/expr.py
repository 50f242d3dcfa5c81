"""Safe arithmetic over problem-size variables, for launch-spec shapes, grids and values.

Allowed: int and float literals, size names, + - * / // % **, unary + -, parentheses and the
functions cdiv / ceil_div / min / max. Nothing else is evaluated: no attributes, no other
calls, no subscripts, no strings. Exponents are bounded and every value must stay below
2**63, so no expression can hang or eat memory.
"""
from __future__ import annotations

import ast
import math
from functools import lru_cache

MAX_LEN = 300
MAX_EXPONENT = 64
LIMIT = 2**63

FUNCTIONS = ("cdiv", "ceil_div", "min", "max")

_BINOPS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/",
    ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
}


class ExprError(ValueError):
    """A disallowed construct or a failed evaluation; the message names the culprit."""


class Expr:
    def __init__(self, text: str, tree: ast.expr, names: frozenset[str]):
        self.text = text
        self.tree = tree
        self.names = names

    def evaluate(self, env: dict[str, int | float]) -> int | float:
        return _eval(self.tree, env, self.text)

    def __repr__(self) -> str:
        return f"Expr({self.text!r})"


def parse_expr(text: str | int | float) -> Expr:
    """Parse and vet an expression; raises ExprError for anything outside the whitelist."""
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise ExprError(f"expected an expression string or a number, got {type(text).__name__} {text!r}")
    return _parse(str(text).strip())


@lru_cache(maxsize=4096)
def _parse(text: str) -> Expr:
    tree = _tree(text, "expression", "an arithmetic expression")
    names: set[str] = set()
    _vet(tree, text, names)
    return Expr(text, tree, frozenset(names))


def _tree(text: str, what: str, a_what: str) -> ast.expr:
    if not text:
        raise ExprError(f"empty {what}")
    if len(text) > MAX_LEN:
        raise ExprError(f"{what} longer than {MAX_LEN} characters")
    try:
        return ast.parse(text, mode="eval").body
    except SyntaxError as e:
        raise ExprError(f"not {a_what}: {text!r} ({e.msg})") from None


def _vet(n: ast.AST, text: str, names: set[str]) -> None:
    if isinstance(n, ast.Constant):
        if isinstance(n.value, bool) or not isinstance(n.value, (int, float)):
            raise ExprError(f"{text!r}: only numbers are allowed as constants, not {n.value!r}")
    elif isinstance(n, ast.Name):
        if n.id in FUNCTIONS:
            raise ExprError(f"{text!r}: {n.id} must be called, e.g. {n.id}(n, 256)")
        names.add(n.id)
    elif isinstance(n, ast.BinOp):
        if type(n.op) not in _BINOPS:
            raise ExprError(f"{text!r}: operator {type(n.op).__name__} is not allowed (use + - * / // % **)")
        _vet(n.left, text, names)
        _vet(n.right, text, names)
    elif isinstance(n, ast.UnaryOp):
        if not isinstance(n.op, (ast.UAdd, ast.USub)):
            raise ExprError(f"{text!r}: unary {type(n.op).__name__} is not allowed")
        _vet(n.operand, text, names)
    elif isinstance(n, ast.Call):
        fn = n.func.id if isinstance(n.func, ast.Name) else None
        if fn not in FUNCTIONS:
            what = ast.unparse(n.func)
            raise ExprError(f"{text!r}: call to {what} is not allowed (only {', '.join(FUNCTIONS)})")
        if n.keywords:
            raise ExprError(f"{text!r}: {fn}() takes no keyword arguments")
        want = 2 if fn in ("cdiv", "ceil_div") else None
        if (want and len(n.args) != want) or not n.args:
            raise ExprError(f"{text!r}: {fn}() takes {want or 'one or more'} arguments, got {len(n.args)}")
        for a in n.args:
            if isinstance(a, ast.Starred):
                raise ExprError(f"{text!r}: *args is not allowed")
            _vet(a, text, names)
    elif isinstance(n, ast.Attribute):
        raise ExprError(f"{text!r}: attribute access ({ast.unparse(n)}) is not allowed")
    elif isinstance(n, ast.Subscript):
        raise ExprError(f"{text!r}: subscripts ({ast.unparse(n)}) are not allowed")
    else:
        raise ExprError(f"{text!r}: {type(n).__name__} is not allowed (only arithmetic over size names)")


def _check(v: int | float, text: str) -> int | float:
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ExprError(f"{text!r}: the result is not finite")
    if abs(v) >= LIMIT:
        raise ExprError(f"{text!r}: value too large (>= 2**63)")
    return v


def _eval(n: ast.AST, env: dict[str, int | float], text: str) -> int | float:
    if isinstance(n, ast.Constant):
        return _check(n.value, text)
    if isinstance(n, ast.Name):
        if n.id not in env:
            known = ", ".join(sorted(env)) or "none"
            raise ExprError(f"{text!r}: unknown size variable {n.id!r} (known: {known})")
        return env[n.id]
    if isinstance(n, ast.UnaryOp):
        v = _eval(n.operand, env, text)
        return -v if isinstance(n.op, ast.USub) else v
    if isinstance(n, ast.Call):
        args = [_eval(a, env, text) for a in n.args]
        fn = n.func.id
        if fn in ("cdiv", "ceil_div"):
            a, b = args
            if b == 0:
                raise ExprError(f"{text!r}: division by zero in {fn}")
            return _check(-(-a // b), text)
        return min(args) if fn == "min" else max(args)
    if isinstance(n, ast.BinOp):
        a = _eval(n.left, env, text)
        b = _eval(n.right, env, text)
        op = type(n.op)
        try:
            if op is ast.Add:
                r = a + b
            elif op is ast.Sub:
                r = a - b
            elif op is ast.Mult:
                r = a * b
            elif op is ast.Div:
                r = a / b
                if isinstance(r, float) and r.is_integer() and isinstance(a, int) and isinstance(b, int):
                    r = a // b  # exact: keep it an int
            elif op is ast.FloorDiv:
                r = a // b
            elif op is ast.Mod:
                r = a % b
            else:
                if not isinstance(b, int) or b < 0 or b > MAX_EXPONENT:
                    raise ExprError(f"{text!r}: exponent {b!r} not allowed (an int from 0 to {MAX_EXPONENT})")
                r = a**b
        except ZeroDivisionError:
            raise ExprError(f"{text!r}: division by zero") from None
        except OverflowError:
            raise ExprError(f"{text!r}: value too large") from None
        return _check(r, text)
    raise ExprError(f"{text!r}: cannot evaluate {type(n).__name__}")


def evaluate(text: str | int | float, env: dict[str, int | float]) -> int | float:
    return parse_expr(text).evaluate(env)


def evaluate_int(text: str | int | float, env: dict[str, int | float]) -> int:
    """Evaluate and insist on an integer result (a float that is integral is accepted)."""
    v = evaluate(text, env)
    if isinstance(v, float):
        if not v.is_integer():
            raise ExprError(f"{text!r} = {v:g} is not an integer (use // or cdiv)")
        v = int(v)
    return v


_COMPARE = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


def parse_condition(text: str) -> Expr:
    """A condition over the size variables: comparisons of arithmetic expressions (`M * N * K >= 1e10`),
    joined by `and` / `or`, negated by `not`. Raises ExprError for anything else."""
    if not isinstance(text, str):
        raise ExprError(f"expected a condition string, got {text!r}")
    text = text.strip()
    tree = _tree(text, "condition", "a condition")
    names: set[str] = set()

    def vet(n):
        if isinstance(n, ast.BoolOp):
            for v in n.values:
                vet(v)
        elif isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
            vet(n.operand)
        elif isinstance(n, ast.Compare):
            if any(type(op) not in _COMPARE for op in n.ops):
                raise ExprError(f"{text!r}: only < <= > >= == != compare")
            for v in [n.left, *n.comparators]:
                _vet(v, text, names)
        else:
            raise ExprError(f"{text!r}: a condition is comparisons joined by and / or (e.g. `M * N >= 4096`)")
    vet(tree)
    return Expr(text, tree, frozenset(names))


def evaluate_condition(text: str, env: dict[str, int | float]) -> bool:
    cond = parse_condition(text)

    def ev(n) -> bool:
        if isinstance(n, ast.BoolOp):
            vals = (ev(v) for v in n.values)
            return all(vals) if isinstance(n.op, ast.And) else any(vals)
        if isinstance(n, ast.UnaryOp):
            return not ev(n.operand)
        left = _eval(n.left, env, text)
        for op, right_n in zip(n.ops, n.comparators):
            right = _eval(right_n, env, text)
            ok = {ast.Lt: left < right, ast.LtE: left <= right, ast.Gt: left > right, ast.GtE: left >= right,
                  ast.Eq: left == right, ast.NotEq: left != right}[type(op)]
            if not ok:
                return False
            left = right
        return True
    return ev(cond.tree)
