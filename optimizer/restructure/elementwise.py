"""Vectorise and coarsen an element-wise kernel, whatever its element types are spelled.

The kernel's per-element work (the statements between the index and the guard, and the
guarded body) runs for V consecutive elements per step of a grid-stride loop; every array
accessed at exactly the element index moves through one packed access of V elements
(16 bytes for V = 16 / sizeof(element)), typed with decltype so that `floatX`, `x128`-era
typedefs and `__nv_bfloat16` all work. The last partial vector, and pointers that are not
aligned, take the element-by-element path.
"""
from __future__ import annotations

from kernelpro.profilers.analysis.patterns import RowKernel, accesses_in, is_elementwise
from kernelpro.profilers.source import SourceFile, walk

from .prelude import with_prelude
from .text import Refuse, line_indent, reindent, span_text


def _groups(src: SourceFile, rk: RowKernel):
    """array expression text -> {spans, reads, writes, full} for the accesses at the index: spans
    are (start, end, format) byte ranges replaced by format with {e} the packed element (a load
    intrinsic `__ldg(&x[i])` is replaced whole; a store `__stcs(&y[i], v)` becomes `(e = (v))`)."""
    out: dict = {}
    top = set(rk.body)
    accs = accesses_in(rk)
    ptrs = [a.node.child_by_field_name("arguments").named_children[0] for a in accs if a.node.type == "call_expression"]
    for a in accs:
        if a.node.type == "subscript_expression":
            if any(p.start_byte <= a.node.start_byte < p.end_byte for p in ptrs):
                continue  # the pointer given to a load or store intrinsic: the call is the access
            key = src.node_text(a.node.child_by_field_name("argument"))
            spans = [(a.node.start_byte, a.node.end_byte, "{e}")]
            stmt = a.node.parent.parent if a.is_write else None
            plain = a.is_write and a.node.parent.type == "assignment_expression" and src.node_text(
                a.node.parent.child_by_field_name("operator")) == "="
        elif a.node.type == "call_expression":
            key, spans = _intrinsic(src, rk, a)
            stmt, plain = a.node.parent, a.is_write
        else:
            raise Refuse(f"line {a.line}: an access that is not a subscript ({src.node_text(a.node)[:40]})")
        g = out.setdefault(key, {"spans": [], "reads": False, "writes": False, "full": False})
        g["spans"] += spans
        if a.is_write:
            g["writes"] = True
            if not plain:
                g["reads"] = True
            elif stmt is not None and stmt.type == "expression_statement" and stmt in top:
                g["full"] = True
        else:
            g["reads"] = True
    return out


def _intrinsic(src: SourceFile, rk: RowKernel, a):
    """(array text, spans) of a load or store intrinsic at the element index."""
    args = a.node.child_by_field_name("arguments").named_children
    ptr = args[0]
    if ptr.type == "pointer_expression" and src.node_text(ptr).startswith("&") and \
            ptr.child_by_field_name("argument").type == "subscript_expression":
        key = src.node_text(ptr.child_by_field_name("argument").child_by_field_name("argument"))
    elif rk.kernel.param(a.array) is not None:
        key = a.array  # __ldg(x + i): the index is the element's, so the base is the parameter
    else:
        raise Refuse(f"line {a.line}: an intrinsic access it cannot rewrite ({src.node_text(a.node)[:40]})")
    if not a.is_write:
        return key, [(a.node.start_byte, a.node.end_byte, "{e}")]
    if len(args) != 2:
        raise Refuse(f"line {a.line}: a store intrinsic without one value ({src.node_text(a.node)[:40]})")
    return key, [(a.node.start_byte, args[1].start_byte, "({e} = ("), (args[1].end_byte, a.node.end_byte, "))")]


def vectorize(src: SourceFile, rk: RowKernel, vec: int, per: int = 1) -> str:
    """The source with the element-wise kernel doing `vec` consecutive elements per packed
    access and `per` such accesses per thread and step (loads issued together). Raises Refuse."""
    if not is_elementwise(rk):
        raise Refuse("not an element-wise kernel (every access at the element index, no loops)")
    if vec < 1 or per < 1:
        raise Refuse("vector width and accesses per thread must be at least 1")
    for s in rk.pre_guard + rk.body:
        for n in walk(s):
            if n.type in ("return_statement", "break_statement", "continue_statement", "goto_statement"):
                raise Refuse(f"line {n.start_point[0] + 1}: {n.type.split('_')[0]} in the element's code")
    if rk.form == "none":
        raise Refuse("no bound on the element index (no `if (i < n)` guard)")
    groups = _groups(src, rk)
    if not any(g["writes"] for g in groups.values()):
        raise Refuse("the kernel writes nothing at the element index")
    row, t = rk.row, " ".join(w for w in rk.row_type.split() if w not in ("const", "volatile")) or "int"
    if t == "auto":
        t = "long long"
    ind = line_indent(src, rk.row_decl)
    i1, i2, i3, i4 = ind + "  ", ind + "    ", ind + "      ", ind + "        "
    bound = src.node_text(rk.bound)
    per_elem_nodes = rk.pre_guard + rk.body
    first, last = per_elem_nodes[0], per_elem_nodes[-1]
    body_old_ind = line_indent(src, first)

    def elem_code(subs, indent):
        return reindent(span_text(src, first.start_byte, last.end_byte, subs), body_old_ind, indent)

    names = {k: f"kp_p{i}" for i, k in enumerate(groups)}
    elem = {k: f"typename kp_elem<decltype({k}[0])>::type" for k in groups}
    step = vec * per
    pos = f"kp_b + ((long long)threadIdx.x + kp_k * (long long)blockDim.x) * {vec}"
    out = [f"// kernelpro: {vec} consecutive element(s) per packed access, {per} access(es) per thread and step",
           f"{ind}const long long kp_n = (long long)({bound});"]
    al = " && ".join(f"((unsigned long long)(const void*){k} % ({vec} * sizeof({elem[k]}))) == 0" for k in groups)
    out.append(f"{ind}const bool kp_al = {al};")
    out.append(f"{ind}for (long long kp_b = (long long)blockIdx.x * blockDim.x * {step}; kp_b < kp_n;"
               f" kp_b += (long long)gridDim.x * blockDim.x * {step}) {{")
    out.append(f"{i1}if (kp_al && kp_b + (long long)blockDim.x * {step} <= kp_n) {{")
    for k, g in groups.items():
        out.append(f"{i2}kp_pack<{elem[k]}, {vec}> {names[k]}[{per}];")
    loads = [k for k, g in groups.items() if g["reads"] or not g["full"]]
    if loads:
        out.append(f"{i2}#pragma unroll")
        out.append(f"{i2}for (int kp_k = 0; kp_k < {per}; ++kp_k) {{")
        for k in loads:
            out.append(f"{i3}{names[k]}[kp_k] = *reinterpret_cast<const kp_pack<{elem[k]}, {vec}>*>(&{k}[{pos}]);")
        out.append(f"{i2}}}")
    subs = [(a, b, fmt.format(e=f"{names[k]}[kp_k].v[kp_v]")) for k, g in groups.items() for a, b, fmt in g["spans"]]
    code = elem_code(subs, i4)
    out.append(f"{i2}#pragma unroll")
    out.append(f"{i2}for (int kp_k = 0; kp_k < {per}; ++kp_k) {{")
    out.append(f"{i3}#pragma unroll")
    out.append(f"{i3}for (int kp_v = 0; kp_v < {vec}; ++kp_v) {{")
    if _mentions(code, row):
        out.append(f"{i4}const {t} {row} = ({t})({pos} + kp_v);")
    out.append(f"{i4}{code}")
    out.append(f"{i3}}}")
    stores = [k for k, g in groups.items() if g["writes"]]
    for k in stores:
        out.append(f"{i3}*reinterpret_cast<kp_pack<{elem[k]}, {vec}>*>(&{k}[{pos}]) = {names[k]}[kp_k];")
    out.append(f"{i2}}}")
    out.append(f"{i1}}} else {{")
    out.append(f"{i2}for (int kp_k = 0; kp_k < {per}; ++kp_k) {{")
    out.append(f"{i3}for (int kp_v = 0; kp_v < {vec}; ++kp_v) {{")
    out.append(f"{i4}const long long kp_i = {pos} + kp_v;")
    out.append(f"{i4}if (kp_i >= kp_n) break;")
    out.append(f"{i4}const {t} {row} = ({t})kp_i;")
    out.append(f"{i4}{elem_code([], i4)}")
    out.append(f"{i3}}}")
    out.append(f"{i2}}}")
    out.append(f"{i1}}}")
    out.append(f"{ind}}}")
    start = rk.row_decl.start_byte
    end = (rk.guard.end_byte if rk.form in ("if", "loop") else last.end_byte)
    return with_prelude(span_text(src, 0, len(src.data), [(start, end, "\n".join(out))]))


def _mentions(code: str, name: str) -> bool:
    import re
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", code) is not None


def describe(rk: RowKernel, vec: int, src: SourceFile, per: int = 1) -> str:
    arrays = ", ".join(sorted(_groups(src, rk)))
    ilp = f", {per} accesses per thread issued together" if per > 1 else ""
    if vec == 1:
        return f"grid-stride loop over the elements{ilp}"
    return f"packed {vec}-element loads and stores of {arrays} in a grid-stride loop{ilp}"
