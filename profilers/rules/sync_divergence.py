"""Barriers under thread-dependent control flow: some threads of the block never reach them.

A value is thread-dependent when it comes from threadIdx, a lane id or thread rank, a
per-thread load (an array element indexed by such a value) or a variable assigned from one
(a fixpoint over the kernel's declarations and assignments). blockIdx, blockDim, gridDim,
kernel parameters and constants are block-uniform.
"""
from __future__ import annotations

from ..advice import Evidence, Location, Severity
from ..analysis.uniform import single_definitions, warp_uniform
from ..source import Kernel, SourceFile, walk
from ..tools import Context, tool
from .common import advice_at, nodes

BARRIERS = ("__syncthreads", "__syncthreads_or", "__syncthreads_and", "__syncthreads_count", "__syncwarp",
            "__barrier_sync")
THREAD_ROOTS = ("threadIdx", "__lane_id", "laneid", "thread_rank", "thread_index", "__laneid")
LOOPS = ("for_statement", "while_statement", "do_statement")


def _barrier_name(src: SourceFile, call) -> str | None:
    fn = call.child_by_field_name("function")
    if fn is None:
        return None
    name = src.node_text(fn).replace(" ", "")
    base = name.split("::")[-1]
    if base in BARRIERS:
        if base == "__syncwarp":  # an explicit mask may name exactly the lanes that take the branch
            args = call.child_by_field_name("arguments")
            if args is not None and args.named_children and src.node_text(args.named_children[0]).lower() not in (
                    "0xffffffff", "0xffffffffu", "full_mask", "0xffffffffU".lower()):
                return None
        return base
    if name in ("cg::sync", "cooperative_groups::sync", "sync"):
        return name if name != "sync" else None
    if fn.type == "field_expression" and name.rsplit(".", 1)[-1] == "sync":  # block.sync(), grid.sync()
        return name
    return None


def tainted_vars(src: SourceFile, k: Kernel) -> dict[str, str]:
    """Thread-dependent variables of the kernel -> why (the source they came from)."""
    taint: dict[str, str] = {}
    assigns = []  # (name, value node)
    for n in walk(k.body):
        if n.type == "init_declarator":
            nm, val = n.child_by_field_name("declarator"), n.child_by_field_name("value")
            if nm is not None and val is not None:
                assigns.append((_base_name(src, nm), val))
        elif n.type == "assignment_expression":
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            if left is not None and right is not None and left.type == "identifier":
                assigns.append((src.node_text(left), right))
    shared = _shared_scalars(src, k)
    assigns = [(name, val) for name, val in assigns if name not in shared]
    changed = True
    while changed:
        changed = False
        for name, val in assigns:
            if name and name not in taint:
                why = thread_dependence(src, val, taint)
                if why:
                    taint[name] = why
                    changed = True
    return taint


def _shared_scalars(src: SourceFile, k: Kernel) -> set[str]:
    """`__shared__` variables that are not arrays: every thread reads the same value (a flag or a
    total one thread stored before a barrier), so they are block-uniform whoever wrote them."""
    out = set()
    for d in walk(k.body):
        if d.type == "declaration" and any(c.type == "type_qualifier" and src.node_text(c) == "__shared__"
                                           for c in d.children):
            for c in d.children_by_field_name("declarator"):
                x = c.child_by_field_name("declarator") if c.type == "init_declarator" else c
                if x is not None and x.type == "identifier":
                    out.add(src.node_text(x))
    return out


def _base_name(src: SourceFile, decl) -> str | None:
    while decl is not None and decl.type != "identifier":
        decl = decl.child_by_field_name("declarator")
    return src.node_text(decl) if decl is not None else None


def thread_dependence(src: SourceFile, expr, taint: dict[str, str]) -> str | None:
    """Why an expression differs between threads of a block, or None if it is block-uniform."""
    for n in walk(expr):
        t = n.type
        if t == "identifier":
            name = src.node_text(n)
            if name in THREAD_ROOTS:
                return name
            if name in taint:
                return f"{name} (from {taint[name]})"
        elif t == "field_identifier" and src.node_text(n) in ("thread_rank", "thread_index"):
            return src.node_text(n.parent.parent if n.parent.parent is not None else n)
        elif t == "subscript_expression":  # a per-thread load: in[tid]
            idx = n.child_by_field_name("indices") or n.child_by_field_name("index")
            if idx is not None and thread_dependence(src, idx, taint):
                return f"the per-thread load {src.node_text(n)}"
    return None


def _condition(n):
    if n.type in ("if_statement", "while_statement", "do_statement", "switch_statement", "for_statement",
                  "conditional_expression"):
        return n.child_by_field_name("condition")
    return None


def _barriers_in(src: SourceFile, n) -> int:
    return sum(1 for c in walk(n) if c.type == "call_expression" and _barrier_name(src, c) is not None)


def _reached(src: SourceFile, n) -> int | None:
    """How many barriers every path through statement `n` reaches, None when paths differ (or a
    loop, switch or jump makes it unclear). `if (a) {..sync..} else if (b) {..sync..} else {..sync..}`: 1."""
    if n is None:
        return 0
    t = n.type
    if t == "if_statement":
        then, alt = n.child_by_field_name("consequence"), n.child_by_field_name("alternative")
        if alt is not None and alt.type == "else_clause":
            alt = alt.named_children[-1] if alt.named_children else None
        a, b = _reached(src, then), _reached(src, alt)
        cond = _barriers_in(src, n.child_by_field_name("condition"))
        return a + cond if a is not None and a == b else None
    if t == "compound_statement":
        total = 0
        for c in n.named_children:
            r = _reached(src, c)
            if r is None:
                return None
            total += r
        return total
    count = _barriers_in(src, n)
    if count and (t in LOOPS or t in ("switch_statement", "return_statement", "break_statement",
                                       "continue_statement", "goto_statement")):
        return None
    if t in ("return_statement", "break_statement", "continue_statement", "goto_statement"):
        return None  # a path that leaves early
    return count


def _both_sides_meet(src: SourceFile, stmt, cond, uniform) -> bool:
    """An `if`/`else` each side of which reaches as many barriers, on a condition each warp takes
    as a whole (`if (warp == 0) { ...; __syncthreads(); } else { ...; __syncthreads(); }`): every
    thread of the block arrives at a barrier as often as the others."""
    if stmt.type != "if_statement":
        return False
    then, alt = stmt.child_by_field_name("consequence"), stmt.child_by_field_name("alternative")
    if then is None or alt is None:
        return False
    return _reached(src, stmt) is not None and uniform(cond)


def _divergent_ancestor(src: SourceFile, k: Kernel, call, taint, uniform=lambda cond: False):
    """The innermost enclosing branch or loop whose condition is thread-dependent; (statement,
    condition, why, whether the barrier is in the `else`)."""
    p, child = call.parent, call
    while p is not None and p != k.body:
        cond = _condition(p)
        if cond is not None and child != cond:  # a barrier in the condition itself is reached by all
            why = thread_dependence(src, cond, taint)
            if why and _both_sides_meet(src, p, cond, uniform):
                why = None
            if why is None and p.type == "for_statement":  # for (int i = tid; i < n; ...)
                init = p.child_by_field_name("initializer")
                why = thread_dependence(src, init, taint) if init is not None else None
                if why is not None and not _uses_loop_var(src, cond, init):
                    why = None
            if why:
                in_else = p.type == "if_statement" and child == p.child_by_field_name("alternative")
                return p, cond, why, in_else
        p, child = p.parent, p
    return None


def _uses_loop_var(src, cond, init) -> bool:
    names = {src.node_text(x) for x in walk(init) if x.type == "identifier"}
    return any(x.type == "identifier" and src.node_text(x) in names for x in walk(cond))


def _early_exit(src: SourceFile, k: Kernel, call, taint):
    """A `return` before the barrier, under a thread-dependent `if`, that skips it."""
    for r in nodes(k, "return_statement"):
        if r.start_byte >= call.start_byte:
            break
        p = r.parent
        while p is not None and p != k.body:
            if p.type == "if_statement" and not (p.start_byte <= call.start_byte < p.end_byte):
                cond = p.child_by_field_name("condition")
                why = thread_dependence(src, cond, taint) if cond is not None else None
                if why:
                    return r, p, cond, why
            p = p.parent
    return None


@tool(
    "sync_divergence",
    """Barriers (__syncthreads, __syncthreads_or/and/count, __syncwarp, cooperative-groups
    sync) that only some threads of the block reach: inside an `if` or a loop whose condition
    depends on threadIdx, a lane id or a per-thread value, or after an early `return` that
    only some threads take. That is undefined behaviour (a hang or a race). Use it on any
    kernel with shared memory and barriers, especially reductions and tiled loops.""",
    needs=("source",),
    rules=("sync-in-divergent-branch",),
)
def sync_divergence(ctx: Context):
    src = ctx.source
    out = []
    for k in src.kernels:
        if k.body is None:
            continue
        taint = tainted_vars(src, k)
        defs = single_definitions(src, k.body)
        threads = ctx.block(k.name).threads
        from .bank_conflicts import block_shape
        from .unroll import macro_constants
        shape, _ = block_shape(src, k, {**macro_constants(src), **ctx.constants(k)})
        uniform = lambda cond: warp_uniform(src, cond, defs, threads, shape)  # noqa: E731
        for call in nodes(k, "call_expression"):
            name = _barrier_name(src, call)
            if name is None:
                continue
            bline = call.start_point[0] + 1
            hit = _divergent_ancestor(src, k, call, taint, uniform)
            if hit is not None:
                stmt, cond, why, in_else = hit
                cline = cond.start_point[0] + 1
                kind = {"if_statement": "if", "for_statement": "for", "while_statement": "while",
                        "do_statement": "do-while", "switch_statement": "switch"}.get(stmt.type, "?:")
                ctext = " ".join(src.node_text(cond).split())
                shown = f"for (...; {ctext}; ...)" if kind == "for" else f"{kind} {ctext}"
                where = f"in the `else` of `{shown}`" if in_else else f"inside `{shown}`"
                skip = ("take the `if` side" if in_else else "skip the branch") if kind in ('if', 'switch', '?:') \
                    else "leave the loop early"
                msg = (f"{name}() on line {bline} is {where} (line {cline}), which depends on "
                       f"{why}: threads that {skip} never reach the barrier (a hang or a race)")
                rel = [Location(src.path, *_range(src, cond), message=f"thread-dependent condition ({why})")]
            else:
                ex = _early_exit(src, k, call, taint)
                if ex is None:
                    continue
                ret, stmt, cond, why = ex
                cline = ret.start_point[0] + 1
                ctext = " ".join(src.node_text(cond).split())
                msg = (f"{name}() on line {bline} comes after the `return` on line {cline} under `if {ctext}`, "
                       f"which depends on {why}: the threads that return never reach the barrier (a hang or a race)")
                rel = [Location(src.path, *_range(src, cond), message=f"thread-dependent early return ({why})")]
            out.append(advice_at(
                ctx, "sync-in-divergent-branch", Severity.ERROR, k, call, msg,
                "move the barrier out of the branch so every thread of the block reaches it: compute a flag, "
                "call the barrier unconditionally, then branch on the flag (instead of an early return, wrap the "
                "rest of the work in `if (active)` and keep the barriers outside it)",
                [Evidence("barrier", f"{name}() on line {bline}", "", "source"),
                 Evidence("condition", ctext, f"line {cline}", "source"),
                 Evidence("depends on", why, "", "source")],
                related=rel,
            ))
    return out


def _range(src: SourceFile, n):
    line, col, end_line, end_col = src.pos(n)
    return line, col, end_line, end_col
