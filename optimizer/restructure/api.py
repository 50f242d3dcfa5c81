"""The structural transforms as plans: what to rewrite, and a space of numeric knobs.

A Plan is one structural change (a team per row, packed element-wise, a split column
reduction) with a builder `build(knobs) -> Candidate` and its knob settings ordered by a small
performance model (best guess first). The proposer offers the first setting as a tree child;
the search tunes the others inside that node (optimizer/tuning.py), never as children.

Where a rewrite is only valid if pointer parameters do not overlap, the plan adds
`__restrict__` to them and says so (a plan never silently assumes it).
"""
from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass, field, replace
from typing import Callable

from kernelpro.profilers.analysis.patterns import RowKernel, column_loop, column_walk_refusal, is_elementwise, row_kernel, row_major_loops
from kernelpro.profilers.analysis.atomics import uniform_atomics
from kernelpro.profilers.analysis.blocktree import block_reduction
from kernelpro.profilers.analysis.contraction import Axis, parts_count
from kernelpro.profilers.analysis.copies import copy_kernel, row_loop
from kernelpro.profilers.analysis.digits import FlatIndex, flat_index
from kernelpro.profilers.analysis.histogram import histogram
from kernelpro.profilers.analysis.loops import LOOPS, analyze_kernel, unparen, writes_in
from kernelpro.profilers.analysis.refusal import Refusal as KernelRefusal
from kernelpro.profilers.analysis.scans import add_prefix, block_scan
from kernelpro.profilers.analysis.stencils import interleaved, neighbours_along_x, stencil as find_stencil
from kernelpro.profilers.analysis.planes import plane_loop, stencil3
from kernelpro.profilers.analysis.prefix import prefix_sum, row_scan
from kernelpro.profilers.analysis.patterns import accesses_in
from kernelpro.profilers.analysis.types import table_for
from kernelpro.profilers.source import SourceFile, chosen_instantiation, parse_source, walk

from ..model import Candidate
from . import (aggregate, blocktree, columns, deteam, dewarp, elementwise, flags, flat2d, flatview, gather, gemmlib, rowscan,
               hostcall, march, matmul, permute, rows, scan, stencil, taps, virtual)
from . import histogram as private_bins
from .launch import add_attribute, columns_host, cover, fit_launch_bounds, launch_sites, rewrite_launches, rows_host
from .passes import (row_pointers_inlined, ascending_sum_loops, countdown_loops, split_serial_tail, break_to_bound, clamped_neighbours, comma_steps_into_body, counter_into_header,
                     declare_at_first_assignment, flatten_array_params, merge_sum_loops, scalar_vector_dots, fold_reassignments,
                     index_pointer_steps, inline_loop_helpers, lower_guard_to_stores, name_compound_guards, name_thread_indices,
                     plain_memory_intrinsics,
                     plain_rn_arithmetic, promote_elements, remainder_by_subtraction, canonical_digits, join_parallel_sums, return_after_loop_to_if, branch_selects_to_max, ternary_min_max, instantiate_template_calls, rename_reassigned_pointers,
                     join_split_sums, reroll_loops, simplify, split_lower_guards, static_shared_regions, sums_into_locals,
                     unshare_preloads, while_to_for, else_to_return,
                     hoist_invariant_guards, accumulating_calls, drop_bumped_unrolled_loop,
                     group_indices, merge_branch_stores)
from kernelpro.profilers.analysis.spelling import line_map, plain_form
from .text import NotThisShape, Refuse, in_terms_of, leaving_jump, leaving_jumps, lines_as_written, span_text
from .unstage import unstage
from .warptail import warp_tail_tree

SUM_OP = "sum"
TREE_OPS = {"+": SUM_OP, "max": "max", "min": "min"}  # a shared-memory tree's step -> the reduction

SMS = 132  # H200 streaming multiprocessors (the search targets sm_90)
BLOCKS = (128, 256, 512, 1024)


@dataclass
class Plan:
    name: str  # row-warp, row-block, elementwise, column
    description: str
    answers: tuple[str, ...]
    space: list[dict]  # knob settings, the model's best guess first
    build: Callable[[dict], Candidate]
    prior: float = 0.6
    notes: tuple[str, ...] = ()
    refused: dict = field(default_factory=dict)  # knob setting (as text) -> why it failed to build
    family: str = ""  # the plans function that made it (`permute` for transpose-tile): its reasons' prefix
    heads: list = field(default_factory=list)  # settings that are each size's own likely best (per_size_order): tuned first


@dataclass
class Context:
    """What the plans need to know besides the source: launch, sizes, architecture."""
    kernel: str
    path: str
    launch: dict  # effective launch {"grid": [...], "block": [...]}
    base_launch: dict | None
    size_env: dict  # size name -> {name: value} for spec variables and scalar kernel params
    arch: str = "sm_90"
    answers_present: tuple[str, ...] = ()  # rule ids the node's advice raises
    flags: tuple[str, ...] = ()
    scalar_params: dict = field(default_factory=dict)  # kernel scalar parameter -> its spec value expression
    tolerance: tuple | None = None  # the spec's (rtol, atol): whether TF32's error is admitted
    original: str | None = None  # the file as written (plans() sets it): a host launcher keeps the kernel as is
    steps: tuple = ()  # the spec's kernel launches in order: (kernel, (argument expressions, ...)), a chain's passes
    template: tuple = ()  # the spec's `template = [...]`: the instantiation that runs, where the file has several


def _arch_num(arch: str) -> int:
    digits = "".join(ch for ch in arch if ch.isdigit())
    return int(digits) if digits else 0


def _eval(expr: str, env: dict) -> float | None:
    """A C or spec expression of names, numbers, + - * / % and cdiv; None when unknown."""
    e = expr.replace("(size_t)", "").replace("(long long)", "").replace("(int)", "").replace("(unsigned)", "")
    try:
        tree = ast.parse(e.replace("/", "//"), mode="eval")
    except SyntaxError:
        return None
    allowed = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Load, ast.Add, ast.Sub, ast.Mult,
               ast.FloorDiv, ast.Mod, ast.USub, ast.UAdd, ast.Call)
    for n in ast.walk(tree):
        if not isinstance(n, allowed):
            return None
        if isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name) and n.func.id in ("cdiv", "min", "max")):
            return None
        if isinstance(n, ast.Name) and n.id not in env and n.id not in ("cdiv", "min", "max"):
            return None
    try:
        return eval(compile(tree, "<expr>", "eval"), {"__builtins__": {}},
                    {**env, "cdiv": lambda a, b: -(-a // b), "min": min, "max": max})
    except Exception:
        return None


def _largest(ctx: Context, expr: str) -> float | None:
    vals = [_eval(expr, env) for env in ctx.size_env.values()]
    vals = [v for v in vals if v is not None]
    return max(vals) if vals else None


def _size_points(ctx: Context, exprs: list[str]) -> list[tuple]:
    """The exprs' values at each size of the spec, the largest product first, each point once (None where an
    expression has no value there)."""
    pts = []
    for env in ctx.size_env.values():
        pt = tuple(_eval(e, env) for e in exprs)
        if pt not in pts:
            pts.append(pt)
    return sorted(pts, key=lambda pt: -math.prod(v or 1 for v in pt)) or [tuple(None for _ in exprs)]


def per_size_order(spaces: list[list[dict]]) -> list[dict]:
    """Knob settings ordered for several sizes at once: each size's likely best in turn (the largest size's
    first), then each one's second, and so on, every setting once, so that a search that tries the first few
    settings has a candidate for each size (the per-size dispatch keeps each size's fastest)."""
    out, seen = [], set()
    for rank in range(max((len(sp) for sp in spaces), default=0)):
        for sp in spaces:
            if rank < len(sp) and (key := tuple(sorted(sp[rank].items()))) not in seen:
                seen.add(key)
                out.append(sp[rank])
    return out


def per_size_heads(spaces: list[list[dict]], space: list[dict]) -> list[dict]:
    """The settings per_size_order puts first as some size's own likely best that the (filtered) space still holds."""
    out = []
    for sp in spaces:
        if sp and sp[0] in space and sp[0] not in out:
            out.append(sp[0])
    return out


def _pow2(x: float, lo: int, hi: int) -> int:
    p = 1 << max(0, math.ceil(math.log2(max(1.0, x))))
    return max(lo, min(hi, p))


def _old_block(ctx: Context) -> int | None:
    b = ctx.launch.get("block") or []
    try:
        vals = [int(v) for v in b]
    except (TypeError, ValueError):
        return None
    if not vals or any(v != 1 for v in vals[1:]):
        return None
    return vals[0]


def _launch_1d(ctx: Context) -> tuple[int, list]:
    """The old launch's block size and grid, or Refuse when they are not known (1-D)."""
    old_block, grid = _old_block(ctx), list(ctx.launch.get("grid") or [])
    if old_block is None or not grid:
        raise Refuse("the launch (1-D block and grid) is not known")
    return old_block, grid


def _elem_bytes(src: SourceFile, rk: RowKernel, arrays) -> int:
    types = table_for(src)
    sizes = []
    for a in arrays:
        p = rk.kernel.param(a)
        b = types.bytes(p.base_type) if p is not None else None
        if b:
            sizes.append(b)
    return max(sizes) if sizes else 4


def add_restrict(text: str, kernel: str) -> tuple[str, list[str]]:
    """Every pointer parameter of the kernel made __restrict__ (const where only read)."""
    from ..transforms import _restrict, TransformInput
    cands = _restrict(TransformInput(source=text, kernel=kernel))
    if not cands:
        return text, []
    src = parse_source(text)
    k = src.kernel(kernel)
    return cands[0].source, [p.name for p in k.params if p.is_pointer and not p.is_restrict]


def _host(text: str, path: str, kernel: str, make) -> tuple[str, list[str]]:
    src = parse_source(text, path)
    subs, notes = rewrite_launches(src, kernel, make)
    return (span_text(src, 0, len(src.data), subs) if subs else text), notes


# ---------------------------------------------------------------- a team per row


def _row_source(text: str, ctx: Context) -> tuple[str, RowKernel, SourceFile, list[str], list[str]]:
    """(text after passes, its RowKernel, its SourceFile, passes done, restrict-added pointers).

    The plain source is used when it can be restructured and restrict enables no more passes;
    otherwise the source with __restrict__ added (said in the description)."""
    plain, done = simplify(text, ctx.path, ctx.kernel)
    src = parse_source(plain, ctx.path)
    rk = row_kernel(src, src.kernel(ctx.kernel))
    r = _restricted_rows(text, ctx)
    if r is not None and (rk is None or not rk.ok or not rk.spread or len(r[3]) > len(done)):
        return r
    if rk is None:
        raise Refuse("no thread-per-row index (blockIdx.x * blockDim.x + threadIdx.x)")
    if not rk.ok:
        raise Refuse("; ".join(rk.reasons))
    return plain, rk, src, done, []


def _restricted_rows(text: str, ctx: Context):
    """_row_source's tuple for the source with __restrict__ added, None where that adds nothing or
    gives no row to restructure."""
    rtext, rnames = add_restrict(text, ctx.kernel)
    if not rnames:
        return None
    rplain, rdone = simplify(rtext, ctx.path, ctx.kernel)
    rsrc = parse_source(rplain, ctx.path)
    rrk = row_kernel(rsrc, rsrc.kernel(ctx.kernel))
    if rrk is None or not rrk.ok or not rrk.spread:
        return None
    return rplain, rrk, rsrc, rdone, rnames


def _spread_lines(text: str, ctx: Context, rk0: RowKernel, k0, final: RowKernel) -> list[int]:
    """The lines, as written, of the loops a team spreads: every top-level loop when the passes
    left none serial (they move lines: fused, split, held elements), else those spread in the
    kernel as written or with __restrict__ added (the same lines)."""
    top = [lp.line for lp in k0.loops if lp.depth == 0]
    if all(rl.kind == "spread" for rl in final.loops):
        return top
    for rk in (rk0, _restricted_rk(text, ctx)):
        if rk is not None and rk.ok and rk.spread:
            return [rl.info.node.start_point[0] + 1 for rl in rk.spread]
    return top


def _restricted_rk(text: str, ctx: Context) -> RowKernel | None:
    rtext, rnames = add_restrict(text, ctx.kernel)
    if not rnames:
        return None
    src = parse_source(rtext, ctx.path)
    return row_kernel(src, src.kernel(ctx.kernel))


def _rows_deteamed(text: str, ctx: Context) -> tuple[str, int, list[int]] | None:
    """A block per row (deteam.deteam_rows) or a warp per row (dewarp.dewarp_rows) as one thread per
    row, where every tree or shuffle combines as the lifted loop reduces: (source, rows each block of
    the old launch ran, the lines of the loops the team strode); None where that is not the shape."""
    src = parse_source(text, ctx.path)
    k = src.kernel(ctx.kernel)
    grid = list(ctx.launch.get("grid") or [])
    if k is None or not grid or k.body is None or "blockIdx.x" not in src.node_text(k.body):
        return None
    shared = "__shared__" in src.node_text(k.body)
    what = "a block per row with shared-memory trees" if shared else "a block per row"
    per_block, lines, block = 1, [], _old_block(ctx)
    try:
        canon, trees = deteam.deteam_rows(src, k, _outputs_param(ctx, grid[0]), block, lines)
    except NotThisShape:
        try:
            lines.clear()
            canon, trees, strided = dewarp.dewarp_rows(src, k, lines)
            what = "a warp per row with shuffles"
            if not strided and (block is None or block % 32):
                raise Refuse("the launch's block is not a whole number of warps") from None
            per_block = 1 if strided else block // 32
        except NotThisShape:
            return None
        except Refuse as e:
            raise Refuse(f"a warp per row with shuffles, but {e}") from None
    except Refuse as e:
        if not shared:  # most kernels that name blockIdx.x alone are other shapes: no word
            return None
        raise Refuse(f"{what}, but {e}") from None
    s2 = parse_source(canon, ctx.path)
    k2 = s2.kernel(ctx.kernel)
    if k2 is None or row_kernel(s2, k2) is None:
        raise Refuse(f"{what}, but the lifted kernel has no row index")
    kl = analyze_kernel(s2, k2)
    ops = {(r.var, r.op) for lp in k2.loops if (info := kl.at(lp.node)) is not None for r in info.reductions}
    for acc, op in trees:
        if (acc, TREE_OPS[op]) not in ops:
            raise Refuse(f"{what}, but the {'shuffles' if 'warp' in what else 'tree'} over `{acc}` ({op}) do"
                         f"{'' if 'warp' in what else 'es'} not combine as its loop accumulates")
    return canon, per_block, lines


def row_plans(text: str, ctx: Context) -> list[Plan]:
    got = _rows_deteamed(text, ctx)
    lifted = per_old = None
    if got is not None:  # per_old rows per block before: the rows are the grid's x times that
        lifted, per_old, team_lines = got
        text = lifted
        ctx = replace(ctx, launch={**ctx.launch, "block": [per_old]})
    src0 = parse_source(text, ctx.path)
    k0 = src0.kernel(ctx.kernel)
    rk0 = row_kernel(src0, k0) if k0 is not None else None
    if rk0 is None or (rk0.ok and not rk0.spread) or (rk0.ok and column_loop(rk0) is not None):
        return []
    base, rk, src, done, restricted = _row_source(text, ctx)
    if column_loop(rk) is not None:
        return []  # a column sum once held in a register: the column split's
    walks = row_major_loops(rk)
    if not walks:
        raise Refuse("no loop walks a row with stride 1 (a thread-per-column shape: see the column split)")
    old_block, grid = _launch_1d(ctx)
    arrays = {a.array for rl in rk.spread for a in rl.info.accesses}
    elem = _elem_bytes(src, rk, arrays)
    vmax = max(1, min(8, 16 // elem))
    bound = next((rl.info.bound for rl in walks if rl.info.bound is not None), None)
    length = _largest(ctx, src.node_text(bound)) if bound is not None else None
    short = _short_rows(ctx, src, walks)
    if short is not None:
        raise Refuse(f"the rows are {short} elements at most at the spec's sizes: a warp or a block per row would "
                     "leave most of its lanes idle")
    # rows too long for the rows in flight to stay in L2: several packed steps' loads in flight
    # per thread, and a row read by several passes kept in shared memory
    long_row = vmax > 1 and length is not None and length * elem >= LONG_ROW_BYTES
    if long_row and not restricted and rows.row_cache(src, rk) is None:
        # a long row that several passes read, kept in shared memory only if the outputs cannot
        # overlap it: with __restrict__ added (and said), where that makes it possible
        r = _restricted_rows(text, ctx)
        if r is not None and rows.row_cache(r[2], r[1]) is not None:
            _, rk, src, done, restricted = r
    nrows = _largest(ctx, _grid_for(ctx, src, rk, grid, old_block, 1))
    # the loops as the text before the lift numbers them (the lift rewrote every line of the kernel)
    lines0 = team_lines if lifted is not None and team_lines else _spread_lines(text, ctx, rk0, k0, rk)
    passes = "; ".join(dict.fromkeys(done))
    assumptions = (f"assumes {', '.join(restricted)} never overlap (adds __restrict__)",) if restricted else ()
    answers = tuple(r for r in ("uncoalesced-access",) if r in ctx.answers_present)
    cache_bytes = _cache_bytes(ctx, src, rk, elem) if long_row else None  # the launch's, for the block team
    follow = _follow_row(ctx, src.node_text(bound), vmax) if bound is not None and not long_row else None
    plans = []
    for kind in ("warp", "block"):
        if kind == "warp":
            space = [{"block": 256, "vec": vmax}, {"block": 128, "vec": vmax}, {"block": 512, "vec": vmax}]
            if vmax > 1:
                space.append({"block": 256, "vec": max(1, vmax // 2)})
            if length is not None and length < 32 * vmax:
                space.sort(key=lambda s: s["vec"])
            if rk.form == "none":
                space = [s for s in space if old_block % (s["block"] // 32) == 0]
        else:
            tb = _pow2((length or 4096) / vmax / 4, 128, 1024)
            u = 4 if long_row else 1
            space = [{"block": tb, "vec": vmax, "unroll": u}]
            for alt in (tb * 2, tb // 2):
                if 128 <= alt <= 1024:
                    space.append({"block": alt, "vec": vmax, "unroll": u})
            if u > 1:  # fewer threads with more loads in flight each: the same bytes in flight
                space += [{"block": tb, "vec": vmax, "unroll": 2 * u}]
                if tb // 2 >= 128:
                    space += [{"block": tb // 2, "vec": vmax, "unroll": 2 * u}]
                space.append({"block": tb, "vec": vmax, "unroll": 1})
            if vmax > 1:
                space.append({"block": tb, "vec": max(1, vmax // 2), "unroll": 1})
            if cache_bytes is not None:  # the first guess, and its neighbours with the cache
                space[:0] = [{"block": tb, "vec": vmax, "unroll": u, "cache": 1}] + \
                    [{"block": b, "vec": vmax, "unroll": uu, "cache": 1}
                     for b, uu in ((tb // 2, u), (tb, 2 * u)) if b >= 128]
            elif follow is not None:  # rows of other lengths at other sizes: threads that follow the row
                space[:0] = [{"block": 0, "per": k, "vec": vmax, "unroll": 1} for k in (4, 2, 8)]
        if not space:
            continue
        prior = _row_prior(kind, length, nrows, vmax)

        def build(knobs, kind=kind):
            team = rows.Team(kind, int(knobs["vec"]), int(knobs.get("unroll", 1)), bool(knobs.get("cache", 0)))
            new = rows.team_rows(src, rk, team)
            tb = int(knobs["block"])
            per_block = tb // 32 if kind == "warp" else 1
            # the file's launches of a lifted block per row ran one row per block: rows = their grid
            if tb == 0:  # the block team's threads follow the row (_follow_row)
                per = team.vec * int(knobs["per"])
                threads = _team_threads(follow, per)
                maker = rows_host(1, None, src.node_text(bound), per, rows_from_grid=per_old == 1)
            else:
                threads, maker = tb, rows_host(per_block, tb, rows_from_grid=per_old == 1)
            new, notes = _host(new, ctx.path, ctx.kernel, maker)
            launch = dict(ctx.base_launch or {})
            launch.update(block=[threads], grid=[_grid_for(ctx, src, rk, grid, old_block, per_block)] + grid[1:])
            if team.cache:
                launch["shared_bytes"] = rows.dynamic_row_bytes(cache_bytes, parse_source(new, ctx.path), ctx.kernel)
                notes = tuple(notes) + _cache_notes(parse_source(new, ctx.path), ctx.kernel, launch["shared_bytes"])
            desc = rows.describe(rk, team).replace(
                f"on line {', '.join(str(rl.info.node.start_point[0] + 1) for rl in rk.spread)}",
                f"on line {', '.join(map(str, lines0))}")
            if tb:
                desc += f", {tb} threads per block"
            else:
                at = ", ".join(f"{int(_eval(threads, env))} at {size}" for size, env in ctx.size_env.items())
                desc += f", {src.node_text(bound)} / {per} threads per block in whole warps ({at})"
            if passes:
                desc = f"{passes}; " + desc
            if restricted:
                desc = f"add __restrict__ to {', '.join(restricted)}; " + desc
            return Candidate(source=new, launch=launch, flags=ctx.flags, description=desc, answers=answers,
                             origin=f"builtin:row-{kind}", kind="structural",
                             knobs=tuple(sorted(knobs.items())), notes=assumptions + tuple(notes))
        plans.append(Plan(f"row-{kind}", f"a {kind} per row", answers, space, build, prior, assumptions))
    return plans


def rowscan_plans(text: str, ctx: Context) -> list[Plan]:
    """A thread per row keeping a running sum along it (cumsum along the last dimension): a warp per row, the row
    scanned 32 elements a step with shuffles (rowscan.py)."""
    src = parse_source(text, ctx.path)
    k = src.kernel(ctx.kernel)
    if k is None or k.body is None:
        return []
    rs = row_scan(src, k)
    if isinstance(rs, KernelRefusal):
        if rs.not_this_shape:
            return []
        raise Refuse(rs.reason)
    old_block, grid = _launch_1d(ctx)
    length = _largest(ctx, rs.end)
    if length is not None and length < 32:
        raise Refuse(f"the rows are {length} elements at most at the spec's sizes: a warp per row would leave most "
                     "of its lanes idle")
    answers = tuple(r for r in ("uncoalesced-access",) if r in ctx.answers_present)

    def build(knobs):
        tb = int(knobs["block"])
        new = rowscan.warp_rows(src, rs)
        new, notes = _host(new, ctx.path, ctx.kernel, rows_host(tb // 32, tb))
        launch = dict(ctx.base_launch or {})
        launch.update(block=[tb], grid=[_grid_for(ctx, src, rs.rk, grid, old_block, tb // 32)] + grid[1:])
        desc = (f"line {rs.line}: the running sum `{rs.acc}` along each row, one thread per row, becomes a warp per "
                f"row: 32 elements a step, a shuffle scan, the step's total carried; {tb} threads per block")
        return Candidate(source=new, launch=launch, flags=ctx.flags, description=desc, answers=answers,
                         origin="builtin:row-scan", kind="structural", knobs=tuple(sorted(knobs.items())),
                         notes=tuple(notes))
    space = [{"block": 256}, {"block": 128}, {"block": 512}]
    return [Plan("row-scan", "a warp per row scans it", answers, space, build, 0.8)]


MAX_DYNAMIC_SHARED = 227 * 1024  # sm_90's largest dynamic shared memory per block
# a row from which on the rows a GPU works on at once (a block per row, 132 SMs) outgrow half of
# the H200's 50 MB L2, so a second pass over a row goes to DRAM again
LONG_ROW_BYTES = 64 * 1024


def _follow_row(ctx: Context, length: str, vmax: int) -> str | None:
    """The row's length in the spec's terms, where a block of threads proportional to it differs
    between the spec's sizes (768- and 4096-wide rows: 64 and 256 threads of 4 packs); else None,
    and the block team keeps one block size."""
    spec_len = _spec_expr(length, ctx.scalar_params)
    if spec_len is None:
        return None
    vals = {_eval(_team_threads(spec_len, 4 * vmax), env) for env in ctx.size_env.values()}
    return spec_len if len(vals) > 1 and None not in vals else None


def _team_threads(length: str, per: int) -> str:
    """The launch's block for `per` elements per thread of a row of `length` (a spec expression):
    whole warps, 64 to 1024; the prelude's kp_team_threads computes the same for the file's launches."""
    return f"min(1024, max(64, 32 * cdiv({length}, {32 * per})))"


def _cache_bytes(ctx: Context, src: SourceFile, rk: RowKernel, elem: int) -> str | None:
    """The launch's dynamic shared bytes (a spec expression) for keeping the row in shared memory,
    or None where no row is read by several loops, its length is not an expression of the spec's
    values, the launch already has dynamic shared memory, or the largest row does not fit."""
    if (ctx.base_launch or {}).get("shared_bytes") not in (None, 0, "0") or _arch_num(ctx.arch) < 80:
        return None
    cache = rows.row_cache(src, rk)
    if cache is None:
        return None
    spec_len = _spec_expr(cache.length, ctx.scalar_params)
    if spec_len is None:
        return None
    row_bytes = _largest(ctx, cache.length)
    if row_bytes is None or row_bytes * elem + 1024 > MAX_DYNAMIC_SHARED:
        return None
    return f"{elem} * ({spec_len}) + 16"  # the build caps it beside the kernel's static shared memory


def _destride(ctx: Context, src: SourceFile, rk: RowKernel, grid: list, old_block: int):
    """A grid-stride loop `for (c = S; c < N; c += stride) body` as `c = S; if (c < N) body`, with
    a grid of one thread per unit of N: (source, row kernel, grid). Raises Refuse."""
    lp = rk.loops_all.at(rk.guard)
    units = _spec_expr(src.node_text(rk.bound), ctx.scalar_params)
    if units is None:
        raise Refuse(f"the grid-stride loop's bound `{src.node_text(rk.bound)}` is not in the spec's sizes")
    n = leaving_jump(rk.guard)
    if n is not None:
        raise Refuse(f"line {n.start_point[0] + 1}: {n.type.split('_')[0]} in the grid-stride loop")
    decl = f"{lp.var_type} " if lp.declared_in_header else ""
    new = f"{decl}{lp.var} = {src.node_text(lp.start)}; if ({lp.var} < {src.node_text(rk.bound)}) {src.node_text(lp.body)}"
    text2 = span_text(src, 0, len(src.data), [(rk.guard.start_byte, rk.guard.end_byte, new)])
    src2 = parse_source(text2, ctx.path)
    rk2 = row_kernel(src2, src2.kernel(ctx.kernel))
    if rk2 is None or not rk2.ok or rk2.form != "if" or column_loop(rk2) is None:
        raise Refuse("the grid-stride loop did not become one thread per column")
    return src2, rk2, [f"cdiv({units}, {old_block})"] + list(grid[1:])


def _grid_for(ctx: Context, src: SourceFile, rk: RowKernel, grid, old_block: int, per_block: int) -> str:
    """The new grid: `per_block` units (rows, elements) per block over the units the old launch
    covered; a grid-stride kernel, correct with any grid, gets one block per `per_block` units of
    its loop's bound instead (a fixed grid sized for the old threads would be too small or big)."""
    if rk.form == "loop" and rk.bound is not None:
        units = _spec_expr(src.node_text(rk.bound), ctx.scalar_params)
        if units is not None:
            return units if per_block == 1 else f"cdiv({units}, {per_block})"
    return cover(grid[0], old_block, per_block)


def _spec_expr(expr: str, params: dict) -> str | None:
    """A kernel expression of scalar parameters and numbers in the spec's terms (None otherwise)."""
    return in_terms_of(expr, params)


def _cache_notes(src: SourceFile, kernel: str, nbytes: str) -> tuple[str, ...]:
    """What the file's own launches must add for the shared-memory row (they still run without it)."""
    out = []
    for call, _cfg, _args, _host_fn in launch_sites(src, kernel):
        out.append(f"line {call.start_point[0] + 1}: to keep the row in shared memory, launch {kernel} with a third "
                   f"launch parameter of {nbytes} bytes (in the spec's names) and call cudaFuncSetAttribute({kernel}, "
                   f"cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) once before; without them it runs correctly "
                   f"and reads the row from global memory again")
    return tuple(out)


def _row_prior(kind: str, length, nrows, vmax) -> float:
    """Higher for the team whose size suits the row: warps for rows up to a few thousand
    elements and many rows, blocks for long rows or few rows."""
    if length is None:
        return 0.6
    lanes = length / vmax
    if kind == "block":
        return 0.75 if lanes >= 1024 or (nrows is not None and nrows < SMS * 16) else 0.5
    return 0.75 if lanes < 1024 and (nrows is None or nrows >= SMS * 16) else 0.5


# ---------------------------------------------------------------- element-wise


def elementwise_plans(text: str, ctx: Context) -> list[Plan]:
    src = parse_source(text, ctx.path)
    k = src.kernel(ctx.kernel)
    rk = row_kernel(src, k) if k is not None else None
    if (rk is None or not is_elementwise(rk)) and k is not None:
        split = split_lower_guards(text, ctx.path, ctx.kernel)  # `if (i > 0 && i < n)`: the lower bound inside
        if split is not None:
            src = parse_source(split, ctx.path)
            k = src.kernel(ctx.kernel)
            rk = row_kernel(src, k)
    if rk is None or not is_elementwise(rk):
        return []
    old_block, grid = _launch_1d(ctx)
    elem = _elem_bytes(src, rk, list(dict.fromkeys(a.array for a in accesses_in(rk))))
    vmax = max(1, min(8, 16 // elem))
    space = [{"block": 256, "vec": vmax, "per_thread": 4}, {"block": 256, "vec": vmax, "per_thread": 2},
             {"block": 512, "vec": vmax, "per_thread": 4}, {"block": 256, "vec": vmax, "per_thread": 1}]
    if vmax > 1:
        space.insert(2, {"block": 256, "vec": max(1, vmax // 2), "per_thread": 4})
    answers = tuple(r for r in ("narrow-elementwise-access", "narrow-global-access") if r in ctx.answers_present)

    def build(knobs):
        v, tb, per = int(knobs["vec"]), int(knobs["block"]), int(knobs["per_thread"])
        new = elementwise.vectorize(src, rk, v, per)
        new, notes = _host(new, ctx.path, ctx.kernel, _ew_host(tb, v * per))
        launch = dict(ctx.base_launch or {})
        launch.update(block=[tb], grid=[_grid_for(ctx, src, rk, grid, old_block, tb * v * per)] + grid[1:])
        desc = elementwise.describe(rk, v, src, per) + f"; {v * per} elements per thread, {tb} threads per block"
        return Candidate(source=new, launch=launch, flags=ctx.flags, description=desc, answers=answers,
                         origin="builtin:elementwise", kind="structural", knobs=tuple(sorted(knobs.items())),
                         notes=tuple(notes))
    return [Plan("elementwise", "packed element-wise", answers, space, build, 0.7)]


def gather_plans(text: str, ctx: Context, digits_read: bool = False) -> list[Plan]:
    """A thread-per-element kernel reading through quotients and remainders of its index: packs."""
    src = parse_source(text, ctx.path)
    k = src.kernel(ctx.kernel)
    if k is not None and k.body is not None and len(ctx.launch.get("grid") or []) > 1:
        got = _grid_gather_plans(src, k, ctx)
        if got:
            return got
    fi = flat_index(src, k) if k is not None and not digits_read else None
    if isinstance(fi, FlatIndex) and (fi.updates or any(src.node_text(n) != fi.canonical(d) for n, d in fi.uses)):
        try:  # digits of digits (a reassigned remainder): each read from the index itself first
            got = gather_plans(flatview.canonical(src, fi), ctx, True)
            if got:
                return got
        except Refuse:
            pass
    rk = row_kernel(src, k) if k is not None else None
    if rk is None or not rk.ok or rk.loops or is_elementwise(rk):
        return []
    try:
        packed, _ = gather.plan_accesses(src, rk)
    except NotThisShape:
        return []
    except Refuse as e:
        raise Refuse(f"a thread per element through quotients of its index, but {e}") from None
    old_block, grid = _launch_1d(ctx)
    vmax = max(1, min(8, 16 // _elem_bytes(src, rk, list(dict.fromkeys(a.array for a in packed)))))
    space = [{"block": 256, "vec": vmax}, {"block": 128, "vec": vmax}, {"block": 512, "vec": vmax}]
    if vmax > 1:
        space.append({"block": 256, "vec": max(1, vmax // 2)})
    answers = tuple(r for r in ("narrow-elementwise-access", "narrow-global-access", "uncoalesced-access")
                    if r in ctx.answers_present)

    def build(knobs):
        v, tb = int(knobs["vec"]), int(knobs["block"])
        new = gather.vectorize_gather(src, rk, v)
        new, notes = _host(new, ctx.path, ctx.kernel, _ew_host(tb, v))
        launch = dict(ctx.base_launch or {})
        launch.update(block=[tb], grid=[cover(grid[0], old_block, tb * v)] + grid[1:])
        desc = gather.describe(packed, v) + f", {tb} threads per block"
        return Candidate(source=new, launch=launch, flags=ctx.flags, description=desc, answers=answers,
                         origin="builtin:gather", kind="structural", knobs=tuple(sorted(knobs.items())),
                         notes=tuple(notes))
    return [Plan("gather", "packed gather", answers, space, build, 0.7)]


def _grid_gather_plans(src: SourceFile, k, ctx: Context) -> list[Plan]:
    """A 1-D block on a 2-D or 3-D grid whose y and z are values (a batch, a position): the grid folded into
    one flat index (flatview.grid_to_flat), then the gather's packs on it."""
    grid, block = list(ctx.launch.get("grid") or []), list(ctx.launch.get("block") or [])
    if any(str(b) != "1" for b in block[1:]) or not block:
        return []
    names = {str(v): p for p, v in ctx.scalar_params.items() if re.fullmatch(r"[A-Za-z_]\w*", str(v))}
    ys = [in_terms_of(str(g), names) for g in grid[1:]]
    if any(y is None for y in ys):
        return []
    got = flatview.grid_to_flat(src, k, ys)
    if got is None:
        return []
    new, bound = got
    e_spec = in_terms_of(bound, dict(ctx.scalar_params))
    if e_spec is None:
        return []
    total = " * ".join([f"({e_spec})"] + [f"({g})" for g in grid[1:]])
    tb = int(block[0])
    new, notes = _host(new, ctx.path, ctx.kernel, lambda g, b, args=None: (
        f"(unsigned)(((long long)({in_terms_of(bound, args) if args else bound}) * "
        + " * ".join(f"({in_terms_of(y, args) if args else y})" for y in ys) + f" + {tb - 1}) / {tb})", str(tb)))
    launch = {"grid": [f"cdiv({total}, {tb})"], "block": [tb]}
    inner = replace(ctx, launch=launch, base_launch={**(ctx.base_launch or {}), **launch})
    plans = gather_plans(new, inner)
    for p in plans:
        p.build = _prefixed(p.build, f"the grid's y and z folded into one flat index with the x index (below "
                                     f"{bound}); ", tuple(notes))
    return plans


def _ew_host(tb: int, per_thread: int):
    def make(g, b, args=None):
        return f"(unsigned)(((long long)({g}) * ({b}) + {tb * per_thread - 1}) / {tb * per_thread})", str(tb)
    return make


# ---------------------------------------------------------------- column reduction


def _outputs_param(ctx: Context, grid_x) -> str | None:
    """The grid's x expression (the number of outputs) in the kernel's parameters: the one whose spec
    value it is, or a product or sum of those named by a single size (`B * T`); None otherwise."""
    g = " ".join(str(grid_x).split())
    whole = next((p for p, e in ctx.scalar_params.items() if " ".join(str(e).split()) == g), None)
    if whole is not None:
        return whole
    by_name = {str(e).strip(): p for p, e in ctx.scalar_params.items() if re.fullmatch(r"[A-Za-z_]\w*", str(e).strip())}
    if not re.fullmatch(r"[\w\s*+()]+", g):
        return None
    return in_terms_of(g, by_name)


def _promoted_columns(text: str, ctx: Context) -> tuple[str, list[str]]:
    """A column sum kept in memory (`dbias[c] += ...` in the loop) held in a register first:
    (text, pointers made __restrict__ for it); the text unchanged where that does not apply."""
    new = promote_elements(text, ctx.path, ctx.kernel)
    if new is not None:
        return new, []
    rtext, rnames = add_restrict(text, ctx.kernel)
    new = promote_elements(rtext, ctx.path, ctx.kernel) if rnames else None
    return (new, rnames) if new is not None else (text, [])


def _one_thread_columns(src: SourceFile, k, ctx: Context, grid: list, loop_line):
    """deteam.deteam_rows's lift of a block per output where one thread does the work (no tree), for the
    column split: (lifted source, facts) or (None, None)."""
    try:
        canon, trees = deteam.deteam_rows(src, k, _outputs_param(ctx, grid[0]), _old_block(ctx))
    except Refuse:
        return None, None
    return (canon, {"loop_line": loop_line}) if not trees else (None, None)


def column_plans(text: str, ctx: Context) -> list[Plan]:
    text = lower_guard_to_stores(text, ctx.path, ctx.kernel) or text  # `if (j > 0 && j < N)`: the bound on the stores
    k0 = parse_source(text, ctx.path).kernel(ctx.kernel)
    first_loop = next((lp.line for lp in k0.loops if lp.depth == 0), None) if k0 is not None else None
    text, restricted = _promoted_columns(text, ctx)
    promoted = restricted or "kernelpro: held in a register" in text
    src = parse_source(text, ctx.path)
    k = src.kernel(ctx.kernel)
    rk = row_kernel(src, k) if k is not None else None
    grid = list(ctx.launch.get("grid") or [])
    old_block = _old_block(ctx)
    deteamed = None
    if rk is not None and not rk.ok and column_loop(rk) is not None:  # a thread per column, held back: say by what
        raise Refuse(f"a thread per column summing down it, but {'; '.join(rk.reasons)}", source=text)
    walk_why = column_walk_refusal(rk) if rk is not None and rk.ok and column_loop(rk) is None else None
    if walk_why:  # a thread per column carrying a running value (Welford's mean): not parts of a sum
        raise Refuse(walk_why, source=text)
    if (rk is None or not rk.ok or column_loop(rk) is None) and k is not None and grid:
        # a block per output with a shared-memory tree: lifted to one thread per output first
        try:
            canon, facts = deteam.deteam(src, k, _outputs_param(ctx, grid[0]))
        except NotThisShape:  # a block per column whose first thread walks it (no tree): the same lift
            canon, facts = _one_thread_columns(src, k, ctx, grid, first_loop)
            if canon is None:
                return []
        except Refuse as e:
            raise Refuse(f"a block per output with a shared-memory tree, but {e}") from None
        src = parse_source(canon, ctx.path)
        k = src.kernel(ctx.kernel)
        rk = row_kernel(src, k)
        if rk is None or not rk.ok or column_loop(rk) is None:
            return []
        ops = {r.var: r.op for r in column_loop(rk).info.reductions}
        if facts.get("op") and ops.get(facts["accumulator"]) != TREE_OPS[facts["op"]]:
            return []
        deteamed = facts
        old_block = 1  # one output per block before
    if rk is None or not rk.ok or column_loop(rk) is None:
        return []
    if old_block is None or not grid:
        raise Refuse("the launch (1-D block and grid) is not known")
    destrided = rk.form == "loop"
    if destrided:  # a grid-stride loop over the columns: one thread per column first
        src, rk, grid = _destride(ctx, src, rk, grid, old_block)
    # the most threads that help: 32 row groups per block, and on sm_90 the largest portable
    # cluster (8 blocks) along the rows, so even a few hundred columns fill the GPU; each thread
    # takes 16 bytes of neighbouring columns (a block of 8 x 32 threads covers 32 columns)
    z = 8 if _arch_num(ctx.arch) >= 90 else 1
    arrays = {a.array for a in column_loop(rk).info.accesses}
    vec = max(1, min(8, 16 // _elem_bytes(src, rk, arrays)))
    bx = max(1, 32 // vec)
    first = {"vec": vec, "cols": bx, "rows": 32, "cluster": z, "unroll": 4, "stream": 0}
    space = [first]
    if vec > 1:  # more bytes in flight: 8 rows' packs loaded together, loads that evict first, more row groups
        space += [{**first, "unroll": 8}, {**first, "unroll": 8, "stream": 1}, {**first, "rows": 64, "unroll": 8}]
    space += [{**first, "vec": 1, "cols": 32}, {**first, "rows": 16}]
    if z > 1:
        space += [{**first, "cluster": 4}, {**first, "vec": 1, "cols": 32, "rows": 16}]
    space = [k for i, k in enumerate(space) if k not in space[:i]]
    answers = tuple(r for r in ("serial-column-loop", "block-reduction-barriers", "uncoalesced-access")
                    if r in ctx.answers_present)
    lifted = ("a block per column whose first thread walks it, lifted to one thread per column, then "
              if deteamed and not deteamed.get("op") else
              "a block per column with a shared-memory tree, lifted to one thread per column, then " if deteamed
              else "a grid-stride loop over the columns made one thread per column, then " if destrided else "")
    if promoted:
        lifted = (f"add __restrict__ to {', '.join(restricted)}; " if restricted else "") + \
            "the column's sum held in a register, then " + lifted
    assumptions = (f"assumes {', '.join(restricted)} never overlap (adds __restrict__)",) if restricted else ()

    def build(knobs):
        y, zz, v, x = int(knobs["rows"]), int(knobs["cluster"]), int(knobs.get("vec", 1)), int(knobs.get("cols", 32))
        u, stream = int(knobs.get("unroll", 4)), bool(knobs.get("stream", 0))
        new = columns.column_reduce(src, rk, zz, v, u, stream, threads=x * y)
        if destrided:  # the file's launches sized the old grid freely: the caller must size it by the columns
            notes = [f"line {call.start_point[0] + 1}: {ctx.kernel} no longer loops over the columns: launch it with "
                     f"grid dim3(({src.node_text(rk.bound)} + {x * v - 1}) / {x * v}, {zz}) and block dim3({x}, {y}), "
                     f"with the value passed as {src.node_text(rk.bound)}"
                     for call, *_ in launch_sites(parse_source(new, ctx.path), ctx.kernel)]
        else:
            new, notes = _host(new, ctx.path, ctx.kernel, columns_host(y, zz, x, v))
        launch = dict(ctx.base_launch or {})
        launch.update(block=[x, y], grid=[cover(grid[0], old_block, x * v), zz])
        if deteamed:
            launch["shared_bytes"] = 0
        line = deteamed["loop_line"] if deteamed else first_loop if promoted else None  # the line as written
        desc = lifted + columns.describe(rk, zz, line=line) + \
            (f"; {v} neighbouring columns per thread (packed loads)" if v > 1 else "") + \
            (f", {u} rows' loads in flight" if v > 1 and u != 4 else "") + \
            ("; loads that evict first (streaming)" if v > 1 and stream else "") + f"; blocks of {x} x {y}"
        return Candidate(source=new, launch=launch, flags=ctx.flags, description=desc, answers=answers,
                         origin="builtin:column", kind="structural", knobs=tuple(sorted(knobs.items())),
                         notes=assumptions + tuple(notes))
    return [Plan("column", "split column reduction", answers, space, build, 0.75, assumptions)]


# ---------------------------------------------------------------- x and y exchanged


def coalesce_plans(text: str, ctx: Context) -> list[Plan]:
    """A two-dimensional kernel whose accesses are contiguous along threadIdx.y and strided along
    threadIdx.x (the row on x, as a [row][col] loop nest read as x, y): x and y exchanged in the kernel and
    its launches, so neighbouring lanes touch neighbouring elements."""
    from kernelpro.profilers.analysis.affine import build_env, coefficient, global_accesses, is_const

    src = parse_source(text, ctx.path)
    k = src.kernel(ctx.kernel)
    if k is None or k.body is None or "threadIdx.y" not in src.node_text(k.body):
        return []
    env = build_env(src, k, lanes=True)
    along = {"y": [], "lost": []}  # made contiguous (or uniform) by the exchange; made strided by it
    gain = loss = 0
    for a in global_accesses(env, include_unknown=True):
        cx = coefficient(a.index, "threadIdx.x") if a.index is not None else None
        cy = coefficient(a.index, "threadIdx.y") if a.index is not None else None
        up = a.node.parent
        w = 2 if up is not None and up.type == "assignment_expression" and up.child_by_field_name("left") == a.node \
            and src.node_text(up.child_by_field_name("operator")) != "=" else 1  # `A[..] += ...`: read and written
        now = cx is not None and (is_const(cx, 1) or not cx)  # contiguous or the same across the lanes
        then = cy is not None and (is_const(cy, 1) or not cy)
        if then and not now:
            along["y"].append(a)
            gain += w
        elif now and not then:
            along["lost"].append(a)
            loss += w
    if not along["y"]:
        return []
    if gain <= loss:
        raise Refuse(f"exchanging x and y would make the accesses on line "
                     f"{', '.join(str(a.line) for a in along['y'])} contiguous but those on line "
                     f"{', '.join(str(a.line) for a in along['lost'])} strided ({gain} against {loss})")
    block = ctx.launch.get("block") or []
    grid = list(ctx.launch.get("grid") or [])
    if len(block) < 2 or len(grid) < 2:
        raise Refuse("the launch's block and grid are not two-dimensional")
    lines = sorted({a.line for a in along["y"]})
    answers = tuple(r for r in ("uncoalesced-access",) if r in ctx.answers_present)

    body = src.node_text(k.body)
    try:
        bx, by = int(block[0]), int(block[1])
    except (TypeError, ValueError):
        bx = by = None
    # the block's shape is free where the kernel reads blockDim (no literal tile): 32 lanes along the row
    free = bx is not None and "blockDim.x" in body and "blockDim.y" in body and bx * by % 32 == 0 and by != 32
    space = ([{"reblock": 1}] if free else []) + [{"reblock": 0}]

    def build(knobs):
        new = matmul.swap_xy(src, ctx.kernel)
        launch = dict(ctx.base_launch or {})
        launch.update(ctx.launch)
        launch["grid"] = [grid[1], grid[0]] + grid[2:]
        launch["block"] = [block[1], block[0]] + list(block[2:])
        if knobs.get("reblock"):
            ny = bx * by // 32
            launch["grid"] = [cover(grid[1], by, 32), cover(grid[0], bx, ny)] + grid[2:]
            launch["block"] = [32, ny] + list(block[2:])
            if "<<<" in new:
                new = _swap_launches_reblocked(new, ctx.path, ctx.kernel, ny)
        nb = launch["block"]
        return Candidate(source=new, launch=launch, flags=ctx.flags, answers=answers,
                         description=f"x and y exchanged: the accesses on line {', '.join(map(str, lines))} were "
                                     "contiguous along threadIdx.y and strided along threadIdx.x (lanes); now the "
                                     f"lanes move along the contiguous dimension; blocks of {nb[0]} x {nb[1]}",
                         origin="builtin:coalesce-xy", kind="structural", knobs=tuple(sorted(knobs.items())),
                         notes=())
    return [Plan("coalesce-xy", "x and y exchanged", answers, space, build, 0.8)]


def _swap_launches_reblocked(text: str, path: str, kernel: str, ny: int) -> str:
    """The file's own launches after swap_xy (`kp_swap_xy(G), kp_swap_xy(B)`) given blocks of 32 x ny
    covering the same threads."""
    s2 = parse_source(text, path)
    subs = []
    for call, cfg, args, host in launch_sites(s2, kernel):
        if len(args) < 2:
            continue
        g, b = s2.node_text(args[0]), s2.node_text(args[1])
        subs.append((args[0].start_byte, args[0].end_byte,
                     f"dim3((dim3({g}).x * dim3({b}).x + 31) / 32, (dim3({g}).y * dim3({b}).y + {ny - 1}) / {ny}, "
                     f"dim3({g}).z)"))
        subs.append((args[1].start_byte, args[1].end_byte, f"dim3(32, {ny})"))
    return span_text(s2, 0, len(s2.data), subs) if subs else text


# ---------------------------------------------------------------- transposes and permutes


def permute_plans(text: str, ctx: Context) -> list[Plan]:
    """A copy whose load and store are contiguous along different thread dimensions: restaged through a
    padded shared-memory tile (permute.py), its own index code kept."""
    src = parse_source(text, ctx.path)
    k = src.kernel(ctx.kernel)
    if k is None or k.body is None:
        return []
    c = copy_kernel(src, k)
    plain = plain_memory_intrinsics(text, ctx.path, ctx.kernel) if isinstance(c, KernelRefusal) else None
    if plain is not None:  # `__stcs(&out[j], __ldg(&in[i]))`: the copy `out[j] = in[i]` (the hints go with it)
        src = parse_source(plain, ctx.path)
        k = src.kernel(ctx.kernel)
        c = copy_kernel(src, k)
    rows = _rows_folded(src, k, ctx) if isinstance(c, KernelRefusal) else None
    if rows is not None:  # a loop over extra rows (TILE x ROWS): folded into a block TILE rows tall
        src, k, c, tile_rows = rows
    lifted = _grid_y_lifted(src, k, ctx) if isinstance(c, KernelRefusal) or not c.transpose else None
    if lifted is not None:  # a coordinate on blockIdx.y of 1-D blocks (NCHW -> NHWC's channel): a thread row
        src, k, c, ctx = lifted
    if isinstance(c, KernelRefusal):
        if c.not_this_shape or "uncoalesced-access" not in ctx.answers_present:
            return []  # not a copy kernel at all, or nothing to fix: nothing to say
        raise Refuse(c.reason)
    if not c.transpose:
        if c.load_along == c.store_along == "x" or isinstance(flat_index(src, k), FlatIndex):
            return []  # both sides already contiguous along the lanes, or a flat index flat_plans views as rows
        bad = "load" if c.load_along is None else "store"
        raise Refuse(f"line {getattr(c, bad).line}: the {bad} is contiguous along neither threadIdx.x nor "
                     "threadIdx.y, so no order of the threads makes it contiguous")
    try:
        block = [int(b) for b in ctx.launch.get("block") or []]
    except (TypeError, ValueError):
        raise Refuse("the launch's block is not a number") from None
    if len(block) < 2 or any(b != 1 for b in block[2:]) or block[0] * block[1] < 2:
        raise Refuse("the launch's block is not two-dimensional")
    grid = list(ctx.launch.get("grid") or [])
    if len(grid) < 2:
        raise Refuse("the launch's grid is not two-dimensional")
    space = ([{"tile": 32}, {"tile": 64}] if c.uses_block_dims and rows is None else []) + [{"tile": 0}]
    answers = tuple(r for r in ("uncoalesced-access",) if r in ctx.answers_present)
    bad = c.store if c.uncoalesced_side == "store" else c.load

    def build(knobs):
        tile = int(knobs["tile"]) or None
        new, new_block, notes = permute.restage(src, k, c, (block[0], block[1] if rows is None else tile_rows), tile,
                                                None if rows is None else block[0] * block[1])
        launch = dict(ctx.base_launch or {})
        launch.update(ctx.launch)
        if rows is not None:
            new_block = tuple(block[:2])  # the virtual tile is TILE rows tall; the block stays ROWS
        if tile:
            launch["block"] = list(new_block)
            launch["grid"] = [cover(grid[0], block[0], tile), cover(grid[1], block[1], tile)] + grid[2:]
        tx, ty = (tile, tile) if tile else (block[0], block[1] if rows is None else tile_rows)
        desc = ("the loop over rows folded into a tile " + f"{tx} x {ty}; " if rows is not None else "") + (f"line {bad.line}: the {c.uncoalesced_side} of {bad.array} was strided between neighbouring threads; "
                f"the copy goes through a padded {ty} x {tx + permute.PAD} shared-memory tile, loaded along "
                f"threadIdx.{c.load_along} and stored along threadIdx.{c.store_along} (both contiguous)"
                + (f"; blocks of {launch['block'][0]} x {launch['block'][1]}" if tile else ""))
        return Candidate(source=new, launch=launch, flags=ctx.flags, description=desc, answers=answers,
                         origin="builtin:transpose-tile", kind="structural", knobs=tuple(sorted(knobs.items())),
                         notes=tuple(notes))
    return [Plan("transpose-tile", "transpose through shared memory", answers, space, build, 0.8)]


def _grid_y_lifted(src: SourceFile, k, ctx: Context):
    """(source, kernel, Copy, context) where a copy with 1-D blocks takes a coordinate from blockIdx.y (the
    channel of an NCHW -> NHWC permute, one block row per channel) and is a transpose once that coordinate is a
    thread row: blockIdx.y read as `blockIdx.y * blockDim.y + threadIdx.y` under a guard at the launch's grid
    height (a kernel parameter), which with blocks one row tall is the kernel as written; else None."""
    block, grid = ctx.launch.get("block") or [], list(ctx.launch.get("grid") or [])
    try:
        block = [int(b) for b in block]
    except (TypeError, ValueError):
        return None
    if not block or any(b != 1 for b in block[1:]) or len(grid) < 2:
        return None
    body = src.node_text(k.body)
    if "blockIdx.y" not in body or any(w in body for w in ("threadIdx.y", "blockDim.y", "gridDim.y", "__shared__",
                                                           "__syncthreads", "__shfl", "atomic")):
        return None
    height = in_terms_of(str(grid[1]), {str(v).strip(): p for p, v in (ctx.scalar_params or {}).items()})
    if height is None:
        return None  # the grid's height is not an expression of the kernel's parameters
    subs = [(n.start_byte, n.end_byte, "kp_by") for n in walk(k.body)
            if n.type == "field_expression" and src.node_text(n) == "blockIdx.y"]
    ind = "  "
    new_body = (f"{{\n{ind}const unsigned kp_by = blockIdx.y * blockDim.y + threadIdx.y;  // blockIdx.y with blocks "
                f"one row tall\n{ind}if (kp_by >= (unsigned)({height})) return;\n{ind}"
                + span_text(src, k.body.start_byte, k.body.end_byte, subs) + "\n}")
    src2 = parse_source(span_text(src, 0, len(src.data), [(k.body.start_byte, k.body.end_byte, new_body)]), src.path)
    k2 = src2.kernel(k.name)
    c2 = copy_kernel(src2, k2) if k2 is not None else None
    if c2 is None or isinstance(c2, KernelRefusal) or not c2.transpose:
        return None
    return src2, k2, c2, replace(ctx, launch=dict(ctx.launch, block=[block[0], 1]))


def _rows_folded(src: SourceFile, k, ctx: Context):
    """(source, kernel, Copy, tile rows) where k copies in a loop over extra rows ROWS apart (the TILE x ROWS
    transpose) and ROWS is the launch's block height: the loop folded into a block TILE rows tall."""
    rl = row_loop(src, k)
    block = ctx.launch.get("block") or []
    if isinstance(rl, KernelRefusal) or len(block) < 2:
        return None
    try:
        rows = int(block[1])
    except (TypeError, ValueError):
        return None
    if rl.step not in (None, rows):
        raise Refuse(f"line {rl.node.start_point[0] + 1}: the loop steps {rl.step} rows but the block has {rows}")
    if rl.tile % rows:
        raise Refuse(f"line {rl.node.start_point[0] + 1}: {rl.tile} rows are not whole blocks of {rows}")
    src2 = parse_source(permute.fold_rows(src, k, rl, rows), src.path)
    k2 = src2.kernel(k.name)
    c = copy_kernel(src2, k2)
    return src2, k2, c, rl.tile


# ---------------------------------------------------------------- whole-block trees


def _spec_in_c(expr, ctx: Context) -> str | None:
    """A spec expression (`cdiv(n, 256)`) as C over the kernel's scalar parameters; None where a name has
    no parameter."""
    names = {str(v): p for p, v in ctx.scalar_params.items() if re.fullmatch(r"[A-Za-z_]\w*", str(v))}
    try:
        tree = ast.parse(str(expr), mode="eval").body
    except SyntaxError:
        return None

    def c(n):
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return f"{n.value}ull"
        if isinstance(n, ast.Name):
            return f"(unsigned long long)({names[n.id]})" if n.id in names else None
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "cdiv" and len(n.args) == 2:
            a, b = c(n.args[0]), c(n.args[1])
            return None if a is None or b is None else f"(({a} + {b} - 1) / {b})"
        if isinstance(n, ast.BinOp) and type(n.op) in (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Div):
            a, b = c(n.left), c(n.right)
            op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "/", ast.Div: "/"}[type(n.op)]
            return None if a is None or b is None else f"({a} {op} {b})"
        return None
    return c(tree)


def tree_plans(text: str, ctx: Context) -> list[Plan]:
    """A block that reduces one value per thread through a shared-memory tree (the textbook forms): warp
    shuffles instead, and several values per thread (blocktree.py)."""
    src = parse_source(text, ctx.path)
    k = src.kernel(ctx.kernel)
    if k is None or k.body is None or "__shared__" not in text:
        return []
    old_block = _old_block(ctx)
    env = next(iter(sorted(ctx.size_env.values(), key=lambda e: sorted(e.items()))), {})
    scalars = {p.name: v for p in k.params if not p.is_pointer
               for v in [env.get(p.name, _eval(str(ctx.scalar_params.get(p.name, "")), env))]
               if isinstance(v, (int, float)) and float(v).is_integer()}
    grid = list(ctx.launch.get("grid") or [])
    blocks = _eval(str(grid[0]), env) if grid else None
    br = block_reduction(src, k, old_block if old_block and old_block <= 1024 else None,
                         {n: int(v) for n, v in scalars.items()}, int(blocks or 3))
    if isinstance(br, KernelRefusal):
        if br.not_this_shape:
            return []
        raise Refuse(br.reason)
    if old_block is None:
        raise Refuse("the launch's block is not one-dimensional")
    if old_block & (old_block - 1) or old_block < 32:
        raise Refuse(f"the launch's block of {old_block} threads is not a power of two of 32 or more: the tree "
                     "would not combine every thread's value")
    if br.block_literal is not None and int(br.block_literal) != old_block:
        raise Refuse(f"the tree assumes a block of {br.block_literal} threads; the launch gives {old_block}")
    space = [{"per": p} for p in (4, 2, 1) if old_block // p >= 32]
    grid = list(ctx.launch.get("grid") or [])
    blocks = _spec_in_c(grid[0], ctx) if grid and blocktree.merged_atomic(src, k, br) else None
    if blocks is not None:  # one wave of blocks, each doing many old blocks' chunks: far fewer atomics
        # (on an H100 the sum of 2^28 floats ran at 74% of the copy ceiling with 1 KB per block in flight: a knob
        # `chunks` reads several old blocks' chunks before combining them)
        space = [{"per": 2, "waves": 8, "chunks": 4}, {"per": 4, "waves": 8, "chunks": 4},
                 {"per": 2, "waves": 8, "chunks": 2}, {"per": 4, "waves": 8}, {"per": 4, "waves": 4},
                 {"per": 2, "waves": 8}] + space
    answers = tuple(r for r in ("block-reduction-barriers", "shared-bank-conflict", "sync-divergence")
                    if r in ctx.answers_present)

    def build(knobs):
        per, waves, chunks = int(knobs["per"]), int(knobs.get("waves", 0)), int(knobs.get("chunks", 1))
        new = blocktree.rewrite(src, k, br, per, blocks if waves else None, chunks)
        launch = dict(ctx.base_launch or {})
        launch.update(ctx.launch)
        launch["block"] = [old_block // per]
        if waves:
            launch["grid"] = [f"min({grid[0]}, {SMS * waves})"] + grid[1:]
            new, _ = _host(new, ctx.path, ctx.kernel, lambda g, b, args=None: (
                f"(unsigned)((long long)({g}) < {SMS * waves} ? ({g}) : {SMS * waves})", f"({b}) / {per}"))
        return Candidate(source=new, launch=launch, flags=ctx.flags, answers=answers, origin="builtin:block-tree",
                         kind="structural", knobs=tuple(sorted(knobs.items())), notes=(),
                         description=f"the {br.form + ' ' if br.form else ''}shared-memory tree of line {br.tree.start_point[0] + 1} replaced "
                                     f"by warp shuffles; {per} value(s) per thread, blocks of {old_block // per} "
                                     f"doing the same {old_block}-element chunk"
                                     + (f"; {SMS * waves} blocks, each looping over the old blocks' chunks"
                                        + (f" ({chunks} read before they are added)" if chunks > 1 else "")
                                        + ", one atomic per block" if waves else ""))
    return [Plan("block-tree", "block reduction with shuffles", answers, space, build, 0.75)]


# ---------------------------------------------------------------- atomics at one address


def aggregate_plans(text: str, ctx: Context) -> list[Plan]:
    """Atomics every thread of a block aims at one address: combined in the block, one atomic per block."""
    src = parse_source(text, ctx.path)
    k = src.kernel(ctx.kernel)
    if k is None or k.body is None or "atomic" not in src.node_text(k.body):
        return []
    ua = uniform_atomics(src, k)
    if "__shared__" in src.node_text(k.body) and not isinstance(ua, KernelRefusal):
        raise Refuse("the kernel has its own shared memory (a tree combines its block already)")
    answers = tuple(r for r in ("atomic-contention",) if r in ctx.answers_present)
    if isinstance(ua, KernelRefusal) or _old_block(ctx) is None:
        return _warp_atomic_plans(src, k, ctx, answers, ua.reason if isinstance(ua, KernelRefusal) else
                                  "the launch's block is not one-dimensional")
    lines = sorted({n.start_point[0] + 1 for n in ua.calls})

    def build(knobs):
        new = aggregate.rewrite(src, k, ua)
        return Candidate(source=new, launch=dict(ctx.base_launch or {}, **ctx.launch), flags=ctx.flags, answers=answers,
                         origin="builtin:block-atomic", kind="structural", knobs=(), notes=(),
                         description=f"the {ua.fn} on line {', '.join(map(str, lines))} combined in the block first "
                                     "(warp shuffles): one atomic per block instead of one per thread")
    return [Plan("block-atomic", "one atomic per block", answers, [{}], build, 0.7)]


def _warp_atomic_plans(src, k, ctx: Context, answers: tuple, block_why: str) -> list[Plan]:
    """Atomics whose address a warp's lanes share (it varies with threadIdx.y or z only; blockDim.x a multiple
    of 32): combined in the warp, one atomic per warp. Refuse with the block plan's reason and this one's."""
    try:
        block = [int(b) for b in ctx.launch.get("block") or []]
    except (TypeError, ValueError):
        block = []
    ua = uniform_atomics(src, k, scope="warp")
    if isinstance(ua, KernelRefusal):
        raise Refuse(block_why)
    if len(block) < 2 or block[0] % 32:
        raise Refuse(f"{block_why}; per warp: the address varies only with threadIdx.y/z, but the launch's "
                     f"blockDim.x ({block[0] if block else 'unknown'}) is not a multiple of 32, so a warp spans rows")
    if "__shared__" in src.node_text(k.body) or any(w in src.node_text(k.body) for w in ("__syncthreads", "__shfl")):
        raise Refuse(f"{block_why}; per warp: the kernel already has its own shared memory, barriers or shuffles")
    lines = sorted({n.start_point[0] + 1 for n in ua.calls})

    def build(knobs):
        new = aggregate.rewrite_warp(src, k, ua)
        return Candidate(source=new, launch=dict(ctx.base_launch or {}, **ctx.launch), flags=ctx.flags, answers=answers,
                         origin="builtin:warp-atomic", kind="structural", knobs=(), notes=(),
                         description=f"the {ua.fn} on line {', '.join(map(str, lines))} combined in each warp first "
                                     f"(its address does not change along threadIdx.x): one atomic per warp of "
                                     f"{block[0]} x {block[1]} blocks instead of one per thread")
    return [Plan("warp-atomic", "one atomic per warp", answers, [{}], build, 0.65)]


# ---------------------------------------------------------------- block scans


def scan_plans(text: str, ctx: Context) -> tuple[list[Plan], list[str]]:
    """A block's scan through shared memory (Hillis-Steele, Blelloch): warp shuffles instead, one or several
    values per thread (scan.py); a multi-block scan's other kernels are named, not rewritten."""
    src = parse_source(text, ctx.path)
    k = src.kernel(ctx.kernel)
    if k is None or k.body is None:
        return [], []
    block, grid = _old_block(ctx), list(ctx.launch.get("grid") or [])
    env = next(iter(sorted(ctx.size_env.values(), key=lambda e: sorted(e.items()))), {})
    scalars = {}
    for p in k.params:
        if not p.is_pointer:
            v = env.get(p.name)
            if v is None and p.name in ctx.scalar_params:
                v = _eval(str(ctx.scalar_params[p.name]), env)
            if isinstance(v, (int, float)) and float(v).is_integer():
                scalars[p.name] = int(v)
    blocks = _eval(str(grid[0]), env) if grid else None
    if block is None:
        if "__shared__" in src.node_text(k.body) and "__syncthreads" in src.node_text(k.body):
            bs = block_scan(src, k, 64, scalars)  # only to say whether it is a scan at all
            if not isinstance(bs, KernelRefusal) or not bs.not_this_shape:
                raise Refuse("a block scan, but the launch's block is not one-dimensional and known")
        return [], []
    if block > 1024:
        return [], []
    ap = add_prefix(src, k, block, scalars, int(blocks or 3))
    if not isinstance(ap, KernelRefusal):
        raise Refuse(f"adds each block's prefix from `{ap.sums}` to `{ap.array}` (the last pass of a multi-block "
                     "scan): nothing to restructure alone; folding the passes into one needs a single-pass scan "
                     "with decoupled look-back (a tile counter and per-tile flags in zeroed scratch memory, which "
                     "no plan adds to a spec yet)")
    bs = block_scan(src, k, block, scalars, int(blocks or 1))
    if isinstance(bs, KernelRefusal):
        if bs.not_this_shape:
            return [], []
        raise Refuse(bs.reason)
    if block % 32:
        raise Refuse(f"{scan.describe(bs)}, but the launch's block of {block} threads is not whole warps")
    why = []
    chain = []
    if bs.total_to is not None:
        try:
            chain = _scan_chain_plans(src, k, bs, ctx, scalars, int(blocks or 3))
        except Refuse as e:
            why.append(f"{scan.describe(bs)} writes its block's total to `{bs.total_to}` for the next pass; the "
                       f"chain of kernels stays: {e}")
    space = [{"per": 1}]
    for per in (2, 4):
        if block // per >= 32 and (block // per) % 32 == 0:
            try:
                scan.rewrite_per(src, k, bs, per)
            except Refuse as e:
                why.append(f"{per} old threads per thread: {e}")
                break
            space.append({"per": per})
    answers = tuple(r for r in ("block-reduction-barriers", "shared-bank-conflict", "sync-in-divergent-branch")
                    if r in ctx.answers_present)

    def build(knobs):
        per = int(knobs.get("per", 1))
        new = scan.rewrite(src, k, bs) if per == 1 else scan.rewrite_per(src, k, bs, per)
        launch = dict(ctx.base_launch or {})
        launch.update(ctx.launch)
        launch["block"] = [block // per]
        if per > 1:
            new, _ = _host(new, ctx.path, ctx.kernel, lambda g, b, args=None: (g, f"({b}) / {per}"))
        return Candidate(source=new, launch=launch, flags=ctx.flags, answers=answers, origin="builtin:block-scan",
                         kind="structural", knobs=tuple(sorted(knobs.items())), notes=(),
                         description=f"{scan.describe(bs)} (lines {bs.phase_lines[0]}-{bs.phase_lines[1]}) replaced by "
                                     f"a warp-shuffle scan: {-(-bs.elements // (block // per))} value(s) per thread "
                                     "summed in registers, __shfl_up_sync within each warp, one shared-memory pass "
                                     "over the warps' sums"
                                     + (f"; blocks of {block // per} threads, each doing {per} old threads' values"
                                        if per > 1 else "")
                                     + (f"; the block's total still goes to `{bs.total_to}`" if bs.total_to else ""))
    return chain + [Plan("block-scan", "block scan with warp shuffles", answers, space, build, 0.75)], why


def _scan_chain_plans(src: SourceFile, k, bs, ctx: Context, scalars: dict, blocks: int) -> list[Plan]:
    """A multi-kernel scan (this kernel scans each block and writes its total; later passes scan the totals and
    add each block's prefix back) as one call of the library's device-wide scan: the spec's whole chain becomes one
    host step with this kernel's arguments. What it computes is read, not assumed: block 0 run on the CPU leaves
    the inclusive (or exclusive) prefix sums of one input in one output (`BlockScan.output`), the chain's last
    kernel adds the totals to that output (`add_prefix`), and the passes between touch the totals alone. Refuse
    with the reason otherwise."""
    if bs.output is None:
        raise Refuse("block 0's stores are not the prefix sums of one input in one output")
    out_p, in_p, inclusive = bs.output
    steps = list(ctx.steps)
    if len(steps) < 2 or steps[0][0] != ctx.kernel or sum(1 for kn, _ in steps if kn == ctx.kernel) != 1:
        raise Refuse("one pass of the library's scan (decoupled look-back) takes the chain's place only where the "
                     "spec launches this kernel first and once, then the passes that finish the scan")
    names = [p.name for p in k.params]
    args0 = list(steps[0][1])
    if len(args0) != len(names):
        raise Refuse("the spec's arguments of this kernel do not match its parameters")
    arg = dict(zip(names, args0))
    total_p = bs.total_to.split("[")[0].strip()
    if total_p not in arg:
        raise Refuse(f"the block totals go to `{bs.total_to}`, not a parameter")
    spec_out, spec_in, spec_tot = arg[out_p], arg[in_p], arg[total_p]
    last_k, last_args = steps[-1]
    lk = src.kernel(last_k)
    if lk is None:
        raise Refuse(f"the chain's last kernel {last_k} is not in this file")
    ap = add_prefix(src, lk, _old_block(ctx) or 256, scalars, blocks)
    lmap = dict(zip([p.name for p in lk.params], last_args)) if not isinstance(ap, KernelRefusal) else {}
    if isinstance(ap, KernelRefusal) or lmap.get(ap.array) != spec_out or lmap.get(ap.sums) != spec_tot:
        raise Refuse(f"the chain's last kernel {last_k} does not add the scanned totals `{spec_tot}` to `{spec_out}`")
    buffers = {spec_out, spec_in}
    for kn, a in steps[1:-1]:
        if src.kernel(kn) is None or any(x.strip() in buffers for x in a):
            raise Refuse(f"the pass {kn} between them touches more than the block totals `{spec_tot}`")
    elem = virtual.elem_type(k, out_p)
    if elem not in SCAN_TYPES or virtual.elem_type(k, in_p) != elem:
        raise Refuse(f"a scan of {elem}: the library's scan takes 4-byte values of one type ({', '.join(SCAN_TYPES)})")
    n_params = [p.name for p in k.params if not p.is_pointer]
    if len(n_params) != 1:
        raise Refuse("the count of values is not the kernel's one scalar parameter")
    n_p = n_params[0]
    orig = parse_source(ctx.original or src.text, ctx.path)
    name = f"kp_scan_{ctx.kernel}"
    kind = "inclusive" if inclusive else "exclusive"
    others = [kn for kn, _ in steps[1:]]

    def build(knobs):
        body = (f"  return (int)kernelpro::scan<{SCAN_TYPES[elem]}>({in_p}, {out_p}, (long long)({n_p}), "
                f"{'true' if inclusive else 'false'});")
        comment = (f"KernelPro: the {kind} scan that {ctx.kernel}, {', '.join(others)} compute in {len(steps)} passes, as\n"
                   "one device-wide scan (single pass, decoupled look-back) with the first pass's arguments.")
        new = hostcall.with_launcher(orig, ctx.kernel, "kernelpro/scan.cuh", name, comment, body,
                                     "the library's device-wide scan", calls=False)
        launch = {"launches": [{"kernel": ctx.kernel, "host": name, "args": args0}]}
        desc = (f"the {len(steps)}-pass scan ({ctx.kernel}'s block scans and totals, then {', '.join(others)}) as one "
                f"{kind} device-wide scan of {in_p} into {out_p}: kernelpro/scan.cuh (tiles taken in order, warp-shuffle "
                f"scans, decoupled look-back), run by the host launcher {name} that takes {ctx.kernel}'s arguments")
        note = (f"the spec runs {name} in place of the {len(steps)} launches ({ctx.kernel}, {', '.join(others)}); the "
                f"kernels stay in the file and its host code still launches them: replace those launches with one call "
                f"{name}(...) with {ctx.kernel}'s arguments to get the speed in your program")
        return Candidate(source=new, launch=launch, flags=ctx.flags, description=desc, answers=(),
                         origin="builtin:scan-library", kind="structural", knobs=(), notes=(note,))
    return [Plan("scan-library", "the library's device-wide scan", (), [{}], build, 0.9)]
# ---------------------------------------------------------------- histograms

STATIC_SHARED = 48 * 1024  # a block's static shared memory


def prefix_plans(text: str, ctx: Context) -> list[Plan]:
    """A prefix sum written one output per thread (thread i sums the input up to i: O(n^2) work) as the
    library's single-pass device-wide scan (kernelpro/scan.cuh) behind the kernel's signature."""
    src = parse_source(text, ctx.path)
    k = src.kernel(ctx.kernel)
    if k is None:
        return []
    got = prefix_sum(src, k)
    if isinstance(got, KernelRefusal):
        if got.not_this_shape:
            return []
        raise Refuse(got.reason)
    if got.elem not in SCAN_TYPES:
        raise Refuse(f"line {got.line}: a prefix sum of {got.elem}: the library's scan takes 4-byte values "
                     f"({', '.join(SCAN_TYPES)})")
    orig = parse_source(ctx.original or text, ctx.path)
    name = f"kp_scan_{ctx.kernel}"
    kind = "inclusive" if got.inclusive else "exclusive"

    def build(knobs):
        body = (f"  return (int)kernelpro::scan<{SCAN_TYPES[got.elem]}>({got.src}, {got.dst}, (long long)({got.count}), "
                f"{'true' if got.inclusive else 'false'});")
        comment = (f"KernelPro: {ctx.kernel}'s prefix sum ({kind}) as one device-wide scan (single pass, decoupled\n"
                   f"look-back), launched from the host with the kernel's arguments.")
        new = hostcall.with_launcher(orig, ctx.kernel, "kernelpro/scan.cuh", name, comment, body,
                                     "the library's device-wide scan")
        desc = (f"the {kind} prefix sum of line {got.line} (each of the {got.count} outputs the sum of {got.src} up to "
                f"it, O(n^2) additions as written) as one device-wide scan, O(n): kernelpro/scan.cuh (tiles of 8192 "
                f"values taken in order, warp-shuffle scans, decoupled look-back), run by the host launcher {name} "
                f"that takes the kernel's arguments")
        note = (f"{ctx.kernel} stays in the file; the spec runs {name} instead (a host step), and the file's own "
                "launches call it" + ("; float sums are added in another order (within rounding)"
                                      if got.elem == "float" else ""))
        return Candidate(source=new, launch={"host": name}, flags=ctx.flags, description=desc, answers=(),
                         origin="builtin:scan-library", kind="structural", knobs=(), notes=(note,))
    return [Plan("scan-library", "the library's device-wide scan", (), [{}], build, 0.9)]


SCAN_TYPES = {"float": "float", "int": "int", "unsigned": "unsigned", "unsigned int": "unsigned"}


def histogram_plans(text: str, ctx: Context) -> list[Plan]:
    """atomicAdd into bins a thread's data picks: private bins in shared memory per block (or per warp), one
    global atomic per non-zero bin; a wave of blocks looping over the old grid as a knob (histogram.py)."""
    src = parse_source(text, ctx.path)
    k = src.kernel(ctx.kernel)
    if k is None or k.body is None or "atomic" not in src.node_text(k.body):
        return []
    h = histogram(src, k)
    if isinstance(h, KernelRefusal):
        if h.not_this_shape:
            return []
        raise Refuse(h.reason)
    count = h.count_value if h.count_value is not None else _largest(ctx, h.count)
    if count is None:
        raise Refuse(f"the bin count {h.count} has no value in the spec's sizes: the private bins' size is not known")
    cap, size = max(1, int(count)), table_for(src).bytes(h.elem) or 4
    if cap * size > STATIC_SHARED:
        raise Refuse(f"{cap} bins of {size} bytes (the bin count {h.count}) need {cap * size // 1024} KB of shared "
                     f"memory, more than a block's {STATIC_SHARED // 1024} KB")
    try:
        threads = math.prod(int(b) for b in ctx.launch.get("block") or [])
    except (TypeError, ValueError):
        raise Refuse("the launch's block is not a number") from None
    grid = list(ctx.launch.get("grid") or [])
    if not threads or not grid:
        raise Refuse("the launch (grid and block) is not known")
    warps = -(-threads // 32)
    copies = [1] + ([warps] if warps > 1 and warps * cap * size <= STATIC_SHARED else [])
    old = None  # the old grid in C, where a wave of blocks loops over it
    if not h.grid_stride and len(grid) >= h.grid_dims and all(str(g) == "1" for g in grid[h.grid_dims:]):
        old = tuple(_spec_in_c(g, ctx) for g in grid[:h.grid_dims])
        old = old if None not in old and len(old) <= 2 and "gridDim.z" not in src.node_text(k.body) else None
    waves = (4, 8) if old or (h.grid_stride and len(grid) == 1) else ()
    space = [{"copies": c, "waves": w} for w in waves[:1] for c in copies] + \
        [{"copies": 1, "waves": w} for w in waves[1:]] + [{"copies": c, "waves": 0} for c in copies]
    answers = tuple(r for r in ("atomic-contention",) if r in ctx.answers_present)
    lines = ", ".join(str(n) for n in sorted({c.start_point[0] + 1 for c in h.calls}))
    total = " * ".join(f"({g})" for g in grid[:h.grid_dims]) if old else str(grid[0])

    def build(knobs):
        c, w = int(knobs["copies"]), int(knobs["waves"])
        new = private_bins.rewrite(src, k, h, cap, c, old if w and old else None)
        launch = dict(ctx.base_launch or {}, **ctx.launch)
        notes = ()
        if w:
            launch["grid"] = [f"min({total}, {SMS * w})"]
            new, notes = _host(new, ctx.path, ctx.kernel, lambda g, b, args=None: (
                f"(unsigned)((long long)({g}) < {SMS * w} ? ({g}) : {SMS * w})", b))
        return Candidate(source=new, launch=launch, flags=ctx.flags, answers=answers, origin="builtin:private-bins",
                         kind="structural", knobs=tuple(sorted(knobs.items())), notes=tuple(notes),
                         description=f"the atomicAdd into {h.bins} on line {lines} through private bins in shared "
                                     f"memory ({cap} bins per {'warp' if c > 1 else 'block'}), one global atomicAdd "
                                     "per non-zero bin per block"
                                     + (f"; {SMS * w} blocks, each looping over the old grid" if w else ""))
    return [Plan("private-bins", "histogram through private bins in shared memory", answers, space, build, 0.75)]


# ---------------------------------------------------------------- stencils


def _chosen_neighbours(src: SourceFile, k) -> list[int]:
    """Lines of loads whose index the affine analysis cannot follow because a local in it is chosen by `?:`,
    `min` or `max` (`int N = (r == 0) ? idx : idx - cols;`, `iS = min(i + 1, rows - 1)`)."""
    from kernelpro.profilers.analysis.affine import build_env, global_accesses

    chosen = set()
    for d in walk(k.body):
        if d.type == "init_declarator" and d.child_by_field_name("value") is not None:
            v = d.child_by_field_name("value")
            if v.type == "conditional_expression" or (v.type == "call_expression" and src.node_text(
                    v.child_by_field_name("function")) in ("min", "max", "umin", "umax")):
                chosen.add(src.node_text(d.child_by_field_name("declarator")))
    if not chosen:
        return []
    return [a.line for a in global_accesses(build_env(src, k), include_unknown=True)
            if not a.is_write and a.index is None and chosen & set(re.findall(r"[A-Za-z_]\w*", src.node_text(a.node)))]


def _old_thread(tx: int, ty: int, ex: str, ey: str) -> str:
    """C condition that old thread (kp_qx, kp_qy) of a tx x ty virtual block existed in the old launch, whose threads
    reach ex along x and ey along y (a kernel without guards must do nothing past them)."""
    return (f"(unsigned long long)blockIdx.x * {tx} + (kp_qx) < (unsigned long long)({ex}) && "
            f"(unsigned long long)blockIdx.y * {ty} + (kp_qy) < (unsigned long long)({ey})")


def _reads_of_one_array(src: SourceFile, k) -> int:
    """The most places the kernel reads one array at."""
    from collections import Counter

    from kernelpro.profilers.analysis.affine import build_env, global_accesses

    reads = Counter(a.array for a in global_accesses(build_env(src, k), include_unknown=True) if not a.is_write)
    return max(reads.values(), default=0)


def stencil_plans(text: str, ctx: Context, specialised: bool = False) -> list[Plan]:
    """A point computed from fixed neighbours in one array: the neighbours staged once per block in a
    shared-memory tile with a halo (stencil.py)."""
    src = parse_source(text, ctx.path)
    k = src.kernel(ctx.kernel)
    if k is None or k.body is None:
        return []
    st = find_stencil(src, k)
    unrolled = None
    if isinstance(st, KernelRefusal) and any(n.type in LOOPS for n in walk(k.body)):
        unrolled = taps.unroll_taps(text, ctx.path, ctx.kernel)  # loops over the taps written out
        for _ in range(4) if unrolled is not None else ():  # clamps at the edges now that the taps are numbers (the
            # clamps, then one chosen coordinate of each load a pass: x and y)
            unrolled = clamped_neighbours(unrolled, ctx.path, ctx.kernel) or unrolled
        if unrolled is not None:
            src = parse_source(unrolled, ctx.path)
            k = src.kernel(ctx.kernel)
            st = find_stencil(src, k)
    if isinstance(st, KernelRefusal):
        chosen = _chosen_neighbours(src, k)
        if chosen and not st.not_this_shape and "threadIdx.y" in src.node_text(k.body):
            raise Refuse(f"line {chosen[0]}: a load's index is chosen at run time (`?:`, min or max: edges clamped "
                         "to the point itself, say), which the tile does not read as a fixed neighbour yet"
                         + ("" if "cannot follow" in st.reason else f"; {st.reason}"))
        if st.not_this_shape or neighbours_along_x(src, k) < 3 or isinstance(flat_index(src, k), FlatIndex) or \
                flatview.z_on_grid(src, k) is not None:
            runtime = taps.runtime_taps(text, ctx.path, ctx.kernel)
            if runtime is not None:
                radius = [] if specialised else _radius_specialised(text, ctx, runtime)
                if radius:
                    return radius
                raise Refuse(runtime)
            strided = interleaved(src, k)
            if strided is not None:
                raise Refuse(strided)
            if unrolled is not None and "cannot follow" in st.reason and _reads_of_one_array(src, k) >= 3:
                # loops over taps written out, one array read at three or more places, and still no stencil
                raise Refuse(f"{st.reason} (once the loops over the taps are written out)", source=unrolled)
            return []  # not a stencil at all, or a flat index that flat_plans views as rows: nothing to say
        raise Refuse(st.reason)
    try:
        block = [int(b) for b in ctx.launch.get("block") or []]
    except (TypeError, ValueError):
        raise Refuse("the launch's block is not a number") from None
    if len(block) == 1 and all(dy == 0 for _, _, dy in st.points):
        block = block + [1]  # a 1-D stencil: a tile of one row
    if len(block) < 2 or any(b != 1 for b in block[2:]):
        raise Refuse("the launch's block is not two-dimensional")
    left, right, below, above = st.halo
    lines = sorted({a.line for a, _, _ in st.points})
    answers = tuple(r for r in ("uncoalesced-access", "memory-bound") if r in ctx.answers_present)
    grid = list(ctx.launch.get("grid") or [])
    reads = {src.node_text(n) for n in walk(k.body) if n.type == "field_expression"}  # (code, not comments)
    # the tile's shape is a knob where the kernel reads its block's shape (blockDim) and the launch is 2-D: the
    # spec's block first, then whole-warp rows
    tiles = [tuple(block[:2]) + (1,)]
    if len(block) == 2 and len(grid) == 2 and {"blockDim.x", "blockDim.y"} <= reads and not specialised \
            and not any(r.startswith("gridDim") for r in reads) and all(_spec_in_c(cover(grid[i], block[i], 1), ctx) is not None for i in (0, 1)):
        # the tile's shape and the rows each thread stages and computes are knobs where the kernel reads its
        # block's shape (blockDim): several rows per thread first (a block staging one element per thread waits
        # at the barrier with 4 bytes in flight per thread: 0.5x of the kernel as written on an H100)
        tiles = [t for t in STENCIL_TILES[:1]] + tiles + [t for t in STENCIL_TILES[1:] if t != tiles[0]]
    space = [{"tx": tx, "ty": ty, "rows": r} for tx, ty, r in tiles]
    marches = len(tiles) > 1 and not st.more  # (a thread's strip reshapes the block: as the tile's rows)
    extent = [_spec_in_c(cover(grid[i], block[i], 1), ctx) for i in (0, 1)] if len(tiles) > 1 else None

    def inside(tx: int, vy: int) -> str:  # (a reshaped tile runs past the old grid's edge)
        return "true" if (tx, vy) == tuple(block[:2]) or extent is None else _old_thread(tx, vy, *extent)

    def build(knobs):
        tx, ty = int(knobs.get("tx", block[0])), int(knobs.get("ty", block[1]))
        rows = int(knobs.get("rows", 1))
        vy = ty * rows
        new = stencil.restage(src, k, st, (tx, ty), rows, inside=inside(tx, vy))
        launch, notes = dict(ctx.base_launch or {}, **ctx.launch), ()
        if (tx, vy) != tuple(block[:2]) or rows > 1:
            launch.update(grid=[cover(grid[0], block[0], tx), cover(grid[1], block[1], vy)], block=[tx, ty])
            new, notes = _host(new, ctx.path, ctx.kernel, lambda g, b, args=None: (
                f"dim3((dim3({g}).x * dim3({b}).x + {tx - 1}) / {tx}, (dim3({g}).y * dim3({b}).y + {vy - 1}) / "
                f"{vy})", f"dim3({tx}, {ty})"))
        cells = (tx + left + right) * (vy + below + above)
        return Candidate(source=new, launch=launch, flags=ctx.flags,
                         answers=answers, origin="builtin:stencil-tile", kind="structural",
                         knobs=tuple(sorted(knobs.items())), notes=tuple(notes),
                         description=(f"the loops over the taps written out; the {len(st.points)} neighbour "
                                      f"loads of {st.array}" if unrolled else
                                      f"the {len(st.points)} neighbour loads of {st.array} on line "
                                      f"{', '.join(map(str, lines))}") + f" from a shared-memory tile of {tx} x "
                                     f"{vy} with its halo ({cells} elements per block, each read from global "
                                     f"memory once instead of up to {len({(d, e) for _, d, e in st.points})} times)"
                                     + (f"; blocks of {tx} x {ty}" if (tx, ty) != tuple(block[:2]) else "")
                                     + (f", each thread {rows} rows of the tile" if rows > 1 else ""))
    tile = Plan("stencil-tile", "stencil through a shared-memory tile with a halo", answers, space, build, 0.75)
    if not marches:
        return [tile]

    def build_march(knobs):
        tx, ty, strip, unroll = (int(knobs[x]) for x in ("tx", "ty", "strip", "unroll"))
        vy = ty * strip
        new = stencil.restage(src, k, st, (tx, ty), march=(strip, unroll), inside=inside(tx, vy))
        launch = dict(ctx.base_launch or {}, **ctx.launch)
        launch.update(grid=[cover(grid[0], block[0], tx), cover(grid[1], block[1], vy)], block=[tx, ty])
        new, notes = _host(new, ctx.path, ctx.kernel, lambda g, b, args=None: (
            f"dim3((dim3({g}).x * dim3({b}).x + {tx - 1}) / {tx}, (dim3({g}).y * dim3({b}).y + {vy - 1}) / "
            f"{vy})", f"dim3({tx}, {ty})"))
        fresh = len(st.points) - len(virtual.reuse_preds([p[1:] for p in st.points], 1))
        return Candidate(source=new, launch=launch, flags=ctx.flags, answers=answers, origin="builtin:stencil-window",
                         kind="structural", knobs=tuple(sorted(knobs.items())), notes=tuple(notes),
                         description=(f"{'the loops over the taps written out; ' if unrolled else ''}each thread "
                                      f"marches down {strip} rows, the {len(st.points)} neighbours of {st.array} "
                                      f"kept in registers from row to row ({fresh} loaded a row instead of "
                                      f"{len({(d, e) for _, d, e in st.points})}); blocks of {tx} x {ty}"
                                      + (f", the row loop unrolled {unroll} times" if unroll > 1 else "")))
    march_space = [{"tx": tx, "ty": ty, "strip": s, "unroll": u} for tx, ty, s, u in STENCIL_MARCHES]
    return [Plan("stencil-window", "stencil down a register window", answers, march_space, build_march, 0.78), tile]


def _radius_specialised(text: str, ctx: Context, why: str) -> list[Plan]:
    """A stencil whose taps run over a radius given at run time (`for (off = -R; off <= R; ++off)`): the tile for
    the value the spec gives R, the kernel as written behind a uniform branch for any other value."""
    params = taps.tap_params(text, ctx.path, ctx.kernel)
    if not params:
        return []
    values = {}
    for p in params:
        seen = [env.get(p) for env in ctx.size_env.values()]
        if not seen or any(not isinstance(v, int) or isinstance(v, bool) for v in seen):
            raise Refuse(f"{why}; the spec gives {p} no integer value")
        values[p] = max(set(seen), key=lambda v: (seen.count(v), v))  # (several: the commonest, else the largest)
    note = ", ".join(f"{p} = {v}" for p, v in values.items())
    fixed = taps.specialize(text, ctx.path, ctx.kernel, values)
    if taps.runtime_taps(fixed, ctx.path, ctx.kernel) is not None:
        raise Refuse(f"{why}: at the spec's {note} still more than {taps.MAX_TAPS} taps a loop")
    plans = stencil_plans(fixed, ctx, specialised=True)
    for plan in plans:
        def build(knobs, old=plan.build):
            c = old(knobs)
            return replace(c, source=taps.with_generic_path(c.source, text, ctx.path, ctx.kernel, values),
                           description=f"specialised for {note} (the spec's value; any other runs the kernel as "
                                       f"written): {c.description}")
        plan.build = build
    return plans


# ---------------------------------------------------------------- flat indices seen as rows


VIEW_BLOCK = (32, 8)


def flat_plans(text: str, ctx: Context) -> tuple[list[Plan], list[str]]:
    """A one-dimensional thread index split into a row and a column (`idx / W`, `idx % W`): the kernel on a
    2-D grid (flatview.py), then the plans of 2-D kernels (stencil-tile, transpose-tile, coalesce-xy) on it."""
    src = parse_source(text, ctx.path)
    k = src.kernel(ctx.kernel)
    if k is None or k.body is None:
        return [], []
    fi = flat_index(src, k)
    if isinstance(fi, KernelRefusal):
        if fi.not_this_shape:
            return [], []
        if neighbours_along_x(src, k) < 3:
            return [], []  # not a stencil: a flat index of another kind, nothing to say
        raise Refuse(fi.reason)
    old_block, grid = _launch_1d(ctx)
    first = None  # what the shortest rows gave: said when no row length gives a plan
    for w in list(fi.rows):  # the shortest rows first; longer ones put a batch's whole matrix in a row's columns
        fi.row = w
        try:
            out, why = _flat_view_plans(src, k, fi, ctx, old_block, grid)
        except Refuse as e:
            out, why = [], e
        if out:
            return out, []
        first = why if first is None else first
    if isinstance(first, Refuse):
        raise first
    return [], (first or [])[:1]


def _flat_view_plans(src: SourceFile, k, fi, ctx: Context, old_block, grid) -> tuple[list[Plan], list[str]]:
    """The 2-D plans on the flat index seen as rows of fi.row."""
    row = in_terms_of(fi.row_c, {p: v for p, v in ctx.scalar_params.items()})
    if row is None:
        raise Refuse(f"the rows of {fi.name} are {fi.row_c} long, which is not made of the kernel's parameters "
                     "that the launch spec gives: the 2-D grid cannot be sized")
    total = cover(grid[0], old_block, 1)
    total_c = _spec_in_c(total, ctx)
    if total_c is None:
        raise Refuse(f"the launch's grid {grid[0]} is not written in the kernel's parameters: the 2-D view "
                     "cannot tell the old last thread")
    bx, by = VIEW_BLOCK
    new = flatview.view(src, k, fi, total_c)

    def host(g, b, args=None):
        w = in_terms_of(fi.row_c, args) if args else fi.row_c
        return (f"dim3(({w} + {bx - 1}) / {bx}, (unsigned)(((long long)({g}) * ({b}) + (long long)({w}) * {by} - 1) / "
                f"((long long)({w}) * {by})))", f"dim3({bx}, {by})")
    new, notes = _host(new, ctx.path, ctx.kernel, host)
    launch = {"grid": [f"cdiv({row}, {bx})", f"cdiv(cdiv({total}, {row}), {by})"], "block": [bx, by]}
    inner = replace(ctx, launch=launch, base_launch={**(ctx.base_launch or {}), **launch})
    say = (f"the flat index {fi.name} (line {fi.decl.start_point[0] + 1}) read as rows of {fi.row_c} on a 2-D grid; ")
    out, why = [], []
    for fn in (stencil_plans, permute_plans, coalesce_plans):
        try:
            got = fn(new, inner)
        except Refuse as e:  # (its lines counted in the viewed text: said in the kernel's)
            why.append(f"{fi.name} as rows of {fi.row_c}, but {lines_as_written(str(e), src.text, e.source or new)}")
            continue
        for p in got:
            p.build = _prefixed(p.build, say, tuple(notes))
            p.description = "flat index as rows; " + p.description
            out.append(p)
    return out, ([] if out else why[:1])


def flat2d_plans(text: str, ctx: Context) -> list[Plan]:
    """An element-wise kernel on 2-D or 3-D thread indices (`C[row * N + col] = A[row * N + col] + ...` under
    `row < M && col < N`, a permute `y[(j * D0 + i) * D2 + k] = x[(i * D1 + j) * D2 + k]`): read as the 1-D
    kernel it is (flat2d.py), then the element-wise plan (every access at the flat index) or the gather plan."""
    src = parse_source(text, ctx.path)
    k = src.kernel(ctx.kernel)
    grid, block = list(ctx.launch.get("grid") or []), list(ctx.launch.get("block") or [])
    if k is None or len(grid) < 2:
        return []
    bx = flat2d.box(src, k)
    guarded = flat2d.returns_to_guard(src, k) if bx is None else None
    if guarded is not None:  # `if (r >= rows) return; if (c >= cols) return;`: one guard around the rest
        src = parse_source(guarded, ctx.path)
        k = src.kernel(ctx.kernel)
        bx = flat2d.box(src, k)
    got = flat2d.flatten(src, k, bx) if bx is not None else None
    inlined = row_pointers_inlined(src, k, bx.guard.child_by_field_name("consequence")) if bx and got is None else None
    if inlined is not None:  # `const float *xr = x + r * cols; yr[c] += a * xr[c];`: read at the parameters
        src = parse_source(inlined, ctx.path)
        k = src.kernel(ctx.kernel)
        bx = flat2d.box(src, k)
        got = flat2d.flatten(src, k, bx) if bx is not None else None
    if got is None:
        return []
    new, extents = got[0], list(got[1:])  # slowest first
    table = _spec_table(src, ctx)
    specs = [in_terms_of(e, table) for e in extents]
    if None in specs:
        raise Refuse(f"the {len(extents)}-D element-wise kernel's extent {' x '.join(extents)} is not in the spec's "
                     "values of the kernel's parameters: the 1-D grid cannot be sized")
    # the old launch covers the box at every size of the spec, and no more than once: else the flat kernel would
    # do work the old one did not, or once what it did several times
    if not ctx.size_env:
        raise Refuse("no sizes in the spec to check that the old launch covers the box of thread indices")
    for size, env in ctx.size_env.items():
        for i, d in enumerate("xyz"):
            g = _eval(str(grid[i]), env) if i < len(grid) else 1
            t = _eval(str(block[i]), env) if i < len(block) else 1
            e = _eval(specs[::-1][i], env) if i < len(bx.names) else 1
            if None in (g, t, e):
                raise Refuse(f"the old launch's {d} or the extent along it is not known at the size {size}")
            if i < len(bx.names) and bx.alone[i] and t != 1:
                raise Refuse(f"{bx.names[i]} = blockIdx.{d} alone under a block of {t} along {d}: each of its values "
                             f"is computed by {t} threads")
            if g * t < e or (i >= len(bx.names) and g * t != 1):
                raise Refuse(f"the old launch gives {g * t} threads along {d} for {e} values at the size {size}: "
                             "the flat kernel would not do the same work")

    def host(g, b, args=None):
        es = [in_terms_of(e, args) or e for e in extents] if args else extents
        return f"(unsigned)(((long long)" + " * ".join(f"({e})" for e in es) + " + 255) / 256)", "256"
    new, notes = _host(new, ctx.path, ctx.kernel, host)
    launch = {"grid": [f"cdiv({' * '.join(specs)}, 256)"], "block": [256]}
    inner = replace(ctx, launch=launch, base_launch={**(ctx.base_launch or {}), **launch})
    say = f"the {len(extents)}-D indices (a box of {' x '.join(extents)}) read as one flat index on a 1-D grid; "
    out = []
    digits = f"{flat2d.IDX} / (" in new or f"{flat2d.IDX} % (" in new  # an access not at the flat index itself
    for p in (gather_plans(new, inner) if digits else elementwise_plans(new, inner)):
        p.build = _prefixed(p.build, say, tuple(notes))
        p.description = f"{len(extents)}-D indices flattened; " + p.description
        out.append(p)
    return out


def planes_plans(text: str, ctx: Context) -> list[Plan]:
    """Three dimensions of threads whose z is `blockIdx.z * blockDim.z + threadIdx.z`: blocks one plane thick
    (z from the grid), then the 2-D stencil tile on each plane."""
    src = parse_source(text, ctx.path)
    k = src.kernel(ctx.kernel)
    block, grid = list(ctx.launch.get("block") or []), list(ctx.launch.get("grid") or [])
    if k is None or k.body is None or len(block) != 3 or len(grid) != 3 or "threadIdx.z" not in src.node_text(k.body):
        return []
    new = flatview.z_on_grid(src, k)
    if new is None or "blockDim.x" not in new or "blockDim.y" not in new:
        return []
    try:
        bx, by, bz = (int(b) for b in block)
    except (TypeError, ValueError):
        return []
    nx, ny = VIEW_BLOCK
    launch = {"grid": [cover(grid[0], bx, nx), cover(grid[1], by, ny), cover(grid[2], bz, 1)], "block": [nx, ny, 1]}
    new, notes = _host(new, ctx.path, ctx.kernel, lambda g, b, args=None: (
        f"dim3((dim3({g}).x * dim3({b}).x + {nx - 1}) / {nx}, (dim3({g}).y * dim3({b}).y + {ny - 1}) / {ny}, "
        f"dim3({g}).z * dim3({b}).z)", f"dim3({nx}, {ny}, 1)"))
    inner = replace(ctx, launch=launch, base_launch={**(ctx.base_launch or {}), **launch})
    got = stencil_plans(new, inner)
    for p in got:
        p.build = _prefixed(p.build, f"blocks of {nx} x {ny} x 1, each thread's z from blockIdx.z; ", tuple(notes))
    return got


MARCH_TILES = ((32, 8), (32, 4), (64, 4), (32, 16))
# (x, y, rows per thread): on an H100 the 5-point stencil's tile took 504, 335 and 270 us at 8192^2 with 1, 2 and 4
# rows per thread (the kernel as written 269): more rows, more loads in flight before the barrier
STENCIL_TILES = ((32, 8, 8), (32, 8, 4), (32, 4, 16), (64, 4, 8), (32, 8, 2), (32, 8, 1), (32, 16, 1))
STENCIL_MARCHES = ((32, 4, 32, 4), (64, 2, 32, 4), (32, 8, 16, 2), (128, 1, 32, 4), (32, 4, 64, 1))  # tx, ty, strip, unroll
MARCH_CHUNKS = (32, 64, 16)


def _plane_range(src: SourceFile, k, ctx: Context):
    """How the kernel reaches its planes: (the kernel read one plane per blockIdx.z, first plane and one past
    the last as C over the parameters, the plane count as spec text and as C over a launch's arguments,
    whether a loop in the thread walked them); None where it has no planes."""
    block, grid = list(ctx.launch.get("block") or []), list(ctx.launch.get("grid") or [])
    body = src.node_text(k.body)
    if "threadIdx.z" in body or ("blockIdx.z" in body and len(grid) == 3):
        if len(grid) != 3:
            return None
        new = flatview.z_on_grid(src, k) if "threadIdx.z" in body else src.text
        try:
            bz = int(block[2]) if len(block) == 3 else 1
        except (TypeError, ValueError):
            return None
        if new is None or bz < 1:
            return None
        ze = _spec_in_c(cover(grid[2], bz, 1), ctx)
        if ze is None:
            raise Refuse(f"the launch's grid {grid[2]} in z is not written in the kernel's parameters: the march "
                         "cannot tell the old last plane")
        return new, "0", ze, cover(grid[2], bz, 1), lambda g, b, args: f"dim3({g}).z * dim3({b}).z", False
    pl = plane_loop(src, k)
    if isinstance(pl, KernelRefusal):
        if pl.not_this_shape or neighbours_along_x(src, k) < 3:
            return None
        raise Refuse(pl.reason)
    start = src.node_text(pl.start)
    names = set(re.findall(r"[A-Za-z_]\w*", f"{start} {pl.bound}"))
    params = {p.name for p in k.params}
    if any(n not in params and n not in src.constants for n in names):
        raise Refuse(f"line {pl.node.start_point[0] + 1}: the planes run from {start} to {pl.bound}, which are not "
                     "written in the kernel's parameters: the grid over chunks of planes cannot be sized")
    count = f"({pl.bound}) - ({start})"
    table = {**{n: str(v) for n, v in src.constants.items()}, **{p: str(v) for p, v in ctx.scalar_params.items()}}
    spec = in_terms_of(count, table)
    if spec is None:
        raise Refuse(f"the planes {start} to {pl.bound} are not given by the launch spec's sizes")
    consts = {n: str(v) for n, v in src.constants.items()}
    return (march.plane_form(src, k, pl), start, pl.bound, spec,
            lambda g, b, args: in_terms_of(count, {**consts, **args}) if args else count, True)


def march_plans(text: str, ctx: Context) -> list[Plan]:
    """A 3-D stencil with a loop over planes in each thread, or one thread per point of a 3-D grid: 2.5-D
    blocking, a 2-D tile per block marching along z through a chunk of planes (march.py)."""
    text = taps.unroll_taps(text, ctx.path, ctx.kernel) or text
    src = parse_source(text, ctx.path)
    k = src.kernel(ctx.kernel)
    if k is None or k.body is None or "threadIdx.y" not in src.node_text(k.body):
        return []
    try:
        got = _plane_range(src, k, ctx)
    except Refuse:
        if neighbours_along_x(src, k) < 3:
            return []  # planes of another kind (a batch on blockIdx.z): nothing to say
        raise
    if got is None:
        return []
    planes, zs, ze, zcount, zhost, looped = got
    psrc = parse_source(planes, ctx.path)
    pk = psrc.kernel(ctx.kernel)
    st = stencil3(psrc, pk)
    if isinstance(st, KernelRefusal):
        if st.not_this_shape or neighbours_along_x(src, k) < 3:
            return []
        raise Refuse(f"a loop over planes, but {st.reason}" if looped else st.reason)
    block, grid = list(ctx.launch.get("block") or []), list(ctx.launch.get("grid") or [])
    try:
        bx, by = int(block[0]), int(block[1])
    except (TypeError, ValueError, IndexError):
        raise Refuse("the launch's block is not a number in x and y") from None
    ex, ey = (_spec_in_c(cover(grid[i], b, 1), ctx) for i, b in ((0, bx), (1, by)))
    body = src.node_text(k.body)
    free = ex is not None and ey is not None and "blockDim.x" in body and "blockDim.y" in body
    tiles = list(dict.fromkeys(((bx, by),) + (MARCH_TILES if free else ())))
    if free:
        tiles.sort(key=lambda t: MARCH_TILES.index(t) if t in MARCH_TILES else len(MARCH_TILES))
    # the register window alone first (the shared ring's staging made the march 3x slower than the kernel as written
    # on an H100), then the ring
    space = [{"tx": tx, "ty": ty, "chunk": MARCH_CHUNKS[0], "regs": 1} for tx, ty in tiles[:2]]
    space += [{"tx": tx, "ty": ty, "chunk": MARCH_CHUNKS[0]} for tx, ty in tiles[:1]]
    space += [{"tx": tiles[0][0], "ty": tiles[0][1], "chunk": c} for c in MARCH_CHUNKS[1:]]
    space += [{"tx": tx, "ty": ty, "chunk": MARCH_CHUNKS[0]} for tx, ty in tiles[1:]]
    if st.extra:  # a boundary point copied and left: the ring's staging reads only the interior path's neighbours
        space = [kn for kn in space if kn.get("regs")]
    three = len(block) == 3
    answers = tuple(r for r in ("uncoalesced-access", "memory-bound") if r in ctx.answers_present)
    lx, rx = st.span(0)
    ly, ry = st.span(1)
    zb, za = st.span(2)

    def build(knobs):
        tx, ty, zc = int(knobs["tx"]), int(knobs["ty"]), int(knobs["chunk"])
        inside = "true" if (tx, ty) == (bx, by) else _old_thread(tx, ty, ex, ey)
        regs = bool(knobs.get("regs"))
        new = march.restage(psrc, pk, st, (tx, ty), zc, zs, ze, inside, window=regs)

        def host(g, b, args=None):
            n = zhost(g, b, args or {})
            zg = f"(unsigned)((long long)({n}) > 0 ? ((long long)({n}) + {zc - 1}) / {zc} : 1)" if n else "1"
            return (f"dim3((dim3({g}).x * dim3({b}).x + {tx - 1}) / {tx}, (dim3({g}).y * dim3({b}).y + {ty - 1}) / "
                    f"{ty}, {zg})", f"dim3({tx}, {ty}{', 1' if three else ''})")
        new, notes = _host(new, ctx.path, ctx.kernel, host)
        launch = {"grid": [cover(grid[0], bx, tx), cover(grid[1], by, ty), f"max(cdiv({zcount}, {zc}), 1)"],
                  "block": [tx, ty] + ([1] if three else [])}
        fresh = len(st.points) - len(virtual.reuse_preds([p[1:] for p in st.points], 2))
        desc = (f"2.5-D blocking: {tx} x {ty} tiles of (x, y) marching along z through {zc} planes per block; the "
                f"{len(st.points)} loads of {st.array} from a register window over {zb + za + 1} planes at the "
                f"thread's own (x, y)" + (f" and shared tiles with a halo of {max(lx, rx, ly, ry)}" if st.flat and not regs
                                          else f", {fresh} loaded a plane (the x and y neighbours from L1)" if regs else "")
                + (", the loop over planes spread over blocks" if looped else ", z from the grid per chunk"))
        return Candidate(source=new, launch=dict(ctx.base_launch or {}, **launch), flags=ctx.flags, answers=answers,
                         origin="builtin:stencil-march", kind="structural", knobs=tuple(sorted(knobs.items())),
                         notes=tuple(notes), description=desc)
    return [Plan("stencil-march", "3-D stencil marched along z (2.5-D blocking)", answers, space, build, 0.8)]


def _prefixed(build, say: str, notes: tuple):
    def prefixed(knobs):
        c = build(knobs)
        return replace(c, description=say + c.description, notes=tuple(notes) + c.notes)
    return prefixed


# ---------------------------------------------------------------- matrix products


def matmul_plans(text: str, ctx: Context, coarse: bool = False) -> tuple[list[Plan], list[str]]:
    """A recognised matrix product: the coalescing remap, and shared-memory tiles with register tiles
    (and why one of them does not apply). coarse: the text is one output of a thread that computes several
    (matmul.first_of_coarsened), so only the plans that set their own launch apply."""
    src = parse_source(text, ctx.path)
    strided = False
    flat = matmul.unstride(src, ctx.kernel)  # grid- or block-stride loops over the outputs: one output per thread
    if flat is not None:
        src, strided = parse_source(flat, ctx.path), True
    grid_sums = matmul.one_of_grid(src, ctx.kernel, list(ctx.launch.get("block") or []))
    if grid_sums is not None:  # an R x C tile in named sums (`c00 .. c11`): its first output, one a thread (tiles only)
        src, coarse = parse_source(grid_sums, ctx.path), True
    try:
        try:
            c = matmul.product(src, ctx.kernel)
        except NotThisShape:
            raise
        except Refuse:  # a small tile of outputs per thread in named sums: read one output per thread (tiles only)
            one = matmul.one_output(src, ctx.kernel, list(ctx.launch.get("block") or []))
            if one is None:
                raise
            src, coarse = parse_source(one, ctx.path), True
            c = matmul.product(src, ctx.kernel)
    except NotThisShape:
        return [], []
    except Refuse as e:
        raise Refuse(f"a loop multiplies two operands along k, but {e}") from None
    c = _own_copy(c)
    if c.per_thread != (1, 1):  # an array of sums over a loop of outputs (`acc[u]`, `for (u = 0; u < 2; ++u)`)
        first = matmul.first_of_coarsened(src, ctx.kernel)
        first = first and (hoist_invariant_guards(first, ctx.path, ctx.kernel) or first)  # `if (col < n)` per step
        try:
            c1 = matmul.product(parse_source(first, ctx.path), ctx.kernel) if first else None
        except (Refuse, NotThisShape):
            c1 = None
        if c1 is not None and c1.per_thread == (1, 1):
            src, c, coarse = parse_source(first, ctx.path), _own_copy(c1), True
    out, why = [], []
    what = matmul.describe(c)
    answers = tuple(r for r in ("matmul-without-tensor-cores", "matmul-global-operands", "uncoalesced-access")
                    if r in ctx.answers_present)
    grid = list(ctx.launch.get("grid") or [])
    block = list(ctx.launch.get("block") or [])
    if matmul.needs_remap(c) and not strided and not coarse:  # (the remap keeps the launch: a grid-stride kernel's,
        # or one of several outputs per thread read as one, would not cover)
        if len(grid) < 2 or len(block) < 2:
            why.append("the output's contiguous dimension comes from threadIdx.y, but the launch is not 2-D")
        else:
            def build_remap(knobs):
                new = matmul.swap_xy(src, ctx.kernel)
                launch = dict(ctx.base_launch or {})
                launch.update(grid=[grid[1], grid[0]] + grid[2:], block=[block[1], block[0]] + block[2:])
                desc = (f"coalescing remap of the matrix product ({what}): threadIdx.x on the output's contiguous "
                        f"dimension `{c.out.contiguous}` (x and y exchanged in the kernel and its launch)")
                return Candidate(source=new, launch=launch, flags=ctx.flags, description=desc,
                                 answers=tuple(r for r in answers if r == "uncoalesced-access") or answers,
                                 origin="builtin:matmul-coalesce", kind="structural", knobs=(), notes=())
            out.append(Plan("matmul-coalesce", "coalescing remap", answers, [{}], build_remap, 0.8))
    for axis in (c.row, c.col) if not coarse else ():  # (read as one output per thread: its own guards only)
        if axis.extent is None or axis.extent.startswith("gridDim."):  # no guard (or only the grid's reach): the
            # extent the old launch covers, where a parameter equals it (`M` for a block per row over M blocks)
            axis.extent = _extent_from_launch(src, ctx, c, axis) or axis.extent
    if c.batch is not None and c.batch.thread == "blocks":  # counts held in locals (`int NH = C / HS;`) in
        # the parameters, then those the launch gives
        k0 = src.kernel(ctx.kernel)
        c.batch.parts = {a: e if e is None else matmul.in_params(src, k0, e) or e for a, e in c.batch.parts.items()}
        _block_counts_from_launch(src, ctx, c)
    k_ = src.kernel(ctx.kernel)
    for axis in (c.row, c.col):  # sizes held in locals (`int hs = C / NH;`) written in the parameters
        if axis.extent is not None:
            axis.extent = matmul.in_params(src, k_, axis.extent) or axis.extent
    kept = _kept_grid(src, ctx, c) if not coarse else None  # else, where the grid alone says it: gridDim times the rows of a block
    try:
        coords, causal = matmul.check_tiles(src, ctx.kernel, c, kept=bool(kept))
    except Refuse as e:
        why.append(f"shared-memory tiles: {e}")
        coords = causal = None
    if coords is not None:
        table = _spec_table(src, ctx)
        g = matmul.grid_text(c, table, 1, 1, None) if not kept else ("", "")
        zt = matmul.batch_z(c, table, [str(x) for x in grid] + ["1"] * (3 - len(grid))) \
            if c.batch is not None and c.batch.thread in ("loop", "digits", "blocks") else ""
        if zt is None:
            why.append(f"shared-memory tiles: the batch count {c.batch.extent} is not in the spec's values of the "
                       "kernel's parameters")
        elif g is None:
            why.append(f"shared-memory tiles: the output's size ({c.M} x {c.N}) is not in the spec's values of "
                       "the kernel's parameters")
        elif zt and (_largest(ctx, zt) or 1) > 65535:
            why.append(f"shared-memory tiles: the batch ({zt} = {_largest(ctx, zt)} at the spec's largest size) is "
                       "more than the grid's z takes (65535)")
        else:
            acc = 8 if "double" in (c.acc_type + c.out.elem) else 4
            m, n = (_largest(ctx, in_terms_of(c.M, table) or "0"), _largest(ctx, in_terms_of(c.N, table) or "0")) \
                if not kept else (kept["m"], kept["n"])
            zgrid = ([grid[2]] if len(grid) > 2 else [])
            if zt:  # the batch loop becomes the grid's z
                zgrid = [zt]
            nb = _largest(ctx, str(zgrid[0])) if zgrid else 1
            # each size's own best tiles early (1024^2 outputs leave half the SMs idle in 128 x 128 tiles)
            points = [(m, n, nb)] if kept else _size_points(
                ctx, [in_terms_of(c.M, table) or "0", in_terms_of(c.N, table) or "0", str(zgrid[0]) if zgrid else "1"])
            features = matmul.simt_features(c, _arch_num(ctx.arch))
            spaces = [matmul.tile_space(len(c.terms), acc, pm or m, pn or n, pb or nb, ctx.arch, **features)
                      for pm, pn, pb in points]
            space = per_size_order(spaces)
            if kept:  # no more tiles than the grid has blocks: a tile at least as tall and wide as a block's outputs
                space = [x for x in space if x["bm"] >= kept["rows"] and x["bn"] >= kept["cols"]]
            sym = not kept and matmul.symmetric(c)  # C = A Aᵀ: square tiles on and below the diagonal, mirrored
            if sym:
                space = _symmetric_space(space)

            def tiled_launch(bm, bn, threads, new):
                launch = dict(ctx.base_launch or {})
                if launch.get("shared_bytes") not in (None, 0, "0") and "extern __shared__" not in new:
                    launch["shared_bytes"] = 0  # the staged tiles' dynamic shared memory went with them
                if kept:
                    launch.update(block=[threads])
                else:
                    launch.update(grid=[f"cdiv({in_terms_of(c.N, table)}, {bn})",
                                        f"cdiv({in_terms_of(c.M, table)}, {bm})"] + zgrid, block=[threads])
                return launch
            restricted = sorted({x for pair in c.assumes for x in pair})
            assumptions = (f"assumes {', '.join(restricted)} never overlap (adds __restrict__: the output is "
                           "written once, after the sums)",) if restricted else ()

            def build_tiles(knobs):
                bm, bn, bk, tm, tn, pad = (int(knobs[x]) for x in ("bm", "bn", "bk", "tm", "tn", "pad"))
                vec, stages, swz = (int(knobs.get(x, 1 if x != "swz" else 0)) for x in ("vec", "stages", "swz"))
                pre, half = int(knobs.get("pre", 0)), bool(knobs.get("sym", 0))
                threads = (bm // tm) * (bn // tn)
                new = matmul.tile_body(src, ctx.kernel, c, coords, bm, bn, bk, tm, tn, pad, vec, causal, stages, swz,
                                       kept=bool(kept), pre=pre, sym=half)
                if pre and 65536 // (threads * 128):  # the next slab's registers on top of the sums: at most 128
                    # registers a thread, the count that lets as many blocks in as the cp.async variant (129 without)
                    new = add_attribute(new, ctx.path, ctx.kernel,
                                        f"__launch_bounds__({threads}, {65536 // (threads * 128)})", False) or new
                if restricted:  # the sums are stored after every operand is read: said, and made __restrict__
                    new = add_restrict(new, ctx.kernel)[0]
                new, notes = matmul.host_launches(src, ctx.kernel, c, new, bm, bn, threads, bool(kept))
                launch = tiled_launch(bm, bn, threads, new)
                desc = (f"shared-memory tiles for the matrix product ({what}): {bm} x {bn} outputs per block, "
                        f"{bk}-deep slabs " + ("with XOR-swizzled rows where stored transposed" if swz else
                                               f"padded by {pad}") + f", {tm} x {tn} outputs per thread in registers, "
                        f"sums in {matmul._acc_type(c.acc_type)}"
                        + ("; tiles loaded 16 bytes at a time where aligned and in bounds" if vec > 1 else "")
                        + ("; double-buffered: the next slabs loaded into registers while this one is used"
                           if stages == 2 and pre else "; double-buffered: the next slabs copied with cp.async while "
                           "this one is used" if stages == 2 else "")
                        + (f"; k stops at the bound of the block's last {causal}, each {causal}'s operand zero past "
                           "its own" if causal else "") + (matmul.SYMMETRIC if half else ""))
                return Candidate(source=new, launch=launch, flags=ctx.flags, description=desc, answers=answers,
                                 origin="builtin:matmul-tiles", kind="structural", knobs=tuple(sorted(knobs.items())),
                                 notes=assumptions + tuple(notes))
            try:
                wt = matmul.check_wmma(c)
            except Refuse as e:
                wt = None
                kmax = _largest(ctx, in_terms_of(c.K, table) or "") if not causal else m
                admitted = matmul.tf32_admits(c, ctx.tolerance, kmax)
                if isinstance(admitted, str):
                    why.append(f"tensor cores: {e}; TF32: {admitted}")
                    wt = "3xtf32" if matmul.split_tf32_ok(c) else None  # fp32-accurate tensor cores
                else:
                    wt = "tf32"
            if wt is not None and _arch_num(ctx.arch) >= 80:
                wspaces = [matmul.wmma_space(c, wt if "tf32" in wt else "16-bit", pm or m, pn or n, pb or nb, ctx.arch)
                           for pm, pn, pb in points]
                wspace = per_size_order(wspaces)
                if kept:
                    wspace = [x for x in wspace if x["bm"] >= kept["rows"] and x["bn"] >= kept["cols"]]
                if sym:
                    wspace = _symmetric_space(wspace)

                def build_wmma(knobs):
                    bm, bn, bk, stages = (int(knobs.get(x, 1)) for x in ("bm", "bn", "bk", "stages"))
                    wm, wn = int(knobs.get("wm", 32)), int(knobs.get("wn", 32))
                    new = matmul.wmma_body(src, ctx.kernel, c, coords, bm, bn, bk, causal, tf32=wt == "tf32",
                                           stages=stages, split=wt == "3xtf32", wm=wm, wn=wn, kept=bool(kept),
                                           sym=bool(knobs.get("sym", 0)))
                    if restricted:
                        new = add_restrict(new, ctx.kernel)[0]
                    threads = (bm // wm) * (bn // wn) * 32
                    new, notes = matmul.host_launches(src, ctx.kernel, c, new, bm, bn, threads, bool(kept))
                    launch = tiled_launch(bm, bn, threads, new)
                    desc = (f"tensor cores for the matrix product ({what}): WMMA 16x16x16 on {wt} operands with fp32 "
                            f"sums, {bm} x {bn} outputs per block ({wm} x {wn} per warp), {bk}-deep slabs in shared memory"
                            + (", double-buffered through cp.async" if stages == 2 else "")
                            + (matmul.SYMMETRIC if knobs.get("sym") else ""))
                    if wt == "tf32":
                        desc = desc.replace("16x16x16 on tf32 operands", "16x16x8 on fp32 operands rounded to TF32 "
                                            "(10-bit mantissa)") + "; " + matmul.tf32_admits(c, ctx.tolerance, kmax)[1]
                    if wt == "3xtf32":
                        desc = (desc.replace("16x16x16 on 3xtf32 operands", "16x16x8 on fp32 operands") + "; "
                                + matmul.SPLIT_POLICY + f" (plain TF32 not used: {admitted})")
                    return Candidate(source=new, launch=launch, flags=ctx.flags, description=desc, answers=answers,
                                     origin=f"builtin:{plan}", kind="structural",
                                     knobs=tuple(sorted(knobs.items())), notes=assumptions + tuple(notes))
                plan = "matmul-3xtf32" if wt == "3xtf32" else "matmul-wmma"
                if not wspace:
                    why.append("tensor cores: no WMMA setting fits the shared memory and registers")
                else:
                    out.append(Plan(plan, "tensor cores, fp32-accurate (3xTF32)" if wt == "3xtf32" else
                                    "tensor cores (WMMA)", answers, wspace, build_wmma, 0.9 if plan == "matmul-wmma"
                                    else 0.8, assumptions, heads=per_size_heads(wspaces, wspace)))
            if space:
                out.append(Plan("matmul-tiles", "shared-memory and register tiles", answers, space, build_tiles, 0.85,
                                assumptions, heads=per_size_heads(spaces, space)))
            else:
                why.append("shared-memory tiles: no tile setting fits the shared memory and registers")
    library = _library_plan(text, src, c, ctx, what, answers)
    if isinstance(library, str):
        why.append(library) if library else None
    else:
        out.insert(0, library)
    if why and not out:
        raise Refuse("; ".join(why))
    return out, why


LIBRARY_ANY_TYPE = False  # tests: the library plan for a product of any element type (the mapping checked)


def _library_plan(text: str, src: SourceFile, c, ctx: Context, what: str, answers) -> Plan | str:
    """The product on the library's tensor-core GEMM behind the kernel's signature (gemmlib), or why not
    ("" where the operands are not 16-bit: the block is not for them, nothing to say)."""
    tf32 = None  # fp32 operands: through TF32 where the spec's tolerance admits its error (said in the description)
    if not LIBRARY_ANY_TYPE and not any(gemmlib._type(o.elem) in gemmlib.ELEMENTS for t in c.terms for o in t):
        if len(c.terms) != 1 or not all(gemmlib._type(o.elem) == "float" for o in c.terms[0]):
            return ""
        table = _spec_table(src, ctx)
        kmax = _largest(ctx, in_terms_of(c.K, table) or "") if not c.causal else None
        admitted = matmul.tf32_admits(c, ctx.tolerance, kmax)
        if isinstance(admitted, str):
            return ""  # (the tensor-core plans say why TF32 is not used)
        tf32 = admitted[1]
    if _arch_num(ctx.arch) != 90:
        return f"the library GEMM: built for sm_90a (wgmma), the target is {ctx.arch}"
    from kernelpro.profilers.hunt.corpus import cutlass_root
    if cutlass_root() is None:
        return "the library GEMM: CUTLASS's headers are not installed (pip install nvidia-cutlass)"
    grid = [str(g).strip() for g in ctx.launch.get("grid") or []]
    if c.batch is not None and (c.batch.extent or "").startswith("gridDim.z") and len(grid) > 2:
        # a batch bounded by the grid alone: the parameter the spec passes the grid's z as
        same = [p for p, v in ctx.scalar_params.items() if str(v).strip() == grid[2]]
        if same:
            c.batch.extent = same[0]
    try:
        p = gemmlib.plan(src, c, types=not LIBRARY_ANY_TYPE, tf32=tf32 is not None)
    except Refuse as e:
        return str(e)
    orig = parse_source(ctx.original or text, ctx.path)  # the kernel stays as written beside its launcher
    host = gemmlib.launcher_name(ctx.kernel)
    tiles = gemmlib.TF32_TILES if tf32 else gemmlib.TILES  # (4-byte operands: half the k depth)

    def build(knobs):
        tile, cluster = str(knobs["tile"]), int(knobs["cluster"])
        new = gemmlib.rewrite(orig, ctx.kernel, p, tile, cluster, tiles)
        desc = (f"the matrix product ({what}) on the library's tensor-core GEMM (kernelpro/gemm_sm90.cuh: CUTLASS 3, "
                f"TMA and wgmma, fp32 sums), {gemmlib.tiles_text(tile, cluster)}, run by the host launcher {host} "
                f"that takes the kernel's arguments" + (" (the output column-major: computed as its transpose)"
                                                        if p["transposed"] else "")
                + (f"; fp32 operands multiplied in TF32 (10-bit mantissa): {tf32}" if tf32 else ""))
        note = (f"{ctx.kernel} stays in the file; the spec runs {host} instead (a host step), and the file's own "
                f"launches call it; sizes the tensor cores refuse go to the block's plain kernel")
        return Candidate(source=new, launch={"host": host}, flags=ctx.flags, description=desc, answers=answers,
                         origin="builtin:matmul-library", kind="structural", knobs=tuple(sorted(knobs.items())),
                         notes=(note,))
    return Plan("matmul-library", "the library's tensor-core GEMM" + (" in TF32" if tf32 else ""), answers,
                [dict(t) for t in tiles], build, 0.95)


def _symmetric_space(space: list[dict]) -> list[dict]:
    """A symmetric product's settings (matmul.symmetric): the square tiles, each computing the lower half only;
    the others where no tile is square."""
    square = [{**x, "sym": 1} for x in space if x["bm"] == x["bn"]]
    return square or space


def _short_rows(ctx: Context, src: SourceFile, walks) -> int | None:
    """The rows' length where every walked loop runs at most 8 times at the spec's largest size (a stencil's
    taps, `for (off = -R; off <= R; ++off)`), else None."""
    most = None
    for rl in walks:
        i = rl.info
        if i.bound is None or i.start is None or i.step != 1 or i.cmp not in ("<", "<="):
            return None
        span = f"({src.node_text(i.bound)}) - ({src.node_text(i.start)})" + (" + 1" if i.cmp == "<=" else "")
        vals = [_eval(span, {**src.constants, **env}) for env in ctx.size_env.values()]
        n = max((v for v in vals if v is not None), default=None)
        if n is None or n > 8:
            return None
        most = max(most or 0, int(n))
    return most


def _spec_table(src: SourceFile, ctx: Context) -> dict:
    """The kernel's scalar parameters in the spec's terms, and the file's integer constants (#define
    NI 512, namespace-scope const) as their values."""
    table = {n: str(v) for n, v in src.constants.items() if n not in src._scoped}
    table.update({p: str(v) for p, v in ctx.scalar_params.items()})
    return table


def _own_copy(c):
    """The contraction with its own axes: the plans fill in counts from the launch (an unguarded row's extent, a
    batch part's count), which must not reach the one memoised with the source text."""
    return replace(c, row=replace(c.row), col=replace(c.col), batch=replace(c.batch, parts=dict(c.batch.parts))
                   if c.batch is not None and c.batch.parts is not None else replace(c.batch) if c.batch else None)


def _block_counts_from_launch(src: SourceFile, ctx: Context, c) -> None:
    """A batch of block positions with an unguarded part (`h = blockIdx.y` over a grid of NH rows): its count
    from the old launch, where a parameter equals it at every size; the batch's count once every part has one."""
    parts = c.batch.parts
    for a, e in parts.items():
        if e is None:
            parts[a] = _extent_from_launch(src, ctx, c, Axis((a,), None, None))
    rest = [a for a, e in parts.items() if e is None and re.fullmatch(r"blockIdx\.[xyz]", c.coords.get(a, ""))]
    if len(rest) == 1 and sum(e is None for e in parts.values()) == 1:  # one left, a block index as it is: the
        # slowest digit (its count never needed in the kernel), the old grid's count at the launch
        a = rest[0]
        c.batch.parts = {**{x: e for x, e in parts.items() if x != a}, a: "gridDim." + c.coords[a][-1]}
    c.batch.extent = parts_count(c.batch.parts) or c.batch.extent


def _extent_from_launch(src: SourceFile, ctx: Context, c, axis) -> str | None:
    """For an output index the kernel never bounds: the number of values the old launch gives it
    (its largest value + 1 over the grid and block), matched at every size of the spec to one of the
    kernel's sizes (the k loop's bound, the strides, a scalar parameter); None where none matches."""
    from kernelpro.profilers.analysis.affine import build_env

    k = src.kernel(ctx.kernel)
    if len(axis.atoms) != 1 or axis.atoms[0] not in c.coords or not ctx.size_env:
        return None
    env = build_env(src, k)
    d = next((n for n in walk(k.body) if n.type == "init_declarator"
              and src.node_text(n.child_by_field_name("declarator")) == axis.atoms[0]), None)
    p = env.poly(d.child_by_field_name("value")) if d is not None else None
    grid, block = list(ctx.launch.get("grid") or []), list(ctx.launch.get("block") or [])
    if p is None and d is None:
        return None
    names = ["x", "y", "z"]
    cands = [c.K] + [s for o in [c.out] + [x for t in c.terms for x in t] for s in o.strides.values()] + \
        [x.name for x in k.params if not x.is_pointer]
    table = _spec_table(src, ctx)
    for cand in dict.fromkeys(cands):
        spec_expr = in_terms_of(cand, table)
        if spec_expr is None:
            continue
        ok = True
        for env_ in ctx.size_env.values():
            vals = {}
            for i, nm in enumerate(names):
                g = _eval(str(grid[i]), env_) if i < len(grid) else 1
                b = _eval(str(block[i]), env_) if i < len(block) else 1
                if g is None or b is None:
                    ok = False
                    break
                vals.update({f"blockIdx.{nm}": g - 1, f"threadIdx.{nm}": b - 1, f"blockDim.{nm}": b, f"gridDim.{nm}": g})
            if not ok:
                break
            if p is None:  # a quotient or remainder of the thread index (`threadIdx.x / 32`): its value at the
                top = _value_at(src, k, d.child_by_field_name("value"), vals)  # last thread, where it is largest
                if top is None:
                    return None
            else:
                top = 0
            for m, coef in (p or {}).items():
                v = coef
                for a in m:
                    if a not in vals:
                        return None
                    v *= vals[a]
                top += v
            want = _eval(spec_expr, env_)
            if want is None or top + 1 != want:
                ok = False
                break
        if ok:
            return cand
    return None


def _kept_grid(src: SourceFile, ctx: Context, c) -> dict | None:
    """Where an output index has no bound that a parameter gives (no guard, no parameter equal to the
    old launch's reach) and both are `C * blockIdx.D + threadIdx.D` with blocks of C threads along D at
    every size of the spec: that axis's extent becomes gridDim.D * C, and the tiled kernel keeps the
    launch's grid (matmul._origin). The rows and columns per old block, and the sizes at the largest."""
    if c.row.extent is not None and c.col.extent is not None:
        return None
    k = src.kernel(ctx.kernel)
    forms = [matmul.kept_grid_axis(src, k, c, a) for a in (c.row, c.col)]
    if None in forms or forms[0][0] == forms[1][0] or not ctx.size_env:
        return None
    grid, block = list(ctx.launch.get("grid") or []), list(ctx.launch.get("block") or [])
    reach = []
    for dim, per in forms:
        i = "xyz".index(dim)
        if i >= len(grid) or i >= len(block) or any(_eval(str(block[i]), e) != per for e in ctx.size_env.values()):
            return None
        reach.append(_largest(ctx, f"({grid[i]}) * {per}"))
    for (dim, per), axis in zip(forms, (c.row, c.col)):
        if axis.extent is None:
            axis.extent = f"gridDim.{dim} * {per}"
    table = _spec_table(src, ctx)
    m = _largest(ctx, in_terms_of(c.M, table) or "0") if not c.M.startswith("gridDim") else reach[0]
    n = _largest(ctx, in_terms_of(c.N, table) or "0") if not c.N.startswith("gridDim") else reach[1]
    return {"rows": forms[0][1], "cols": forms[1][1], "m": m, "n": n}


def _dynamic_shared(ctx: Context) -> int | None:
    """The launch's dynamic shared bytes at every size of the spec where they are one number; else None."""
    shared = ctx.launch.get("shared_bytes")
    if shared in (None, "", 0, "0"):
        return None
    vals = {_eval(str(shared), env) for env in (ctx.size_env or {"": {}}).values()}
    return vals.pop() if len(vals) == 1 and None not in vals else None


def _value_at(src: SourceFile, k, node, vals: dict, depth: int = 0) -> int | None:
    """An integer expression of the thread's position at `vals` (builtins -> values), through the kernel's
    int locals and the file's constants (SourceFile.eval_int); None where something else is read."""
    if node is None or depth > 8:
        return None
    env = dict(vals)
    for n in walk(node):
        name = src.node_text(n) if n.type == "identifier" and n.parent.type != "field_expression" else None
        if name is None or name in env or name in src.constants:
            continue
        d = next((x for x in walk(k.body) if x.type == "init_declarator"
                  and src.node_text(x.child_by_field_name("declarator")) == name), None)
        v = _value_at(src, k, d.child_by_field_name("value"), vals, depth + 1) if d is not None else None
        if v is None:
            return None
        env[name] = v
    return src.eval_int(node, env)


def plans(text: str, ctx: Context) -> tuple[list[Plan], list[str]]:
    """Every structural plan that applies, and why the others did not (a template kernel's values those of the
    instantiation the spec runs)."""
    with chosen_instantiation(ctx.kernel, ctx.template):
        found, why = _plans(text, ctx)
        if not found and any("may overlap" in w for w in why):
            found = _assuming_no_overlap(text, ctx)
        covering = _covering(text, ctx)
        if covering is not None:  # a grid-stride loop over a grid of its own: as one pass a thread under a launch
            # with a thread for every element, the plans the loop hid (the transpose of an NCHW -> NHWC loop)
            more, _ = _plans(*covering)
            found += [p for p in more if p.name not in {q.name for q in found}]
            why = [w for w in why if w.split(":")[0] not in {p.family for p in more}]
        more, flag_why = _specialised_flags(text, ctx)  # `transa ? A[l + i * lda] : A[i + l * lda]`
        for p in more:  # a plan of the kernel as written that gives nothing (`if (beta == 0) ..; else ..;` after a
            # column's sum) yields to the same plan of the specialised kernel
            same = next((q for q in found if q.name == p.name), None)
            if same is not None and _builds(same):
                continue
            found = [q for q in found if q is not same] + [p]
        why += flag_why
    for p in found:  # (built later, by the proposer: with the same instantiation)
        p.build = _in_instantiation(p.build, ctx)
    return found, why


def _builds(plan: Plan) -> bool:
    """Whether the plan's first knob setting builds."""
    try:
        plan.build(plan.space[0]) if plan.space else None
        return bool(plan.space)
    except Refuse:
        return False


def _specialised_flags(text: str, ctx: Context) -> tuple[list[Plan], list[str]]:
    """The plans of the kernel with each branch on flag-like arguments alone (`char transa`, `bool transB`,
    `beta == 0.0f`) taken as at the spec's values (flags.py); each candidate keeps the kernel as written for other
    values, so it computes what the kernel computes for any argument."""
    envs = [{p: _eval(str(v), env) for p, v in ctx.scalar_params.items()} for env in ctx.size_env.values()]
    spec = flags.specialised(text, ctx.path, ctx.kernel, [{p: v for p, v in e.items() if v is not None} for e in envs])
    if spec is None:
        return [], []
    grid = [_spec_in_c(g, ctx) for g in ctx.launch.get("grid") or []]
    try:
        block = [int(b) for b in ctx.launch.get("block") or []]
        kept_kernel = flags.as_written(text, ctx.path, ctx.kernel)
    except (Refuse, ValueError, TypeError) as e:
        return [], [f"flags: the branches on {spec.note.split(' (')[0][len('specialised to the '):]} could be read "
                    f"at the spec's values, but the kernel as written could not be kept for the others: {e}"]
    if not grid or None in grid or not block:
        return [], ["flags: the spec's grid is not an expression of the kernel's parameters: the kernel as "
                    "written could not be kept for other arguments"]
    found, why = _plans(spec.text, ctx)

    def kept(build):
        def run(knobs):
            c = build(knobs)
            if c.runs_host_launcher:
                raise Refuse("a host launcher runs this candidate: the kernel as written cannot be kept in it for "
                             "other arguments than the spec's")
            src = flags.with_fallback(c.source, ctx.path, ctx.kernel, kept_kernel, spec.guard, grid, block)
            return replace(c, source=src, description=spec.note + ": " + c.description,
                           notes=tuple(c.notes) + (spec.note,))
        return run
    for p in found:
        p.build = kept(p.build)
    return found, [f"flags (specialised to the spec's values): {w}" for w in why] if not found else []


def _assuming_no_overlap(text: str, ctx: Context) -> list[Plan]:
    """Where a plan stopped only because pointers may overlap (`y[n*F + f]` written while `gamma[f]` is read, no
    `__restrict__`), the plans of the kernel with `__restrict__` on its pointers: the candidate says so in its
    code and its description (the spec's buffers never overlap; a caller that passes overlapping ones must not
    take it)."""
    src = parse_source(text, ctx.path)
    k = src.kernel(ctx.kernel)
    for kernel, args in ctx.steps:  # a spec that passes one buffer twice (or an offset into one) to the kernel
        if kernel == ctx.kernel and k is not None:
            ptrs = [a for a, p in zip(args, k.params) if p.is_pointer]
            if len(set(ptrs)) != len(ptrs) or any(not re.fullmatch(r"\w+", a) for a in ptrs):
                return []
    subs, named = [], []
    for p in k.params if k is not None else []:
        decl = src.data[p.decl_start:p.decl_end]
        star = decl.rfind(b"*")
        if p.is_pointer and not p.is_restrict and star >= 0 and b"[" not in decl and b"(" not in decl:
            subs.append((p.decl_start + star + 1, p.decl_start + star + 1, " __restrict__ "))
            named.append(p.name)
    if len(named) < 2:
        return []
    found, _ = _plans(span_text(src, 0, len(src.data), subs), ctx)
    note = (f"__restrict__ on {', '.join(named)} (the plan needs them not to overlap, as the spec's buffers do not; "
            f"a caller passing overlapping buffers must keep the kernel as written): ")
    for p in found:
        p.build = _noted(p.build, note)
    return found


def _equal_sizes(ctx: Context) -> dict[str, str]:
    """Scalar parameters whose spec values agree at every size: each -> the first of its group, by name. (Used
    only to read a fill's bound on the output's row or column as the store's: one coordinate, A's rows and C's.)"""
    envs = list(ctx.size_env.values())
    if len(envs) == 1 and len({v for p, v in envs[0].items() if p in ctx.scalar_params and isinstance(v, int)}) < 3:
        return {}  # one size whose values barely differ (a square size): equal values say nothing
    groups: dict[tuple, list[str]] = {}
    for p in ctx.scalar_params:
        vals = tuple(env.get(p) for env in envs)
        if vals and all(isinstance(v, int) for v in vals):
            groups.setdefault(vals, []).append(p)
    return {p: sorted(g)[0] for g in groups.values() if len(g) > 1 for p in g}


def _noted(build, note: str):
    def run(knobs):
        c = build(knobs)
        return replace(c, description=note + c.description)
    return run


def _in_instantiation(build, ctx: Context):
    def run(knobs):
        with chosen_instantiation(ctx.kernel, ctx.template):
            return build(knobs)
    return run


def _one_pass(text: str, ctx: Context) -> str | None:
    """A kernel whose body is a grid-stride loop `for (i = first; i < E; i += stride)` (Caffe's CUDA_KERNEL_LOOP;
    only declarations beside it) read as `i = first; if (i < E) body` where the spec's 1-D launch has at least E
    threads at every size: there each thread runs the body once at most, so the two are the same kernel."""
    got = _one_pass_bound(text, ctx)
    return _one_pass_text(got, ctx) if got is not None and _launch_covers(got[3], ctx) else None


def _launch_covers(bound: str, ctx: Context) -> bool:
    """Whether the spec's 1-D launch has at least `bound` threads at every size."""
    grid, block = list(ctx.launch.get("grid") or []), list(ctx.launch.get("block") or [])
    for env in ctx.size_env.values():
        n, threads = _eval(bound, env), _eval(f"({grid[0]}) * ({block[0]})", env)
        if n is None or threads is None or threads < n:
            return False
    return True


def _one_pass_text(got: tuple, ctx: Context) -> str:
    """The loop of `_one_pass_bound`'s reading as one pass: `i = first; if (i < E) body`, its stride's locals gone."""
    src, loop, step, _, _ = got
    k = src.kernel(ctx.kernel)
    init = loop.child_by_field_name("initializer")
    var = src.node_text(init).rstrip().rstrip(";")
    body = loop.child_by_field_name("body")
    # the loop's own `continue` (a wall written, then the next element) ends the one pass: `return`
    jumps = [(j.start_byte, j.end_byte, "return;") for j in leaving_jumps(loop)]
    subs = [(loop.start_byte, loop.end_byte, f"{var};\n  if ({src.node_text(loop.child_by_field_name('condition'))}) "
                                              f"{span_text(src, body.start_byte, body.end_byte, jumps)}")]
    subs += [(d.start_byte, d.end_byte, "") for d in matmul.stride_locals(src, k, step)]
    return span_text(src, 0, len(src.data), sorted(subs))


def _covering(text: str, ctx: Context) -> tuple[str, Context] | None:
    """A grid-stride kernel (`_one_pass`) read as one pass a thread under the launch that has a thread for every
    element (`cdiv(E, block)` blocks, E the loop's bound in the spec's terms), for plans that set a launch of their
    own from the old one (a fixed grid of 24 blocks looping over 9177 elements): (text, context with that launch)."""
    text = plain_form(text, ctx.path, ctx.kernel) or text  # (a loop header written as a macro: Caffe's)
    got = _one_pass_bound(text, ctx)
    if got is None or _launch_covers(got[3], ctx):
        return None  # (not a grid-stride loop, or one whose launch covers it already: the normal form reads that)
    src, loop, step, bound, kernel_bound = got
    k = src.kernel(ctx.kernel)
    grid_use = re.compile(r"\b(blockIdx|gridDim)\b")
    if grid_use.search(src.node_text(loop.child_by_field_name("body"))) or any(
            j.type == "break_statement" for j in leaving_jumps(loop)) or any(
            grid_use.search(src.node_text(d)) for d in k.body.named_children
            if d.type == "declaration" and d not in matmul.stride_locals(src, k, step)):
        return None  # (the body reads the grid, `part[blockIdx.x]`: a new grid changes that; a `break` ended the old
        # thread's later elements too)
    one = _one_pass_text(got, ctx)
    block = list(ctx.launch.get("block") or [])
    launch = dict(ctx.launch, grid=[f"cdiv({bound}, {block[0]})"])

    def host(g, b, args=None):  # the file's own launches: a thread for every element too
        e = in_terms_of(kernel_bound, {**{n: str(v) for n, v in src.constants.items()}, **(args or {})})
        return (f"(unsigned)(((long long)({e}) + ({b}) - 1) / ({b}))", b) if e is not None else (None, None)
    one, notes = _host(one, ctx.path, ctx.kernel, host)
    if notes:
        return None  # (a launch of the file this cannot rewrite would keep the old grid and miss elements)
    return one, replace(ctx, launch=launch, base_launch=dict(ctx.base_launch or {}, **launch))


def _one_pass_bound(text: str, ctx: Context):
    """(source, the loop, its update, its bound E in the spec's terms, E as the kernel writes it) of a kernel whose
    body is one grid-stride loop `for (T i = blockIdx.x * blockDim.x + threadIdx.x; i < E; i += gridDim.x *
    blockDim.x)` under a 1-D launch; None otherwise."""
    grid, block = list(ctx.launch.get("grid") or []), list(ctx.launch.get("block") or [])
    if len(grid) != 1 or len(block) != 1 or not ctx.size_env:
        return None
    src = parse_source(text, ctx.path)
    k = src.kernel(ctx.kernel)
    if k is None or k.body is None:
        return None
    stmts = [n for n in k.body.named_children if n.type not in ("comment", "declaration")]
    loop = stmts[0] if len(stmts) == 1 and stmts[0].type == "for_statement" else None
    init, step = (loop.child_by_field_name("initializer"), loop.child_by_field_name("update")) if loop else (None, None)
    if init is None or step is None or init.type != "declaration" or "blockIdx" not in src.node_text(init) or \
            "threadIdx" not in src.node_text(init) or not matmul.strides_by_grid(src, k, step, "gridDim"):
        return None  # (a block-stride loop runs over every element in each block: not one pass a thread)
    cond = unparen(loop.child_by_field_name("condition"))
    if cond is None or cond.type != "binary_expression" or src.node_text(cond.child_by_field_name("operator")) != "<":
        return None
    right = src.node_text(unparen(cond.child_by_field_name("right")))  # (`i < (n)` of a macro's parameter)
    top = {src.node_text(d.child_by_field_name("declarator")): src.node_text(d.child_by_field_name("value"))
           for st in k.body.named_children if st.type == "declaration" for d in st.children_by_field_name("declarator")
           if d.type == "init_declarator"}
    if right in top and not any(n == right for n, _ in writes_in(src, k.body)):  # `const size_t total = N * C * H;`
        right = f"({top[right]})"
    bound = in_terms_of(right, _spec_table(src, ctx))
    return None if bound is None else (src, loop, step, bound, right)


def _normal_form(text: str, ctx: Context) -> tuple[str, str | None]:
    """The passes every plan reads the kernel through (macros, helpers, loops' spellings, pointers, sums): the text
    and whether looping helpers were inlined."""
    # `#define A(i, j) a[(i) + (j) * lda]`, `__device__ float at(..) { return p[r * ld + c]; }`, `int r = .., c = ..;`
    text = plain_form(text, ctx.path, ctx.kernel) or text
    text = _one_pass(text, ctx) or text  # a grid-stride loop whose launch has a thread for every element
    text = accumulating_calls(text, ctx.path, ctx.kernel) or text  # `acc = __dp4a(a, b, acc)`: `acc += __dp4a(a, b, 0)`
    one_dim = all(str(b) == "1" for b in list(ctx.launch.get("block") or [])[1:])
    text = group_indices(text, ctx.path, ctx.kernel, one_dim) or text  # `block.thread_rank()`: its index in the block
    text = flatten_array_params(text, ctx.path, ctx.kernel) or text  # `float A[N][N]`: A[i][k] through a flat pointer
    text = static_shared_regions(text, ctx.path, ctx.kernel, _dynamic_shared(ctx)) or text  # `float* As = smem;`
    text = unshare_preloads(text, ctx.path, ctx.kernel) or text  # a row cached in shared memory, read from global
    text = instantiate_template_calls(text, ctx.path, ctx.kernel) or text  # `scanLocalMem<float, 256>(v, s)`
    inlined = inline_loop_helpers(text, ctx.path, ctx.kernel)
    text = inlined or text
    text = warp_tail_tree(text, ctx.path, ctx.kernel) or text  # `if (tid < 32) warpReduce(sdata, tid);`
    text = split_serial_tail(text, ctx.path, ctx.kernel) or text  # `if (tid == 0) { for (..) s += S[k]; atomic.. }`
    for _ in range(4):  # a loop unrolled by hand before its remainder loop: the remainder loop alone
        text = reroll_loops(text, ctx.path, ctx.kernel) or text
        text = join_split_sums(text, ctx.path, ctx.kernel) or text
        text = join_parallel_sums(text, ctx.path, ctx.kernel) or text  # A·Bᵀ + B·Aᵀ through a helper called twice
        text = drop_bumped_unrolled_loop(text, ctx.path, ctx.kernel) or text  # (over pointers it bumps)
    text = sums_into_locals(text, ctx.path, ctx.kernel) or text  # a row of outputs summed in global memory
    text = declare_at_first_assignment(text, ctx.path, ctx.kernel) or text
    text = counter_into_header(text, ctx.path, ctx.kernel) or text  # `int k = 0; for (; k < K; ++k)`
    text = merge_sum_loops(text, ctx.path, ctx.kernel) or text  # `for k: for l: s += A[(i*K+k)*L+l] * ...`
    text = scalar_vector_dots(text, ctx.path, ctx.kernel) or text  # `float4 a = qa[d], b = kb[d]; s += a.x * b.x ...`
    for _ in range(16):  # `__fadd_rn(s, __fmul_rn(a, b))`: `((s) + ((a) * (b)))`
        plain = plain_rn_arithmetic(text, ctx.path, ctx.kernel)
        if plain is None:
            break
        text = plain
    for _ in range(4):  # `for (...; t2 < T; ++t2) { if (t2 > t) break; ... }`: `t2 <= t`
        text = break_to_bound(text, ctx.path, ctx.kernel) or text
    text = countdown_loops(text, ctx.path, ctx.kernel) or text  # `int k = K; while (k--) s += ...`: a for loop
    for _ in range(4):  # `for (int k = K - 1; k >= 0; --k) s += ...`: forwards
        text = ascending_sum_loops(text, ctx.path, ctx.kernel) or text
    for _ in range(8):
        folded = fold_reassignments(text, ctx.path, ctx.kernel)
        if folded is None:
            break
        text = folded
    text = name_thread_indices(text, ctx.path, ctx.kernel) or text
    for _ in range(4):  # a MAX(a, b) macro's `a >= b ? a : b`, the innermost first
        read = ternary_min_max(text, ctx.path, ctx.kernel)
        if read is None:
            break
        text = read
    for _ in range(2):  # clamps first, then the loads through them
        text = clamped_neighbours(text, ctx.path, ctx.kernel) or text
    text = remainder_by_subtraction(text, ctx.path, ctx.kernel) or text  # `j = t - i * N` with `i = t / N`
    text = canonical_digits(text, ctx.path, ctx.kernel) or text  # `rem = t % (M * N); row = rem / N;`
    text = while_to_for(text, ctx.path, ctx.kernel) or text
    text = else_to_return(text, ctx.path, ctx.kernel) or text  # `if (edge) copy; else compute;` at the end
    text = return_after_loop_to_if(text, ctx.path, ctx.kernel) or text  # `if (nrm < eps) return;` after a sum
    text = branch_selects_to_max(text, ctx.path, ctx.kernel) or text  # `if (a > m) m = a;`: `m = max(m, a);`
    text = merge_branch_stores(text, ctx.path, ctx.kernel) or text  # `if (c) out[p] = a; else out[p] = b;`
    for _ in range(4):  # `for (...; ++r, p += cols)`: the other steps at the body's end
        text = comma_steps_into_body(text, ctx.path, ctx.kernel) or text
    for _ in range(4):  # one stepped pointer at a time, from the loop's end (`++pa; pb += N;`)
        stepped = index_pointer_steps(text, ctx.path, ctx.kernel)
        if stepped is None:
            break
        text = stepped
    for _ in range(8):
        renamed = rename_reassigned_pointers(text, ctx.path, ctx.kernel)
        if renamed is None:
            break
        text = renamed
    return text, inlined


def _plans(text: str, ctx: Context) -> tuple[list[Plan], list[str]]:
    out, why = [], []
    original = text
    ctx = replace(ctx, original=text)
    text, inlined = _normal_form(text, ctx)
    assumed: list[str] = []
    unstaged = None
    named = name_compound_guards(text, ctx.path, ctx.kernel) if "__shared__" in text else None
    if named is not None:  # a tile's fill guarded by `cRow * BS + threadRow < M`: read back with that position named
        tried: list[str] = []
        unstaged, staged_why = unstage(named, ctx.path, ctx.kernel, _equal_sizes(ctx), tried)
        if unstaged is not None:
            assumed += tried
    if unstaged is None:
        unstaged, staged_why = unstage(text, ctx.path, ctx.kernel, _equal_sizes(ctx), assumed)
    tiles_only = None  # a staged product read only for the plans that set their own launch (the tiles)
    if unstaged is None and staged_why:
        first = matmul.first_of_coarsened(parse_source(text, ctx.path), ctx.kernel)
        tiles_only = unstage(first, ctx.path, ctx.kernel, _equal_sizes(ctx), assumed)[0] if first else None
    if unstaged is None and tiles_only is None and staged_why and "blockDim" in original:
        # a tile as wide as the block (`const int TS = blockDim.x;`, dynamic shared memory cut by it): read with
        # the launch's block as numbers, the same kernel under the spec's launch (for the matrix plans only)
        src0 = parse_source(original, ctx.path)
        k0 = src0.kernel(ctx.kernel)
        numbered = matmul.block_as_numbers(src0, k0, list(ctx.launch.get("block") or [])) if k0 is not None else None
        if numbered is not None:
            tiles_only = unstage(_normal_form(numbered, ctx)[0], ctx.path, ctx.kernel, _equal_sizes(ctx), assumed)[0]
    if unstaged is not None:  # a product staged through shared memory, read as the plain loop it computes
        text = unstaged
    elif staged_why and tiles_only is None:
        why.append(f"matmul: the shared-memory tile loop is not read back as a plain product: {staged_why}")
    by_family: dict[str, list[Plan]] = {}
    for fn in (elementwise_plans, gather_plans, row_plans, column_plans, matmul_plans, permute_plans,
               coalesce_plans, stencil_plans, tree_plans, aggregate_plans, flat_plans, planes_plans, scan_plans,
               prefix_plans, rowscan_plans, histogram_plans, march_plans, flat2d_plans):
        family = fn.__name__.replace('_plans', '')
        try:
            got = matmul_plans(tiles_only, ctx, coarse=True) if tiles_only and fn is matmul_plans else fn(text, ctx)
            if isinstance(got, tuple):  # (plans, why the plan's other rewrites did not apply)
                got, partly = got
                why += [f"{family}: {lines_as_written(w, original, text)}" for w in partly]
            by_family[family] = got
            for p in got:
                p.family = family
        except Refuse as e:
            # (lines counted in the file as written: the passes above and the plan's own may have moved them)
            why.append(f"{family}: {lines_as_written(lines_as_written(str(e), text, e.source), original, text)}")
    if by_family.get("matmul") and by_family.get("row"):
        # a matrix product's dot products share their operands across outputs: tiles reuse them, a warp or a
        # block per dot product (the row rewrites) reads both operands once per output
        why.append("row: " + ", ".join(p.name for p in by_family.pop("row")) + " not offered: this loop is a "
                   "matrix product, whose outputs share operand rows and columns; the tiles reuse them")
    if by_family.get("prefix") and by_family.get("row"):
        why.append("row: " + ", ".join(p.name for p in by_family.pop("row")) + " not offered: each output is the "
                   "sum of the input up to it, a prefix sum; one scan computes them all in one pass")
    if by_family.get("matmul") and by_family.get("coalesce"):
        by_family.pop("coalesce")  # the matrix product's own remap (matmul-coalesce) does it
    out = [p for got in by_family.values() for p in got]
    if not out and not why:  # no plan recognised any shape: say what they look for
        why.append("no structural plan applies: they start from one thread per row, element or column "
                   "(an index blockIdx.x * blockDim.x + threadIdx.x, or a grid-stride loop) or a block per "
                   "output whose threads meet in one shared-memory tree, and found none here")
    to_old = line_map(original, text) if text != original else None
    for p in out:
        p.build = _fitted(p.build, ctx)
        if assumed:  # the staged product read with sizes of equal value as one: said in the candidate
            p.build = _noted(p.build, "sizes of equal value at every spec size read as one (" + "; ".join(
                dict.fromkeys(assumed)) + "): ")
        if to_old is not None:
            p.build = _relined(p.build, to_old, "inline the helpers that loop; " if inlined else "")
    return out, why


def _relined(build, to_old: dict[int, int], say: str):
    """build, its description's line numbers those of the file as written (spelling.line_map)."""
    def relined(knobs):
        c = build(knobs)
        desc = re.sub(r"on line ([\d, ]+\d)", lambda m: "on line " + ", ".join(
            dict.fromkeys(str(to_old.get(int(x), x)) for x in m.group(1).split(", "))), c.description)
        return replace(c, description=say + desc)
    return relined


def _fitted(build, ctx: Context):
    """build, with the kernel's own `__launch_bounds__` raised to the new block where it is smaller."""
    def fitted(knobs):
        c = build(knobs)
        try:
            threads = math.prod(int(b) for b in (c.launch or {}).get("block") or [])
        except (TypeError, ValueError):  # an expression of the sizes: its largest value
            vals = [math.prod(_eval(str(b), env) or 0 for b in c.launch["block"]) for env in ctx.size_env.values()]
            if not vals or not all(vals):
                return c
            threads = int(max(vals))
        new, notes = fit_launch_bounds(c.source, ctx.path, ctx.kernel, threads)
        return replace(c, source=new, notes=c.notes + tuple(notes)) if notes else c
    return fitted


