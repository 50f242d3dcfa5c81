"""Shared-memory tree reductions that pay a block-wide barrier for every step.

The canonical loop

    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
      if (tid < s) sdata[tid] += sdata[tid + s];
      __syncthreads();
    }

runs log2(block) steps; in the last six (s = 32 .. 1) only the first warp works, yet every
warp of the block waits at each barrier. Those steps can run inside one warp with
`__shfl_down_sync`, in the same order of operations, so the result is bit-identical.

The matcher is shared with the optimizer's rewrite (the advice's quick fix): it accepts
only the pattern it can rewrite exactly and says nothing otherwise.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import tree_sitter as ts

from ..advice import Evidence, Severity
from ..hunt.links import block_link
from ..source import Kernel, SourceFile, walk
from ..tools import Context, tool
from .common import advice_at, nodes, shared_declarations, shared_pointers
from .sync_divergence import LOOPS
from .unroll import macro_constants

RULE = "block-reduction-barriers"
WARP = 32
SHUFFLE_TYPES = {"float", "double", "int", "unsigned", "unsigned int", "long", "unsigned long",
                 "long long", "unsigned long long"}
COMPOUND = {"+=": "+", "*=": "*", "|=": "|", "&=": "&", "^=": "^"}
FUNCS = {"fmaxf", "fminf", "fmax", "fmin", "max", "min"}
_HALVE = re.compile(r"^(\w+)(?:>>=1|/=2|=\1>>1|=\1/2)$")
_CG = r"(?:cg::|cooperative_groups::)?"
_BLOCK_SYNC = re.compile(rf"^(?:__syncthreads\(\)|{_CG}sync\((\w+)\)|(\w+)\.sync\(\)|{_CG}this_thread_block\(\)\.sync\(\));$")
_COND = {"{v}>0", "{v}>=1", "{v}!=0", "0<{v}", "{v}"}


@dataclass
class TreeReduction:
    loop: ts.Node  # the for statement
    var: str  # the stride variable (declared in the for's initializer)
    var_type: str
    start: ts.Node  # its initial value
    cond: str
    update: str
    tid: str  # "tid" or "threadIdx.x"
    array: str  # the __shared__ array
    elem_type: str
    combine: str  # the step's expression with {x} = array[tid] and {y} = array[tid + s]
    body: ts.Node  # the loop body (kept verbatim for the fallback)
    barrier_first: bool = False  # the barrier opens each step instead of closing it


def _squash(src: SourceFile, n) -> str:
    return "".join(src.node_text(n).split()) if n is not None else ""


def _shared_arrays(src: SourceFile, k: Kernel) -> dict[str, str]:
    """1-D __shared__ arrays of the kernel -> element type."""
    out = {}
    for d, t in shared_declarations(src, k):
        for decl in d.children_by_field_name("declarator"):
            ident = decl.child_by_field_name("declarator") if decl.type == "array_declarator" else None
            if ident is not None and ident.type == "identifier":
                out[src.node_text(ident)] = t
    for name, (_, t) in shared_pointers(src, k).items():  # `T* s = SharedMemory<T>();`
        out.setdefault(name, t)
    return out


def block_groups(src: SourceFile, k: Kernel) -> set[str]:
    """Names of the kernel's cooperative-groups thread blocks: `cg::thread_block b = cg::this_thread_block();`."""
    out = set()
    for n in walk(k.body):
        if n.type == "init_declarator":
            value = _squash(src, n.child_by_field_name("value"))
            if re.fullmatch(rf"{_CG}this_thread_block\(\)", value):
                out.add(_squash(src, n.child_by_field_name("declarator")))
    return out


def is_block_barrier(src: SourceFile, k: Kernel, stmt) -> bool:
    """__syncthreads(), or a cooperative-groups barrier of the whole block (cg::sync(block), block.sync())."""
    m = _BLOCK_SYNC.match(_squash(src, stmt))
    if m is None:
        return False
    group = m.group(1) or m.group(2)
    return group is None or group in block_groups(src, k)


def _thread_x_alias(src: SourceFile, k: Kernel, name: str) -> bool:
    """`name` is declared once as threadIdx.x (or the block's thread_rank()) and never written again."""
    inits, writes = [], 0
    for n in walk(k.body):
        if n.type == "init_declarator" and _squash(src, n.child_by_field_name("declarator")) == name:
            inits.append(_squash(src, n.child_by_field_name("value")))
        elif n.type in ("assignment_expression", "update_expression"):
            target = n.child_by_field_name("left") or n.child_by_field_name("argument")
            if target is not None and _squash(src, target) == name:
                writes += 1
    return len(inits) == 1 and _is_thread_x(src, k, inits[0]) and writes == 0


def _is_thread_x(src: SourceFile, k: Kernel, text: str) -> bool:
    m = re.fullmatch(r"(\w+)\.thread_rank\(\)", text)
    return text == "threadIdx.x" or (m is not None and m.group(1) in block_groups(src, k))


def _statements(body) -> list:
    if body is None:
        return []
    if body.type == "compound_statement":
        return [c for c in body.named_children if c.type != "comment"]
    return [body]


def _step(src: SourceFile, stmt, var: str):
    """(tid text, array, combine template) of `if (tid < s) A[tid] op= A[tid + s];`, else None."""
    if stmt.type != "if_statement" or stmt.child_by_field_name("alternative") is not None:
        return None
    cond = stmt.child_by_field_name("condition")
    cond = cond.named_children[0] if cond is not None and cond.named_children else None
    if cond is None or cond.type != "binary_expression" or src.node_text(cond.child_by_field_name("operator")) != "<":
        return None
    tid = _squash(src, cond.child_by_field_name("left"))
    if _squash(src, cond.child_by_field_name("right")) != var:
        return None
    inner = _statements(stmt.child_by_field_name("consequence"))
    if len(inner) != 1 or inner[0].type != "expression_statement" or not inner[0].named_children:
        return None
    a = inner[0].named_children[0]
    if a.type != "assignment_expression":
        return None
    left, right = a.child_by_field_name("left"), a.child_by_field_name("right")
    op = src.node_text(a.child_by_field_name("operator"))
    if left is None or left.type != "subscript_expression" or right is None:
        return None
    arr = _squash(src, left.child_by_field_name("argument"))
    mine, other = f"{arr}[{tid}]", {f"{arr}[{tid}+{var}]", f"{arr}[{var}+{tid}]"}
    if _squash(src, left) != mine:
        return None
    if op in COMPOUND:
        return (tid, arr, f"{{x}} {COMPOUND[op]} {{y}}") if _squash(src, right) in other else None
    if op != "=":
        return None
    if right.type == "binary_expression":
        parts = [right.child_by_field_name("left"), right.child_by_field_name("right")]
        bop = src.node_text(right.child_by_field_name("operator"))
        if bop not in COMPOUND.values():
            return None
        fmt = "{} " + bop + " {}"
    elif right.type == "call_expression" and src.node_text(right.child_by_field_name("function")) in FUNCS:
        parts = right.child_by_field_name("arguments").named_children
        fmt = src.node_text(right.child_by_field_name("function")) + "({}, {})"
    else:
        return None
    if len(parts) != 2:
        return None
    texts = [_squash(src, p) for p in parts]
    if texts[0] == mine and texts[1] in other:
        return tid, arr, fmt.format("{x}", "{y}")
    if texts[1] == mine and texts[0] in other:
        return tid, arr, fmt.format("{y}", "{x}")
    return None


def _only_element_zero_after(src: SourceFile, k: Kernel, loop, arr: str) -> bool:
    """After the loop the array is read only as arr[0] (the other slots may then differ)."""
    for n in walk(k.body):
        if n.start_byte < loop.end_byte or n.type != "identifier" or src.node_text(n) != arr:
            continue
        p = n.parent
        if p is None or p.type != "subscript_expression" or _squash(src, p.child_by_field_name("indices")) != "[0]":
            return False
    return True


def match(src: SourceFile, k: Kernel, loop, resolve=None) -> TreeReduction | None:
    """The tree reduction `loop` is, when it is exactly the pattern the rewrite handles.

    `resolve` maps a template type parameter to its argument (one instantiation); without it a
    template element type is taken on trust (the optimizer compiles every rewrite)."""
    init = loop.child_by_field_name("initializer")
    if init is None or init.type != "declaration":
        return None
    decls = init.children_by_field_name("declarator")
    if len(decls) != 1 or decls[0].type != "init_declarator":
        return None
    var = _squash(src, decls[0].child_by_field_name("declarator"))
    start = decls[0].child_by_field_name("value")
    if not var.isidentifier() or start is None:
        return None
    cond, update = _squash(src, loop.child_by_field_name("condition")), _squash(src, loop.child_by_field_name("update"))
    m = _HALVE.match(update)
    if cond not in {c.format(v=var) for c in _COND} or not m or m.group(1) != var:
        return None
    stmts = _statements(loop.child_by_field_name("body"))
    if len(stmts) != 2:
        return None
    barrier_first = is_block_barrier(src, k, stmts[0])
    if not barrier_first and not is_block_barrier(src, k, stmts[1]):
        return None
    step = _step(src, stmts[1] if barrier_first else stmts[0], var)
    if step is None:
        return None
    tid, arr, combine = step
    elem = _shared_arrays(src, k).get(arr)
    is_param = any(kind == "type" and name == elem for kind, name in k.template_params)
    if not (elem in SHUFFLE_TYPES or (is_param and (resolve is None or resolve(elem) in SHUFFLE_TYPES))):
        return None
    if not _is_thread_x(src, k, tid) and not (tid.isidentifier() and _thread_x_alias(src, k, tid)):
        return None
    body_text = "".join(src.node_text(k.body).split())
    if "threadIdx.y" in body_text or "threadIdx.z" in body_text:
        return None  # 2-D blocks: the first 32 values of tid are not one warp
    p = loop.parent
    while p is not None and p != k.body:
        if p.type in LOOPS:
            return None  # inside another loop: the array's other slots may be read in a later round
        p = p.parent
    if not _only_element_zero_after(src, k, loop, arr):
        return None
    return TreeReduction(loop, var, " ".join(src.node_text(init.child_by_field_name("type")).split()), start,
                         src.node_text(loop.child_by_field_name("condition")),
                         src.node_text(loop.child_by_field_name("update")), tid, arr, elem, combine,
                         loop.child_by_field_name("body"), barrier_first)


def find(src: SourceFile, k: Kernel, resolve=None) -> list[TreeReduction]:
    return [r for r in (match(src, k, n, resolve) for n in nodes(k, "for_statement")) if r is not None]


def _free_name(used: set[str], *names: str) -> str:
    return next((n for n in names if n not in used), names[-1] + "_kp")


def rewrite(src: SourceFile, k: Kernel, r: TreeReduction) -> str:
    """The replacement text of the loop: shared steps while s > 32, then one warp with shuffles."""
    line_start = src.data.rfind(b"\n", 0, r.loop.start_byte) + 1
    ind = src.data[line_start:r.loop.start_byte].decode()
    ind = ind if not ind.strip() else ""
    step = "  "
    used = {src.node_text(n) for n in walk(k.body) if n.type == "identifier"}
    v, o = _free_name(used, "v", "val", "part"), _free_name(used, "o", "off", "delta")
    body = src.node_text(r.body).replace("\n", "\n" + step)  # one level deeper inside the new braces
    first = r.combine.format(x=f"{r.array}[{r.tid}]", y=f"{r.array}[{r.tid} + 32]")
    shfl = r.combine.format(x=v, y=f"__shfl_down_sync(0xffffffffu, {v}, {o})")
    i1, i2, i3 = ind + step, ind + step * 2, ind + step * 3
    return "\n".join([
        f"{{  // tree reduction: shared-memory steps while {r.var} > 32, then one warp with shuffles",
        f"{i1}{r.var_type} {r.var} = {src.node_text(r.start)};",
        f"{i1}for (; {r.var} > 32; {r.update}) {body}",
        f"{i1}if ({r.var} == 32 && blockDim.x >= 64 && blockDim.y == 1 && blockDim.z == 1) {{",
        *([f"{i2}__syncthreads();  // the last shared-memory step has no barrier after it"] if r.barrier_first else []),
        f"{i2}if ({r.tid} < 32) {{",
        f"{i3}{r.elem_type} {v} = {first};",
        "#pragma unroll",
        f"{i3}for (int {o} = 16; {o} > 0; {o} >>= 1) {v} = {shfl};",
        f"{i3}if ({r.tid} == 0) {r.array}[0] = {v};",
        f"{i2}}}",
        f"{i2}__syncthreads();",
        f"{i1}}} else {{",
        f"{i2}for (; {r.cond}; {r.update}) {body.replace(chr(10), chr(10) + step)}",
        f"{i1}}}",
        f"{ind}}}",
    ])


def _barrier_text(src: SourceFile, r: TreeReduction) -> str:
    stmts = _statements(r.body)
    return _squash(src, stmts[0] if r.barrier_first else stmts[1]).rstrip(";")


def start_value(src: SourceFile, r: TreeReduction, threads: int | None, env: dict[str, int] | None = None) -> int | None:
    text = _squash(src, r.start)
    if threads and text in ("blockDim.x/2", "blockDim.x>>1", "(blockDim.x/2)", "(blockDim.x>>1)"):
        return threads // 2
    return src.eval_int(r.start, {**macro_constants(src), **(env or {})})


@tool("reduction_barriers",
      """Finds shared-memory tree reductions (`for (s = blockDim.x/2; s > 0; s >>= 1) { if (tid < s)
      a[tid] += a[tid + s]; __syncthreads(); }`) that pay a block-wide barrier for each of the last
      six steps, where only one warp works; offers a bit-identical rewrite that finishes them in one
      warp with __shfl_down_sync. Use on reduction kernels (sum, max, min) that are latency-bound.""",
      needs=("source", "block"), rules=(RULE,))
def reduction_barriers(ctx: Context):
    src = ctx.source
    out = []
    for k in src.kernels:
        if k.body is None:
            continue
        hint = ctx.block(k.name)
        for r in find(src, k, lambda t, k=k: ctx.type_of(k, t)):
            s0 = start_value(src, r, hint.threads, ctx.constants(k))
            if s0 is None or s0 < WARP or s0 & (s0 - 1):
                continue  # the rewrite's warp path would not run: say nothing
            out.append(_advice(ctx, k, r, s0, hint))
    return out


def _advice(ctx: Context, k: Kernel, r: TreeReduction, s0: int, hint):
    src = ctx.source
    steps = s0.bit_length()
    warp_steps = WARP.bit_length()  # s = 32, 16, 8, 4, 2, 1
    after = steps - warp_steps + 1
    line = r.loop.start_point[0] + 1
    origin = "" if "blockDim" not in src.node_text(r.start) else f" for a block of {hint.threads} ({hint.origin})"
    l1, c1, l2, c2 = src.pos(r.loop)
    fix = {"title": f"Finish the reduction of {r.array} in one warp with __shfl_down_sync",
           "edits": [{"line": l1, "column": c1, "end_line": l2, "end_column": c2, "new_text": rewrite(src, k, r)}]}
    return advice_at(
        ctx, RULE, Severity.WARNING, k, r.loop,
        f"tree reduction of {r.array} on line {line} runs {steps} steps{origin}, each "
        f"{'opening with' if r.barrier_first else 'ending in'} {_barrier_text(src, r)}; "
        f"in the last {warp_steps} ({r.var} = 32 down to 1) at most one warp adds while every warp of the "
        f"block waits at the barrier",
        f"keep the shared-memory steps while {r.var} > 32, then let the first warp finish: "
        f"v = {r.array}[{r.tid}] + {r.array}[{r.tid} + 32] and __shfl_down_sync by 16, 8, 4, 2, 1 (no barriers, "
        f"the same order of operations, so the same result); {after} barriers instead of {steps}. "
        f"The quick fix does this and keeps the original loop for block sizes it does not cover. Or call "
        f"KernelPro's block reduction, kernelpro::block_reduce_sum / _max / _min<block size>(v): two barriers in all",
        [Evidence("reduction steps", steps, "barriers", "source"),
         Evidence("steps with at most one warp active", warp_steps, "", "source"),
         Evidence("barriers after the rewrite", after, "", "source"),
         Evidence("block size", hint.threads, hint.origin, "launch")],
        gain=None, fix=fix, links=block_link("kernelpro::block_reduce"),
    )
