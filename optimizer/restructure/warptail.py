"""The warp-synchronous end of a textbook block reduction read as the tree it computes.

Harris's reductions 5 to 7 (and many copies of them) finish the shared-memory tree without barriers once 32
threads are left: `if (tid < 32) warpReduce(sdata, tid);` with `sdata[tid] += sdata[tid + 32]; ... + 1;` on a
`volatile` pointer (in a helper, templated on the block size with `if (blockSize >= 64)` guards, or written out
in place). That relies on a warp running in lockstep, which the block recognisers (they run the block's threads
one after another between barriers) cannot read. `warp_tail_tree` rewrites the statement as the same steps with a
barrier after each, outside the `tid < 32` branch:

    for (int kp_s = 32; kp_s > 0; kp_s >>= 1) { if (tid < kp_s) sdata[tid] += sdata[tid + kp_s]; __syncthreads(); }

Element 0 gets exactly the same sums in the same order (each step's reads come before its writes in both), and
it is the only element read afterwards (checked), so the kernel computes what it did; the barriers are reached by
every thread, so the text stays valid CUDA. The block-tree plans then see a complete tree."""
from __future__ import annotations

import re

from kernelpro.profilers.analysis.affine import subscript_parts
from kernelpro.profilers.analysis.loops import _MAXF, _MINF, unparen as _unparen
from kernelpro.profilers.source import SourceFile, function_declarator, parse_source, walk

from .text import line_indent, span_text


def warp_tail_tree(src_text: str, path: str, kernel: str) -> str | None:
    """The text with the kernel's warp-synchronous tail as a tree with barriers; None where there is none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    consts = src.instantiated(k)
    for s in walk(k.body):
        if s.type != "if_statement" or s.parent is None or s.parent.type != "compound_statement" \
                or s.child_by_field_name("alternative") is not None:
            continue
        lane = _below_32(src, s.child_by_field_name("condition"), consts)
        if lane is None:
            continue
        steps = _steps(src, s.child_by_field_name("consequence"), consts)
        if steps is None:
            continue
        array, index, offsets, fn = steps
        if index != lane or offsets != [1 << i for i in range(len(offsets) - 1, -1, -1)] or offsets[0] > 32:
            continue
        if not _only_first_read_after(src, k, s, array):
            continue
        ind = line_indent(src, s)
        step = (f"{array}[{lane}] += {array}[{lane} + kp_s];" if fn is None else
                f"{array}[{lane}] = {fn}({array}[{lane}], {array}[{lane} + kp_s]);")
        new = (f"// kernelpro: the warp-synchronous steps (offsets {offsets[0]} to 1) as a tree with barriers "
               f"(element 0 gets the same {'sums' if fn is None else fn + ' values'})\n{ind}for (int kp_s = "
               f"{offsets[0]}; kp_s > 0; kp_s >>= 1) {{\n{ind}    if ({lane} < kp_s) {step}\n"
               f"{ind}    __syncthreads();\n{ind}}}")
        return span_text(src, 0, len(src.data), [(s.start_byte, s.end_byte, new)])
    return None


def _below_32(src: SourceFile, cond, consts: dict) -> str | None:
    """`X < 32` (32 possibly a constant or an instantiated template value): X's text."""
    c = _unparen(cond)
    if c is None or c.type != "binary_expression" or src.node_text(c.child_by_field_name("operator")) != "<":
        return None
    if src.eval_int(c.child_by_field_name("right"), dict(consts)) != 32:
        return None
    left = _unparen(c.child_by_field_name("left"))
    return src.node_text(left) if left is not None and left.type == "identifier" else None


def _steps(src: SourceFile, body, consts: dict) -> tuple[str, str, list[int], str | None] | None:
    """(array, index, offsets, the max or min function or None for a sum) of `a[i] += a[i + c];` steps (or
    `a[i] = fmaxf(a[i], a[i + c]);`, or a register's steps) in a block or in a __device__ void helper called with
    (array, index) arguments; None for anything else."""
    stmts = body.named_children if body is not None and body.type == "compound_statement" else [body]
    stmts = [x for x in stmts if x is not None and x.type != "comment"]
    alias = {}
    if len(stmts) > 1 and stmts[0].type == "declaration":  # `volatile float* v = sdata;`
        d = stmts[0].child_by_field_name("declarator")
        name = d.child_by_field_name("declarator") if d is not None and d.type == "init_declarator" else None
        while name is not None and name.type == "pointer_declarator":
            name = name.child_by_field_name("declarator")
        value = d.child_by_field_name("value") if d is not None and d.type == "init_declarator" else None
        if name is None or value is None or value.type != "identifier" or len(stmts[0].named_children) > 3:
            return None
        alias[src.node_text(name)] = src.node_text(value)
        stmts = stmts[1:]
    if len(stmts) == 1 and stmts[0].type == "expression_statement" and stmts[0].named_children \
            and stmts[0].named_children[0].type == "call_expression":
        return _helper_steps(src, stmts[0].named_children[0], consts)
    return _plain_steps(src, stmts, dict(consts), alias)


def _plain_steps(src: SourceFile, stmts, env: dict, alias: dict) -> tuple[str, str, list[int], str | None] | None:
    arrays, indices, offsets, fns = set(), set(), [], set()
    reg = None
    if stmts and stmts[0].type == "declaration":  # `float v = sdata[tid];`: a register standing for the element
        m = re.fullmatch(r"(?:const\s+)?\w+\s+(\w+)\s*=\s*(\w+)\s*\[\s*(\w+)\s*\]\s*;", src.node_text(stmts[0]).strip())
        if m is None:
            return None
        reg, stmts = (m.group(1), m.group(2), m.group(3)), stmts[1:]
    for st in stmts:
        if st.type == "if_statement" and st.child_by_field_name("alternative") is None:  # `if (blockSize >= 64) ...`
            on = _truth(src, _unparen(st.child_by_field_name("condition")), env)
            if on is None:
                return None
            if not on:
                continue
            st = st.child_by_field_name("consequence")
            if st is not None and st.type == "compound_statement" and len(st.named_children) == 1:
                st = st.named_children[0]
        got = _step(src, st, env, reg)
        if got is None:
            return None
        arrays.add(alias.get(got[0], got[0]))
        indices.add(got[1])
        offsets.append(got[2])
        fns.add(got[3])
    if len(arrays) != 1 or len(indices) != 1 or not offsets or len(fns) != 1:
        return None
    return arrays.pop(), indices.pop(), offsets, fns.pop()


_CMP = {"<": int.__lt__, "<=": int.__le__, ">": int.__gt__, ">=": int.__ge__, "==": int.__eq__, "!=": int.__ne__}


def _truth(src: SourceFile, c, env: dict) -> bool | None:
    """A condition of constants (`blockSize >= 64`, `&&`, `||`); None where it is not one."""
    if c is not None and c.type == "binary_expression":
        op = src.node_text(c.child_by_field_name("operator"))
        left, right = _unparen(c.child_by_field_name("left")), _unparen(c.child_by_field_name("right"))
        if op in ("&&", "||"):
            a, b = _truth(src, left, env), _truth(src, right, env)
            return None if a is None or b is None else (a and b) if op == "&&" else (a or b)
        if op in _CMP:
            a, b = src.eval_int(left, env), src.eval_int(right, env)
            return None if a is None or b is None else _CMP[op](a, b)
    v = src.eval_int(c, env)
    return None if v is None else v != 0


def _step(src: SourceFile, st, env: dict, reg: tuple | None = None) -> tuple[str, str, int, str | None] | None:
    """`a[i] += a[i + c];`, `a[i] = a[i] + a[i + c];` or `a[i] = fmaxf(a[i], a[i + c]);` (fminf, max, min): (a, i, c,
    the function, None for a sum). reg = (v, a, i): the steps of a register that stands for a[i] (`v = fmaxf(v,
    a[i + c]); __syncwarp(); a[i] = v;`), read as the same steps on a[i]."""
    if reg is not None and st is not None and st.type == "compound_statement":
        return _register_step(src, st, env, reg)
    if st is None or st.type != "expression_statement" or not st.named_children:
        return None
    e = st.named_children[0]
    if e.type != "assignment_expression":
        return None
    op = src.node_text(e.child_by_field_name("operator"))
    left, right = e.child_by_field_name("left"), _unparen(e.child_by_field_name("right"))
    if left is None or left.type != "subscript_expression" or right is None:
        return None
    a, i = _subscript(src, left)
    fn = None
    if op == "=" and right.type == "binary_expression" and src.node_text(right.child_by_field_name("operator")) == "+":
        first = _unparen(right.child_by_field_name("left"))
        if first is None or first.type != "subscript_expression" or _subscript(src, first) != (a, i):
            return None
        right = _unparen(right.child_by_field_name("right"))
    elif op == "=" and right.type == "call_expression" and src.node_text(right.child_by_field_name("function")) in _MAXF | _MINF:
        fn = src.node_text(right.child_by_field_name("function"))
        args = [_unparen(x) for x in right.child_by_field_name("arguments").named_children if x.type != "comment"]
        own = [x for x in args if x is not None and x.type == "subscript_expression" and _subscript(src, x) == (a, i)]
        if len(args) != 2 or len(own) != 1:
            return None
        right = args[1] if args[0] is own[0] else args[0]
    elif op != "+=":
        return None
    if right is None or right.type != "subscript_expression":
        return None
    b, _ = _subscript(src, right)
    idx = _index(src, right)
    if b != a or idx is None or idx.type != "binary_expression" \
            or src.node_text(idx.child_by_field_name("operator")) != "+" \
            or re.sub(r"\s+", " ", src.node_text(_unparen(idx.child_by_field_name("left")))) != i:
        return None
    c = src.eval_int(idx.child_by_field_name("right"), env)
    return (a, i, c, fn) if isinstance(c, int) and c > 0 else None


def _register_step(src: SourceFile, block, env: dict, reg: tuple) -> tuple[str, str, int, str | None] | None:
    """`{ v = fmaxf(v, a[i + c]); __syncwarp(); a[i] = v; __syncwarp(); }` (or `v += a[i + c];`), v standing for
    a[i]: the step `a[i] = fmaxf(a[i], a[i + c]);` it is (the barriers of a warp dropped: the rewrite puts a block's
    barrier after every step)."""
    v, a, i = reg
    stmts = [x for x in block.named_children if x.type != "comment" and not re.fullmatch(
        r"__syncwarp\(\s*\w*\s*\)\s*;", src.node_text(x).strip())]
    if len(stmts) != 2 or re.sub(r"\s+", "", src.node_text(stmts[1])) != f"{a}[{i}]={v};".replace(" ", ""):
        return None
    text = src.node_text(stmts[0])
    text = re.sub(rf"^\s*{re.escape(v)}\s*\+=", f"{a}[{i}] +=", text)
    text = re.sub(rf"^\s*{re.escape(v)}\s*=", f"{a}[{i}] =", text)
    text = re.sub(rf"\b{re.escape(v)}\b", f"{a}[{i}]", text)
    one = parse_source(f"void f() {{ {text} }}", "x.cu")
    body = one.root.named_children[0].child_by_field_name("body") if one.root.named_children else None
    st = body.named_children[0] if body is not None and body.named_children else None
    got = _step(one, st, env)
    return got if got is not None and (got[0], got[1]) == (a, i) else None


def _index(src: SourceFile, n):
    got = subscript_parts(src, n)
    return _unparen(got[1]) if got else None


def _subscript(src: SourceFile, n) -> tuple[str, str]:
    """(array, index text with its spaces normalised) of `a[i]`; ("", "") for other shapes."""
    got = subscript_parts(src, n)
    return (got[0], re.sub(r"\s+", " ", src.node_text(_unparen(got[1])))) if got else ("", "")


def _helper_steps(src: SourceFile, call, consts: dict) -> tuple[str, str, list[int], str | None] | None:
    """A __device__ void helper of this file called with (array, index): its steps in the caller's names, its
    template values (`warpReduce<blockSize>`) from the call's arguments as the kernel is instantiated."""
    fn = call.child_by_field_name("function")
    targs = []
    if fn is not None and fn.type == "template_function":
        name = src.node_text(fn.child_by_field_name("name"))
        al = fn.child_by_field_name("arguments")
        targs = [x for x in (al.named_children if al is not None else []) if x.type != "comment"]
    elif fn is not None and fn.type == "identifier":
        name = src.node_text(fn)
    else:
        return None
    args = [a for a in call.child_by_field_name("arguments").named_children if a.type != "comment"]
    for f in walk(src.root):
        if f.type != "function_definition" or "__device__" not in src.node_text(f).split("(")[0]:
            continue
        d = function_declarator(f)
        if d is None or src.node_text(d.child_by_field_name("declarator")) != name:
            continue
        params = [src._param(p) for p in d.child_by_field_name("parameters").named_children
                  if p.type == "parameter_declaration"]
        if len(params) != len(args) or any(p is None for p in params) or \
                any(a.type != "identifier" for a in args):
            return None
        env = {}
        tparams = src._template_params(f.parent if f.parent is not None and f.parent.type == "template_declaration"
                                       else None)
        for (kind, tname), ta in zip(tparams, targs):
            v = src.eval_int(_unparen(ta), dict(consts)) if kind == "value" else None
            if v is None:
                return None
            env[tname] = v
        if len(tparams) != len(targs) and tparams:
            return None
        body = f.child_by_field_name("body")
        got = _plain_steps(src, [x for x in body.named_children if x.type != "comment"], env, {})
        if got is None:
            return None
        rename = {p.name: src.node_text(a) for p, a in zip(params, args)}
        array, index, offsets, fn = got
        if array not in rename or index not in rename:
            return None
        return rename[array], rename[index], offsets, fn
    return None


def _only_first_read_after(src: SourceFile, k, s, array: str) -> bool:
    """After statement s, the array is only read at [0] and never written."""
    for n in walk(k.body):
        if n.start_byte < s.end_byte or n.type != "subscript_expression":
            continue
        a, i = _subscript(src, n)
        if a != array:
            continue
        if i != "0":
            return False
        up = n.parent
        if up is not None and up.type == "assignment_expression" and up.child_by_field_name("left") == n:
            return False
    return True
