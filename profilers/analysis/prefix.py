"""A device-wide prefix sum written one output per thread: thread i sums the input up to its element,
`for (j = 0; j <= i; ++j) s += in[j]; out[i] = s;` (inclusive; `j < i` exclusive), an O(n^2) scan.

`prefix_sum(src, k)` reads it whatever the spelling of the bound (`j <= i`, `j < i + 1`, `j < i`), the
update (`s += x`, `s = s + x`), the index (a thread index through locals, a guard `i < n` or an early
return) and yields what a device-wide scan needs: the input and output arrays, the count, inclusive or
exclusive, the element type. What it is not (another update, a second output, the input written, an
index that is not the thread's) is a `Refusal` with its reason; a kernel with no such loop is
a `Refusal` marked not this shape.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..source import Kernel, SourceFile, walk
from .affine import build_env, global_accesses
from .loops import text, unparen
from .refusal import Refusal
from .types import table_for

_THREAD = {("blockDim.x", "blockIdx.x"): 1, ("threadIdx.x",): 1}


@dataclass
class PrefixSum:
    kernel: str
    src: str  # the input array
    dst: str  # the output array
    count: str  # the number of outputs (C text over the parameters: the guard's bound)
    inclusive: bool
    elem: str  # the element type (of both arrays and the sum)
    line: int  # the loop's line


def prefix_sum(src: SourceFile, k: Kernel) -> PrefixSum | Refusal:
    if k.body is None:
        return Refusal(k.name, "no body", True)
    env = build_env(src, k)
    types = table_for(src)
    params = {p.name: p for p in k.params}
    for lp in walk(k.body):
        if lp.type != "for_statement":
            continue
        got = _loop(src, k, env, lp)
        if got is None:
            continue
        var, i_name, inclusive, acc, arr = got
        line = lp.start_point[0] + 1
        writes = [a for a in global_accesses(env, include_unknown=True) if a.is_write]
        if len(writes) != 1:
            return Refusal(k.name, f"line {line}: a prefix sum, but the kernel writes {len(writes)} places of global "
                                   "memory")
        w = writes[0]
        if w.index != _THREAD or w.node.start_byte < lp.end_byte:
            return Refusal(k.name, f"line {line}: a prefix sum, but it is not stored at the thread's element after the "
                                   "loop")
        store = w.node.parent
        while store is not None and store.type != "assignment_expression":
            store = store.parent
        right = unparen(store.child_by_field_name("right")) if store is not None else None
        if right is None or text(src, store.child_by_field_name("operator")) != "=" or text(src, right) != acc:
            return Refusal(k.name, f"line {line}: a prefix sum, but the output is not the sum itself")
        if w.array == arr:
            return Refusal(k.name, f"line {line}: a prefix sum written over its own input ({arr}): the threads race")
        if any(a.array == arr and a.is_write for a in global_accesses(env, include_unknown=True)):
            return Refusal(k.name, f"line {line}: a prefix sum whose input {arr} is written too")
        count = _count(src, k, env, i_name, lp)
        if count is None:
            return Refusal(k.name, f"line {line}: a prefix sum, but no guard `{i_name} < n` bounds the outputs")
        ea, eb = (types.resolve(params[x].base_type) if x in params else "" for x in (arr, w.array))
        acc_t = _declared(src, k, acc, types)
        if ea != eb or (acc_t and acc_t != ea):
            return Refusal(k.name, f"line {line}: a prefix sum, but the input ({ea}), output ({eb}) and sum ({acc_t}) "
                                   "differ in type")
        return PrefixSum(k.name, arr, w.array, count, inclusive, ea, line)
    return Refusal(k.name, "no loop summing the input up to the thread's element", True)


def _loop(src: SourceFile, k: Kernel, env, lp):
    """(counter, the thread index's name, inclusive, the sum's name, the input) of `for (j = 0; j <= i; ++j)
    s += in[j];`, or None."""
    init, cond, upd = (lp.child_by_field_name(f) for f in ("initializer", "condition", "update"))
    body = lp.child_by_field_name("body")
    if init is None or cond is None or upd is None or body is None:
        return None
    m = re.fullmatch(r"(?:\w+\s+)?(\w+)\s*=\s*0\s*;?", text(src, init).strip())
    if m is None:
        return None
    var = m.group(1)
    if re.sub(r"\s", "", text(src, upd)) not in (f"++{var}", f"{var}++", f"{var}+=1"):
        return None
    c = re.sub(r"\s", "", text(src, cond)).strip("()")
    m = re.fullmatch(rf"{var}(<=|<)(\w+)(\+1)?", c)
    if m is None or (m.group(1) == "<=" and m.group(3)):
        return None
    i_name, inclusive = m.group(2), m.group(1) == "<=" or bool(m.group(3))
    values = env.values_at(lp.start_byte)
    if values.get(i_name) != _THREAD:
        return None
    stmts = [s for s in (body.named_children if body.type == "compound_statement" else [body]) if s.type != "comment"]
    if len(stmts) != 1 or stmts[0].type != "expression_statement" or not stmts[0].named_children:
        return None
    e = stmts[0].named_children[0]
    if e.type != "assignment_expression":
        return None
    left, op, right = (e.child_by_field_name(f) for f in ("left", "operator", "right"))
    acc = text(src, left)
    value = unparen(right)
    if text(src, op) == "=":  # `s = s + in[j]`
        if value.type != "binary_expression" or text(src, value.child_by_field_name("operator")) != "+":
            return None
        a, b = value.child_by_field_name("left"), value.child_by_field_name("right")
        if text(src, a) == acc:
            value = unparen(b)
        elif text(src, b) == acc:
            value = unparen(a)
        else:
            return None
    elif text(src, op) != "+=":
        return None
    if left.type != "identifier" or value.type != "subscript_expression":
        return None
    arr = text(src, value.child_by_field_name("argument"))
    idx = value.child_by_field_name("index") or (value.named_children[1] if len(value.named_children) > 1 else None)
    if idx is not None and idx.type == "subscript_argument_list":
        idx = idx.named_children[0] if idx.named_children else None
    if idx is None or text(src, unparen(idx)) != var:
        return None
    start = _start(src, k, acc, lp)
    if start is None:
        return None
    return var, i_name, inclusive, acc, arr


def _start(src: SourceFile, k: Kernel, acc: str, lp):
    """The sum's declaration before the loop, with a zero start (its type text), or None."""
    for d in walk(k.body):
        if d.type != "declaration" or d.start_byte > lp.start_byte:
            continue
        for dec in d.children_by_field_name("declarator"):
            if dec.type == "init_declarator" and text(src, dec.child_by_field_name("declarator")) == acc:
                v = text(src, dec.child_by_field_name("value")).strip().rstrip("fFlLuU")
                return text(src, d.child_by_field_name("type")) if re.fullmatch(r"0*\.?0*", v) and v else None
    return None


def _declared(src: SourceFile, k: Kernel, name: str, types) -> str | None:
    for d in walk(k.body):
        if d.type == "declaration":
            for dec in d.children_by_field_name("declarator"):
                if dec.type == "init_declarator" and text(src, dec.child_by_field_name("declarator")) == name:
                    return types.resolve(" ".join(w for w in text(src, d.child_by_field_name("type")).split()
                                                  if w != "const"))
    return None


def _count(src: SourceFile, k: Kernel, env, i_name: str, lp) -> str | None:
    """n of the guard the loop runs under: `if (i < n)` around it or `if (i >= n) return;` before it."""
    params = {p.name for p in k.params}
    n = lp.parent
    while n is not None and n != k.body:
        if n.type == "if_statement":
            c = re.sub(r"\s", "", text(src, n.child_by_field_name("condition"))).strip("()")
            m = re.fullmatch(rf"{i_name}<(\w+)", c)
            if m and m.group(1) in params:
                return m.group(1)
        n = n.parent
    for st in k.body.named_children:
        if st.start_byte >= lp.start_byte:
            break
        if st.type == "if_statement" and "return" in text(src, st.child_by_field_name("consequence")):
            c = re.sub(r"\s", "", text(src, st.child_by_field_name("condition"))).strip("()")
            m = re.fullmatch(rf"{i_name}>=(\w+)", c)
            if m and m.group(1) in params:
                return m.group(1)
    return None

