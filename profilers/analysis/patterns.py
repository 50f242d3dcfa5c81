"""Which thread does what: the kernel shapes the restructuring transforms and the rules read.

`row_kernel(src, k)` lifts a kernel where each thread owns one "row" (an index derived from
blockIdx.x * blockDim.x + threadIdx.x, or a grid-stride loop over it) into a RowKernel: the
statements before the row index, the guard (`if (row < N) {...}`, `if (row >= N) return;`,
none, or the grid-stride loop), and the row's body, whose top-level loops are classified:

- spread: iterations independent up to reductions (they can be spread over the lanes of a
  warp or the threads of a block),
- redundant: a sequential loop that writes no memory (every lane can run it as it is),
- blocked: anything else (the reason is kept).

An element-wise kernel is a RowKernel without loops whose memory accesses are all at the row
index; a thread-per-row reduction has spread loops walking the row (stride 1 in the loop
variable); a thread-per-column reduction has a spread loop whose accesses move by 1 between
neighbouring rows (the row index has coefficient 1) and by a large stride between iterations.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import tree_sitter as ts

from ..source import Kernel, SourceFile, function_declarator, walk
from .affine import IndexEnv, Poly, add, atom, coefficient, depends, index_poly, mul
from .loops import SYNC, KernelLoops, LoopInfo, analyze_kernel, call_names, statements, text, unparen, uses

GID_X: Poly = add(mul(atom("blockIdx.x"), atom("blockDim.x")), atom("threadIdx.x"))
GRID_STRIDE_X: Poly = mul(atom("blockDim.x"), atom("gridDim.x"))
_BUILTIN_WORDS = ("threadIdx", "blockIdx", "blockDim", "gridDim")


@dataclass
class RowLoop:
    info: LoopInfo
    kind: str  # spread, redundant
    path: tuple = ()  # the uniform ifs/blocks it sits in


@dataclass
class RowKernel:
    kernel: Kernel = field(repr=False)
    env: IndexEnv = field(repr=False)
    loops_all: KernelLoops = field(repr=False)
    row: str  # the row variable
    row_type: str  # its declared type text ("const uint", "int", "auto")
    row_decl: ts.Node = field(repr=False)  # the declaration (form decl) or the for statement (form loop)
    form: str  # "if", "return", "none", "loop"
    guard: ts.Node | None = field(repr=False, default=None)  # the if statement / for statement
    cond: ts.Node | None = field(repr=False, default=None)  # the guard's condition node
    bound: ts.Node | None = field(repr=False, default=None)  # N in `row < N` when the guard has that form
    prologue: list = field(repr=False, default_factory=list)  # statements before the row declaration
    pre_guard: list = field(repr=False, default_factory=list)  # between the declaration and the guard
    body: list = field(repr=False, default_factory=list)  # the row's statements
    loops: list = field(default_factory=list)  # RowLoop, in source order
    reasons: list = field(default_factory=list)  # why it cannot be restructured ([] when it can)
    aliases: set = field(default_factory=set)  # names of the thread's position used only for the row index
    unspread: list = field(default_factory=list)  # the row's loops that cannot be spread (each one of `reasons`)

    @property
    def ok(self) -> bool:
        return not self.reasons

    @property
    def spread(self) -> list[RowLoop]:
        return [lp for lp in self.loops if lp.kind == "spread"]

    def stride_in_row(self, lp: LoopInfo) -> dict[str, Poly | None]:
        """array -> coefficient of the row variable in its accesses inside lp (None: not linear)."""
        out = {}
        for a in lp.accesses:
            p = a.index
            c = coefficient(p, self.row) if self.row in {x for m in p for x in m} else {}
            out.setdefault(a.array, c)
        return out


def _mentions_builtins(src: SourceFile, n) -> bool:
    return any(c.type == "field_expression" and text(src, c.child_by_field_name("argument")) in _BUILTIN_WORDS
               for c in walk(n)) or any(c.type == "identifier" and src.node_text(c) in _BUILTIN_WORDS
                                        and (c.parent is None or c.parent.type != "field_expression") for c in walk(n))


def _row_decl(src: SourceFile, env: IndexEnv, s) -> tuple[str, str, ts.Node] | None:
    """(name, type text, value) when s declares one variable equal to the global x index."""
    if s.type != "declaration":
        return None
    ds = s.children_by_field_name("declarator")
    if len(ds) != 1 or ds[0].type != "init_declarator":
        return None
    name, value = ds[0].child_by_field_name("declarator"), ds[0].child_by_field_name("value")
    if name is None or name.type != "identifier" or value is None:
        return None
    if index_poly(src, value, env.values_at(s.start_byte)) != GID_X:
        return None
    t = s.child_by_field_name("type")
    quals = " ".join(src.node_text(c) for c in s.children if c.type == "type_qualifier")
    return src.node_text(name), (quals + " " + text(src, t)).strip(), value


def _less_than(src: SourceFile, cond, var: str):
    """N from `var < N` (or `N > var`)."""
    c = unparen(cond)
    if c is None or c.type != "binary_expression":
        return None
    op = text(src, c.child_by_field_name("operator"))
    left, right = unparen(c.child_by_field_name("left")), unparen(c.child_by_field_name("right"))
    if op == "<" and text(src, left) == var and not uses(src, right, var):
        return c.child_by_field_name("right")
    if op == ">" and text(src, right) == var and not uses(src, left, var):
        return c.child_by_field_name("left")
    return None


def _at_least(src: SourceFile, cond, var: str):
    """N from `var >= N` (or `N <= var`)."""
    c = unparen(cond)
    if c is None or c.type != "binary_expression":
        return None
    op = text(src, c.child_by_field_name("operator"))
    left, right = unparen(c.child_by_field_name("left")), unparen(c.child_by_field_name("right"))
    if op == ">=" and text(src, left) == var and not uses(src, right, var):
        return c.child_by_field_name("right")
    if op == "<=" and text(src, right) == var and not uses(src, left, var):
        return c.child_by_field_name("left")
    return None


def _is_return(src: SourceFile, n) -> bool:
    st = statements(n)
    return len(st) == 1 and st[0].type == "return_statement" and not st[0].named_children


def row_kernel(src: SourceFile, k: Kernel) -> RowKernel | None:
    """The kernel lifted as one thread per row; None when no row index is found."""
    if k.body is None:
        return None
    kl0 = analyze_kernel(src, k)
    env = kl0.env
    stmts = statements(k.body)
    found = None
    aliases: set = set()  # `int tid = threadIdx.x;` before the row index: names used only to compute it
    for i, s in enumerate(stmts):
        d = _row_decl(src, env, s)
        if d is not None:
            j = _grid_stride_from(src, k, kl0, stmts, i, d[0])
            if j is None:
                found = (i, "decl", d)
                break
            aliases.add(d[0])  # `int index = gid; int stride = ...; for (i = index; ...; i += stride)`
            continue
        lp = _grid_stride(src, kl0, s)
        if lp is not None:
            found = (i, "loop", (lp.var, lp.var_type or "int", lp.start))
            break
        if _mentions_builtins(src, s):
            names = _builtin_alias(src, k, s)
            if names is None:
                return None
            aliases |= names
    if found is None:
        return None
    i, how, (row, rtype, value) = found
    kl = analyze_kernel(src, k, keep={row})  # the row stays an atom: what derives from it is uniform
    env = kl.env
    rk = RowKernel(kernel=k, env=env, loops_all=kl, row=row, row_type=rtype, row_decl=stmts[i], form="none",
                   prologue=stmts[:i])
    rest = stmts[i + 1:]
    if how == "loop":
        lp = kl.at(stmts[i])
        rk.form, rk.guard, rk.bound = "loop", stmts[i], lp.bound
        rk.body = statements(lp.body)
        if rest:
            rk.reasons.append("statements after the grid-stride loop")
    else:
        j = 0
        while j < len(rest):
            s = rest[j]
            if s.type == "if_statement" and s.child_by_field_name("alternative") is None and uses(src, s.child_by_field_name("condition"), row):
                cond = s.child_by_field_name("condition")
                if _is_return(src, s.child_by_field_name("consequence")):
                    rk.form, rk.guard, rk.cond = "return", s, cond
                    rk.bound = _at_least(src, cond, row)
                    rk.pre_guard, rk.body = rest[:j], rest[j + 1:]
                    break
                if j == len(rest) - 1:
                    rk.form, rk.guard, rk.cond = "if", s, cond
                    rk.bound = _less_than(src, cond, row)
                    rk.pre_guard, rk.body = rest[:j], statements(s.child_by_field_name("consequence"))
                    break
            j += 1
        else:
            rk.body = rest
    for s in stmts[i + 1:]:
        used = aliases & {src.node_text(n) for n in walk(s) if n.type == "identifier"}
        if used:
            rk.reasons.append(f"line {s.start_point[0] + 1} uses {', '.join(sorted(used))} (the thread's "
                              f"position) besides the row index")
            break
    rk.aliases = aliases
    _check(src, rk)
    return rk


def _grid_stride(src: SourceFile, kl, s):
    """s's LoopInfo when s is `for (v = <gid>; v < E; v += <blockDim.x * gridDim.x>)`, the start
    and the step read with the values known there (`i += stride`); else None."""
    if s.type != "for_statement":
        return None
    lp = kl.at(s)
    values = kl.env.values_at(s.start_byte)
    if lp is not None and lp.var and lp.start is not None and lp.step_node is not None and lp.cmp == "<" \
            and index_poly(src, lp.start, values) == GID_X and index_poly(src, lp.step_node, values) == GRID_STRIDE_X:
        return lp
    return None


def _grid_stride_from(src: SourceFile, k: Kernel, kl, stmts, i: int, name: str) -> int | None:
    """The index of a grid-stride loop after stmts[i] (which declares name = gid) that name only
    starts, with only declarations of the thread's position between; None otherwise."""
    for j in range(i + 1, len(stmts)):
        lp = _grid_stride(src, kl, stmts[j])
        if lp is not None:
            mentions = [n for n in walk(k.body) if n.type == "identifier" and src.node_text(n) == name
                        and n.start_byte >= stmts[i].end_byte]
            return j if all(lp.start.start_byte <= n.start_byte < lp.start.end_byte for n in mentions) else None
        if not (_mentions_builtins(src, stmts[j]) and _builtin_alias(src, k, stmts[j]) is not None):
            return None
    return None


def _looping_functions(src: SourceFile) -> set[str]:
    """Names of the file's non-kernel functions whose body has a loop."""
    out = set()
    for f in walk(src.root):
        if f.type != "function_definition" or "__global__" in src.node_text(f).split("(")[0]:
            continue
        d = function_declarator(f)
        name = d.child_by_field_name("declarator") if d is not None else None
        body = f.child_by_field_name("body")
        if name is not None and body is not None and any(
                n.type in ("for_statement", "while_statement", "do_statement") for n in walk(body)):
            out.add(src.node_text(name).split("::")[-1])
    return out


def _builtin_alias(src: SourceFile, k: Kernel, s) -> set | None:
    """The names `s` declares when it only names parts of the thread's position
    (`int tid = threadIdx.x, bid = blockIdx.x;`) and they are never assigned; else None."""
    if s.type != "declaration":
        return None
    names = set()
    for d in s.children_by_field_name("declarator"):
        n = d.child_by_field_name("declarator") if d.type == "init_declarator" else None
        if n is None or n.type != "identifier":
            return None
        names.add(src.node_text(n))
    for n in walk(k.body):
        if n.type in ("assignment_expression", "update_expression"):
            t = unparen(n.child_by_field_name("left") or n.child_by_field_name("argument"))
            if t is not None and src.node_text(t) in names:
                return None
    return names


def _check(src: SourceFile, rk: RowKernel) -> None:
    k, kl = rk.kernel, rk.loops_all
    reasons = rk.reasons
    for s in rk.prologue:
        if _mentions_builtins(src, s) and _builtin_alias(src, k, s) is None:
            reasons.append(f"line {s.start_point[0] + 1} uses the thread index before the row index")
    everything = rk.pre_guard + rk.body + ([rk.cond] if rk.cond is not None else [])
    for s in everything:
        if _mentions_builtins(src, s):
            reasons.append(f"line {s.start_point[0] + 1} uses threadIdx/blockIdx/blockDim/gridDim besides the row index")
            break
    for d in walk(k.body):
        if d.type == "declaration" and any(src.node_text(c) == "__shared__" for c in d.children):
            reasons.append(f"line {d.start_point[0] + 1}: the kernel already uses shared memory")
            break
    looping = None  # the file's looping functions, found only if the kernel calls something
    for name, n in call_names(src, k.body):
        base = name.split("::")[-1].split(".")[-1]
        if base in SYNC or base.startswith("__shfl") or base.startswith("atomic") or "cooperative" in name:
            reasons.append(f"line {n.start_point[0] + 1}: {name} (threads already cooperate)")
            break
        looping = _looping_functions(src) if looping is None else looping
        if base in looping:  # a team's every lane would run the helper's whole loop
            reasons.append(f"line {n.start_point[0] + 1} calls {base}, a function that loops (not inlined)")
            break
    # writes of the row variable
    for n in walk(k.body):
        if n.type in ("assignment_expression", "update_expression"):
            t = unparen(n.child_by_field_name("left") or n.child_by_field_name("argument"))
            if t is not None and src.node_text(t) == rk.row and not (rk.form == "loop" and n.parent == rk.guard):
                reasons.append(f"line {n.start_point[0] + 1} changes the row index {rk.row}")
                break
    # loops at row level
    for lp, path in _row_loops(src, rk.body):
        info = kl.at(lp)
        if info is None:
            reasons.append(f"line {lp.start_point[0] + 1}: loop not understood")
            continue
        if info.independent:
            rk.loops.append(RowLoop(info, "spread", path))
        elif not any(a.is_write for a in info.accesses) and not info.escapes and info.form != "do" \
                and not any(c.type == "subscript_expression" and c.parent is not None
                            and c.parent.type == "assignment_expression" for c in walk(info.body)):
            rk.loops.append(RowLoop(info, "redundant", path))
        else:
            why = info.escapes + list(info.carried.values()) + info.memory_deps
            if not info.canonical:
                why.append("not a counted loop (for v = S; v < E; v += c)")
            reasons.append(f"the loop on line {lp.start_point[0] + 1} cannot be spread: {'; '.join(why) or 'unknown'}")
            rk.unspread.append(lp)


def _row_loops(src: SourceFile, stmts, path=()):
    """(loop node, path) of the loops at the row's top level (inside plain blocks and ifs too)."""
    for s in stmts:
        if s.type in ("for_statement", "while_statement", "do_statement"):
            yield s, path
        elif s.type == "compound_statement":
            yield from _row_loops(src, statements(s), path + (s,))
        elif s.type == "if_statement":
            yield from _row_loops(src, statements(s.child_by_field_name("consequence")), path + (s,))
            alt = s.child_by_field_name("alternative")
            if alt is not None:
                inner = alt.named_children[0] if alt.type == "else_clause" and alt.named_children else alt
                yield from _row_loops(src, statements(inner) if inner.type != "if_statement" else [inner], path + (s,))
        else:
            for c in walk(s):
                if c is not s and c.type in ("for_statement", "while_statement", "do_statement"):
                    yield c, path + (s,)
                    break


# ---------------------------------------------------------------- shapes


def is_elementwise(rk: RowKernel) -> bool:
    """No loops; every global access is at exactly the row index, or a read every thread makes at the same
    place (`x[i] / norm[0]`, a scale held in device memory: a broadcast)."""
    if not rk.ok or rk.loops or rk.bound is None:
        return False
    accs = [a for a in accesses_in(rk) if True]
    at_row = [a for a in accs if a.index == {(rk.row,): 1} or a.index == _row_poly(rk)]
    return bool(at_row) and all(a in at_row or (not a.is_write and _uniform(rk, a.index)) for a in accs)


def _uniform(rk: RowKernel, p: Poly | None) -> bool:
    """An index the same for every thread: a constant or a polynomial of the kernel's scalar parameters."""
    if p is None:
        return False
    scalars = {q.name for q in rk.env.kernel.params if not q.is_pointer}
    return all(x in scalars for m in p for x in m)


def _row_poly(rk: RowKernel) -> Poly:
    return rk.env.values_at(rk.row_decl.end_byte).get(rk.row) or {(rk.row,): 1}


def accesses_in(rk: RowKernel):
    from .affine import global_accesses
    nodes = rk.pre_guard + rk.body
    out = []
    for a in global_accesses(rk.env):
        if any(s.start_byte <= a.node.start_byte < s.end_byte for s in nodes):
            out.append(a)
    return out


def row_major_loops(rk: RowKernel) -> list[RowLoop]:
    """Spread loops that walk contiguous memory (stride 1 in the loop variable): team per row."""
    out = []
    for lp in rk.spread:
        var = lp.info.var
        if any(a.index is not None and coefficient(a.index, var) == {(): 1} for a in lp.info.accesses):
            out.append(lp)
    return out


def column_walk_refusal(rk: RowKernel) -> str | None:
    """Why a thread-per-column loop (one reading down a column: row coefficient 1, strided in the loop variable)
    is not a reduction the column split can cut into parts: the values it carries from row to row other than
    sums, maxima and minima (Welford's running mean); None where the loop is not such a walk or carries none."""
    if not rk.loops:
        return None
    lp = rk.loops[0]
    info = lp.info
    down = False
    for a in info.accesses or ():
        if a.index is None or a.is_write:
            continue
        c_row = coefficient(a.index, rk.row) if depends(a.index, rk.row) else coefficient(a.index, "threadIdx.x")
        c_var = coefficient(a.index, info.var) if info.var else None
        down = down or (c_row == {(): 1} and bool(c_var) and c_var != {(): 1})
    if not down or not info.carried:
        return None
    name, why = next(iter(info.carried.items()))
    return (f"line {info.node.start_point[0] + 1}: a thread per column walking down it, but {why} (the column split "
            f"adds up parts of sums, maxima and minima; {name} carries another value from row to row)")


def column_loop(rk: RowKernel) -> RowLoop | None:
    """One spread reduction loop that reads a column: an access contiguous across the threads (row
    coefficient 1) and strided in the loop variable, a thread-per-column reduction. Beside it the
    loop may read a vector every column shares (`x[i]`, the same for every thread: a column
    matrix-vector product) and per-column values (`mean[j]`, the same in every iteration)."""
    if not rk.loops or rk.loops[0].kind != "spread" or not rk.loops[0].info.reductions:
        return None
    lp = rk.loops[0]
    if any(o.info.node.start_byte < lp.info.node.end_byte for o in rk.loops[1:]):
        return None  # (loops after the reduction, an update pass down the column, run as written after it)
    var = lp.info.var
    accs = lp.info.accesses
    if not accs or any(a.is_write for a in accs):
        return None
    columns = 0
    for a in accs:
        idx = a.index
        if idx is None:  # an index not followed (an unexpanded macro, say)
            return None
        c_row = coefficient(idx, rk.row) if depends(idx, rk.row) else None
        if c_row is None:  # the row variable was substituted: look for the thread index instead
            c_row = coefficient(idx, "threadIdx.x")
        c_var = coefficient(idx, var)
        if c_row is None or c_var is None:
            return None
        if c_row == {(): 1} and c_var and c_var != {(): 1}:
            columns += 1  # down a column
        elif not c_row and not depends(idx, rk.row) and not depends(idx, "threadIdx.x"):
            continue  # shared by every column (a vector along the rows)
        elif c_row == {(): 1} and not c_var:
            continue  # the column's own value, the same in every row
        else:
            return None
    return lp if columns else None
