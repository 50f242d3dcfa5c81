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

from kernelpro.profilers.analysis.affine import unevaluated
from kernelpro.profilers.analysis.loops import ONLINE, loop_start, text
from kernelpro.profilers.analysis.patterns import RowKernel, column_loop
from kernelpro.profilers.source import SourceFile, walk

from .launch import add_attribute
from .prelude import with_column_prelude
from .rows import _declared_type, _loop_var_type, _used_after, _writes_memory, combine, identity
from .counted import counted_for
from .text import Refuse, line_indent, reindent, span_text

# the rows of a column, split over threadIdx.y and the blocks along gridDim.y (a cluster)
ROW_STRIDE = "blockDim.y * gridDim.y"


def _unroll(n: int) -> str:
    return f"#pragma unroll {n}  // several rows' loads in flight per thread"


def column_reduce(src: SourceFile, rk: RowKernel, cluster: int, vec: int = 1, unroll: int = 4,
                  stream: bool = False, threads: int | None = None) -> str:
    """The source with the column reduction split over rows (and, with vec > 1, each thread
    taking vec neighbouring columns through packed loads, `unroll` rows' loads in flight, and
    with `stream` loads that evict first). More than 4 rows at once
    are loaded explicitly together, and with the block's `threads` given the kernel gets
    __launch_bounds__ for 1024 threads per SM (64 registers: without that budget nvcc keeps
    only 3 or 4 of the loads in flight). Raises Refuse."""
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
    start = loop_start(src, lp)
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
    if vec > 1:
        return _packed(src, rk, lp, start, before, after, cluster, vec, unroll, stream, threads)
    # the column index: not const (clamped for threads past the end), same value
    value = decl.children_by_field_name("declarator")[0].child_by_field_name("value")
    rtype = " ".join(w for w in rk.row_type.split() if w not in ("const", "volatile")) or "int"
    new_decl = [f"if (({bound}) <= 0) return;  // kernelpro: nothing to reduce (every thread leaves together)",
                f"{ind}{rtype} {row} = {text(src, value)};",
                f"{ind}const bool kp_live = {row} < ({bound});",
                f"{ind}if (!kp_live) {row} = ({bound}) - 1;  /* reads stay in bounds; stores are skipped */"]
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
    loop = [f"{{  // kernelpro: rows split over threadIdx.y and blockIdx.y ({'a cluster of ' + str(cluster) + ' blocks' if cluster > 1 else 'one block'})",
            f"{li}  if (threadIdx.y != 0 || blockIdx.y != 0) {{ {resets} }}"]
    loop += counted_for(src, jt, lp.var, f"({text(src, start)}) + threadIdx.y + blockIdx.y * blockDim.y", end,
                        ROW_STRIDE, reindent(body_text, line_indent(src, body), li + "  "), li + "  ",
                        declare=bool(jdecl), counter="kp_r", pragma=_unroll(unroll))
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
    new = add_attribute(text_, "<memory>", kernel, f"__cluster_dims__(1, {z}, 1)", True)
    if new is None:
        raise Refuse("the kernel's declaration was not found for __cluster_dims__")
    return new


def _add_launch_bounds(text_: str, kernel: str, threads: int) -> str:
    """A register budget for 1024 threads per SM; a kernel with bounds of its own keeps them."""
    new = add_attribute(text_, "<memory>", kernel, f"__launch_bounds__({threads}, {max(1, 1024 // threads)})", False)
    return text_ if new is None else new


def describe(rk: RowKernel, cluster: int, line: int | None = None) -> str:
    rl = column_loop(rk)
    if line is None:
        line = rl.info.node.start_point[0] + 1 if rl else "?"
    where = f"and across a cluster of {cluster} blocks (distributed shared memory)" if cluster > 1 else "within the block"
    return (f"split the column reduction of line {line} over rows: row groups per block, "
            f"partial sums combined in shared memory {where}")


def _packed(src: SourceFile, rk: RowKernel, lp, start, before, after, cluster: int, vec: int, unroll: int = 4,
            stream: bool = False, threads: int | None = None) -> str:
    """The column split with `vec` neighbouring columns per thread: per row one packed load of
    each array read at the column index, the per-column code run for each column of the pack,
    a scalar path where the pack would cross the last column or is not aligned."""
    from kernelpro.profilers.analysis.affine import coefficient, poly_c

    row, bound = rk.row, text(src, rk.bound)
    reds = {r.var: r for r in lp.reductions}
    rtype = " ".join(w for w in rk.row_type.split() if w not in ("const", "volatile")) or "int"
    if rtype == "auto":
        rtype = "long long"
    replay, acc_decl = [], {}
    for s in rk.pre_guard + before:
        if _writes_memory(src, s) or any(n.type == "subscript_expression" and not unevaluated(n) for n in walk(s)):
            raise Refuse(f"line {s.start_point[0] + 1} loads from memory before the reduction (kept per column)")
        names = [text(src, d.child_by_field_name("declarator") or d) for d in s.children_by_field_name("declarator")] \
            if s.type == "declaration" else []
        if lp.var in names:  # the while loop's variable: the split loop declares its own
            if len(names) != 1:
                raise Refuse(f"line {s.start_point[0] + 1} declares the loop variable with other variables")
            continue
        if set(names) & set(reds):
            if len(names) != 1:
                raise Refuse(f"line {s.start_point[0] + 1} declares an accumulator with other variables")
            acc_decl[names[0]] = s
        else:
            replay.append(s)
    if set(acc_decl) != set(reds):
        raise Refuse("an accumulator is not declared right before the loop")
    # the arrays read at the column index with stride 1 between columns: one pack per row
    groups, subs_body = {}, []
    for a in lp.accesses:
        if a.index is None or a.node.type != "subscript_expression":
            continue
        if coefficient(a.index, row) != {(): 1}:
            continue
        key = (a.array, tuple(sorted((m, c) for m, c in a.index.items() if row not in m)))
        g = groups.setdefault(key, {"name": f"kp_q{len(groups)}", "array": a.array, "index": a.index, "nodes": []})
        g["nodes"].append(a.node)
    if not groups:
        raise Refuse("no array is read at neighbouring columns")
    li = line_indent(src, lp.node)
    i1, i2 = li + "  ", li + "    "
    jt = _loop_var_type(rk, lp)
    end = f"({text(src, lp.bound)}) + 1" if lp.cmp == "<=" else f"({text(src, lp.bound)})"
    var = lp.var
    body = lp.body
    inc = [(lp.increment.start_byte, lp.increment.end_byte, "")] if lp.increment is not None else []
    for g in groups.values():
        subs_body += [(n.start_byte, n.end_byte, f"{g['name']}.v[kp_v]") for n in g["nodes"]]
    packed_body = span_text(src, body.start_byte, body.end_byte, inc + subs_body)
    plain_body = span_text(src, body.start_byte, body.end_byte, inc)
    elem = {k: f"typename kp_elem<decltype({g['array']}[0])>::type" for k, g in groups.items()}
    addr = {k: (lambda at, g=g: f"&{g['array']}[{poly_c(g['index'], {row: 'kp_c0', var: at})}]") for k, g in groups.items()}
    out = [f"if (({bound}) <= 0) return;  // kernelpro: nothing to reduce (every thread leaves together)",
           f"{li}// kernelpro: {vec} neighbouring columns per thread, rows split over threadIdx.y and blockIdx.y "
           f"({'a cluster of ' + str(cluster) + ' blocks' if cluster > 1 else 'one block'})",
           f"{li}const long long kp_c0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * {vec};"]
    for name, st in acc_decl.items():
        t = _declared_type(rk, name)
        out.append(f"{li}{t} kp_acc_{name}[{vec}];")
    out.append(f"{li}#pragma unroll")
    out.append(f"{li}for (int kp_v = 0; kp_v < {vec}; ++kp_v) {{  // each column's starting values")
    out.append(f"{i1}const {rtype} {row} = ({rtype})(kp_c0 + kp_v < ({bound}) ? kp_c0 + kp_v : ({bound}) - 1);")
    for st in replay:
        out.append(f"{i1}{text(src, st)}")
    for name, st in acc_decl.items():
        out.append(f"{i1}{text(src, st)}")
        ident = identity(reds[name].op, _declared_type(rk, name), src)
        out.append(f"{i1}kp_acc_{name}[kp_v] = (threadIdx.y == 0 && blockIdx.y == 0) ? {name} : {ident};")
    out.append(f"{li}}}")
    s0 = f"({text(src, start)})"
    checks = " && ".join(f"((unsigned long long)(const void*){addr[k](s0)} % ({vec} * sizeof({elem[k]}))) == 0 && "
                         f"((unsigned long long)(const void*){addr[k](s0 + ' + 1')} % ({vec} * sizeof({elem[k]}))) == 0"
                         for k in groups)
    out.append(f"{li}const bool kp_pk = kp_c0 + {vec} <= ({bound}) && {checks};")

    def column_view(ind: str, col: str) -> list[str]:
        """Column kp_v of the pack as the original code sees it: its index, the replayed
        statements, its accumulators."""
        return ([f"{ind}const {rtype} {row} = ({rtype})({col});"] + [f"{ind}{text(src, st)}" for st in replay]
                + [f"{ind}auto& {name} = kp_acc_{name}[kp_v];" for name in acc_decl])

    def load(k, at: str | None = None, address: str | None = None) -> str:
        """Group k's pack at row `at` (or at `address`): an evict-first load with `stream`."""
        ptr = f"reinterpret_cast<const kp_pack<{elem[k]}, {vec}>*>({address or addr[k](at)})"
        return f"kp_ldcs({ptr})" if stream else f"*{ptr}"

    def per_column(ind: str, packed: bool = True) -> list[str]:
        """The loop body once per column of the pack (from the pack's registers, or memory)."""
        body_text = reindent(packed_body if packed else plain_body, line_indent(src, body), ind + "  ")
        return ([f"{ind}#pragma unroll", f"{ind}for (int kp_v = 0; kp_v < {vec}; ++kp_v) {{"]
                + column_view(ind + "  ", f"kp_c0 + kp_v < ({bound}) ? kp_c0 + kp_v : ({bound}) - 1")
                + [f"{ind}  {body_text}", f"{ind}}}"])

    def batched_loop(ind: str) -> list[str]:
        """`unroll` rows at once: their packed loads first (all in flight together), then their
        sums in row order; the rows left over one at a time."""
        j1, j2, j3 = ind + "  ", ind + "    ", ind + "      "
        stride = f"(long long)({ROW_STRIDE})"
        first = f"(long long)({s0}) + threadIdx.y + (long long)blockIdx.y * blockDim.y"
        row_at = f"({jt})(kp_r + kp_u * {stride})"
        lines = [f"{ind}{{  // kernelpro: {unroll} rows at once: their loads issued together, then their sums",
                 f"{j1}long long kp_r = {first};"]
        # each pack's address: the batch's first row, then a fixed step per row (few registers)
        steps = {k: poly_c(coefficient(g["index"], var) or {}, {row: "kp_c0"}) for k, g in groups.items()}
        for k, g in groups.items():
            lines.append(f"{j1}const long long {g['name']}_s = ({steps[k]}) * {stride};  // elements between its rows")
        lines.append(f"{j1}for (; kp_r + {unroll - 1} * {stride} < (long long)({end}); kp_r += {unroll} * {stride}) {{")
        for k, g in groups.items():
            lines += [f"{j2}const {elem[k]}* const {g['name']}_p = {addr[k](f'({jt})kp_r')};",
                      f"{j2}kp_pack<{elem[k]}, {vec}> {g['name']}_b[{unroll}];"]
        lines += [f"{j2}#pragma unroll", f"{j2}for (int kp_u = 0; kp_u < {unroll}; ++kp_u) {{"]
        lines += [f"{j3}{g['name']}_b[kp_u] = {load(k, address=g['name'] + '_p + kp_u * ' + g['name'] + '_s')};"
                  for k, g in groups.items()]
        lines += [f"{j2}}}", f"{j2}#pragma unroll", f"{j2}for (int kp_u = 0; kp_u < {unroll}; ++kp_u) {{",
                  f"{j3}{jt} {var} = {row_at};"]
        lines += [f"{j3}const kp_pack<{elem[k]}, {vec}> {g['name']} = {g['name']}_b[kp_u];" for k, g in groups.items()]
        lines += per_column(j3) + [f"{j2}}}", f"{j1}}}",
                                   f"{j1}for (; kp_r < (long long)({end}); kp_r += {stride}) {{",
                                   f"{j2}{jt} {var} = ({jt})kp_r;"]
        lines += [f"{j2}const kp_pack<{elem[k]}, {vec}> {g['name']} = {load(k, f'({jt})kp_r')};"
                  for k, g in groups.items()]
        lines += per_column(j2) + [f"{j1}}}", f"{ind}}}"]
        return lines

    def rows_loop(packed: bool, ind: str) -> list[str]:
        if packed and batched:
            return batched_loop(ind)
        j1 = ind + "  "
        lines = [f"{j1}const kp_pack<{elem[k]}, {vec}> {g['name']} = {load(k, var)};"
                 for k, g in groups.items()] if packed else []
        lines += per_column(j1, packed)
        return counted_for(src, jt, var, f"{s0} + threadIdx.y + blockIdx.y * blockDim.y", end, ROW_STRIDE,
                           "{\n" + "\n".join(lines) + f"\n{ind}}}", ind, counter="kp_r", pragma=_unroll(unroll))
    batched = unroll > 4 and all(coefficient(g["index"], var) is not None for g in groups.values())
    # the loop twice: packed loads when every pack is aligned and whole, one column at a time otherwise
    out.append(f"{li}if (kp_pk) {{")
    out += rows_loop(True, i1)
    out.append(f"{li}}} else {{")
    out += rows_loop(False, i1)
    out.append(f"{li}}}")
    fn = "kp_cluster_col_reduce_n" if cluster > 1 else "kp_col_reduce_n"
    for name in acc_decl:  # the pack's partial results combined together
        out.append(f"{li}{fn}(kp_acc_{name}, {combine(reds[name].op, reds[name].fn)});")
    if after:
        for s in after:
            for n in walk(s):
                if n.type == "return_statement":
                    raise Refuse(f"line {n.start_point[0] + 1}: return after the reduction")
        a0, a1 = after[0], after[-1]
        out.append(f"{li}if (threadIdx.y == 0 && blockIdx.y == 0) {{")
        out.append(f"{i1}for (int kp_v = 0; kp_v < {vec}; ++kp_v) {{")
        out.append(f"{i2}if (kp_c0 + kp_v >= ({bound})) break;")
        out += column_view(i2, "kp_c0 + kp_v")
        out.append(f"{i2}" + reindent(span_text(src, a0.start_byte, a1.end_byte), line_indent(src, a0), i2))
        out.append(f"{i1}}}")
        out.append(f"{li}}}")
    start_b = rk.row_decl.start_byte
    end_b = rk.guard.end_byte if rk.form == "if" else (after[-1].end_byte if after else lp.node.end_byte)
    new = span_text(src, 0, len(src.data), [(start_b, end_b, "\n".join(out))])
    if batched and threads:
        new = _add_launch_bounds(new, rk.kernel.name, threads)
    if cluster > 1:
        new = _add_cluster_dims(new, rk.kernel.name, cluster)
    return with_column_prelude(new)
