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
    """array expression text -> (nodes, reads, writes, full write) for the accesses at the index."""
    out: dict = {}
    top = set(rk.body)
    for a in accesses_in(rk):
        if a.node.type != "subscript_expression":
            raise Refuse(f"line {a.line}: an access that is not a subscript ({src.node_text(a.node)[:40]})")
        arr = a.node.child_by_field_name("argument")
        key = src.node_text(arr)
        g = out.setdefault(key, {"nodes": [], "reads": False, "writes": False, "full": False})
        g["nodes"].append(a.node)
        if a.is_write:
            g["writes"] = True
            p = a.node.parent
            if p.type == "update_expression" or src.node_text(p.child_by_field_name("operator")) != "=":
                g["reads"] = True
            elif p.parent is not None and p.parent.type == "expression_statement" and p.parent in top:
                g["full"] = True
        else:
            g["reads"] = True
    return out


def vectorize(src: SourceFile, rk: RowKernel, vec: int) -> str:
    """The source with the element-wise kernel doing `vec` elements per step. Raises Refuse."""
    if not is_elementwise(rk):
        raise Refuse("not an element-wise kernel (every access at the element index, no loops)")
    if vec < 1:
        raise Refuse("vector width below 1")
    for s in rk.pre_guard + rk.body:
        for n in walk(s):
            if n.type in ("return_statement", "break_statement", "continue_statement", "goto_statement"):
                raise Refuse(f"line {n.start_point[0] + 1}: {n.type.split('_')[0]} in the element's code")
    groups = _groups(src, rk)
    if not any(g["writes"] for g in groups.values()):
        raise Refuse("the kernel writes nothing at the element index")
    row, t = rk.row, " ".join(w for w in rk.row_type.split() if w not in ("const", "volatile")) or "int"
    if t == "auto":
        t = "long long"
    ind = line_indent(src, rk.row_decl)
    i1, i2, i3 = ind + "  ", ind + "    ", ind + "      "
    bound = src.node_text(rk.bound)
    per_elem_nodes = rk.pre_guard + rk.body
    first, last = per_elem_nodes[0], per_elem_nodes[-1]
    body_old_ind = line_indent(src, first)

    def elem_code(subs, indent):
        return reindent(span_text(src, first.start_byte, last.end_byte, subs), body_old_ind, indent)

    names = {k: f"kp_p{i}" for i, k in enumerate(groups)}
    elem = {k: f"typename kp_elem<decltype({k}[0])>::type" for k in groups}
    out = [f"// kernelpro: {vec} element(s) per step of a grid-stride loop, packed accesses",
           f"{ind}const long long kp_n = (long long)({bound});"]
    if vec > 1:
        al = " && ".join(f"((unsigned long long)(const void*){k} % ({vec} * sizeof({elem[k]}))) == 0" for k in groups)
        out.append(f"{ind}const bool kp_al = {al};")
    out.append(f"{ind}for (long long kp_i0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * {vec}; kp_i0 < kp_n;"
               f" kp_i0 += (long long)blockDim.x * gridDim.x * {vec}) {{")
    if vec > 1:
        out.append(f"{i1}if (kp_al && kp_i0 + {vec} <= kp_n) {{")
        for k, g in groups.items():
            if g["reads"] or not g["full"]:
                out.append(f"{i2}kp_pack<{elem[k]}, {vec}> {names[k]} = "
                           f"*reinterpret_cast<const kp_pack<{elem[k]}, {vec}>*>(&{k}[kp_i0]);")
            else:
                out.append(f"{i2}kp_pack<{elem[k]}, {vec}> {names[k]};")
        subs = [(n.start_byte, n.end_byte, f"{names[k]}.v[kp_v]") for k, g in groups.items() for n in g["nodes"]]
        out.append(f"{i2}#pragma unroll")
        out.append(f"{i2}for (int kp_v = 0; kp_v < {vec}; ++kp_v) {{")
        code = elem_code(subs, i3)
        if _mentions(code, row):
            out.append(f"{i3}const {t} {row} = ({t})(kp_i0 + kp_v);")
        out.append(f"{i3}{code}")
        out.append(f"{i2}}}")
        for k, g in groups.items():
            if g["writes"]:
                out.append(f"{i2}*reinterpret_cast<kp_pack<{elem[k]}, {vec}>*>(&{k}[kp_i0]) = {names[k]};")
        out.append(f"{i1}}} else {{")
        out.append(f"{i2}for (long long kp_i = kp_i0; kp_i < kp_n && kp_i < kp_i0 + {vec}; ++kp_i) {{")
        out.append(f"{i3}const {t} {row} = ({t})kp_i;")
        out.append(f"{i3}{elem_code([], i3)}")
        out.append(f"{i2}}}")
        out.append(f"{i1}}}")
    else:
        out.append(f"{i1}const {t} {row} = ({t})kp_i0;")
        out.append(f"{i1}{elem_code([], i1)}")
    out.append(f"{ind}}}")
    start = rk.row_decl.start_byte
    end = (rk.guard.end_byte if rk.form in ("if", "loop") else last.end_byte)
    if rk.form == "none":
        raise Refuse("no bound on the element index (no `if (i < n)` guard)")
    return with_prelude(span_text(src, 0, len(src.data), [(start, end, "\n".join(out))]))


def _mentions(code: str, name: str) -> bool:
    import re
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", code) is not None


def describe(rk: RowKernel, vec: int, src: SourceFile) -> str:
    names = sorted(src.node_text(a.node.child_by_field_name("argument")) for a in accesses_in(rk))
    arrays = ", ".join(dict.fromkeys(names))
    if vec == 1:
        return "grid-stride loop over the elements"
    return f"packed {vec}-element loads and stores of {arrays} in a grid-stride loop"
