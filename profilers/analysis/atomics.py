"""Atomics every thread of a block aims at one address: `atomicAdd(total, partial)` at the end of a
grid-stride sum, `atomicMax(&best[blockIdx.x], v)`.

`uniform_atomics(src, k)` finds a kernel's atomicAdd / atomicMax / atomicMin calls whose result is unused
and whose address is the same for every thread of a block (it depends on no thread index), all of one
function at one address text. A block can combine its threads' values first and send one atomic, the
contention of a block's threads on one address gone. What is not this shape is a `Refusal` with its
reason.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .refusal import Refusal
from ..source import Kernel, SourceFile, walk
from .affine import build_env, depends, subscript_parts

OPS = {"atomicAdd": "sum", "atomicMax": "max", "atomicMin": "min"}


@dataclass
class UniformAtomics:
    kernel: str
    fn: str  # atomicAdd, atomicMax, atomicMin
    op: str  # sum, max, min
    calls: list = field(repr=False)  # the call nodes (expression statements' expressions)
    address: str  # the address argument's text (the same at every call; the first of `addresses`)
    value_type: str | None  # the pointee type of the address, where it is a pointer parameter
    # several addresses, each one for the whole block (a sum and a sum of squares): address -> (its calls, type)
    addresses: dict = field(default_factory=dict, repr=False)


def atomic_calls(src: SourceFile, k: Kernel) -> list:
    """(function name, call node) of every atomic call in the kernel's body."""
    out = []
    for n in walk(k.body):
        if n.type == "call_expression":
            name = src.node_text(n.child_by_field_name("function"))
            if name.startswith("atomic"):
                out.append((name, n))
    return out


_FIXED = ("blockIdx.", "blockDim.", "gridDim.")


def _fixed(poly, k: Kernel, lanes: str) -> bool:
    """An address offset that stays put for a thread and is shared by the scope's threads: its atoms are the
    block's and grid's indices and sizes, the kernel's scalar parameters, and thread indices other than `lanes`
    (a loop counter or a reassigned local moves it: several addresses, not one)."""
    scalars = {p.name for p in k.params if not p.is_pointer}
    for mono in poly:
        for a in mono:
            if a.startswith("threadIdx."):
                if a[-1] in lanes:
                    return False
            elif not (a.startswith(_FIXED) or a in scalars):
                return False
    return True


def uniform_address(src: SourceFile, env, arg, lanes: str = "xyz") -> tuple[bool, str | None]:
    """(the address is one for all threads that differ only in the `lanes` thread indices and fixed while the
    thread runs, its array parameter)."""
    t = arg.type
    k = env.kernel
    if t == "identifier":
        p = k.param(src.node_text(arg))
        return (p is not None and p.is_pointer), (p.name if p is not None else None)
    if t == "pointer_expression" and src.node_text(arg).startswith("&"):
        sub = arg.child_by_field_name("argument")
        if sub is not None and sub.type == "subscript_expression":
            parts = subscript_parts(src, sub)
            p = k.param(parts[0]) if parts is not None else None
            if p is None or not p.is_pointer:
                return False, None
            poly = env.poly(parts[1])
            return poly is not None and _fixed(poly, k, lanes), p.name
    if t == "binary_expression" and src.node_text(arg.child_by_field_name("operator")) == "+":
        left = arg.child_by_field_name("left")
        p = k.param(src.node_text(left))
        poly = env.poly(arg.child_by_field_name("right"))
        ok = p is not None and p.is_pointer and poly is not None and _fixed(poly, k, lanes)
        return ok, (p.name if p is not None else None)
    return False, None


MAX_ADDRESSES = 4  # block-uniform addresses combined at once (a sum and a sum of squares, a few moments)


def uniform_atomics(src: SourceFile, k: Kernel, scope: str = "block") -> UniformAtomics | Refusal:
    """scope "block": one address for the block's threads; "warp": one for threads that differ only in
    threadIdx.x (a warp's lanes where blockDim.x is a multiple of 32), blocks of two or three dimensions."""
    if k.body is None:
        return Refusal(k.name, "no body")
    calls = atomic_calls(src, k)
    if not calls:
        return Refusal(k.name, "no atomics", not_this_shape=True)
    fns = {name for name, _ in calls}
    if len(fns) != 1 or next(iter(fns)) not in OPS:
        return Refusal(k.name, f"atomics other than one of {', '.join(OPS)} ({', '.join(sorted(fns))})")
    fn = next(iter(fns))
    env = build_env(src, k)
    addrs, array, by_addr = set(), None, {}
    for _, n in calls:
        if n.parent is None or n.parent.type != "expression_statement":
            return Refusal(k.name, f"line {n.start_point[0] + 1}: the atomic's old value is used")
        args = n.child_by_field_name("arguments").named_children
        if len(args) != 2:
            return Refusal(k.name, f"line {n.start_point[0] + 1}: {fn} with {len(args)} arguments")
        ok, array = uniform_address(src, env, args[0], "xyz" if scope == "block" else "x")
        if not ok:
            who = "a block" if scope == "block" else "a warp (threads differing in threadIdx.x)"
            return Refusal(k.name, f"line {n.start_point[0] + 1}: the threads of {who} aim {fn} at different "
                                   "addresses, or the address moves while a thread runs (per-thread bins need "
                                   "private copies, not one combined value)")
        a = "".join(src.node_text(args[0]).split())
        addrs.add(a)
        p = k.param(array) if array else None
        by_addr.setdefault(a, ([], p.base_type if p is not None else None))[0].append(n)
    if len(addrs) != 1 and (scope != "block" or len(addrs) > MAX_ADDRESSES):
        return Refusal(k.name, f"{fn} at {len(addrs)} different addresses")
    body = src.node_text(k.body)
    if scope == "block" and ("threadIdx.y" in body or "threadIdx.z" in body):
        return Refusal(k.name, "two- or three-dimensional blocks")
    first = next(iter(by_addr))
    return UniformAtomics(k.name, fn, OPS[fn], [n for _, n in calls], first, by_addr[first][1], by_addr)
