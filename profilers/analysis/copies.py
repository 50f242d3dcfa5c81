"""Copy kernels: each thread moves one element from one array to another (a transpose, a permute, a
gather with a scale), and the thread dimension each side is contiguous along.

`copy_kernel(src, k)` reads a kernel whose only global accesses are one load and one store of the value
loaded (casts, a scalar factor and other arithmetic of scalars allowed): `out[P] = alpha * in[Q];`
under guards, indices in any spelling (locals, quotients, pointer offsets). The lane view of the
affine analysis gives each side's stride between neighbouring threads along threadIdx.x and
threadIdx.y; a transpose is a copy whose load is contiguous along one of them and whose store along the
other. What is not such a kernel (a loop around the store, shared memory, a second load, an update
`+=`) is a `Refusal` with its reason, so a plan that does not apply can say why.
"""
from __future__ import annotations

import re

from dataclasses import dataclass, field

from .loops import LOOPS
from .refusal import Refusal
from ..source import Kernel, SourceFile, walk
from .affine import Access, atom, build_env, coefficient, global_accesses, is_const
from .loops import analyze_loop, declared_names

SIDE_EFFECTS = ("atomic", "__syncthreads", "__syncwarp", "__shfl", "cooperative_groups", "cg::", "printf", "asm",
                "__stcs", "__stcg", "__stwb", "__stwt")


@dataclass
class Copy:
    kernel: str
    load: Access = field(repr=False)
    store: Access = field(repr=False)
    load_along: str | None  # "x" or "y": the thread dimension the load is contiguous along
    store_along: str | None
    uses_block_dims: bool  # the index code reads blockDim.x and blockDim.y (not a literal tile)

    @property
    def transpose(self) -> bool:
        """One side contiguous along threadIdx.x, the other along threadIdx.y."""
        return {self.load_along, self.store_along} == {"x", "y"}

    @property
    def uncoalesced_side(self) -> str:
        """'load' or 'store': the side whose neighbouring threads (along threadIdx.x) are apart in memory."""
        return "load" if self.load_along != "x" else "store"


def _along(a: Access) -> str | None:
    """The thread dimension along which neighbouring threads touch neighbouring elements (in runs, where the
    index takes that thread coordinate through a remainder: `(q % R)` with q's step 1 along it, any quotient
    `(q / R)` of it constant within a run of R)."""
    for dim in ("x", "y"):
        c = coefficient(a.index, f"threadIdx.{dim}") if a.index is not None else None
        if c is not None and is_const(c, 1):
            return dim
    for dim in ("x", "y"):
        if a.index is not None and _runs_along(a.index, f"threadIdx.{dim}"):
            return dim
    return None


def _runs_along(index: dict, t: str) -> bool:
    """t reaches the index only as `(E % D)` alone with coefficient 1 (E a sum with t as a term of its own)
    and through quotients `(E / D)`, also inside other digits (`((E / W) % H)`); at least one remainder."""
    rem = False
    for m, coef in index.items():
        for a in m:
            if t not in a:
                continue
            if a.count(t) != 1:
                return False
            # the innermost group holding t, and what is done to it
            inner = next((g for g in re.finditer(r"\(([^()]*)\) ([%/]) ", a) if t in g.group(1)), None)
            if inner is None or t not in [x.strip() for x in inner.group(1).split("+")]:
                return False
            if inner.group(2) == "%":
                if len(m) != 1 or coef != 1 or not re.fullmatch(r"\(\([^()]*\) % [^()]+\)", a):
                    return False
                rem = True
    return rem


def _address_only(src: SourceFile, n) -> bool:
    """`&a[i]`: an address taken (for __ldg, say), not an access of its own."""
    p = n.parent
    while p is not None and p.type == "parenthesized_expression":
        p = p.parent
    return p is not None and p.type == "pointer_expression" and src.node_text(p).startswith("&")


def _in_loop(n, body) -> bool:
    p = n.parent
    while p is not None and p != body:
        if p.type in LOOPS:
            return True
        p = p.parent
    return False


def copy_kernel(src: SourceFile, k: Kernel) -> Copy | Refusal:
    if k.body is None:
        return Refusal(k.name, "no body")
    text = src.node_text(k.body)
    if "__shared__" in text:
        return Refusal(k.name, "the kernel already stages data in shared memory")
    if "threadIdx.z" in text:
        return Refusal(k.name, "the kernel's threads have a third dimension (threadIdx.z)")
    for word in SIDE_EFFECTS:
        if word in text:
            return Refusal(k.name, f"the kernel does more than move elements ({word.rstrip(':')} in its body)")
    env = build_env(src, k, lanes=True)
    accs = [a for a in global_accesses(env, include_unknown=True) if not _address_only(src, a.node)]
    loads = [a for a in accs if not a.is_write]
    stores = [a for a in accs if a.is_write]
    both = sorted({a.array for a in loads} & {a.array for a in stores})
    if both and len(stores) <= 2:
        return Refusal(k.name, f"the kernel reads and writes the same array {both[0]} (in place): restaged, a "
                               "thread could read an element another already overwrote")
    if len(stores) != 1 or len(loads) != 1:
        return Refusal(k.name, f"not one load copied to one store ({len(loads)} global loads, {len(stores)} stores)",
                       not_this_shape=True)
    load, store = loads[0], stores[0]
    if load.index is None or store.index is None:
        return Refusal(k.name, "an index the analysis cannot follow")
    assign = store.node.parent
    if assign.type != "assignment_expression" or src.node_text(assign.child_by_field_name("operator")) != "=":
        return Refusal(k.name, f"line {store.line}: the store is an update ({src.node_text(assign).split()[1]}), "
                               "not a copy")
    value = assign.child_by_field_name("right")
    if not (value.start_byte <= load.node.start_byte and load.node.end_byte <= value.end_byte):
        return Refusal(k.name, f"line {store.line}: the stored value is not computed from the load on line {load.line}")
    if assign.parent is None or assign.parent.type != "expression_statement":
        return Refusal(k.name, f"line {store.line}: the store is part of a larger expression")
    for n in (load.node, store.node):
        if _in_loop(n, k.body):
            return Refusal(k.name, f"line {n.start_point[0] + 1}: the copy sits in a loop (several elements per "
                                   "thread); only a copy of one element per thread is restaged")
    for n in walk(k.body):
        if n.type in LOOPS:
            return Refusal(k.name, f"line {n.start_point[0] + 1}: a loop in the kernel")
    return Copy(k.name, load, store, _along(load), _along(store),
                "blockDim.x" in text and "blockDim.y" in text)


@dataclass
class RowLoop:
    """`for (int j = 0; j < TILE; j += ROWS)` around a copy: each thread copies a column of TILE / ROWS
    elements, ROWS rows apart (the CUDA samples' TILE x ROWS transpose). Iteration j of thread (x, y) is
    what a thread (x, y + j) of a block TILE rows tall would do, so the loop reads as extra rows."""
    node: object = field(repr=False)  # the for statement
    var: str = "j"
    var_type: str = "int"
    tile: int = 1  # the rows of the tile: the loop's bound
    step: int | None = None  # the constant step, None where it is blockDim.y
    body: object = field(repr=False, default=None)


def row_loop(src: SourceFile, k: Kernel) -> RowLoop | Refusal:
    """The kernel's one loop when it is a loop over extra rows of a copy (RowLoop)."""
    loops = [n for n in walk(k.body) if n.type in LOOPS]
    if len(loops) != 1 or loops[0].type != "for_statement":
        return Refusal(k.name, "not one counted loop around the copy", not_this_shape=True)
    n = loops[0]
    info = analyze_loop(src, build_env(src, k), n)
    start = src.eval_int(info.start) if info.start is not None else None
    bound = src.eval_int(info.bound) if info.bound is not None else None
    step = info.step
    if step is None and info.step_node is not None:
        from .affine import index_poly
        if index_poly(src, info.step_node, {}) != atom("blockDim.y"):
            step = None
        else:
            step = 0  # blockDim.y: the launch's block says how many
    if info.var is None or not info.declared_in_header or start != 0 or bound is None or step is None or \
            info.cmp not in ("<", "!=") or step < 0:
        return Refusal(k.name, f"line {n.start_point[0] + 1}: the loop is not `for (int j = 0; j < TILE; j += ROWS)` "
                               "with constant TILE", not_this_shape=True)
    body = info.body
    if info.escapes:
        return Refusal(k.name, f"line {n.start_point[0] + 1}: the loop leaves early")
    outside = set()
    for m in walk(body):
        if m.type in ("assignment_expression", "update_expression"):
            t = m.child_by_field_name("left" if m.type == "assignment_expression" else "argument")
            if t is not None and t.type == "identifier":
                outside.add(src.node_text(t))
    outside -= declared_names(src, body)
    if outside:
        return Refusal(k.name, f"line {n.start_point[0] + 1}: the loop carries {sorted(outside)[0]} from one row to "
                               "the next")
    if step and bound % step:
        return Refusal(k.name, f"line {n.start_point[0] + 1}: {bound} rows in steps of {step}: not whole steps")
    return RowLoop(n, info.var, info.var_type or "int", bound, step or None, body)
