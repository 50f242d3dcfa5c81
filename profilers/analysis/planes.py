"""3-D stencils marched along z: a loop over planes inside the thread, and the neighbours of each point at
fixed offsets (dx, dy, dz).

`plane_loop(src, k)` finds, in a kernel with two-dimensional thread indices, the one loop over z whose
iterations each compute one point (`for (int k = 1; k < nz - 1; k++) out[..] = ..`): a canonical `for` with
step 1, its variable declared in the header, nothing carried from one plane to the next, no break, return
or barrier. `stencil3(src, k)` reads a kernel whose plane is `blockIdx.z` (a 3-D grid one plane per block,
or the loop above with its variable read from blockIdx.z): one store computed from loads of one array at
the thread's point plus constant offsets, dx along threadIdx.x (stride 1), dy rows along threadIdx.y and dz
planes along blockIdx.z; offsets relative to the store's point where the store is such a point. What is
not such a kernel is a `Refusal` with its reason.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..source import Kernel, SourceFile, walk
from .affine import Access, add, build_env, coefficient, global_accesses, is_const
from .loops import LOOPS, analyze_loop
from .refusal import Refusal
from .stencils import MAX_HALO, SIDE_EFFECTS, copied_and_left, not_plain_store

PLANE = "blockIdx.z"


@dataclass
class PlaneLoop:
    node: object = field(repr=False)  # the for statement
    var: str
    var_type: str
    start: object = field(repr=False)  # the first plane (node)
    bound: str  # one past the last plane, as C text
    cond: object = field(repr=False)  # the loop's condition (node)


def plane_loop(src: SourceFile, k: Kernel) -> PlaneLoop | Refusal:
    if k.body is None:
        return Refusal(k.name, "no body", not_this_shape=True)
    body = src.node_text(k.body)
    if "threadIdx.y" not in body or any(w in body for w in ("threadIdx.z", "blockIdx.z", "gridDim.z")):
        return Refusal(k.name, "not a 2-D grid of threads with a loop over planes", not_this_shape=True)
    loops = [n for n in walk(k.body) if n.type in LOOPS]
    if len(loops) != 1:
        return Refusal(k.name, f"{len(loops)} loops (one loop over the planes is marched)", not_this_shape=True)
    n = loops[0]
    line = n.start_point[0] + 1
    info = analyze_loop(src, build_env(src, k), n)
    if info.form != "for" or info.var is None or not info.declared_in_header or info.step != 1 \
            or info.cmp not in ("<", "<=") or info.bound is None or info.start is None:
        return Refusal(k.name, f"line {line}: the loop over planes is not `for (int z = S; z < E; z++)`")
    if info.escapes:
        return Refusal(k.name, f"line {line}: the loop over planes has {info.escapes[0]}")
    if info.carried or info.reductions:
        what = next(iter(info.carried), None) or info.reductions[0].var
        return Refusal(k.name, f"line {line}: `{what}` is carried from one plane to the next (a window the kernel "
                               "keeps itself)")
    bound = src.node_text(info.bound)
    if info.cmp == "<=":
        bound = f"({bound}) + 1"
    cond = n.child_by_field_name("condition")
    return PlaneLoop(n, info.var, info.var_type or "int", info.start, bound, cond)


@dataclass
class Stencil3:
    kernel: str
    array: str
    store: Access = field(repr=False)
    points: list = field(repr=False)  # [(Access, dx, dy, dz)]
    others: list = field(repr=False)  # loads read as written (weights, other arrays)
    extra: list = field(default_factory=list, repr=False)  # stores of the same point on paths that then return

    def span(self, axis: int) -> tuple[int, int]:
        """(below, above): how far the loads reach along x (0), y (1) or z (2)."""
        vals = [p[1 + axis] for p in self.points] + [0]
        return -min(vals), max(vals)

    @property
    def column(self) -> set:
        """The dz of the loads at the point's own (x, y): a register window."""
        return {dz for _, dx, dy, dz in self.points if dx == 0 and dy == 0}

    @property
    def flat(self) -> set:
        """The dz of the loads with x or y neighbours: planes staged in shared memory."""
        return {dz for _, dx, dy, dz in self.points if dx or dy}


def _offset3(diff, row, plane) -> tuple[int, int, int] | None:
    """(dx, dy, dz) with diff == dx + dy * row + dz * plane, small ones only (the smallest |dz|, |dy|)."""
    rng = sorted(range(-MAX_HALO, MAX_HALO + 1), key=abs)
    for dz in rng:
        for dy in rng:
            rest = add(add(diff, {m: c * dy for m, c in row.items()}, -1), {m: c * dz for m, c in plane.items()}, -1)
            if is_const(rest) and abs(rest.get((), 0)) <= MAX_HALO:
                return rest.get((), 0), dy, dz
    return None


def _too_small(p) -> bool:
    return is_const(p) and abs(p.get((), 0)) <= 2 * MAX_HALO


def stencil3(src: SourceFile, k: Kernel) -> Stencil3 | Refusal:
    """The 3-D stencil of a kernel whose plane is blockIdx.z."""
    body = src.node_text(k.body)
    for w in SIDE_EFFECTS:
        if w in body:
            return Refusal(k.name, f"the kernel does more than compute one point ({w.rstrip(':')} in its body)")
    if any(n.type in LOOPS for n in walk(k.body)):
        return Refusal(k.name, "a loop besides the one over planes")
    accs = global_accesses(build_env(src, k), include_unknown=True)
    stores = [a for a in accs if a.is_write]
    if not stores:
        return Refusal(k.name, "no store")
    store, extra = stores[-1], stores[:-1]
    bad = not_plain_store(src, stores)
    if bad is not None:
        return Refusal(k.name, f"line {bad.line}: the store is not a plain `=`")
    for a in extra:  # a boundary plane or edge copied as is: the same point, then `return` (one store on every path)
        if not copied_and_left(a, store):
            return Refusal(k.name, f"{len(stores)} stores (one point per thread and plane is marched: several only "
                                   "where each but the last stores the same point and returns)")
    by_array: dict[str, list[Access]] = {}
    for a in accs:
        if a.is_write:
            continue
        if a.index is None:
            return Refusal(k.name, f"line {a.line}: an index the analysis cannot follow")
        by_array.setdefault(a.array, []).append(a)
    if store.array in by_array:
        return Refusal(k.name, f"the kernel reads and writes {store.array}: an in-place sweep reads neighbours that "
                               "other threads (or planes) update, so marching would change its result")
    best = None
    for array, group in by_array.items():
        ref = group[0].index
        row, plane = coefficient(ref, "threadIdx.y"), coefficient(ref, PLANE)
        if coefficient(ref, "threadIdx.x") != {(): 1} or not row or not plane or is_const(row, 1) \
                or _too_small(row) or _too_small(plane):
            continue
        pts, rest = [], []
        for a in group:
            same = coefficient(a.index, "threadIdx.x") == {(): 1} and coefficient(a.index, "threadIdx.y") == row \
                and coefficient(a.index, PLANE) == plane
            off = _offset3(add(a.index, ref, -1), row, plane) if same else None
            (pts.append((a, *off)) if off is not None else rest.append(a))
        if len({p[1:] for p in pts}) >= 3 and len({p[3] for p in pts}) >= 1 and (best is None or len(pts) > len(best[1])):
            best = (array, pts, rest, row, plane)
    if best is None:
        return Refusal(k.name, "no array is read at three or more neighbouring points of the thread's own "
                               "(offsets along threadIdx.x, threadIdx.y and the planes)", not_this_shape=True)
    array, pts, rest, row, plane = best
    s = store.index
    if s is not None and coefficient(s, "threadIdx.x") == {(): 1} and coefficient(s, "threadIdx.y") == row \
            and coefficient(s, PLANE) == plane:
        o = _offset3(add(s, pts[0][0].index, -1), row, plane)
        if o is not None:  # offsets from the stored point
            pts = [(a, dx - o[0], dy - o[1], dz - o[2]) for a, dx, dy, dz in pts]
    others = rest + [a for arr, g in by_array.items() if arr != array for a in g]
    return Stencil3(k.name, array, store, pts, others, extra)
