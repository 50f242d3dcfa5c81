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
    serial = _serial(src, k, env, types)
    if serial is not None:
        return serial
    return Refusal(k.name, "no loop summing the input up to the thread's element", True)


_ONE_THREAD = re.compile(r"(threadIdx\.x|blockIdx\.x|\w+)==0(&&(threadIdx\.x|blockIdx\.x|\w+)==0)*")


def _serial(src: SourceFile, k: Kernel, env, types) -> PrefixSum | Refusal | None:
    """The whole scan by one thread (a CPU loop ported as is, `<<<1, 1>>>`): `for (i = 0; i < n; ++i) { acc +=
    in[i]; out[i] = acc; }` (the store first: exclusive), alone in the kernel or under `if (threadIdx.x == 0 &&
    blockIdx.x == 0)`; None where the kernel is not that."""
    stmts = [x for x in k.body.named_children if x.type != "comment"]
    while len(stmts) == 1 and stmts[0].type == "compound_statement":
        stmts = [x for x in stmts[0].named_children if x.type != "comment"]
    if len(stmts) > 1 and stmts[-1].type == "if_statement" and all(  # `int tid = ...;` before `if (tid == 0)`
            x.type == "declaration" and "threadIdx" in text(src, x) for x in stmts[:-1]):
        stmts = stmts[-1:]
    if len(stmts) == 1 and stmts[0].type == "if_statement" and stmts[0].child_by_field_name("alternative") is None:
        c = re.sub(r"\s", "", text(src, stmts[0].child_by_field_name("condition"))).strip("()")
        if not _ONE_THREAD.fullmatch(c):
            return None
        values = env.values_at(stmts[0].start_byte)
        for name in re.findall(r"(\w+(?:\.x)?)==0", c):  # each a thread's or block's position, nothing else
            v = values.get(name) if "." not in name else {(name,): 1}
            if not v or any(not a.startswith(("threadIdx", "blockIdx", "blockDim")) for m in v for a in m):
                return None
        body = stmts[0].child_by_field_name("consequence")
        stmts = [x for x in (body.named_children if body.type == "compound_statement" else [body])
                 if x.type != "comment"]
    if len(stmts) != 2 or stmts[0].type != "declaration" or stmts[1].type != "for_statement":
        return None
    lp = stmts[1]
    init, cond, upd, body = (lp.child_by_field_name(f) for f in ("initializer", "condition", "update", "body"))
    m = re.fullmatch(r"(?:\w+\s+)?(\w+)\s*=\s*0\s*;?", text(src, init).strip()) if init is not None else None
    if m is None or cond is None or upd is None or body is None:
        return None
    var = m.group(1)
    mc = re.fullmatch(rf"{var}<(\w+)", re.sub(r"\s", "", text(src, cond)).strip("()"))
    if mc is None or k.param(mc.group(1)) is None or \
            re.sub(r"\s", "", text(src, upd)) not in (f"++{var}", f"{var}++", f"{var}+=1"):
        return None
    inner = [x for x in (body.named_children if body.type == "compound_statement" else [body]) if x.type != "comment"]
    if len(inner) != 2 or any(x.type != "expression_statement" or not x.named_children for x in inner):
        return None
    es = [x.named_children[0] for x in inner]
    if any(e.type != "assignment_expression" for e in es):
        return None
    add_at = next((i for i, e in enumerate(es) if text(src, e.child_by_field_name("operator")) == "+="
                   and e.child_by_field_name("left").type == "identifier"), None)
    if add_at is None:
        return None
    add, store = es[add_at], es[1 - add_at]
    acc = text(src, add.child_by_field_name("left"))
    value, dst = unparen(add.child_by_field_name("right")), store.child_by_field_name("left")
    if value.type != "subscript_expression" or dst.type != "subscript_expression" \
            or text(src, store.child_by_field_name("operator")) != "=" \
            or text(src, unparen(store.child_by_field_name("right"))) != acc:
        return None
    arr, out = text(src, value.child_by_field_name("argument")), text(src, dst.child_by_field_name("argument"))
    idx = lambda n: re.sub(r"\s", "", text(src, n)).split("[", 1)[1].rstrip("]")  # noqa: E731
    if idx(value) != var or idx(dst) != var or k.param(arr) is None or k.param(out) is None or arr == out:
        return None
    if _start(src, k, acc, lp) is None:
        return None
    line = lp.start_point[0] + 1
    ea, eb = (types.resolve(k.param(x).base_type) for x in (arr, out))
    acc_t = _declared(src, k, acc, types)
    if ea != eb or (acc_t and acc_t != ea):
        return Refusal(k.name, f"line {line}: one thread's prefix sum, but the input ({ea}), output ({eb}) and sum "
                               f"({acc_t}) differ in type")
    return PrefixSum(k.name, arr, out, mc.group(1), add_at == 0, ea, line)


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

