"""Stencils: each thread stores one point computed from neighbours of it in one array at fixed offsets.

`stencil(src, k)` reads a kernel with two-dimensional thread indices whose one store (not in a loop) is
computed from loads of one input array at the thread's point plus constant offsets: `in[(i-1)*W + j]`,
`in[idx + W]`, in any spelling the affine analysis follows. Each load's offset from the first is
(dx, dy) in threads: dx elements along threadIdx.x (stride 1) and dy rows along threadIdx.y (the
array's row stride, the same for every load). Loads at other offsets (a third dimension, say) and loads
of other arrays (weights) may feed the value and are left as they are. What is not such a kernel is a
`Refusal` with its reason (an in-place update that would read updated neighbours, a loop). With one
dimension of threads every neighbour is along x (a 1-D stencil, `in[i - 1] + in[i] + in[i + 1]`), and only
where each load of the array is at a constant offset (a flat index's rows are the flat view's).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .loops import LOOPS
from .refusal import Refusal
from ..source import Kernel, SourceFile, walk
from .affine import Access, add, build_env, coefficient, global_accesses, is_const, poly_text

SIDE_EFFECTS = ("__shared__", "__syncthreads", "atomic", "__shfl", "cooperative_groups", "cg::", "asm", "printf")
MAX_HALO = 4  # the largest offset read as a neighbour (rows or elements)


@dataclass
class Stencil:
    kernel: str
    array: str  # the input read at the neighbours
    store: Access = field(repr=False)
    points: list = field(repr=False)  # [(Access, dx, dy)]: the staged loads, offsets from the first
    others: list = field(repr=False)  # other loads of values (weights, a third dimension's neighbours)
    extra: list = field(default_factory=list, repr=False)  # stores of the same point on paths that then return
    more: list = field(default_factory=list, repr=False)  # stores of the same point into other arrays, before `store`

    @property
    def halo(self) -> tuple[int, int, int, int]:
        """(left, right, below, above): how far the loads reach beyond the first one's point."""
        xs = [dx for _, dx, _ in self.points]
        ys = [dy for _, _, dy in self.points]
        return -min(xs + [0]), max(xs + [0]), -min(ys + [0]), max(ys + [0])



def not_plain_store(src: SourceFile, stores: list):
    """The first store that is not a statement `x[i] = v;`, or None."""
    for a in stores:
        assign = a.node.parent
        if assign.type != "assignment_expression" or src.node_text(assign.child_by_field_name("operator")) != "=" \
                or assign.parent is None or assign.parent.type != "expression_statement":
            return a
    return None


def copied_and_left(a, store) -> bool:
    """Store a is the point `store` stores (the same array and index), and the statement after it returns: a
    boundary copied as is on a path that then leaves, so every path stores the point once."""
    nxt = a.node.parent.parent.next_named_sibling
    while nxt is not None and nxt.type == "comment":
        nxt = nxt.next_named_sibling
    return a.array == store.array and a.index is not None and a.index == store.index and nxt is not None \
        and nxt.type == "return_statement"

def _offset(diff, row) -> tuple[int, int] | None:
    """(dx, dy) with diff == dx + dy * row, small ones only."""
    if is_const(diff):
        c = diff.get((), 0)
        return (c, 0) if abs(c) <= MAX_HALO else None
    for dy in range(-MAX_HALO, MAX_HALO + 1):
        if dy == 0:
            continue
        rest = add(diff, {m: c * dy for m, c in row.items()}, -1)
        if is_const(rest) and abs(rest.get((), 0)) <= MAX_HALO:
            return rest.get((), 0), dy
    return None


def neighbours_along_x(src: SourceFile, k: Kernel) -> int:
    """The most distinct small offsets (along threadIdx.x, and rows along threadIdx.y) at which one array is
    accessed: a stencil's taps."""
    best = 0
    groups: dict = {}
    for a in global_accesses(build_env(src, k)):
        if a.index is not None and coefficient(a.index, "threadIdx.x") == {(): 1}:
            groups.setdefault(a.array, []).append(a.index)
    for idx in groups.values():
        for ref in idx:
            row = coefficient(ref, "threadIdx.y") or {}  # rows as neighbours too, where threads have them
            offs = {_offset(add(i, ref, -1), row) for i in idx}
            best = max(best, len(offs - {None}))
    return best


def interleaved(src: SourceFile, k: Kernel) -> str | None:
    """Why a kernel that reads one array at three or more points around the thread's own, each neighbour along
    threadIdx.x the same non-unit stride apart (an interleaved RGB image's pixels, `channels` apart), is not tiled;
    None where no array is read so."""
    groups: dict = {}
    for a in global_accesses(build_env(src, k)):
        cx = coefficient(a.index, "threadIdx.x") if a.index is not None and not a.is_write else None
        if cx and cx != {(): 1}:
            groups.setdefault((a.array, poly_text(cx)), []).append(a)
    for (array, stride), accs in groups.items():
        offsets = {poly_text(add(a.index, accs[0].index, -1)) for a in accs}
        if len(offsets) >= 3:
            return (f"{array} is read at {len(offsets)} points around the thread's own, but neighbouring threads read "
                    f"it {stride} elements apart (interleaved values, such as an image's channels): the tile stages "
                    "neighbours one element apart")
    return None


def stencil(src: SourceFile, k: Kernel) -> Stencil | Refusal:
    if k.body is None:
        return Refusal(k.name, "no body")
    body = src.node_text(k.body)
    one_d = "threadIdx.y" not in body  # a 1-D stencil: every neighbour along x, the tile one row of the block
    if one_d and neighbours_along_x(src, k) < 3:
        return Refusal(k.name, "no array is read at three or more neighbouring points of the thread's own",
                       not_this_shape=True)
    if "threadIdx.z" in body:
        return Refusal(k.name, "three dimensions of threads")
    for w in SIDE_EFFECTS:
        if w in body:
            return Refusal(k.name, f"the kernel does more than compute one point ({w.rstrip(':')} in its body)")
    for n in walk(k.body):
        if n.type in LOOPS:
            return Refusal(k.name, f"line {n.start_point[0] + 1}: a loop in the kernel")
    env = build_env(src, k)
    accs = [a for a in global_accesses(env, include_unknown=True)]
    stores = [a for a in accs if a.is_write]
    loads = [a for a in accs if not a.is_write]
    if not stores:
        return Refusal(k.name, "no store")
    store, extra = stores[-1], stores[:-1]
    bad = not_plain_store(src, stores)
    if bad is not None:
        return Refusal(k.name, f"line {bad.line}: the store is not a plain `=`")
    stmt = lambda a: a.node.parent.parent  # noqa: E731
    # several outputs of the same point (srad's four derivatives): stores into other arrays at the store's index,
    # statements of the same block as the last store, in a row before it
    more = []
    for a in reversed(extra):
        if a.array == store.array or a.index is None or a.index != store.index \
                or stmt(a).parent is None or stmt(a).parent.id != stmt(store).parent.id:
            break
        more.insert(0, a)
    extra = extra[:len(extra) - len(more)]
    if more and (extra or len({a.array for a in more} | {store.array}) != len(more) + 1):
        return Refusal(k.name, f"{len(stores)} stores: several outputs of one point, each array once, and nothing "
                               "else stored")
    for a in extra:  # a boundary copied as is: the same point, then `return` (one store on every path)
        if not copied_and_left(a, store):
            return Refusal(k.name, f"{len(stores)} stores (one point per thread is restaged: several only where "
                                   "each but the last stores the same point and returns, or where they store the "
                                   "same point of other arrays one after another)")
    by_array: dict[str, list[Access]] = {}
    for a in loads:
        if a.index is None:
            return Refusal(k.name, f"line {a.line}: an index the analysis cannot follow")
        by_array.setdefault(a.array, []).append(a)
    for out in [store] + more:
        if out.array in by_array:
            return Refusal(k.name, f"the kernel reads and writes {out.array}: an in-place stencil reads neighbours "
                                   "that other threads update, so staging them would change its result")
    best = None
    for array, group in by_array.items():
        first = group[0]
        if one_d:  # the offsets from the middle load (`in[i + R + off]` for off in -R..R reaches 2R from the first)
            at = sorted((d.get((), 0), n) for n, a in enumerate(group)
                        if is_const(d := add(a.index, first.index, -1)))
            first = group[at[len(at) // 2][1]] if at else first
        row = coefficient(first.index, "threadIdx.y") or {}
        if (not one_d and (not row or is_const(row, 1))) or coefficient(first.index, "threadIdx.x") != {(): 1}:
            continue
        pts, rest = [], []
        for a in group:
            if coefficient(a.index, "threadIdx.x") != {(): 1} or (coefficient(a.index, "threadIdx.y") or {}) != row:
                rest.append(a)
                continue
            off = _offset(add(a.index, first.index, -1), row)
            (pts if off is not None else rest).append((a, *off) if off is not None else a)
        if one_d and rest:  # (rows of a flat index, `idx - W`: the flat view's 2-D tile is the one to make)
            continue
        if len({(dx, dy) for _, dx, dy in pts}) >= 3 and (best is None or len(pts) > len(best[1])):
            best = (array, pts, rest)
    if best is None:
        return Refusal(k.name, "no array is read at three or more neighbouring points of the thread's own "
                               "(offsets along threadIdx.x and threadIdx.y)", not_this_shape=True)
    array, pts, rest = best
    others = rest + [a for arr, g in by_array.items() if arr != array for a in g]
    return Stencil(k.name, array, store, pts, others, extra, more)
