"""Whole-block reductions through a shared-memory tree, in the textbook forms.

`block_reduction(src, k)` reads a kernel made of
  1. a prologue where each thread stores one value into `S[tid]` (S a `__shared__` array, tid threadIdx.x
     or a name for it), computed from anything (a guarded load, a grid-stride sum, a function of it);
  2. a barrier and a tree loop over S that combines S[tid] with S[tid + s] by +, max or min, either
     halving (`for (s = blockDim.x / 2; s > 0; s >>= 1) if (tid < s) ...`) or interleaved
     (`for (s = 1; s < blockDim.x; s *= 2) if (tid % (2 * s) == 0) ...`), a barrier in each step;
  3. an epilogue under `if (tid == 0)` that uses S[0] (the block's result: a store per block, an atomic).
The result of such a kernel is the epilogue applied to the op over every thread's prologue value, so a
rewrite may compute those values in any grouping (an associative op; the order of float sums changes
within rounding). What is not this shape is a `Refusal` with its reason.

Given the launch's block (and the sizes), a phase between the prologue and the epilogue that these
spellings do not match is recognised by what it computes instead (`blocksim.py`): one block run on the
CPU, the value the epilogue reads (S[0], or a register of thread 0 such as CUDA samples' `mySum`) must be
the sum, max or min of what every thread stored in S[tid]. So a while loop (`i /= 2`), an index
`2 * s * tid`, a start from a macro (`BS / 2`), `cg::sync(cta)`, shared memory through a helper
(`T *sdata = SharedMemory<T>();`) all read the same; a race or a call the simulation does not follow
(a warp-synchronous helper) is refused with its reason.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .blocksim import Block, Data, Race, Unsupported, declared, is_group_handle, is_sync_call
from .refusal import Refusal
from ..source import Kernel, SourceFile, walk

OPS = {"+": "+", "max": "max", "min": "min"}


@dataclass
class BlockReduction:
    kernel: str
    array: str  # the shared array
    elem: str  # its element type
    tid_names: set  # threadIdx.x and the names given to it
    prologue: list = field(repr=False)  # statements before the first barrier
    tree: object = field(repr=False)  # the tree's for statement
    epilogue: object = field(repr=False)  # the `if (tid == 0) ...` statement
    op: str  # "+", "max", "min"
    form: str  # "halving" or "interleaved"
    block_literal: str | None  # the literal the tree uses for the block size, if not blockDim.x
    result: str | None = None  # the register of thread 0 the epilogue reads the result from (else S[0])


def _sq(src: SourceFile, n) -> str:
    return "".join(src.node_text(n).split())


def _cond(src: SourceFile, if_node) -> str:
    """An if statement's condition as squashed text without its outer parentheses."""
    n = if_node.child_by_field_name("condition")
    while n is not None and n.type in ("parenthesized_expression", "condition_clause") and len(n.named_children) == 1:
        n = n.named_children[0]
    return _sq(src, n)


def _index(src: SourceFile, n) -> str:
    """The index of a subscript as squashed text (`S[tid]` -> `tid`)."""
    whole, arg = _sq(src, n), _sq(src, n.child_by_field_name("argument"))
    return whole[len(arg):].strip("[]")


def _statements(body) -> list:
    return [c for c in body.named_children if c.type != "comment"]


def _is_barrier(src: SourceFile, s) -> bool:
    return s.type == "expression_statement" and bool(s.named_children) and is_sync_call(src, s.named_children[0])


def shared_helpers(src: SourceFile) -> set[str]:
    """Names of the file's structs and functions that hand out `extern __shared__` memory (CUDA samples'
    `SharedMemory<T>`)."""
    out = set()
    for n in walk(src.root):
        if n.type in ("struct_specifier", "class_specifier", "function_definition") and \
                "extern __shared__" in " ".join(src.node_text(n).split()):
            name = n.child_by_field_name("name")
            if name is None and n.type == "function_definition":
                d = n.child_by_field_name("declarator")
                while d is not None and d.type not in ("identifier", "field_identifier"):
                    d = d.child_by_field_name("declarator")
                name = d
            if name is not None:
                out.add(src.node_text(name))
    return out


def _extern_raw(src: SourceFile, k: Kernel) -> set[str]:
    """The kernel's own `extern __shared__` arrays (`extern __shared__ unsigned char smem[];`)."""
    out = set()
    for d in walk(k.body):
        if d.type == "declaration" and {"extern", "__shared__"} <= set(src.node_text(d).replace("[", " ").split()):
            out |= set(declared(src, d))
    return out


def _aliases(src: SourceFile, k: Kernel) -> dict[str, str]:
    """Pointers the kernel declares from a helper of shared_helpers (`T *sdata = SharedMemory<T>();`) or as a cast
    of its own `extern __shared__` array (`T *sdata = reinterpret_cast<T *>(smem);`, `(T *)smem`): name ->
    element type."""
    helpers, out = shared_helpers(src) | _extern_raw(src, k), {}
    if not helpers:
        return out
    for d in walk(k.body):
        if d.type != "declaration":
            continue
        for x in d.children_by_field_name("declarator"):
            v = x.child_by_field_name("value") if x.type == "init_declarator" else None
            if v is None or not any(src.node_text(i) in helpers for i in walk(v) if i.type in
                                    ("identifier", "type_identifier", "template_function", "template_type")):
                continue
            if x.child_by_field_name("declarator").type == "pointer_declarator":
                for name in declared(src, d):
                    out[name] = src.node_text(d.child_by_field_name("type"))
    return out


def _shared(src: SourceFile, k: Kernel) -> dict[str, str]:
    out = dict(_aliases(src, k))
    for d in walk(k.body):
        if d.type == "declaration" and "__shared__" in src.node_text(d):
            t = src.node_text(d.child_by_field_name("type")) if d.child_by_field_name("type") else "float"
            for x in d.children_by_field_name("declarator"):
                while x is not None and x.type not in ("identifier",):
                    x = x.child_by_field_name("declarator")
                if x is not None:
                    out[src.node_text(x)] = t
    return out


def _tid_names(src: SourceFile, stmts) -> set:
    names = {"threadIdx.x"}
    for s in stmts:
        if s.type != "declaration":
            continue
        for d in s.children_by_field_name("declarator"):
            if d.type == "init_declarator" and _sq(src, d.child_by_field_name("value")) == "threadIdx.x":
                names.add(src.node_text(d.child_by_field_name("declarator")))
    return names


def _step_op(src: SourceFile, body, arr: str, tids: set, s: str) -> str | None:
    """+, max or min when the tree's body is `[if (c)] arr[tid] (op)= arr[tid + s]; barrier`."""
    here = {f"{arr}[{t}]" for t in tids}
    there = {f"{arr}[{t}+{s}]" for t in tids} | {f"{arr}[{s}+{t}]" for t in tids}
    ops = []
    for n in walk(body):
        if n.type != "assignment_expression":
            continue
        left, o = _sq(src, n.child_by_field_name("left")), src.node_text(n.child_by_field_name("operator"))
        right = _sq(src, n.child_by_field_name("right"))
        if left not in here:
            return None
        if o == "+=" and right in there:
            ops.append("+")
            continue
        m = re.fullmatch(r"(fmaxf|fmax|max|fminf|fmin|min)\((.+),(.+)\)", right) if o == "=" else None
        if m and {m.group(2), m.group(3)} & here and {m.group(2), m.group(3)} & there:
            ops.append("max" if "max" in m.group(1) else "min")
        elif o == "=" and any(right in (f"{a}+{b}", f"{b}+{a}") for a in here for b in there):
            ops.append("+")
        else:
            return None
    return ops[0] if len(ops) == 1 else None


def _tree(src: SourceFile, loop, arr: str, tids: set) -> tuple[str, str, str | None] | None:
    """(op, form, the block literal) of a complete tree loop over arr; None otherwise."""
    init, cond, upd = (loop.child_by_field_name(f) for f in ("initializer", "condition", "update"))
    body = loop.child_by_field_name("body")
    ds = init.children_by_field_name("declarator") if init is not None and init.type == "declaration" else []
    if len(ds) != 1 or ds[0].type != "init_declarator" or cond is None or upd is None or body is None:
        return None
    s = src.node_text(ds[0].child_by_field_name("declarator"))
    start, c, u = _sq(src, ds[0].child_by_field_name("value")), _sq(src, cond), _sq(src, upd)
    stmts = _statements(body) if body.type == "compound_statement" else [body]
    if not stmts or not _is_barrier(src, stmts[-1]) or any(_is_barrier(src, x) for x in stmts[:-1]):
        return None
    guard = stmts[0] if len(stmts) == 2 and stmts[0].type == "if_statement" else None
    if guard is None or guard.child_by_field_name("alternative") is not None:
        return None
    g = _cond(src, guard)
    op = _step_op(src, guard.child_by_field_name("consequence"), arr, tids, s)
    if op is None:
        return None
    m = re.fullmatch(r"\(?(blockDim\.x|\d+)\)?(/2|>>1)", start) or (
        re.fullmatch(r"(\d+)", start) and re.fullmatch(r"(\d+)", str(2 * int(start))))  # `s = 128`: a block of 256
    if m and c in (f"{s}>0", f"{s}>=1", f"0<{s}", f"{s}!=0") and u in (f"{s}>>=1", f"{s}/=2", f"{s}={s}/2", f"{s}={s}>>1") \
            and g in {f"{t}<{s}" for t in tids} | {f"{s}>{t}" for t in tids}:
        return op, "halving", None if m.group(1) == "blockDim.x" else m.group(1)
    m = re.fullmatch(rf"{s}<(blockDim\.x|\d+)", c)
    doubling = u in (f"{s}*=2", f"{s}<<=1", f"{s}={s}*2", f"{s}={s}<<1", f"{s}=2*{s}", f"{s}+={s}")
    interleaved = {f"{t}%(2*{s})==0" for t in tids} | {f"{t}%({s}*2)==0" for t in tids} | \
        {f"({t}&(2*{s}-1))==0" for t in tids} | {f"{t}%(2*{s})==0" for t in tids}
    if start == "1" and m and doubling and g in interleaved:
        return op, "interleaved", None if m.group(1) == "blockDim.x" else m.group(1)
    return None


def _simulated(src: SourceFile, k: Kernel, shared: dict, stmts, first: int, epi_at: int, tids: set, block: int,
               scalars: dict, grid: int) -> tuple[str, str, str | None] | str:
    """(array, op, thread 0's register holding the result or None for S[0]) when running the block shows the
    phase stmts[first:epi_at] leaving op over the prologue's S[tid] where the epilogue reads it; else why not."""
    aliases = frozenset(a for a in shared if a in _aliases(src, k))
    try:
        sim = Block(src, k, block, scalars, max(grid, 3), bid=1, max_steps=1 << 17, aliases=aliases)
        snaps = sim.run(marks=(first, epi_at), stop=epi_at)
    except (Race, Unsupported, ArithmeticError, TypeError, ValueError, RecursionError) as e:
        return str(e)
    marks = {m: (loc, sh) for m, loc, sh in snaps}
    if first not in marks or epi_at not in marks:
        return "a barrier or return that not every thread reaches"
    if sim.stores:
        return "the kernel stores to global memory before its epilogue"
    epi = stmts[epi_at]
    reads_s0 = {a for n in walk(epi) if n.type == "subscript_expression"
                for a in [src.node_text(n.child_by_field_name("argument"))] if a in shared}
    idents = {src.node_text(n) for n in walk(epi) if n.type == "identifier"}
    (loc0, sh0), (loc1, sh1) = marks[first], marks[epi_at]
    for arr in shared:
        vals = [sh0.get(arr, {}).get(t) for t in range(block)]
        if any(v is None for v in vals) or not any(isinstance(v, Data) for v in vals):
            continue
        vals = [v.v if isinstance(v, Data) else v for v in vals]
        want = {"+": sum(vals), "max": max(vals), "min": min(vals)}
        places = [(None, sh1.get(arr, {}).get(0))] if arr in reads_s0 else []
        places += [(nm, loc1[0].get(nm)) for nm in sorted(idents) if nm in loc1[0] and nm not in tids]
        for name, got in places:
            got = got.v if isinstance(got, Data) else got
            for op in ("+", "max", "min"):
                if got == want[op] and (op == "+" or (1, op) in sim.data_ops):
                    return arr, op, name
    return ("running one block, the value its epilogue reads is not the sum, max or min of what the threads "
            "stored before the first barrier")


def block_reduction(src: SourceFile, k: Kernel, block: int | None = None, scalars: dict | None = None,
                    grid: int = 3) -> BlockReduction | Refusal:
    """block, scalars, grid: the launch's block, the sizes and the grid's blocks, for the phases the textbook
    spellings do not match (run on the CPU)."""
    if k.body is None:
        return Refusal(k.name, "no body")
    shared = _shared(src, k)
    if not shared:
        return Refusal(k.name, "no shared-memory tree", not_this_shape=True)
    stmts = _statements(k.body)
    first = next((i for i, s in enumerate(stmts) if _is_barrier(src, s)), None)
    if first is None or first + 1 >= len(stmts):
        return Refusal(k.name, "no barrier followed by a tree loop at the kernel's top level", not_this_shape=True)
    tids = _tid_names(src, stmts[:first])
    prologue, loop = stmts[:first], stmts[first + 1]
    found = [(arr, _tree(src, loop, arr, tids)) for arr in shared] if loop.type == "for_statement" else []
    found = [(a, t) for a, t in found if t is not None]
    rest = [s for s in stmts[first + 2:] if not _is_barrier(src, s)]
    result = None
    if not found or len(rest) != 1:
        epi_at = len(stmts) - 1
        last = stmts[epi_at]
        phase = [s for s in stmts[first + 1:epi_at] if not _is_barrier(src, s)]
        if not phase or last.type != "if_statement" or not any(
                n.type in ("for_statement", "while_statement", "do_statement") for s in phase for n in walk(s)):
            if loop.type != "for_statement":
                return Refusal(k.name, "no barrier followed by a tree loop at the kernel's top level",
                               not_this_shape=True)
            return Refusal(k.name, f"line {loop.start_point[0] + 1}: a loop after the barrier that is not a complete "
                                   "tree (halving from blockDim.x / 2 under `tid < s`, or doubling to blockDim.x "
                                   "under `tid % (2 * s) == 0`, combining S[tid] with S[tid + s] by +, max or min)")
        if block is None:
            return Refusal(k.name, f"line {loop.start_point[0] + 1}: a tree in a form the spellings do not match, and "
                                   "no launch block to run it with")
        got = _simulated(src, k, shared, stmts, first, epi_at, tids, block, {**src.instantiated(k), **(scalars or {})},
                         grid)
        if isinstance(got, str):
            return Refusal(k.name, f"line {loop.start_point[0] + 1}: a loop after the barrier that is not a complete "
                                   "tree in the textbook spellings, nor one as far as running a block shows: "
                                   f"{got}")
        arr, op, result = got
        loop = next(s for s in phase if any(n.type in ("for_statement", "while_statement", "do_statement")
                                            for n in walk(s)))
        form, literal, rest = "", None, [last]
    else:
        arr, (op, form, literal) = found[0]
    if len(rest) != 1 or rest[0].type != "if_statement" or rest[0].child_by_field_name("alternative") is not None \
            or _cond(src, rest[0]) not in \
            {f"{t}==0" for t in tids} | {f"0=={t}" for t in tids}:
        return Refusal(k.name, "after the tree, not one `if (tid == 0) ...` using the block's result")
    epi = rest[0]
    for n in walk(epi):
        if n.type == "subscript_expression" and src.node_text(n.child_by_field_name("argument")) == arr \
                and _index(src, n) != "0":
            return Refusal(k.name, f"line {n.start_point[0] + 1}: the epilogue reads {arr} beyond its element 0")
    aliases = _aliases(src, k)
    prologue = [s for s in prologue if not (s.type == "declaration" and set(declared(src, s)) & set(aliases))
                and not (s.type == "declaration" and is_group_handle(src, s))]
    for s in prologue:
        for n in walk(s):
            if n.type in ("return_statement", "break_statement", "goto_statement"):
                return Refusal(k.name, f"line {n.start_point[0] + 1}: the prologue leaves early (every thread must "
                                       "reach the barrier)")
            if n.type == "subscript_expression" and src.node_text(n.child_by_field_name("argument")) in shared:
                idx = _index(src, n)
                if idx not in tids:
                    return Refusal(k.name, f"line {n.start_point[0] + 1}: the prologue touches "
                                           f"{src.node_text(n)} (only S[tid] is the thread's value)")
            if n.type == "call_expression" and "sync" in src.node_text(n.child_by_field_name("function")):
                return Refusal(k.name, f"line {n.start_point[0] + 1}: a barrier inside the prologue")
    if not any(n.type == "assignment_expression" and _sq(src, n.child_by_field_name("left")) in
               {f"{arr}[{t}]" for t in tids} for s in prologue for n in walk(s)):
        return Refusal(k.name, f"the prologue never stores the thread's value into {arr}[tid]")
    return BlockReduction(k.name, arr, shared[arr], tids, prologue, loop, epi, op, form, literal, result)
