"""Constant-trip loops the compiler left rolled, and run-time integer division in indexing.

Both rules read the SASS control flow: a loop that stayed a loop has a backward branch
(`BRA` to a lower address) on its lines. nvdisasm prints branch targets as labels
(`BRA `(.L_x_3)`); the SASS parser resolves them to addresses (Instruction.target).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..advice import Evidence, Location, Severity
from ..compile import KernelBuild
from ..sass import Instruction
from ..source import Kernel, Loop, SourceFile, _trip_count, parse_source, walk
from ..tools import Context, tool
from .common import advice_at, nodes

MIN_TRIP, MAX_TRIP = 2, 64
DIV_OPS = ("MUFU.RCP",)  # with I2F.RP / I2F.U32.RP: the integer-division sequence


@dataclass
class BackEdge:
    branch: int  # index of the BRA in build.sass
    target: int  # index of the first instruction of the loop
    offset: int  # byte address of the BRA
    target_offset: int

    @property
    def body(self) -> int:
        return self.branch - self.target + 1


def back_edges(ctx: Context, build: KernelBuild) -> list[BackEdge]:
    """Backward branches of a kernel's SASS (loops that stayed loops)."""
    index = {ins.offset: i for i, ins in enumerate(build.sass)}
    out = []
    for i, ins in enumerate(build.sass):
        if ins.base != "BRA":
            continue
        tgt = ins.target
        if tgt is not None and tgt < ins.offset and tgt in index:
            out.append(BackEdge(i, index[tgt], ins.offset, tgt))
    return out


def _lines_in(ins: Instruction, path: str, lo: int, hi: int) -> bool:
    return any(f == path and lo <= ln <= hi for f, ln in ins.locations)


def _loop_edge(ctx: Context, build: KernelBuild, edges: list[BackEdge], loop: Loop, inner: list[Loop]) -> BackEdge | None:
    """The back edge that closes this source loop: the BRA lies on the loop's lines, not on
    a nested loop's, and most instructions of the SASS loop come from the loop's lines."""
    for e in edges:
        bra = build.sass[e.branch]
        if not _lines_in(bra, ctx.path, loop.line, loop.end_line):
            continue
        if any(_lines_in(bra, ctx.path, l.line, l.end_line) for l in inner):
            continue
        body = build.sass[e.target : e.branch + 1]
        own = sum(1 for i in body if _lines_in(i, ctx.path, loop.line, loop.end_line))
        if own >= 0.75 * len(body):
            return e
    return None


def _counter_compare(build: KernelBuild, e: BackEdge) -> str | None:
    """The ISETP that decides the back edge, when it compares against an immediate."""
    pred = build.sass[e.branch].predicate.lstrip("@!")
    for ins in reversed(build.sass[e.target : e.branch]):
        if ins.base == "ISETP" and ins.operands.split(",")[0].strip() == pred:
            m = re.search(r"0x[0-9a-f]+", ins.operands)
            return f"{ins.opcode} {ins.operands}" if m else None
    return None


def macro_constants(src: SourceFile) -> dict[str, int]:
    """Integer #defines whose value is an expression of other constants: `#define PER (COLS / 32)`."""
    cached = src.memo.get("macro_constants")  # once per file, not once per kernel
    if cached is not None:
        return dict(cached)
    env = dict(src.constants)
    defs = []
    for n in walk(src.root):
        if n.type == "preproc_def":
            name, value = n.child_by_field_name("name"), n.child_by_field_name("value")
            if name is not None and value is not None and src.node_text(name) not in env:
                defs.append((src.node_text(name), src.node_text(value).strip()))
    for _ in range(3):  # macros defined through other macros
        for name, value in defs:
            if name not in env:
                frag = parse_source(f"int __kp = {value};")
                d = next((x for x in walk(frag.root) if x.type == "init_declarator"), None)
                v = frag.eval_int(d.child_by_field_name("value"), env) if d is not None else None
                if v is not None:
                    env[name] = v
    src.memo["macro_constants"] = dict(env)
    return env


class _Consts:
    """The source seen through a richer constant table, for the core's trip-count helper."""

    def __init__(self, src: SourceFile, env: dict[str, int]):
        self.src, self.env = src, env

    def node_text(self, n):
        return self.src.node_text(n)

    def eval_int(self, n, env=None):
        return self.src.eval_int(n, {**self.env, **(env or {})})


def trip_count(src: SourceFile, loop: Loop, env: dict[str, int] | None = None) -> int | None:
    if loop.trip_count is not None or loop.node.type != "for_statement":
        return loop.trip_count
    return _trip_count(_Consts(src, env if env is not None else macro_constants(src)), loop.node)[1]


def _rolled_loops(ctx: Context, k: Kernel, builds: list[KernelBuild]):
    out = []
    env = macro_constants(ctx.source)
    for loop in k.loops:
        n = trip_count(ctx.source, loop, env)
        if loop.pragma_unroll is not None or n is None or not MIN_TRIP <= n <= MAX_TRIP:
            continue
        inner = [l for l in k.loops if l is not loop and loop.line <= l.line and l.end_line <= loop.end_line
                 and (l.line, l.end_line) != (loop.line, loop.end_line)]
        for b in builds:
            e = _loop_edge(ctx, b, back_edges(ctx, b), loop, inner)
            if e is not None:
                out.append(_rolled_advice(ctx, k, b, loop, e, n))
                break
    return out


def _block_size_loops(ctx: Context, k: Kernel, builds: list[KernelBuild]):
    """Loops whose trip count follows from blockDim.x, a constant at launch, left rolled."""
    from .bank_conflicts import Evaluator, _iterations  # the lane evaluator models blockDim and comparisons

    hint = ctx.block(k.name)
    if hint.origin == "default":
        return []
    src, out = ctx.source, []
    env = {**macro_constants(src), **ctx.constants(k)}
    ev = Evaluator(src, k, env, (hint.threads, 1, 1))
    for loop in k.loops:
        if loop.node.type != "for_statement" or loop.pragma_unroll is not None or trip_count(src, loop, env) is not None:
            continue
        head = src.node_text(loop.node.child_by_field_name("initializer") or loop.node) + src.node_text(
            loop.node.child_by_field_name("condition") or loop.node)
        if "blockDim" not in head:
            continue
        var, values = _iterations(ev, loop.node, {"x": 0, "y": 0, "z": 0})
        if var is None or not MIN_TRIP <= len(values) < MAX_TRIP or values != _iterations(ev, loop.node, {"x": 5, "y": 0, "z": 0})[1]:
            continue  # no fixed count, or one that differs between threads
        inner = [l for l in k.loops if l is not loop and loop.line <= l.line and l.end_line <= loop.end_line]
        for b in builds:
            e = _loop_edge(ctx, b, back_edges(ctx, b), loop, inner)
            if e is not None:
                out.append(_block_size_advice(ctx, k, loop, e, var, values, hint))
                break
    return out


def _block_size_advice(ctx: Context, k: Kernel, loop: Loop, e: BackEdge, var: str, values: list[int], hint):
    line_text = ctx.source.lines[loop.line - 1]
    shown = ", ".join(map(str, values[:6])) + (", ..." if len(values) > 6 else "")
    a = advice_at(
        ctx, "block-size-loop", Severity.INFO, k, loop.line,
        f"the loop on line {loop.line} runs {len(values)} iterations ({var} = {shown}) for a block of {hint.threads} "
        f"({hint.origin}), but its trip count comes from blockDim.x at run time, so nvcc keeps it rolled: a "
        f"backward branch over {e.body} instructions, a counter, and no constant offsets",
        "make the block size a compile-time constant (a template parameter, `template <unsigned BS>` launched as "
        f"`{k.name}<{hint.threads}><<<grid, {hint.threads}>>>`, or a #define) and use it instead of blockDim.x in the "
        "loop, so it unrolls completely and the steps the block size rules out disappear",
        [Evidence("iterations", len(values), f"for a block of {hint.threads}", "source"),
         Evidence("block size", hint.threads, hint.origin, "launch"),
         Evidence("backward branch", f"BRA at 0x{e.offset:x} -> 0x{e.target_offset:x}", "", "sass")],
    )
    a.column = len(line_text) - len(line_text.lstrip()) + 1
    a.end_line, a.end_column = loop.line, len(line_text.rstrip()) + 1
    return a


def _rolled_advice(ctx: Context, k: Kernel, b: KernelBuild, loop: Loop, e: BackEdge, n: int):
    cmp = _counter_compare(b, e)
    line_text = ctx.source.lines[loop.line - 1]
    indent = line_text[: len(line_text) - len(line_text.lstrip())]
    pragma = "#pragma unroll"
    ev = [Evidence("trip count", n, "iterations", "source"),
          Evidence("loop body", e.body, "SASS instructions", "sass"),
          Evidence("backward branch", f"BRA at 0x{e.offset:x} -> 0x{e.target_offset:x} ({e.offset - e.target_offset} bytes back)", "", "sass")]
    if cmp:
        ev.append(Evidence("loop counter test", cmp, "", "sass"))
    a = advice_at(
        ctx, "rolled-constant-loop", Severity.INFO, k, loop.line,
        f"the loop on line {loop.line} runs a compile-time {n} iterations but nvcc left it rolled: a backward "
        f"branch over {e.body} instructions and a loop counter test on every pass",
        f"add `{pragma}` before the loop so it is unrolled completely (constant indices, no counter, more "
        "independent loads in flight); if the fully unrolled body grows too large (register pressure, "
        f"instruction-cache misses), `#pragma unroll N` with N dividing {n}",
        ev, fix={"title": f"Add {pragma}", "edits": [
            {"line": loop.line, "column": 1, "end_line": loop.line, "end_column": 1, "new_text": f"{indent}{pragma}\n"}]},
    )
    a.column = len(indent) + 1
    a.end_line, a.end_column = loop.line, len(line_text.rstrip()) + 1
    return a


# --- integer division / modulo by a run-time value in an index ------------------------

_INT_TYPES = {"int", "unsigned", "unsigned int", "long", "long long", "size_t", "int64_t", "uint32_t",
              "int32_t", "uint64_t", "short", "unsigned long", "unsigned long long", "ptrdiff_t"}


def _var_types(src, k: Kernel) -> dict[str, str]:
    types = {p.name: ("ptr" if p.is_pointer else p.base_type) for p in k.params}
    for d in nodes(k, "declaration"):
        t = d.child_by_field_name("type")
        tt = src.node_text(t) if t is not None else ""
        for dd in d.children_by_field_name("declarator"):
            nm = dd.child_by_field_name("declarator") if dd.type == "init_declarator" else dd
            if nm is not None and nm.type == "identifier":
                types[src.node_text(nm)] = tt
    for loop in k.loops:
        init = loop.node.child_by_field_name("initializer")
        if init is not None and init.type == "declaration":
            t = init.child_by_field_name("type")
            for dd in init.children_by_field_name("declarator"):
                nm = dd.child_by_field_name("declarator") if dd.type == "init_declarator" else dd
                if nm is not None and nm.type == "identifier" and t is not None:
                    types[src.node_text(nm)] = src.node_text(t)
    return types


def _is_int_expr(src, n, types) -> bool:
    ids = [src.node_text(x) for x in walk(n) if x.type == "identifier"]
    if any(x.type in ("number_literal",) and any(c in src.node_text(x) for c in ".eEf") for x in walk(n)):
        return False
    return bool(ids) and all(" ".join(types.get(i, "").replace("const", "").split()) in _INT_TYPES for i in ids)


def _in_index(src, n, k: Kernel, index_vars: set[str]) -> bool:
    """The expression feeds an array index: inside a subscript, or initialises a variable used in one."""
    p = n.parent
    while p is not None and p != k.body:
        if p.type == "subscript_expression":
            return True
        if p.type == "init_declarator":
            nm = p.child_by_field_name("declarator")
            return nm is not None and src.node_text(nm) in index_vars
        if p.type == "assignment_expression":
            left = p.child_by_field_name("left")
            return left is not None and src.node_text(left) in index_vars
        if p.type in ("expression_statement", "compound_statement"):
            return False
        p = p.parent
    return False


def _div_mod(ctx: Context, k: Kernel, builds: list[KernelBuild]):
    src = ctx.source
    types = _var_types(src, k)
    index_vars = {src.node_text(i) for s in nodes(k, "subscript_expression")
                  for i in walk(s.child_by_field_name("indices") or s.child_by_field_name("index") or s)
                  if i.type == "identifier"}
    by_line = ctx.sass_by_line(k)
    edges = [(b, e) for b in builds for e in back_edges(ctx, b)]
    owner = {id(i): b for b in builds for i in b.sass}
    out, seen = [], set()
    for n in nodes(k, "binary_expression"):
        op = n.child_by_field_name("operator")
        if op is None or src.node_text(op) not in ("/", "%"):
            continue
        right = n.child_by_field_name("right")
        if not _runtime_divmod(src, n, types) or _divmod_parent(src, n, types):
            continue  # not a run-time integer div/mod, or part of a larger one (reported there)
        divisors = [src.node_text(x.child_by_field_name("right")) for x in walk(n) if _runtime_divmod(src, x, types)]
        loop = _innermost_loop(k, n)
        if loop is None or any(l is not loop and loop.line <= l.line and l.end_line <= loop.end_line and l.node != loop.node
                               for l in k.loops):
            continue  # only the innermost (hot) loop
        if not _in_index(src, n, k, index_vars):
            continue
        line = n.start_point[0] + 1
        ins = by_line.get(line, [])
        rcp = [i for i in ins if i.opcode in DIV_OPS]
        i2f = [i for i in ins if i.base == "I2F" and "RP" in i.mods]
        if not rcp or not i2f:
            continue
        in_loop = [i for i in rcp if any(owner.get(id(i)) is b and b.sass[e.target].offset <= i.offset <= e.offset
                                         for b, e in edges)]
        if not in_loop:
            continue  # computed once, outside the SASS loop: cheap
        if (line, src.node_text(n)) in seen:
            continue
        seen.add((line, src.node_text(n)))
        word = "division" if src.node_text(op) == "/" else "modulo"
        txt = src.node_text(n)
        a = advice_at(
            ctx, "int-div-mod-index", Severity.INFO, k, n,
            f"integer {word} `{txt}` by the run-time value{'s' if len(divisors) > 1 else ''} "
            f"{' and '.join('`%s`' % d for d in divisors)} in an index on line {line}, inside "
            f"the loop on line {loop.line}: {len(ins)} SASS instructions on this line, including the "
            "integer-division sequence (I2F.RP, MUFU.RCP, IMAD.HI and fix-ups) on every iteration",
            "compute the quotient and remainder once outside the loop (or walk a 2-D index with two loops), make "
            "the divisor a power of two (shift and mask) or a template constant, or use a precomputed "
            "magic-multiplier divmod (like CUTLASS FastDivmod)",
            [Evidence("divisors", ", ".join(divisors), "run-time values", "source"),
             Evidence("MUFU.RCP", len(rcp), "instructions on the line", "sass"),
             Evidence("I2F.RP", len(i2f), "instructions on the line", "sass"),
             Evidence("SASS on the line", len(ins), "instructions", "sass")],
            related=[Location(ctx.path, loop.line, message="the loop that repeats it")],
        )
        out.append(a)
    return out


def _runtime_divmod(src, n, types) -> bool:
    if n.type != "binary_expression":
        return False
    op = n.child_by_field_name("operator")
    return (op is not None and src.node_text(op) in ("/", "%") and src.eval_int(n.child_by_field_name("right")) is None
            and _is_int_expr(src, n, types))


def _divmod_parent(src, n, types) -> bool:
    p = n.parent
    while p is not None and p.type in ("binary_expression", "parenthesized_expression", "cast_expression"):
        if _runtime_divmod(src, p, types):
            return True
        p = p.parent
    return False


def _innermost_loop(k: Kernel, n) -> Loop | None:
    p = n.parent
    while p is not None and p != k.body:
        for l in k.loops:
            if l.node == p:
                return l
        p = p.parent
    return None


@tool(
    "unroll",
    """Loops with a compile-time trip count (2 to 64) and no `#pragma unroll` that nvcc left
    rolled (a backward branch and a loop counter in the SASS on the loop's lines), and integer
    division or modulo by a run-time value in an array index inside a hot loop (the long
    I2F.RP + MUFU.RCP division sequence on that line). Use it on compute-heavy inner loops,
    reductions over a fixed number of elements per thread, and flattened index math
    (`i / width`, `i % channels`). Also loops whose trip count follows from blockDim.x (a constant at
    launch) that stay rolled because the block size is not a compile-time constant.""",
    needs=("artifact", "sass"),
    rules=("rolled-constant-loop", "int-div-mod-index", "block-size-loop"),
)
def unroll(ctx: Context):
    out = []
    for k in ctx.source.kernels:
        builds = ctx.builds(k)
        if not builds:
            continue
        out += _rolled_loops(ctx, k, builds)
        out += _block_size_loops(ctx, k, builds)
        out += _div_mod(ctx, k, builds)
    return out
