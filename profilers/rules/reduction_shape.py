"""How a block reduction is organised: what the classic sequence of reduction kernels fixes.

1. interleaved addressing picked with `tid % (2 * s) == 0`: warps diverge at every step and
   the modulo by a run-time value costs an integer division (`divergent-interleaved-reduction`);
2. one element loaded per thread: the first step of the tree leaves half the threads idle
   (`reduction-idle-threads`);
3. a few elements per thread without a loop: the block-wide tree is paid for every few
   elements (`reduction-few-elements-per-thread`).

A tree reduction here is a 1-D `__shared__` array combined as `a[i] op= a[i + s]` (or
`a[i] = f(a[i], a[i + s])`); the array is filled by a store `a[tid] = ...` before it.
"""
from __future__ import annotations

import re

from ..advice import Evidence, Severity
from ..source import Kernel, SourceFile, walk
from ..tools import Context, tool
from .common import advice_at, nodes, shared_declarations, shared_pointers
from .sync_divergence import LOOPS, tainted_vars, thread_dependence

FEW = 8  # at most this many loads per thread without a loop: "few"


def _squash(src: SourceFile, n) -> str:
    return "".join(src.node_text(n).split()) if n is not None else ""


def shared_1d(src: SourceFile, k: Kernel) -> set[str]:
    out = set()
    for d, _ in shared_declarations(src, k):
        for decl in d.children_by_field_name("declarator"):
            ident = decl.child_by_field_name("declarator") if decl.type == "array_declarator" else None
            if ident is not None and ident.type == "identifier":
                out.add(src.node_text(ident))
    return out | set(shared_pointers(src, k))  # `T* s = SharedMemory<T>();` too


def tree_steps(src: SourceFile, k: Kernel, arrays: set[str]) -> list:
    """Assignments `a[i] op= a[i + x]` / `a[i] = f(a[i], a[i + x])` on a shared array."""
    out = []
    for n in nodes(k, "assignment_expression"):
        left = n.child_by_field_name("left")
        if left is None or left.type != "subscript_expression":
            continue
        arr = _squash(src, left.child_by_field_name("argument"))
        if arr not in arrays:
            continue
        idx = _squash(src, left.child_by_field_name("indices"))[1:-1]
        right = _squash(src, n.child_by_field_name("right"))
        if re.search(rf"\b{re.escape(arr)}\[{re.escape(idx)}\+\w+\]|\b{re.escape(arr)}\[\w+\+{re.escape(idx)}\]", right):
            out.append((n, arr))
    return out


def _in_loop(n, stop) -> bool:
    p = n.parent
    while p is not None and p != stop:
        if p.type in LOOPS:
            return True
        p = p.parent
    return False


def _global_pointers(src: SourceFile, k: Kernel) -> set[str]:
    """Pointer parameters and the local pointers made from them (`const float* row = x + r * n;`)."""
    out = {p.name for p in k.params if p.is_pointer}
    decls = []
    for n in nodes(k, "init_declarator"):
        d, v = n.child_by_field_name("declarator"), n.child_by_field_name("value")
        if d is not None and d.type == "pointer_declarator" and v is not None:
            ident = d.child_by_field_name("declarator")
            if ident is not None and ident.type == "identifier":
                decls.append((src.node_text(ident), {src.node_text(x) for x in walk(v) if x.type == "identifier"}))
    changed = True
    while changed:
        changed = False
        for name, uses in decls:
            if name not in out and uses & out:
                out.add(name)
                changed = True
    return out


def _accumulated_in_loop(src: SourceFile, k: Kernel, value, before: int) -> bool:
    """Whether `value` names a variable that a loop before `before` accumulates into
    (`for (...) sum += row[i];` then `s[tid] = sum;`): the thread adds many elements first."""
    names = {src.node_text(x) for x in walk(value) if x.type == "identifier"}
    for n in nodes(k, "assignment_expression", "update_expression"):
        if n.start_byte >= before or not _in_loop(n, k.body):
            continue
        target = n.child_by_field_name("left") if n.type == "assignment_expression" else n.child_by_field_name("argument")
        if target is None or target.type != "identifier" or src.node_text(target) not in names:
            continue
        op = src.node_text(n.child_by_field_name("operator")) if n.type == "assignment_expression" else "++"
        right = n.child_by_field_name("right") if n.type == "assignment_expression" else None
        if op != "=" or (right is not None and src.node_text(target) in
                         {src.node_text(x) for x in walk(right) if x.type == "identifier"}):
            return True
    return False


def fill_loads(src: SourceFile, k: Kernel, arr: str, first_step) -> tuple[object, int, bool] | None:
    """(the store that fills `arr[tid]`, global loads per thread before it, any of them in a loop)."""
    taint = tainted_vars(src, k)
    fill = None
    for n in nodes(k, "assignment_expression"):
        left = n.child_by_field_name("left")
        if (n.start_byte < first_step.start_byte and left is not None and left.type == "subscript_expression"
                and _squash(src, left.child_by_field_name("argument")) == arr
                and thread_dependence(src, left.child_by_field_name("indices"), taint)
                and not _in_loop(n, k.body)):
            fill = n
    if fill is None:
        return None
    ptrs = _global_pointers(src, k)
    loads, looped = 0, _accumulated_in_loop(src, k, fill.child_by_field_name("right"), fill.start_byte)
    for n in _feeding(src, k, fill):  # only what the stored value is made of, not an unrelated `scale[b]`
        for x in walk(n):
            if x.type != "subscript_expression":
                continue
            base = x.child_by_field_name("argument")
            if base is None or _squash(src, base) not in ptrs or _is_store(x):
                continue
            loads += 1
            looped = looped or _in_loop(x, k.body)
    return fill, loads, looped


def _feeding(src: SourceFile, k: Kernel, fill) -> list:
    """The expressions the value stored by `fill` is computed from: its right-hand side and the
    values given before it to the variables it names (transitively)."""
    right = fill.child_by_field_name("right")
    if right is None:
        return []
    defs = []  # (name, value node) before the fill
    for n in nodes(k, "init_declarator", "assignment_expression"):
        if n.start_byte >= fill.start_byte:
            continue
        target = n.child_by_field_name("declarator" if n.type == "init_declarator" else "left")
        value = n.child_by_field_name("value" if n.type == "init_declarator" else "right")
        if target is not None and value is not None and target.type == "identifier":
            defs.append((src.node_text(target), value))
    out, names = [right], {src.node_text(x) for x in walk(right) if x.type == "identifier"}
    taken: set[int] = set()
    changed = True
    while changed:
        changed = False
        for i, (name, value) in enumerate(defs):
            if i not in taken and name in names:
                taken.add(i)
                out.append(value)
                names |= {src.node_text(x) for x in walk(value) if x.type == "identifier"}
                changed = True
    return out


def _is_store(n) -> bool:
    p = n.parent
    return p is not None and p.type == "assignment_expression" and p.child_by_field_name("left") == n


_MODULO = re.compile(r"%\(?(?:2\*(\w+)|(\w+)\*2|\1<<1)\)?")


def interleaved_branch(src: SourceFile, k: Kernel, step) -> tuple[object, str] | None:
    """The `if (tid % (2 * s) == 0)` around a tree step, with s the loop's doubling counter."""
    p = step.parent
    while p is not None and p != k.body and p.type not in LOOPS:
        if p.type == "if_statement":
            cond = _squash(src, p.child_by_field_name("condition"))
            m = re.search(r"%\(?(?:2\*(\w+)|(\w+)\*2)\)?|&\(?(?:2\*(\w+)|(\w+)\*2)-1\)?", cond)
            if m:
                return p, next(g for g in m.groups() if g)
        p = p.parent
    return None


@tool(
    "reduction_shape",
    """How a shared-memory block reduction is organised, against the classic sequence of
    reduction kernels: interleaved addressing chosen with `tid % (2 * s) == 0` (divergent warps
    and an integer modulo at every step), one element loaded per thread (half the threads idle
    in the first step), and a few elements per thread without a loop (the block-wide tree paid
    for every few elements). Use it on sum/max/min reductions over an array.""",
    needs=("source",),
    rules=("divergent-interleaved-reduction", "reduction-idle-threads", "reduction-few-elements-per-thread"),
)
def reduction_shape(ctx: Context):
    src = ctx.source
    out = []
    for k in src.kernels:
        if k.body is None:
            continue
        arrays = shared_1d(src, k)
        steps = tree_steps(src, k, arrays) if arrays else []
        if not steps:
            continue
        seen = set()
        for step, arr in steps:
            hit = interleaved_branch(src, k, step)
            if hit is not None and hit[0].start_byte not in seen:
                seen.add(hit[0].start_byte)
                out.append(_interleaved(ctx, k, hit[0], hit[1], arr))
        first, arr = min(steps, key=lambda x: x[0].start_byte)
        got = fill_loads(src, k, arr, first)
        if got is None:
            continue
        fill, loads, looped = got
        if looped or loads == 0:
            continue
        if loads == 1:
            out.append(_idle(ctx, k, fill, arr))
        elif loads <= FEW:
            out.append(_few(ctx, k, fill, arr, loads))
    return out


def _sass_div(ctx: Context, k: Kernel, line: int) -> list[Evidence]:
    ins = ctx.sass_by_line(k).get(line, []) if ctx.artifact is not None and ctx.artifact.ok else []
    if not ins:
        return []
    div = sum(1 for i in ins if i.opcode == "MUFU.RCP" or (i.base == "I2F" and "RP" in i.mods))
    return [Evidence("SASS on the line", len(ins), "instructions", "sass"),
            Evidence("integer-division instructions (I2F.RP, MUFU.RCP)", div, "", "sass")]


def _interleaved(ctx: Context, k: Kernel, branch, s: str, arr: str):
    src = ctx.source
    cond = " ".join(src.node_text(branch.child_by_field_name("condition")).split())
    line = branch.start_point[0] + 1
    return advice_at(
        ctx, "divergent-interleaved-reduction", Severity.WARNING, k, branch,
        f"the reduction of {arr} picks its active threads with `if {cond}` (line {line}): only every "
        f"(2*{s})-th thread of a warp adds, so every warp stays busy (divergent) through every step while most "
        f"of its threads idle, and the modulo by the run-time 2*{s} costs an integer division at every step",
        f"keep the active threads contiguous so whole warps finish: sequential addressing, "
        f"`for ({s} = blockDim.x / 2; {s} > 0; {s} >>= 1) {{ if (tid < {s}) {arr}[tid] += {arr}[tid + {s}]; "
        f"__syncthreads(); }}` (no modulo, no bank conflicts); an index `i = 2 * {s} * tid` with `if (i < blockDim.x)` "
        "removes the divergence but strides shared memory",
        [Evidence("condition", cond, f"line {line}", "source")] + _sass_div(ctx, k, line),
    )


def _idle(ctx: Context, k: Kernel, fill, arr: str):
    line = fill.start_point[0] + 1
    return advice_at(
        ctx, "reduction-idle-threads", Severity.INFO, k, fill,
        f"each thread of {ctx.label(k)} loads one element into {arr} (line {line}), so the first step of the "
        "tree reduction already leaves half the threads idle and the block reduces only blockDim.x elements "
        "for all its barriers",
        "let each thread add elements while it loads: two (`in[i] + in[i + blockDim.x]` with "
        "i = blockIdx.x * blockDim.x * 2 + threadIdx.x, and half the blocks), or better many, in a grid-stride "
        "loop that accumulates in a register before the tree",
        [Evidence("global loads per thread before the tree", 1, "", "source")],
    )


def _few(ctx: Context, k: Kernel, fill, arr: str, loads: int):
    line = fill.start_point[0] + 1
    return advice_at(
        ctx, "reduction-few-elements-per-thread", Severity.INFO, k, fill,
        f"each thread of {ctx.label(k)} adds only {loads} elements before the tree reduction of {arr} "
        f"(line {line}): the block-wide tree, with its barriers, is paid for every {loads} x blockDim.x elements",
        "loop over many elements per thread (a grid-stride loop that accumulates in a register) and launch "
        "just enough blocks to fill the GPU (a few per SM), so each block runs the tree once over thousands "
        "of elements",
        [Evidence("global loads per thread before the tree", loads, "", "source"),
         Evidence("in a loop", "no", "", "source")],
    )
