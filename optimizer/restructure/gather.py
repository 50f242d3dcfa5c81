"""Pack a thread-per-element kernel whose accesses go through a quotient and a remainder of the
element index (an embedding gather: `bt = i / C; c = i % C; out[i] = wte[tok[bt] * C + c] + ...`).

V consecutive elements whose pack does not cross a multiple of any divisor D of the index
(`i / D`, `i % D`) share every quotient, so an access whose index is `(i % D)` or `i` plus
terms of quotients only moves V consecutive elements: one packed access when its address is
aligned. Each thread takes one pack per step of a grid-stride loop; a pack that crosses a row,
is not aligned, or runs past the end takes the element-by-element path (the code as written).
Accesses of another shape (the token ids, read at a quotient) stay in the element's code.
"""
from __future__ import annotations

import re

from kernelpro.profilers.analysis.affine import global_accesses, poly_c
from kernelpro.profilers.analysis.patterns import RowKernel, is_elementwise
from kernelpro.profilers.source import SourceFile, walk

from .prelude import with_prelude
from .text import NotThisShape, Refuse, line_indent, reindent, span_text


def _stride(index: dict, row: str) -> tuple[int | None, set[str]]:
    """(elements the index moves per element of a pack, the divisors D of `row / D`, `row % D`);
    None when the index uses the row in another way."""
    word = re.compile(rf"(?<![\w.]){re.escape(row)}(?!\w)")
    quot = re.compile(rf"\({re.escape(row)} / (\([^()]*\)|[A-Za-z_]\w*|\d+)\)")  # D: a name, a number, (T*C)
    rem = re.compile(rf"^\({re.escape(row)} % (\([^()]*\)|[A-Za-z_]\w*|\d+)\)$")
    stride, divisors = 0, set()
    for m, c in index.items():
        uses = [a for a in m if word.search(a)]
        if not uses:
            continue
        if m == (row,):
            stride += c
            continue
        r = rem.match(m[0]) if len(m) == 1 else None
        if r is not None:
            divisors.add(r.group(1))
            stride += c
            continue
        for a in uses:  # only through quotients: the same for the whole pack
            divisors |= set(quot.findall(a))
            if word.search(quot.sub("", a)):
                return None, set()
    return stride, divisors


def _conditional(n, top: set) -> bool:
    """Whether n runs only under a condition inside its statement of the element's code."""
    while n is not None and n not in top:
        p = n.parent
        if p is None:
            return False
        if p.type in ("if_statement", "conditional_expression", "for_statement", "while_statement",
                      "do_statement", "switch_statement"):
            return True
        if p.type == "binary_expression" and n == p.child_by_field_name("right") and \
                p.child_by_field_name("operator").type in ("&&", "||"):
            return True
        n = p
    return False


def plan_accesses(src: SourceFile, rk: RowKernel):
    """(packed accesses, divisors) or Refuse: every write packed and whole, at least one divisor."""
    if not rk.ok or rk.loops or rk.bound is None or rk.form == "none":
        raise NotThisShape("not a thread-per-element kernel with a bound")
    if is_elementwise(rk):
        raise NotThisShape("every access is at the element index (the packed element-wise plan)")
    nodes = rk.pre_guard + rk.body
    top = set(nodes)
    for s in nodes:
        for n in walk(s):
            if (n.type == "cast_expression" and "*" in src.node_text(n.child_by_field_name("type"))) or \
                    (n.type == "call_expression" and "_cast" in (f := src.node_text(n.child_by_field_name("function")))
                     and "*" in f):
                raise Refuse(f"line {n.start_point[0] + 1}: a pointer cast (an index counted in other units)")
    packed, divisors, by_array = [], set(), {}
    for a in global_accesses(rk.env, include_unknown=True):
        if not any(s.start_byte <= a.node.start_byte < s.end_byte for s in nodes):
            continue
        if a.index is None:
            raise Refuse(f"line {a.line}: an access whose index this does not follow")
        stride, ds = _stride(a.index, rk.row)
        if stride is None:
            raise Refuse(f"line {a.line}: the index of {a.array} uses the element index other than through its "
                         f"quotients and remainders (a data-dependent or nonlinear index)")
        if stride not in (0, 1):
            raise Refuse(f"line {a.line}: the index of {a.array} moves {stride} elements per element")
        divisors |= ds
        by_array.setdefault(a.array, []).append(a)
        if stride == 1 and (a.is_write or not _conditional(a.node, top)):
            packed.append(a)  # a read under a condition stays in the element's code: it may not run
        elif a.is_write:
            raise Refuse(f"line {a.line}: a write that is not at consecutive elements")
    for arr, accs in by_array.items():  # the packs are read before the element's code, written after it
        writes = [a for a in accs if a.is_write]
        st = writes[0].node.parent if writes else None
        rhs = st.child_by_field_name("right") if st is not None and st.type == "assignment_expression" else None

        def after(a):  # read after the write (the write's own right side is read before it)
            return a.node.start_byte > writes[0].node.start_byte and not (
                rhs is not None and rhs.start_byte <= a.node.start_byte < rhs.end_byte)
        if writes and (len(writes) > 1 or any(after(a) or a.index != writes[0].index
                                               or a not in packed for a in accs if not a.is_write)):
            raise Refuse(f"line {writes[0].line}: {arr} is written and read at other places or after the write")
    if not divisors:
        raise NotThisShape("no quotient or remainder of the element index")
    writes = [a for a in packed if a.is_write]
    if not writes:
        raise Refuse("the kernel writes nothing at consecutive elements")
    for a in writes:
        p = a.node.parent
        if src.node_text(p.child_by_field_name("operator")) != "=" or p.parent is None \
                or p.parent.type != "expression_statement" or p.parent not in top:
            raise Refuse(f"line {a.line}: the write is not a whole statement `x = ...` of the element's code")
    for s in rk.pre_guard + rk.body:
        for n in walk(s):
            if n.type in ("return_statement", "break_statement", "continue_statement", "goto_statement"):
                raise Refuse(f"line {n.start_point[0] + 1}: {n.type.split('_')[0]} in the element's code")
    return packed, sorted(divisors)


def vectorize_gather(src: SourceFile, rk: RowKernel, vec: int) -> str:
    """The source with each thread moving `vec` consecutive elements per packed access. Raises Refuse."""
    packed, divisors = plan_accesses(src, rk)
    row = rk.row
    t = " ".join(w for w in rk.row_type.split() if w not in ("const", "volatile")) or "int"
    if t == "auto":
        t = "long long"
    word = re.compile(rf"(?<![\w.]){re.escape(row)}(?!\w)")
    ind = line_indent(src, rk.row_decl)
    i1, i2, i3 = ind + "  ", ind + "    ", ind + "      "
    nodes = rk.pre_guard + rk.body
    last = nodes[-1]

    def element(subs: list, indent: str) -> str:
        """The element's statements (before the guard, then the guarded ones), the guard left out."""
        return ("\n" + indent).join(
            reindent(span_text(src, n.start_byte, n.end_byte, [x for x in subs if n.start_byte <= x[0] < n.end_byte]),
                     line_indent(src, n), indent) for n in nodes)
    names = {id(a): f"kp_g{i}" for i, a in enumerate(packed)}
    elem = {id(a): f"typename kp_elem<decltype({a.array}[0])>::type" for a in packed}
    # each packed access's address at the pack's first element, its quotients in the index's own type (as the
    # kernel computes them: a 64-bit division is a subroutine of ~70 instructions, a 32-bit one ~20)
    first = f"(({t})kp_i0)"
    addr = {id(a): f"&{a.array}[{word.sub(first, poly_c(a.index))}]" for a in packed}
    bound = src.node_text(rk.bound)
    value = rk.env.values_at(rk.guard.start_byte).get(bound) if rk.bound.type == "identifier" else None
    if value is not None and any(src.node_text(d.child_by_field_name("declarator") or d) == bound
                                 for s in rk.pre_guard if s.type == "declaration"
                                 for d in s.children_by_field_name("declarator")):
        bound = poly_c(value)  # a local bound (`int N = B * T * C;`): its value, declared below
    out = [f"// kernelpro: {vec} consecutive elements per packed access (quotients of the element index are the "
           f"same across a pack that stays within a row)",
           f"{ind}const long long kp_n = (long long)({bound});",
           f"{ind}for (long long kp_i0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * {vec}; kp_i0 < kp_n;"
           f" kp_i0 += (long long)gridDim.x * blockDim.x * {vec}) {{"]
    conds = [f"kp_i0 + {vec} <= kp_n"] + [f"(long long)({first} % ({d})) + {vec} <= (long long)({d})" for d in divisors]
    for a in packed:
        out.append(f"{i1}{elem[id(a)]}* const {names[id(a)]}_a = ({elem[id(a)]}*)({addr[id(a)]});"
                   if a.is_write else
                   f"{i1}const {elem[id(a)]}* const {names[id(a)]}_a = {addr[id(a)]};")
        conds.append(f"(unsigned long long)(const void*){names[id(a)]}_a % ({vec} * sizeof({elem[id(a)]})) == 0")
    out.append(f"{i1}if ({' && '.join(conds)}) {{")
    for a in packed:
        if a.is_write:
            out.append(f"{i2}kp_pack<{elem[id(a)]}, {vec}> {names[id(a)]};")
        else:
            out.append(f"{i2}const kp_pack<{elem[id(a)]}, {vec}> {names[id(a)]} = "
                       f"*reinterpret_cast<const kp_pack<{elem[id(a)]}, {vec}>*>({names[id(a)]}_a);")
    subs = [(a.node.start_byte, a.node.end_byte, f"{names[id(a)]}.v[kp_v]") for a in packed]
    code = element(subs, i3)
    out += [f"{i2}#pragma unroll", f"{i2}for (int kp_v = 0; kp_v < {vec}; ++kp_v) {{",
            f"{i3}const {t} {row} = ({t})(kp_i0 + kp_v);", f"{i3}{code}", f"{i2}}}"]
    for a in packed:
        if a.is_write:
            out.append(f"{i2}*reinterpret_cast<kp_pack<{elem[id(a)]}, {vec}>*>({names[id(a)]}_a) = {names[id(a)]};")
    plain = element([], i3)
    out += [f"{i1}}} else {{", f"{i2}for (int kp_v = 0; kp_v < {vec} && kp_i0 + kp_v < kp_n; ++kp_v) {{",
            f"{i3}const {t} {row} = ({t})(kp_i0 + kp_v);", f"{i3}{plain}", f"{i2}}}", f"{i1}}}", f"{ind}}}"]
    start = rk.row_decl.start_byte
    end = rk.guard.end_byte if rk.form in ("if", "loop") else last.end_byte
    return with_prelude(span_text(src, 0, len(src.data), [(start, end, "\n".join(out))]))


def describe(packed, vec: int) -> str:
    arrays = ", ".join(sorted({a.array for a in packed}))
    return (f"{vec} consecutive elements per thread with packed accesses of {arrays} (the quotients of the "
            f"element index shared across each pack)")
