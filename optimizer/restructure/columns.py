"""Column reduction: a thread-per-column loop over many rows, split over rows across warps and
blocks.

The column index keeps its definition (blockIdx.x * blockDim.x + threadIdx.x) with blocks of
32 x Y threads, so neighbouring threads still read neighbouring columns; threadIdx.y and, on
sm_90, the blocks of a thread-block cluster along gridDim.y take every (Y*Z)-th row. Partial
results meet in shared memory, then across the cluster in distributed shared memory, and the
first thread of each column runs what followed the loop. Threads past the last column take
the last column's (valid) reads and store nothing, so every thread reaches every barrier.
"""
from __future__ import annotations

from kernelpro.profilers.analysis.loops import ONLINE, text
from kernelpro.profilers.analysis.patterns import RowKernel, column_loop
from kernelpro.profilers.source import SourceFile, walk

from .prelude import with_column_prelude
from .rows import _declared_type, _loop_var_type, _used_after, _while_start, _writes_memory, combine, identity
from .text import Refuse, line_indent, reindent, span_text


def column_reduce(src: SourceFile, rk: RowKernel, cluster: int) -> str:
    """The source with the column reduction split over rows. Raises Refuse."""
    if not rk.ok:
        raise Refuse("; ".join(rk.reasons))
    rl = column_loop(rk)
    if rl is None:
        raise Refuse("not a thread-per-column reduction")
    lp = rl.info
    if rl.path or lp.node not in rk.body:
        raise Refuse("the reduction loop is not at the column's top level")
    if any(r.op == ONLINE for r in lp.reductions):
        raise Refuse("online pairs are not split over rows")
    start = lp.start if lp.form == "for" else _while_start(src, rk, lp)
    if lp.step != 1 or start is None or lp.form not in ("for", "while"):
        raise Refuse("the loop is not `for (r = S; r < E; r++)` (or the same as a while loop)")
    if (lp.form == "while" or not lp.declared_in_header) and _used_after(src, rk, lp):
        raise Refuse(f"`{lp.var}` is used after the loop")
    if rk.bound is None or rk.form not in ("if", "return"):
        raise Refuse("the column index has no `c < N` guard")
    k = rk.body.index(lp.node)
    before, after = rk.body[:k], rk.body[k + 1:]
    for s in rk.pre_guard + before:
        if _writes_memory(src, s):
            raise Refuse(f"line {s.start_point[0] + 1} writes memory before the reduction")
    row, bound = rk.row, text(src, rk.bound)
    decl = rk.row_decl
    ind = line_indent(src, decl)
    # the column index: not const (clamped for threads past the end), same value
    value = decl.children_by_field_name("declarator")[0].child_by_field_name("value")
    rtype = " ".join(w for w in rk.row_type.split() if w not in ("const", "volatile")) or "int"
    new_decl = [f"if (({bound}) <= 0) return;  // kernelpro: nothing to reduce (every thread leaves together)",
                f"{ind}{rtype} {row} = {text(src, value)};",
                f"{ind}const bool kp_live = {row} < ({bound});",
                f"{ind}if (!kp_live) {row} = ({bound}) - 1;  // reads stay in bounds; stores are skipped"]
    subs = [(decl.start_byte, decl.end_byte, "\n".join(new_decl))]
    # drop the guard: `if (...) return;` or unwrap `if (...) { body }`
    g = rk.guard
    body_start = rk.body[0].start_byte if rk.body else g.end_byte
    body_end = rk.body[-1].end_byte if rk.body else g.end_byte
    if rk.form == "return":
        subs.append((g.start_byte, g.end_byte, "// kernelpro: the bound check moved to kp_live"))
    else:
        subs.append((g.start_byte, body_start, "{  // kernelpro: every thread runs this; kp_live decides the stores\n"
                     + line_indent(src, rk.body[0]) if rk.body else "{"))
        subs.append((body_end, g.end_byte, "\n" + line_indent(src, g) + "}"))
    # the loop over rows, split over threadIdx.y and the cluster's blocks
    li = line_indent(src, lp.node)
    jt = _loop_var_type(rk, lp)
    end = f"({text(src, lp.bound)}) + 1" if lp.cmp == "<=" else f"({text(src, lp.bound)})"
    resets = " ".join(f"{r.var} = {identity(r.op, _declared_type(rk, r.var), src)};" for r in lp.reductions)
    jdecl = f"{jt} " if (lp.declared_in_header or lp.form == "while") else ""
    body = lp.body
    body_text = span_text(src, body.start_byte, body.end_byte,
                          [(lp.increment.start_byte, lp.increment.end_byte, "")] if lp.increment is not None else [])
    stride = "blockDim.y * gridDim.y"
    loop = [f"{{  // kernelpro: rows split over threadIdx.y and blockIdx.y ({'a cluster of ' + str(cluster) + ' blocks' if cluster > 1 else 'one block'})",
            f"{li}  if (threadIdx.y != 0 || blockIdx.y != 0) {{ {resets} }}",
            f"{li}  #pragma unroll 4  // several rows' loads in flight per thread",
            f"{li}  for ({jdecl}{lp.var} = ({text(src, start)}) + threadIdx.y + blockIdx.y * blockDim.y; "
            f"{lp.var} < {end}; {lp.var} += {stride}) "
            + reindent(body_text, line_indent(src, body), li + "  ")]
    fn = "kp_cluster_col_reduce" if cluster > 1 else "kp_col_reduce"
    for r in lp.reductions:
        loop.append(f"{li}  {r.var} = {fn}({r.var}, {combine(r.op, r.fn)});")
    loop.append(f"{li}}}")
    subs.append((lp.node.start_byte, lp.node.end_byte, "\n".join(loop)))
    if after:
        a0, a1 = after[0], after[-1]
        ai = line_indent(src, a0)
        subs.append((a0.start_byte, a1.end_byte,
                     f"if (kp_live && threadIdx.y == 0 && blockIdx.y == 0) {{\n{ai}  "
                     + reindent(span_text(src, a0.start_byte, a1.end_byte), ai, ai + "  ") + f"\n{ai}}}"))
    for s in after:
        for n in walk(s):
            if n.type == "return_statement":
                raise Refuse(f"line {n.start_point[0] + 1}: return after the reduction")
    new = span_text(src, 0, len(src.data), subs)
    if cluster > 1:
        new = _add_cluster_dims(new, rk.kernel.name, cluster)
    return with_column_prelude(new)


def _add_cluster_dims(text_: str, kernel: str, z: int) -> str:
    import re
    m = re.search(rf"__global__\s+(?:__launch_bounds__\([^)]*\)\s*)?void\s+{re.escape(kernel)}\s*\(", text_)
    if m is None:
        raise Refuse("the kernel's declaration was not found for __cluster_dims__")
    at = m.start() + len("__global__")
    return text_[:at] + f" __cluster_dims__(1, {z}, 1)" + text_[at:]


def describe(rk: RowKernel, cluster: int, line: int | None = None) -> str:
    rl = column_loop(rk)
    if line is None:
        line = rl.info.node.start_point[0] + 1 if rl else "?"
    where = f"and across a cluster of {cluster} blocks (distributed shared memory)" if cluster > 1 else "within the block"
    return (f"split the column reduction of line {line} over rows: 32 columns x row groups per block, "
            f"partial sums combined in shared memory {where}")


