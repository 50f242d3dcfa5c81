"""Whether a thread-dependent condition is the same for the 32 lanes of every warp.

`warp == 0` with `warp = threadIdx.x / 32`, `threadIdx.x < 64`, `(tid >> 5) & 1`: each warp takes
one side as a whole. The condition is evaluated in integers for every thread of a 1-D block, with
the thread-dependent variables replaced by their one definition and every block-uniform name
(parameters, blockIdx, constants) given several sample values; anything the evaluator does not
follow (a per-thread load, a call, a variable defined twice) answers "not known to be uniform".
"""
from __future__ import annotations

import tree_sitter as ts

from ..source import SourceFile

SAMPLES = (1, 3, 32, 100, 1000)


class _Unknown(Exception):
    pass


def _cdiv(a: int, b: int) -> int:
    if b == 0:
        raise _Unknown("division by zero")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _cmod(a: int, b: int) -> int:
    return a - b * _cdiv(a, b)


_OPS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": _cdiv, "%": _cmod,
    "<<": lambda a, b: a << b if 0 <= b < 64 else _raise(), ">>": lambda a, b: a >> b if 0 <= b < 64 else _raise(),
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<": lambda a, b: int(a < b), ">": lambda a, b: int(a > b), "<=": lambda a, b: int(a <= b),
    ">=": lambda a, b: int(a >= b), "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
    "&&": lambda a, b: int(bool(a) and bool(b)), "||": lambda a, b: int(bool(a) or bool(b)),
}


def _raise():
    raise _Unknown("shift")


class _Eval:
    def __init__(self, src: SourceFile, defs: dict[str, ts.Node], env: dict[str, int], sample: int):
        self.src, self.defs, self.env, self.sample = src, defs, env, sample
        self.depth = 0

    def __call__(self, n: ts.Node | None) -> int:
        if n is None:
            raise _Unknown("empty")
        self.depth += 1
        if self.depth > 200:
            raise _Unknown("too deep")
        try:
            return self._eval(n)
        finally:
            self.depth -= 1

    def _eval(self, n: ts.Node) -> int:
        t, txt = n.type, " ".join(self.src.node_text(n).split())
        if txt in self.env:
            return self.env[txt]
        if t == "number_literal":
            v = self.src.eval_int(n)
            if v is None:
                raise _Unknown("literal")
            return v
        if t in ("true", "false"):
            return int(t == "true")
        if t == "identifier":
            if txt in self.defs:
                return self(self.defs[txt])
            if txt in self.src.constants:
                return self.src.constants[txt]
            if txt == "warpSize":
                return 32
            return self.sample + sum(map(ord, txt)) % 7  # a block-uniform name: one sample value per name
        if t == "field_expression":
            if txt.startswith(("blockIdx.", "gridDim.")):
                return self.sample
            raise _Unknown(txt)
        if t in ("parenthesized_expression", "condition_clause"):
            return self(n.named_children[-1] if n.named_children else None)
        if t == "cast_expression":
            return self(n.child_by_field_name("value"))
        if t == "unary_expression":
            op = self.src.node_text(n.child_by_field_name("operator"))
            v = self(n.child_by_field_name("argument"))
            if op == "-":
                return -v
            if op == "+":
                return v
            if op == "!":
                return int(not v)
            if op == "~":
                return ~v
            raise _Unknown(op)
        if t == "binary_expression":
            op = self.src.node_text(n.child_by_field_name("operator"))
            if op not in _OPS:
                raise _Unknown(op)
            return _OPS[op](self(n.child_by_field_name("left")), self(n.child_by_field_name("right")))
        if t == "conditional_expression":
            c = self(n.child_by_field_name("condition"))
            return self(n.child_by_field_name("consequence" if c else "alternative"))
        raise _Unknown(t)


def single_definitions(src: SourceFile, body: ts.Node) -> dict[str, ts.Node]:
    """Local variables with exactly one definition (an initialiser, or one plain assignment
    after a declaration without one) -> the value node."""
    from ..source import walk

    defs: dict[str, list[ts.Node]] = {}
    for n in walk(body):
        if n.type == "init_declarator":
            d, v = n.child_by_field_name("declarator"), n.child_by_field_name("value")
            while d is not None and d.type != "identifier":
                d = d.child_by_field_name("declarator")
            if d is not None and v is not None:
                defs.setdefault(src.node_text(d), []).append(v)
        elif n.type == "assignment_expression":
            left = n.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                op = src.node_text(n.child_by_field_name("operator"))
                defs.setdefault(src.node_text(left), []).append(n.child_by_field_name("right") if op == "=" else n)
        elif n.type == "update_expression":
            arg = n.child_by_field_name("argument")
            if arg is not None and arg.type == "identifier":
                defs.setdefault(src.node_text(arg), []).append(n)
    return {k: v[0] for k, v in defs.items() if len(v) == 1 and v[0].type not in ("assignment_expression",
                                                                                  "update_expression")}


def warp_uniform(src: SourceFile, cond: ts.Node, defs: dict[str, ts.Node], block_threads: int,
                 shape: tuple[int, int, int] | None = None) -> bool:
    """True when `cond` takes one value for all 32 lanes of each warp of a block of
    `block_threads` threads (of `shape` (x, y, z) when known: threadIdx.y and .z then take their
    values too; unknown, the block is 1-D and a condition on them is not judged), for every
    sample of the block-uniform names; False when it does not or cannot be told."""
    bx, by, bz = shape if shape and all(shape) else (max(32, block_threads - block_threads % 32), 0, 0)
    block = bx * max(by, 1) * max(bz, 1)
    for sample in SAMPLES:
        for t in range(0, block, 32):
            seen = set()
            for lane in range(32):
                tid = t + lane
                env = {"threadIdx.x": tid % bx, "blockDim.x": bx, "blockDim.y": max(by, 1), "blockDim.z": max(bz, 1)}
                if by:
                    env.update({"threadIdx.y": (tid // bx) % by, "threadIdx.z": tid // (bx * by)})
                try:
                    seen.add(bool(_Eval(src, defs, env, sample)(cond)))
                except (_Unknown, RecursionError, ValueError, OverflowError):
                    return False
                if len(seen) > 1:
                    return False
    return True
