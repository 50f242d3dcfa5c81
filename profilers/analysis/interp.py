"""A tiny interpreter for the scalar part of CUDA statements, used to recognise updates by probing.

It runs straight-line statements (declarations, assignments, compound assignments, `if`/`else`,
`?:`) over Python floats, with the usual math functions. Memory reads are inputs named by
the caller (`reads`: node text -> value). Anything else (other calls, loops, pointers) raises
`Unsupported`, so a caller never draws a conclusion from code it did not understand.
"""
from __future__ import annotations

import math

from ..source import SourceFile


class Unsupported(Exception):
    pass


def _exp(x):
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _max(a, b):
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    return a if a >= b else b


def _min(a, b):
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    return a if a <= b else b


def _log(x):
    if x < 0:
        return math.nan
    return -math.inf if x == 0 else math.log(x)


FUNCS = {
    **{n: _exp for n in ("exp", "expf", "__expf")},
    **{n: (lambda x: 2.0 ** x) for n in ("exp2", "exp2f", "__exp2f")},
    **{n: _log for n in ("log", "logf", "__logf")},
    **{n: _max for n in ("max", "fmax", "fmaxf", "::max", "std::max", "cuda::std::max")},
    **{n: _min for n in ("min", "fmin", "fminf", "::min", "std::min", "cuda::std::min")},
    **{n: abs for n in ("fabs", "fabsf", "abs")},
    **{n: (lambda x: math.sqrt(x) if x >= 0 else math.nan) for n in ("sqrt", "sqrtf")},
}
CONSTS = {"INFINITY": math.inf, "HUGE_VALF": math.inf, "HUGE_VAL": math.inf, "FLT_MAX": 3.4028234663852886e38,
          "DBL_MAX": 1.7976931348623157e308, "NAN": math.nan, "true": 1.0, "false": 0.0}
_BIN = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
        "/": lambda a, b: (a / b if b else (math.copysign(math.inf, a) if a else math.nan)),
        "<": lambda a, b: float(a < b), ">": lambda a, b: float(a > b), "<=": lambda a, b: float(a <= b),
        ">=": lambda a, b: float(a >= b), "==": lambda a, b: float(a == b), "!=": lambda a, b: float(a != b),
        "&&": lambda a, b: float(bool(a) and bool(b)), "||": lambda a, b: float(bool(a) or bool(b))}


class Interp:
    def __init__(self, src: SourceFile, env: dict[str, float], reads: dict[str, float] | None = None):
        self.src, self.env, self.reads = src, dict(env), dict(reads or {})

    def text(self, n) -> str:
        return " ".join(self.src.node_text(n).split())

    # ------------------------------------------------------------ statements
    def run(self, stmts) -> dict[str, float]:
        for s in stmts:
            self.stmt(s)
        return self.env

    def stmt(self, n) -> None:
        t = n.type
        if t == "compound_statement":
            for c in n.named_children:
                self.stmt(c)
        elif t == "expression_statement":
            if n.named_children:
                self.expr(n.named_children[0])
        elif t == "declaration":
            for d in n.children_by_field_name("declarator"):
                if d.type == "init_declarator":
                    name = d.child_by_field_name("declarator")
                    if name is None or name.type != "identifier":
                        raise Unsupported("declarator")
                    self.env[self.text(name)] = self.expr(d.child_by_field_name("value"))
                elif d.type == "identifier":
                    self.env[self.text(d)] = math.nan
                else:
                    raise Unsupported("declaration")
        elif t == "if_statement":
            c = n.child_by_field_name("condition")
            cond = self.expr(c.named_children[0] if c is not None and c.type == "condition_clause" else c)
            if cond:
                self.stmt(n.child_by_field_name("consequence"))
            else:
                alt = n.child_by_field_name("alternative")
                if alt is not None:
                    self.stmt(alt.named_children[0] if alt.type == "else_clause" else alt)
        elif t in ("comment", "empty_statement"):
            return
        else:
            raise Unsupported(t)

    # ------------------------------------------------------------ expressions
    def expr(self, n) -> float:
        if n is None:
            raise Unsupported("empty")
        t = n.type
        txt = self.text(n)
        if txt in self.reads:
            return self.reads[txt]
        if t == "number_literal":
            s = self.src.node_text(n).rstrip("fFlLuU")
            try:
                return float(int(s, 0)) if not any(ch in s for ch in ".eE") or s.lower().startswith("0x") else float(s)
            except ValueError:
                raise Unsupported("literal") from None
        if t in ("identifier", "true", "false"):
            if txt in self.env:
                return self.env[txt]
            if txt in CONSTS:
                return CONSTS[txt]
            raise Unsupported(f"unknown name {txt}")
        if t == "parenthesized_expression":
            return self.expr(n.named_children[0])
        if t == "cast_expression":
            return self.expr(n.child_by_field_name("value"))
        if t == "unary_expression":
            op = self.src.node_text(n.child_by_field_name("operator"))
            v = self.expr(n.child_by_field_name("argument"))
            return {"-": -v, "+": v, "!": float(not v)}.get(op) if op in "-+!" else self._unsup(op)
        if t == "binary_expression":
            op = self.src.node_text(n.child_by_field_name("operator"))
            if op not in _BIN:
                raise Unsupported(op)
            return _BIN[op](self.expr(n.child_by_field_name("left")), self.expr(n.child_by_field_name("right")))
        if t == "conditional_expression":
            c = self.expr(n.child_by_field_name("condition"))
            return self.expr(n.child_by_field_name("consequence" if c else "alternative"))
        if t == "assignment_expression":
            left = n.child_by_field_name("left")
            if left is None or left.type != "identifier":
                raise Unsupported("assignment target")
            name = self.text(left)
            op = self.src.node_text(n.child_by_field_name("operator"))
            v = self.expr(n.child_by_field_name("right"))
            if op != "=":
                if op[:-1] not in _BIN or name not in self.env:
                    raise Unsupported(op)
                v = _BIN[op[:-1]](self.env[name], v)
            self.env[name] = v
            return v
        if t == "call_expression":
            fn = n.child_by_field_name("function")
            name = self.src.node_text(fn).strip() if fn is not None else ""
            args = n.child_by_field_name("arguments")
            vals = [self.expr(a) for a in (args.named_children if args is not None else [])]
            if name.strip("()") in ("float", "double") and len(vals) == 1:  # functional cast
                return vals[0]
            f = FUNCS.get(name)
            if f is None and len(vals) == 2:
                from .loops import MAX, MIN, helper_pick  # the file's own max/min helpers
                f = {MAX: _max, MIN: _min}.get(helper_pick(self.src, name))
            if f is None:
                raise Unsupported(f"call {name}")
            return f(*vals)
        raise Unsupported(t)

    def _unsup(self, what):
        raise Unsupported(what)


def close(a: float, b: float, rel: float = 1e-9) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))
