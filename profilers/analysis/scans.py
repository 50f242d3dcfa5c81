"""Block scans (prefix sums) in shared memory, in their public forms, recognised by running one block.

A block scan kernel is read as three parts of its top-level statements: a prologue that fills a
`__shared__` array S (one or two values per thread, a guard's 0, a shifted load for an exclusive scan,
a bank-conflict padding), the phase (from the first to the last statement holding a barrier: Hillis-Steele
steps over `offset *= 2`, double-buffered or in place, or Blelloch's up-sweep and down-sweep), and an
epilogue that reads S (stores, the input added back, the block's total). Rather than matching each
spelling, `block_scan` runs the block (blocksim.py, the launch's block size, the spec's sizes) and checks
what the phase did: S after it holds the inclusive or exclusive prefix sums of the values S held before
it, at the same positions (in place) or at a fixed distance (the other buffer). What the rewrite needs
comes from the same run: the positions (`p + (p >> shift) + offset`), the block's total where the phase
stores it, and the phase's counters the epilogue still reads (`pout`) with their final values.

Near misses are `Refusal`s with a reason: an operator that is not a sum, a race (a read of an element
another thread wrote in the same step), an index or branch from loaded data, values not one run of S.
`add_prefix` recognises the other half of a multi-block scan: a kernel adding one loaded value (the sum
of the blocks before) to each output of the block.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .blocksim import Block, Data, Race, SharedRef, Unsupported, plain_type, val
from .refusal import Refusal
from ..source import Kernel, SourceFile, walk

DOUBLING = ("*=2", "<<=1", ">>=1", "/=2")


@dataclass
class BlockScan:
    kernel: str
    array: str  # the shared array scanned
    elem: str  # its element type
    inclusive: bool  # of what S holds before the phase
    block: int  # the threads of the launch's block
    elements: int  # values scanned per block
    form: str  # "Hillis-Steele" or "work-efficient (up-sweep and down-sweep)"
    shift: int  # value p sits at S[p + (p >> shift) + offset] (shift 0: no padding)
    offset: int
    out_offset: int  # its prefix at that position + out_offset
    phase: tuple  # (first, last) top-level statement indices of the phase
    total: object | None = field(default=None, repr=False)  # the store of the block's total in the phase
    total_thread: int = 0
    total_to: str | None = None  # where the block's total goes: `sums[blockIdx.x]`
    finals: dict = field(default_factory=dict)  # name -> (value after the phase, declared in the phase)
    phase_lines: tuple = (0, 0)  # the phase's first and last line
    # what the kernel leaves in global memory, run for block 0: (output array, input array, inclusive) where every
    # output it stores is the inclusive (or every one the exclusive) prefix sum of the one input array it loads
    output: tuple | None = None


@dataclass
class AddPrefix:
    kernel: str
    array: str  # the outputs each get ...
    sums: str  # ... one value of this array added (the blocks before)


def _sq(src: SourceFile, n) -> str:
    return "".join(src.node_text(n).split())


def has_barrier(src: SourceFile, n) -> bool:
    return any(x.type == "call_expression" and _sq(src, x.child_by_field_name("function")) in
               ("__syncthreads", "block.sync", "cg::sync") for x in walk(n))


def statements(k: Kernel) -> list:
    return [c for c in k.body.named_children if c.type != "comment"]


def _steps_by_powers(src: SourceFile, stmts) -> bool:
    """A loop among stmts whose counter doubles or halves, with a barrier inside."""
    for s in stmts:
        for n in walk(s):
            if n.type in ("for_statement", "while_statement") and has_barrier(src, n):
                txt = _sq(src, n)
                if any(d in txt for d in DOUBLING) or "=2*" in txt or "*2;" in txt or "*2)" in txt:
                    return True
    return False


def shared_and_pointers(src: SourceFile, k: Kernel) -> set[str]:
    """The kernel's shared arrays and the local pointers to them (`float *src = ping;`, `float *t = src;`), through
    which a phase reads and writes them."""
    shared = _shared_names(src, k)
    for _ in range(3):
        shared |= {src.node_text(d.child_by_field_name("declarator").child_by_field_name("declarator"))
                   for d in walk(k.body) if d.type == "init_declarator"
                   and d.child_by_field_name("declarator").type == "pointer_declarator"
                   and src.node_text(d.child_by_field_name("value")).strip() in shared}
    return shared


def _shared_names(src: SourceFile, k: Kernel) -> set[str]:
    out = set()
    for d in walk(k.body):
        if d.type == "declaration" and "__shared__" in src.node_text(d):
            for x in walk(d):
                if x.type == "identifier" and x.parent is not None and x.parent.type in (
                        "array_declarator", "init_declarator", "declaration"):
                    out.add(src.node_text(x))
    return out


def _base(n):
    while n.type == "subscript_expression":
        n = n.child_by_field_name("argument")
    return n


def _fit(lin: list[int]) -> tuple[int, int] | None:
    for shift in range(0, 9):
        off = lin[0]
        if all(q == p + ((p >> shift) if shift else 0) + off for p, q in enumerate(lin)):
            return shift, off
    return None


def _names(src: SourceFile, nodes) -> set[str]:
    return {src.node_text(x) for s in nodes for x in walk(s) if x.type == "identifier"}


def block_scan(src: SourceFile, k: Kernel, block: int, scalars: dict, grid: int = 1) -> BlockScan | Refusal:
    if k.body is None:
        return Refusal(k.name, "no body", not_this_shape=True)
    if "__shared__" not in src.node_text(k.body):
        return Refusal(k.name, "no shared memory", not_this_shape=True)
    stmts = statements(k)
    with_sync = [i for i, s in enumerate(stmts) if has_barrier(src, s)]
    if not with_sync or not _steps_by_powers(src, stmts[with_sync[0]:with_sync[-1] + 1]):
        return Refusal(k.name, "no loop of barriers stepping by powers of two", not_this_shape=True)
    i0, i1 = with_sync[0], with_sync[-1]
    shared = shared_and_pointers(src, k)
    local = {src.node_text(x.child_by_field_name("declarator")) for s in stmts[i0:i1 + 1] for x in walk(s)
             if x.type == "init_declarator"}

    def below(n):  # S[tid - d], S[d * (2 * tid + 1) - 1], S[j] with j set in the phase
        idx = src.node_text(n)[len(src.node_text(n.child_by_field_name("argument"))):].strip()[1:-1].strip()
        return "-" in idx or idx in local
    if not any(n.type == "subscript_expression" and src.node_text(_base(n)) in shared and below(n)
               for s in stmts[i0:i1 + 1] for n in walk(s)):
        return Refusal(k.name, "no shared element read at a distance below another (a tree, not a scan)",
                       not_this_shape=True)
    for s in stmts[i0:i1 + 1]:
        if s.type in ("for_statement", "while_statement", "do_statement") and any(
                x.type in ("for_statement", "while_statement") and x != s and has_barrier(src, x) for x in walk(s)):
            return Refusal(k.name, f"line {s.start_point[0] + 1}: the scan steps sit inside another loop (chunks "
                                   "scanned one after another with a carry): not a block scan the rewrite takes")
    try:
        sim = Block(src, k, block, scalars, grid)
        snaps = sim.run(marks={i0, i1 + 1})
    except Race as e:
        return Refusal(k.name, f"a race in the shared-memory phase: {e}")
    except (Unsupported, ArithmeticError, TypeError, ValueError, RecursionError) as e:
        why = str(e)
        if "loaded data" in why:
            return Refusal(k.name, f"data-dependent steps: {why}")
        return Refusal(k.name, f"the block's shared-memory phase could not be followed ({why})")
    (_, loc_in, s_in), (_, loc_out, s_out) = snaps[0], snaps[1]
    phase_ops = {op for st, op in sim.data_ops if st == 1}
    bad_ops = sorted(op for op in phase_ops if op not in ("+",))
    found = None
    for name in sim.shared:
        a, b = s_in[name], s_out[name]
        if a == b:
            continue
        lin = sorted(p for p, v in a.items() if v is not None)
        if len(lin) < 2:
            continue
        vals = [val(a[p]) for p in lin]
        incl, run = [], 0
        for v in vals:
            run += v
            incl.append(run)
        excl = [0] + incl[:-1]
        for inclusive, want in ((True, incl), (False, excl)):
            offs = {q - lin[-1] for q, v in b.items() if v is not None and val(v) == want[-1]}
            for off in sorted(offs, key=abs):
                if all(b.get(p + off) is not None and val(b[p + off]) == w for p, w in zip(lin, want)):
                    found = (name, lin, inclusive, off, incl[-1])
                    break
            if found:
                break
        if found:
            break
    if found is None:
        moved = _prefixes_elsewhere(sim, s_in, s_out)
        if moved:
            return Refusal(k.name, f"the prefixes end in `{moved[1]}`, another shared array than the values' "
                                   f"`{moved[0]}` (an odd number of swapped steps, say): the rewrite leaves them "
                                   "where the values were")
        if bad_ops:
            return Refusal(k.name, f"the phase combines values by {', '.join(f'`{o}`' for o in bad_ops)}: not a "
                                   "sum (only associative sums are rewritten)")
        return Refusal(k.name, "the shared-memory phase does not leave the prefix sums (inclusive or exclusive) of "
                               "the values the prologue stored", not_this_shape=True)
    if bad_ops:
        return Refusal(k.name, f"the phase also combines values by {', '.join(f'`{o}`' for o in bad_ops)}")
    name, lin, inclusive, out_off, total = found
    fit = _fit(lin)
    if fit is None:
        return Refusal(k.name, f"the values in {name} are not one run (padded by a shift at most): positions "
                               f"{lin[:6]}...")
    outs = {p + out_off for p in lin}
    for st, arr, f in sim.shared_reads:
        if st < 2:
            continue
        if arr == name and f not in outs and s_out[name].get(f) != s_in[name].get(f):
            return Refusal(k.name, f"after the phase, {name}[{f}] is read: not a prefix sum, an intermediate value")
        if arr != name and s_out[arr] != s_in[arr]:
            return Refusal(k.name, f"the phase also changes `{arr}`, which is read after it")
    phase_stores = [x for x in sim.stores if x[4] == 1]
    tot, tthread, tto = None, 0, None
    for arr, idx, v, thread, _, node in phase_stores:
        if val(v) != total or (tot is not None and _sq(src, node) != _sq(src, tot)):
            return Refusal(k.name, f"line {node.start_point[0] + 1}: the phase stores `{src.node_text(node)}`, which "
                                   "is not the block's total")
        tot, tthread, tto = node, thread, src.node_text(node)
    if tot is None:  # the total stored after the phase: the one store of its array
        for arr, idx, v, thread, st, node in sim.stores:
            if st == 2 and val(v) == total and sum(1 for x in sim.stores if x[0] == arr and x[4] == 2) == 1:
                tto = src.node_text(node)
    used = _names(src, stmts[i1 + 1:])
    finals = {}
    declared_in_phase = set()
    for s in stmts[i0:i1 + 1]:
        if s.type == "declaration":
            for d in s.children_by_field_name("declarator"):
                nm = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
                while nm is not None and nm.type == "pointer_declarator":  # `float *src = ping;`
                    nm = nm.child_by_field_name("declarator")
                declared_in_phase.add(src.node_text(nm))
    for nm in sorted(used):
        before = [l.get(nm, "absent") for l in loc_in]
        after = [l.get(nm, "absent") for l in loc_out]
        if before == after and nm not in declared_in_phase:
            continue
        if any(isinstance(v, Data) or not isinstance(v, (int, SharedRef)) for v in after) or len(set(after)) != 1:
            return Refusal(k.name, f"`{nm}`, changed by the phase, is read after it and differs between threads")
        finals[nm] = (after[0], nm in declared_in_phase)
    loops = sum(1 for s in stmts[i0:i1 + 1] for n in walk(s)
                if n.type in ("for_statement", "while_statement") and has_barrier(src, n))
    form = "work-efficient (up-sweep and down-sweep)" if loops >= 2 else "Hillis-Steele"
    elem = plain_type(sim.elem[name])
    return BlockScan(k.name, name, elem, inclusive, block, len(lin), form, fit[0], fit[1], out_off, (i0, i1), tot,
                     tthread, tto, finals, (stmts[i0].start_point[0] + 1, stmts[i1].end_point[0] + 1),
                     _output_kind(sim, k, tto))


def _prefixes_elsewhere(sim: Block, s_in: dict, s_out: dict) -> tuple | None:
    """(values' array, prefixes' array) where the phase leaves the inclusive or exclusive prefix sums of one shared
    array's stored values in another, at the same positions; None otherwise."""
    for x in sim.shared:
        lin = sorted(p for p, v in s_in[x].items() if v is not None)
        if len(lin) < 2:
            continue
        run, incl = 0, []
        for p in lin:
            run += val(s_in[x][p])
            incl.append(run)
        for y in sim.shared:
            if y != x and any(all(s_out[y].get(p) is not None and val(s_out[y][p]) == w for p, w in zip(lin, want))
                              for want in (incl, [0] + incl[:-1])):
                return x, y
    return None


def _output_kind(sim: Block, k: Kernel, total_to: str | None) -> tuple | None:
    """(output, input, inclusive) when block 0's stores of one pointer parameter (the block's total aside) are each
    the inclusive, or each the exclusive, prefix sum of what it loaded from one other: the block's part of a
    device-wide scan (a prologue adding the input back to an exclusive phase included). None otherwise."""
    total = total_to.split("[")[0].strip() if total_to else None
    ins = {a for a, _ in sim.loads if k.param(a) is not None}
    outs = [(a, i, v) for a, i, v, _t, st, _n in sim.stores if st == 2 and a != total and k.param(a) is not None]
    if len(ins) != 1 or not outs or len({a for a, _, _ in outs}) != 1:
        return None
    a_in = next(iter(ins))
    vals = {j: val(v) for (a, j), v in sim.loads.items() if a == a_in and isinstance(j, int)}
    kinds = set()
    for _a, i, v in outs:
        if not isinstance(i, int) or any(j not in vals for j in range(i + 1)):
            return None
        inc = sum(vals[j] for j in range(i + 1))
        kinds.add(True if val(v) == inc else False if val(v) == inc - vals[i] else None)
    if len(kinds) != 1 or None in kinds:
        return None
    return outs[0][0], a_in, kinds.pop()


def add_prefix(src: SourceFile, k: Kernel, block: int, scalars: dict, grid: int = 3) -> AddPrefix | Refusal:
    """A kernel whose every store is out[j] = out[j] + s, one loaded value s of another array for the block."""
    if k.body is None or "__shared__" in src.node_text(k.body) or "+" not in src.node_text(k.body):
        return Refusal(k.name, "not an add", not_this_shape=True)
    # an add-the-prefix pass does a few elements per thread: a loop over a row or column is another shape
    try:
        sim = Block(src, k, min(block, 64), scalars, max(grid, 3), bid=2, max_steps=64 * 16)
        sim.run()
    except (Race, Unsupported, ArithmeticError, TypeError, ValueError, RecursionError) as e:
        return Refusal(k.name, str(e), not_this_shape=True)
    if not sim.stores:
        return Refusal(k.name, "no stores", not_this_shape=True)
    added = set()
    for arr, idx, v, _, _, _ in sim.stores:
        old = sim.loads.get((arr, idx))
        if old is None or not isinstance(v, Data):
            return Refusal(k.name, "a store that is not an update", not_this_shape=True)
        src_of = [key for key, d in sim.loads.items() if key[0] != arr and d.v == v.v - old.v]
        if len(src_of) != 1:
            return Refusal(k.name, "a store that does not add one loaded value", not_this_shape=True)
        added.add((arr, src_of[0]))
    if len(added) != 1:
        return Refusal(k.name, "the block's stores add different values", not_this_shape=True)
    (arr, (sums, _)), = added
    return AddPrefix(k.name, arr, sums)
