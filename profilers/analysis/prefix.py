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



# ---------------------------------------------------------------- a thread per row scanning it


@dataclass
class RowScan:
    """A thread per row whose one loop walks the row keeping a running sum and storing it
    (`acc += x[r * C + c]; y[r * C + c] = acc;`): cumsum along the last dimension."""
    kernel: str
    rk: object  # the RowKernel (patterns.py)
    loop: object  # the loop's node
    var: str  # its counter
    var_type: str
    start: str  # C text
    end: str  # C text, exclusive
    acc: str  # the running sum
    acc_type: str  # its declared type
    update: object  # the update's statement
    added: object  # the expression added to the sum
    before: list  # the body's statements before the update (none reads the sum)
    readers: list  # [(statement, after the update)]: stores that read the sum
    line: int


def row_scan(src: SourceFile, k: Kernel) -> RowScan | Refusal:
    """The kernel as a RowScan; a Refusal (not this shape where there is no thread-per-row loop keeping a sum)."""
    from .loops import statements, uses, writes_in
    from .patterns import row_kernel

    rk = row_kernel(src, k) if k.body is not None else None
    if rk is None or len(rk.unspread) != 1 or rk.form == "loop":
        return Refusal(k.name, "no thread per row with one serial loop", True)
    lp = rk.unspread[0]
    info = rk.loops_all.at(lp)
    line = lp.start_point[0] + 1
    if info is None or info.var is None or len(info.carried) != 1:
        return Refusal(k.name, "no running sum", True)
    acc = next(iter(info.carried))
    body = info.body
    stmts = statements(body) if body is not None else []
    updates = [s for s in stmts if s.type == "expression_statement" and s.named_children
               and _sum_update(src, s.named_children[0], acc) is not None]
    if len(updates) != 1:
        return Refusal(k.name, "no running sum", True)
    if len(rk.reasons) != 1:  # the serial loop is the only thing that keeps the row from a team
        return Refusal(k.name, f"line {line}: a running sum along the row, but " + "; ".join(
            r for r in rk.reasons if not r.startswith(f"the loop on line {line} ")))
    if not info.canonical or info.step != 1 or info.start is None or info.bound is None or info.cmp not in ("<", "<="):
        return Refusal(k.name, f"line {line}: a running sum along the row, but not in a loop `for (c = S; c < E; c++)`")
    if info.escapes or info.memory_deps:
        return Refusal(k.name, f"line {line}: a running sum along the row, but the loop has "
                               + "; ".join(list(info.escapes) + list(info.memory_deps)))
    if any(c.type == "continue_statement" and _loop_of(c) == lp for c in walk(body)):
        return Refusal(k.name, f"line {line}: a running sum along the row, but the loop skips elements with continue "
                               "(every lane of a warp takes part in each step)")
    outside = _outside_writes(src, rk, lp)
    if outside:
        return Refusal(k.name, f"line {line}: a running sum along the row, but {outside} (the row's other code would "
                               "run on every lane of the warp)")
    upd = updates[0]
    u = _sum_update(src, upd.named_children[0], acc)
    at = stmts.index(upd)
    before, readers = [], []
    for i, s in enumerate(stmts):
        if s is upd:
            continue
        reads = uses(src, s, acc)
        writes = any(name == acc for name, _ in writes_in(src, s))
        if writes:
            return Refusal(k.name, f"line {s.start_point[0] + 1} changes `{acc}` besides the sum's update")
        if reads:
            if s.type != "expression_statement" or not _stores(src, s):
                return Refusal(k.name, f"line {s.start_point[0] + 1} reads the running sum `{acc}` other than in a "
                                       "store")
            readers.append((s, i > at))
        elif i > at:
            readers.append((s, True))
        else:
            if any(c.type in ("assignment_expression", "update_expression") and c.child_by_field_name("left") is not None
                   and c.child_by_field_name("left").type != "identifier" for c in walk(s)):
                return Refusal(k.name, f"line {s.start_point[0] + 1} writes memory before the sum's update")
            before.append(s)
    if not any(uses(src, s, acc) for s, _ in readers):
        return Refusal(k.name, "no running sum stored", True)
    stored = {_base_name(src, c.child_by_field_name("left")) for c in walk(body) if c.type == "assignment_expression"}
    read_early = {_base_name(src, c) for x in before + [u] for c in walk(x) if c.type == "subscript_expression"}
    if stored & read_early - {None}:
        return Refusal(k.name, f"line {line}: a running sum along the row whose added value reads "
                               f"{sorted(stored & read_early - {None})[0]}, which the loop stores to")
    types = table_for(src)
    decl = _declared(src, k, acc, types)
    if decl is None:
        return Refusal(k.name, f"line {line}: the running sum `{acc}` is not a local declared with its type")
    t = types.scalar(decl)
    if t is not None and not t.is_float and _floating(src, k, u, types):
        return Refusal(k.name, f"line {line}: the integer running sum `{acc}` adds a floating-point value (each step "
                               "truncates the running total, a scan would truncate each element)")
    end = text(src, info.bound)
    return RowScan(k.name, rk, lp, info.var, info.var_type or "int", text(src, info.start),
                   f"({end}) + 1" if info.cmp == "<=" else end, acc, decl, upd, u, before, readers, line)


def _loop_of(n):
    """The nearest loop around n."""
    p = n.parent
    while p is not None and p.type not in ("for_statement", "while_statement", "do_statement"):
        p = p.parent
    return p


def _base_name(src: SourceFile, n) -> str | None:
    """`y` of `y[i]` (`y[i][j]`, `(y)[i]`: contraction._base), None where that is not a name."""
    from .contraction import _base
    b = _base(n)
    return src.node_text(b) if b is not None and b.type == "identifier" else None


def _outside_writes(src: SourceFile, rk, lp) -> str | None:
    """What the row's code outside the scan loop does that every lane doing it would change: another loop, an
    update of memory (`totals[r] += run`), a store of a value read from memory; None where it only stores values
    every lane computes alike."""
    for s in rk.body:
        for c in walk(s):
            if lp.start_byte <= c.start_byte < lp.end_byte:
                continue
            if c.type in ("for_statement", "while_statement", "do_statement"):
                return f"line {c.start_point[0] + 1} runs another loop"
            if c.type == "update_expression" and c.child_by_field_name("argument").type != "identifier":
                return f"line {c.start_point[0] + 1} updates memory"
            if c.type == "assignment_expression" and c.child_by_field_name("left").type != "identifier":
                if src.node_text(c.child_by_field_name("operator")) != "=":
                    return f"line {c.start_point[0] + 1} updates memory"
                if any(x.type in ("subscript_expression", "pointer_expression", "call_expression")
                       for x in walk(c.child_by_field_name("right"))):
                    return f"line {c.start_point[0] + 1} stores a value read from memory"
    return None


def _floating(src: SourceFile, k: Kernel, e, types) -> bool:
    """e holds a floating-point literal, a read of a floating-point buffer or a cast to a floating type."""
    for c in walk(e):
        if c.type == "number_literal" and re.search(r"[.eEfF]", src.node_text(c)) and not src.node_text(c).startswith("0x"):
            return True
        if c.type == "subscript_expression":
            p = k.param(_base_name(src, c) or "")
            t = types.scalar(p.base_type) if p is not None else None
            if t is not None and t.is_float:
                return True
        if c.type in ("cast_expression", "call_expression") and re.search(
                r"\b(float|double|half|__half|bfloat16)\b", src.node_text(c.child_by_field_name("type") or
                                                                      c.child_by_field_name("function") or c)):
            return True
    return False


def _sum_update(src: SourceFile, e, acc: str):
    """The added expression of `acc += e` / `acc = acc + e` (contraction._update's reading), None otherwise or where
    the added value reads the sum itself (`acc += x * (acc > 1 ? .5f : 1)`: no sum)."""
    from .contraction import _update
    from .loops import uses

    u = _update(src, e) if e.type == "assignment_expression" else None
    if u is None or isinstance(u[1], list) or text(src, u[0]) != acc or uses(src, u[1], acc):
        return None
    return u[1]


def _stores(src: SourceFile, s) -> bool:
    """s is `buf[...] = value;` (a store to memory)."""
    e = s.named_children[0] if s.named_children else None
    return e is not None and e.type == "assignment_expression" and \
        e.child_by_field_name("left").type == "subscript_expression" and text(src, e.child_by_field_name("operator")) == "="
