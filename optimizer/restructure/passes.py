"""Source-to-source passes over a thread-per-row kernel that remove passes over memory.

- forward: a value stored to A[i] in one loop and read back from A[i] by a later loop over the
  same range is recomputed there from the expression that produced it (its inputs unchanged
  in between, and A no alias of them), and read back within an iteration from a local;
- dead stores: a store that a later loop over the same range overwrites before anything
  reads it is removed;
- online: a loop that only takes the max of a value followed by a loop that only sums
  exp(value - max) become one loop with a running max and a rescaled sum (online softmax).

Each pass returns new source text or None; the caller re-parses and re-analyses, so every
later step (and the fused loop's recognition as an online pair) is checked afresh.
"""
from __future__ import annotations

import re

from kernelpro.profilers.analysis.affine import (const, global_accesses, index_poly, subscript_index, subscript_parts,
                                                 unevaluated)
from kernelpro.profilers.analysis.contraction import _zero
from kernelpro.profilers.analysis.spelling import called, local_types
from kernelpro.profilers.analysis.macros import expand_macros  # noqa: F401 (a pass the plans run)
from kernelpro.profilers.analysis.pointer_steps import (_idents, _whole_lines, _writes_scalars,  # noqa: F401
                                                        comma_steps_into_body, index_pointer_steps)
from kernelpro.profilers.analysis.loops import (LoopInfo, ONLINE, MAX, MIN, SUM, analyze_kernel, declared_names, inside,
                                                loop_start, may_alias, operands, statements, text, unparen, uses,
                                                writes_in)
from kernelpro.profilers.analysis.patterns import RowKernel, row_kernel
from kernelpro.profilers.analysis.scalars import (countdown_loops, declare_at_first_assignment,  # noqa: F401
                                                   fold_reassignments, while_to_for)
from kernelpro.profilers.analysis.prefix import _declared as prefix_declared
from kernelpro.profilers.analysis.types import table_for
from kernelpro.profilers.source import SourceFile, function_declarator, parse_source, walk

from .text import ident_subs, line_indent, node_with, reindent, span_text


def _kernel_rk(src_text: str, path: str, kernel: str) -> tuple[SourceFile, RowKernel] | None:
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None:
        return None
    rk = row_kernel(src, k)
    return (src, rk) if rk is not None and rk.ok else None


def _top(lp: LoopInfo) -> list:
    return [s for s in statements(lp.body) if s is not lp.increment]


def _store(src: SourceFile, s):
    """(subscript node, value node, operator) of a statement `A[i] op= e;`."""
    if s.type != "expression_statement" or not s.named_children:
        return None
    e = s.named_children[0]
    if e.type != "assignment_expression":
        return None
    left = e.child_by_field_name("left")
    if left is None or left.type != "subscript_expression":
        return None
    return left, e.child_by_field_name("right"), text(src, e.child_by_field_name("operator"))


def _access(lp: LoopInfo, node):
    return next((a for a in lp.accesses if a.node == node), None)


def _same_range(src: SourceFile, a: LoopInfo, b: LoopInfo) -> bool:
    sa, sb = loop_start(src, a), loop_start(src, b)
    return (a.step == b.step == 1 and a.cmp == b.cmp and text(src, a.bound) == text(src, b.bound)
            and sa is not None and sb is not None and text(src, sa) == text(src, sb))


def _siblings(a: LoopInfo, b: LoopInfo) -> bool:
    return a.node.parent is not None and a.node.parent == b.node.parent and a.node.end_byte <= b.node.start_byte


def _between(a: LoopInfo, b: LoopInfo) -> list:
    out, n = [], a.node.next_named_sibling
    while n is not None and n != b.node:
        out.append(n)
        n = n.next_named_sibling
    return out


def _arrays_read(rk: RowKernel, lp: LoopInfo, node) -> list:
    return [a for a in lp.accesses if inside(a.node, node) and not a.is_write]


# ---------------------------------------------------------------- forwarding


def forward_stores(src_text: str, path: str, kernel: str) -> str | None:
    """One forwarding step (within an iteration first, then across loops); None if nothing to do."""
    got = _kernel_rk(src_text, path, kernel)
    if got is None:
        return None
    src, rk = got
    spread = [rl.info for rl in rk.spread]
    for lp in spread:  # within an iteration: `A[i] = e; ... A[i]` -> a local
        top = _top(lp)
        for k, s in enumerate(top):
            st = _store(src, s)
            if st is None or st[2] != "=":
                continue
            sub, val, _ = st
            acc = _access(lp, sub)
            if acc is None or acc.index is None:
                continue
            later = top[k + 1:]
            reads = [n for t in later for n in walk(t) if n.type == "subscript_expression"
                     and text(src, n) == text(src, sub) and not _is_target(n) and not unevaluated(n)]
            if not reads:
                continue
            # nothing in between may write A, what e reads, or the index's scalars
            first = min(r.start_byte for r in reads)
            between = [t for t in later if t.start_byte < first]
            if any(_store(src, t) is not None for t in between) or \
                    _writes_scalars(src, between) & (_idents(src, val) | _idents(src, sub)):
                continue
            name = f"kp_f{lp.node.start_point[0] + 1}_{k}"
            et = f"typename kp_elem<decltype({text(src, sub)})>::type"
            ind = line_indent(src, s)
            subs = [(s.start_byte, s.end_byte,
                     f"const {et} {name} = {text(src, val)};\n{ind}{text(src, sub)} = {name};")]
            subs += [(r.start_byte, r.end_byte, name) for r in reads]
            return _with_prelude(span_text(src, 0, len(src.data), subs))
    for i, la in enumerate(spread):  # across loops over the same range
        for lb in spread[i + 1:]:
            if not (_siblings(la, lb) and _same_range(src, la, lb)):
                continue
            new = _forward_across(src, rk, la, lb)
            if new is not None:
                return new
    return None


def _is_target(n) -> bool:
    p = n.parent
    return p is not None and p.type == "assignment_expression" and p.child_by_field_name("left") == n \
        and p.child_by_field_name("operator") is not None and p.child_by_field_name("operator").type == "="


def _plain_stores(src: SourceFile, lp: LoopInfo):
    """(statement, subscript, value, access) of each top-level `A[i] = e;` with a known index."""
    for s in _top(lp):
        st = _store(src, s)
        if st is None or st[2] != "=":
            continue
        acc = _access(lp, st[0])
        if acc is not None and acc.index is not None:
            yield s, st[0], st[1], acc


def _forward_across(src: SourceFile, rk: RowKernel, la: LoopInfo, lb: LoopInfo) -> str | None:
    if any(n.type in ("continue_statement", "break_statement", "return_statement", "goto_statement") for n in walk(la.body)):
        return None  # an iteration may skip the store
    for s, sub, val, acc in _plain_stores(src, la):
        val = _definition(src, la, val)
        # the stored value must be recomputable after la: it reads no buffer A may be, and no
        # scalar that changes in la (other than la's variable) or between the loops
        if any(may_alias(rk.env, a.array, acc.array) for a in _arrays_read(rk, la, val)):
            continue
        private = la.privates
        if _idents(src, val) & (private | {r.var for r in la.reductions}):
            continue
        between = _between(la, lb)
        # a counter reset between two while loops (`i = 0;`) is lb's own variable, not la's value
        if (_writes_scalars(src, between) - {la.var}) & _idents(src, val) or any(
                _store(src, t) is not None or any(n.type == "subscript_expression" and _is_target(n) for n in walk(t))
                for t in between):
            continue
        # in lb: the first access of A[i] (same index) is a read, at top level, before any write to A
        for t in _top(lb):
            hits = [n for n in walk(t) if n.type == "subscript_expression" and not unevaluated(n)
                    and (_renamed(src, n, lb.var, la.var) == text(src, sub) or _same_element(lb, n, la, acc))]
            if not hits:
                if any(a.array == acc.array or may_alias(rk.env, a.array, acc.array)
                       for a in lb.accesses if a.is_write and inside(a.node, t)):
                    break
                continue
            n = hits[0]
            renamed = node_with(src, val, ident_subs(src, val, la.var, lb.var))
            # the stored element's type, named by the store (a pointer read through may be declared later)
            typed = n if _idents(src, sub) & private else sub
            cast = f"((typename kp_elem<decltype({_renamed(src, typed, la.var, lb.var) if typed == sub else text(src, n)})>::type)({renamed}))"
            p = n.parent
            if p.type == "assignment_expression" and p.child_by_field_name("left") == n:
                op = text(src, p.child_by_field_name("operator"))
                rhs = p.child_by_field_name("right")
                if op == "=":
                    # `A[i] = f(A[i])`: the right side reads the stored value; else a dead store
                    reads = [h for h in hits if inside(h, rhs)]
                    if not reads:
                        break
                    return _with_prelude(span_text(src, 0, len(src.data), [(r.start_byte, r.end_byte, cast)
                                                                           for r in reads]))
                new = f"{text(src, n)} = {cast} {op[:-1]} ({text(src, rhs)})"
                subs = [(p.start_byte, p.end_byte, new)]
            elif p.type == "update_expression":
                break
            else:
                subs = [(n.start_byte, n.end_byte, cast)]
            return _with_prelude(span_text(src, 0, len(src.data), subs))
    return None


def _same_element(lb: LoopInfo, n, la: LoopInfo, acc) -> bool:
    """n, in lb, reads the element acc (in la) is, by the followed index (through another pointer
    into the same buffer: `x = out + row * C; ... x[i]` is `out[row * C + i]`); loops with one counter name."""
    if la.var != lb.var or acc.index is None:
        return False
    a = _access(lb, n)
    return a is not None and a.array == acc.array and a.index is not None and a.index == acc.index


def _definition(src: SourceFile, lp: LoopInfo, val):
    """A private `name` stored as it is: the expression it was initialised with (once, at the
    loop body's top level, never written again), so it can be recomputed elsewhere."""
    if val is None or val.type != "identifier" or src.node_text(val) not in lp.privates:
        return val
    name = src.node_text(val)
    if name in _writes_scalars(src, _top(lp)):
        return val
    for t in _top(lp):
        if t.type == "declaration":
            for d in t.children_by_field_name("declarator"):
                if d.type == "init_declarator" and text(src, d.child_by_field_name("declarator")) == name:
                    return d.child_by_field_name("value")
    return val


def _renamed(src: SourceFile, n, var: str, to: str) -> str:
    return " ".join(node_with(src, n, ident_subs(src, n, var, to)).split())


# ---------------------------------------------------------------- dead stores


def drop_dead_stores(src_text: str, path: str, kernel: str) -> str | None:
    got = _kernel_rk(src_text, path, kernel)
    if got is None:
        return None
    src, rk = got
    spread = [rl.info for rl in rk.spread]
    for i, la in enumerate(spread):
        for s, sub, _, acc in _plain_stores(src, la):
            # nothing after the store in la reads A (or an alias of it)
            rest = [t for t in _top(la) if t.start_byte > s.end_byte]
            if any(not a.is_write and may_alias(rk.env, a.array, acc.array) and any(inside(a.node, t) for t in rest)
                   for a in la.accesses):
                continue
            for lb in spread[i + 1:]:
                if not (_siblings(la, lb) and _same_range(src, la, lb)):
                    break
                if not all(_leaves_alone(src, rk, spread, t, acc.array) for t in _between(la, lb)):
                    break
                first = _first_touch(src, rk, lb, acc, la.var)
                if first == "write":  # the loop too when the store was all it did
                    alone = all(x == s for x in _top(la)) and not la.reductions
                    return _with_prelude(span_text(src, 0, len(src.data), [_whole_lines(src, la.node if alone else s)]))
                if first is not None:
                    break
    return None


def _leaves_alone(src: SourceFile, rk: RowKernel, spread: list, t, array: str) -> bool:
    """Statement t touches no memory, or is a row loop that only reads arrays that cannot be `array`
    (a sum over the input between a store and the loop that overwrites it)."""
    pointers = set(rk.env.pointers) | {p.name for p in rk.kernel.params if p.is_pointer}
    def handed(call) -> bool:  # a pointer given to the call itself (not an element read for it)
        args = call.child_by_field_name("arguments")
        return args is not None and ("&" in text(src, args) or any(
            n.type == "identifier" and text(src, n) in pointers and not (
                n.parent is not None and n.parent.type == "subscript_expression" and n.parent.child_by_field_name("argument") == n)
            for n in walk(args)))
    if any(n.type == "pointer_expression" and text(src, n).startswith("*") for n in walk(t)) or any(
            n.type == "call_expression" and handed(n) for n in walk(t)):
        return False  # a read through a pointer, or a call given one: not provably apart
    if not any(n.type == "subscript_expression" and not unevaluated(n) for n in walk(t)):
        return True
    lc = next((lp for lp in spread if lp.node == t), None)
    subs = [n for n in walk(t) if n.type == "subscript_expression" and not unevaluated(n)]
    return lc is not None and len(lc.accesses) == len(subs) and not any(
        a.is_write or may_alias(rk.env, a.array, array) for a in lc.accesses)


def _first_touch(src: SourceFile, rk: RowKernel, lb: LoopInfo, acc, var_a: str) -> str | None:
    """'write' when lb's first touch of A (or an alias) is an unconditional `A[i] = e` at the
    same index; 'read' or 'other' otherwise; None when lb does not touch it."""
    for t in _top(lb):
        touches = [a for a in lb.accesses if inside(a.node, t) and may_alias(rk.env, a.array, acc.array)]
        if not touches:
            continue
        st = _store(src, t)
        if st is not None and st[2] == "=":
            a = _access(lb, st[0])
            others = [x for x in touches if x is not a]
            if a is not None and a.array == acc.array and _same_index(a.index, acc.index, lb.var, var_a) \
                    and not others:
                return "write"
        return "read"
    return None


def _same_index(p, q, var_p, var_q) -> bool:
    return p is not None and q is not None and _norm(p, var_p) == _norm(q, var_q)


def _norm(p, var):
    return {tuple("\0" if a == var else a for a in m): c for m, c in p.items()}


# ---------------------------------------------------------------- copies


def propagate_copies(src_text: str, path: str, kernel: str) -> str | None:
    """`T a = b;` (or `= (b)`) with b a variable of the same declared type, a never written and b
    not written after it: a's mentions become b and the declaration goes (a block per row lifted
    reads a tree's result as `float offset = (maxval);`, which would stand between the max loop and
    the sum loop the online fusion joins). One at a time; None if there is none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    types = {}
    for d in walk(k.node):
        if d.type in ("declaration", "parameter_declaration"):
            for dd in d.children_by_field_name("declarator"):
                name = dd.child_by_field_name("declarator") if dd.type == "init_declarator" else dd
                if name is not None and name.type == "identifier":
                    types.setdefault(text(src, name), " ".join(text(src, d.child_by_field_name("type")).split()))
    written = [(n, v) for v, n in writes_in(src, k.body)] + [  # and whose address is taken
        (n, text(src, unparen(n.child_by_field_name("argument")))) for n in walk(k.body)
        if n.type == "pointer_expression" and text(src, n).startswith("&")]
    for d in walk(k.body):
        ds = d.children_by_field_name("declarator") if d.type == "declaration" else []
        if len(ds) != 1 or ds[0].type != "init_declarator" or d.parent is None or d.parent.type != "compound_statement":
            continue
        a, val = text(src, ds[0].child_by_field_name("declarator")), unparen(ds[0].child_by_field_name("value"))
        if val is None or val.type != "identifier" or not re.fullmatch(r"[A-Za-z_]\w*", a):
            continue
        b = text(src, val)
        if types.get(a) is None or types.get(a) != types.get(b) or "static" in text(src, d).split():
            continue
        if any(w == a for _, w in written) or any(w == b and n.start_byte > d.end_byte for n, w in written):
            continue
        if any(x.type == "declaration" and x.start_byte > d.end_byte and {a, b} & declared_names(src, x)
               for x in walk(k.body)):
            continue  # a later declaration of either name: a's mentions may mean another variable
        uses_a = [n for n in walk(d.parent) if n.type == "identifier" and text(src, n) == a and n.start_byte > d.end_byte]
        return span_text(src, 0, len(src.data), [_whole_lines(src, d)] + [(n.start_byte, n.end_byte, b) for n in uses_a])
    return None


# ---------------------------------------------------------------- accumulators in memory


def promote_elements(src_text: str, path: str, kernel: str) -> str | None:
    """An element of an array that the row's code keeps updating in memory (`mean[row] = 0;
    for (...) mean[row] += x[i];`, `dbias[c] += ...` in a loop) held in a local from its first
    access and stored once after the row's code: the loop then accumulates a scalar (a reduction
    the restructurings spread). Only where every access of that array in the row's code is that
    one element, at an index fixed for the row that names the row, and no other array accessed
    there may be the same buffer (distinct `__restrict__` pointers)."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    rk = row_kernel(src, k) if k is not None else None
    if rk is None or not rk.body or rk.form == "none":
        return None
    body = rk.body
    if any(n.type in ("return_statement", "goto_statement") for t in body for n in walk(t)):
        return None
    inside_body = [a for a in global_accesses(rk.env, include_unknown=True)
                   if any(t.start_byte <= a.node.start_byte < t.end_byte for t in body)]
    written = _writes_scalars(src, body)
    top_declared = _declared_names(src, rk.prologue + rk.pre_guard) | {rk.row} | {p.name for p in k.params}
    loops = [n for t in body for n in walk(t) if n.type in ("for_statement", "while_statement", "do_statement")]
    for arr in dict.fromkeys(a.array for a in inside_body if a.is_write):
        mine = [a for a in inside_body if a.array == arr]
        if any(a.node.type != "subscript_expression" or a.index is None for a in mine):
            continue
        keys = {" ".join(text(src, a.node).split()) for a in mine}
        if len(keys) != 1 or not any(inside(a.node, lp) for a in mine if a.is_write for lp in loops):
            continue
        idx = mine[0].node.child_by_field_name("index") or mine[0].node.named_children[-1]
        names = _idents(src, idx)
        if rk.row not in names or names & written or not names <= top_declared:
            continue
        if any(may_alias(rk.env, o.array, arr) for o in inside_body if o.array != arr):
            continue
        return _promoted(src, body, mine, arr)
    return None


def _declared_names(src: SourceFile, stmts) -> set:
    out = set()
    for t in stmts:
        if t.type == "declaration":
            for d in t.children_by_field_name("declarator"):
                n = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
                if n is not None and n.type == "identifier":
                    out.add(text(src, n))
    return out


def _promoted(src: SourceFile, body: list, mine: list, arr: str) -> str:
    first = min(mine, key=lambda a: a.node.start_byte)
    sub = " ".join(text(src, first.node).split())
    name = f"kp_{arr}_{first.line}"
    et = f"typename kp_elem<decltype({text(src, first.node.child_by_field_name('argument'))}[0])>::type"
    holder = next(t for t in body if t.start_byte <= first.node.start_byte < t.end_byte)
    ind = line_indent(src, holder)
    subs = [(a.node.start_byte, a.node.end_byte, name) for a in mine if a is not first]
    st = _store(src, holder)
    if st is not None and st[0] == first.node and st[2] == "=":  # `A[i] = e;` opens it: the local starts as e
        subs.append((holder.start_byte, holder.end_byte, f"{et} {name} = {text(src, st[1])};"))
    else:
        subs.append((holder.start_byte, holder.start_byte, f"{et} {name} = {sub};  // kernelpro: held in a register\n{ind}"))
        subs.append((first.node.start_byte, first.node.end_byte, name))
    last = body[-1]
    subs.append((last.end_byte, last.end_byte, f"\n{line_indent(src, last)}{sub} = {name};  // kernelpro: stored once"))
    return _with_prelude(span_text(src, 0, len(src.data), subs))


# ---------------------------------------------------------------- a running mean and variance


_ZERO = {"0", "0.0", "0.0f", "0.f", "0.0F", "0.", "0.0L"}


def split_welford(src_text: str, path: str, kernel: str) -> str | None:
    """A loop that keeps a running mean and sum of squared deviations (Welford: `d = x - m;
    m += d / (i + 1); m2 += d * (x - m);`, recognised by running its body on sample values)
    -> a loop that sums, the mean, and a loop that sums the squared deviations: two reductions
    the restructurings spread (and two-pass variance is at least as accurate)."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    rk = row_kernel(src, k) if k is not None else None
    if rk is None:
        return None
    for pos, node in enumerate(rk.body):
        lp = rk.loops_all.at(node) if node.type == "for_statement" else None
        if lp is None or lp.var is None or lp.step != 1 or lp.cmp != "<" or lp.start is None \
                or text(src, lp.start) != "0" or lp.bound is None or not lp.carried \
                or len(set(lp.carried) | {r.var for r in lp.reductions}) != 2:
            continue
        body = statements(lp.body)
        if any(a.is_write for a in lp.accesses):
            continue
        reads = {" ".join(text(src, n).split()) for n in walk(lp.body) if n.type == "subscript_expression"
                 and not unevaluated(n)}
        if len(reads) != 1:
            continue
        value = next(n for n in walk(lp.body) if n.type == "subscript_expression" and not unevaluated(n))
        names = sorted(set(lp.carried) | {r.var for r in lp.reductions})
        if any(_zero_before(src, rk.body[:pos], n) is None for n in names):
            continue
        roles = _welford_roles(src, body, lp.var, reads.pop(), names)
        if roles is None:
            continue
        mean, m2 = roles
        t = " ".join(w for w in (rk.env.declared.get(m2) or "float").split() if w not in ("const", "volatile"))
        header = span_text(src, node.start_byte, lp.body.start_byte)
        ind = line_indent(src, node)
        v, bound = text(src, value), text(src, lp.bound)
        new = (f"{header}{{ {mean} += {v}; }}  // kernelpro: the running mean and variance as two passes\n"
               f"{ind}{mean} = ({bound}) > 0 ? {mean} / ({bound}) : {mean};\n"
               f"{ind}{header}{{ const {t} kp_d = {v} - {mean}; {m2} += kp_d * kp_d; }}")
        return span_text(src, 0, len(src.data), [(node.start_byte, node.end_byte, new)])
    return None


def _zero_before(src: SourceFile, stmts, name: str):
    """The declaration of name among stmts, initialised to zero and not touched after; else None."""
    found = None
    for t in stmts:
        if t.type == "declaration":
            for d in t.children_by_field_name("declarator"):
                if d.type == "init_declarator" and text(src, d.child_by_field_name("declarator")) == name:
                    found = d if text(src, d.child_by_field_name("value")) in _ZERO else None
                    break
            else:
                if found is not None and uses(src, t, name):
                    return None
        elif found is not None and uses(src, t, name):
            return None
    return found


def _welford_roles(src: SourceFile, body, var: str, read: str, names: list[str]):
    """(mean, sum of squared deviations) when running body over values from zero gives them."""
    import random

    from kernelpro.profilers.analysis.interp import Interp, Unsupported
    rng = random.Random(7)
    found = None
    try:
        for n in (1, 2, 3, 5, 8):
            xs = [rng.uniform(-3, 3) for _ in range(n)]
            env = {names[0]: 0.0, names[1]: 0.0}
            for j, x in enumerate(xs):
                env[var] = float(j)
                env = Interp(src, env, {read: x}).run(body)
            mu = sum(xs) / n
            m2 = sum((x - mu) ** 2 for x in xs)
            got = [(a, b) for a, b in (names, names[::-1])
                   if abs(env[a] - mu) <= 1e-9 * max(1.0, abs(mu)) and abs(env[b] - m2) <= 1e-9 * max(1.0, m2)]
            if not got or (found is not None and got[0] != found):
                return None
            found = got[0]
    except (Unsupported, TypeError, ValueError, OverflowError, ZeroDivisionError, KeyError):
        return None
    return found


# ---------------------------------------------------------------- seeded max


def unseed_max(src_text: str, path: str, kernel: str) -> str | None:
    """`m = x[0]; for (j = 1; ...) m = max(m, x[j]);` -> the loop from 0: the max (or min) is
    idempotent, so taking the seed again changes nothing, and the loop then has the range of the
    loops after it (which the online fusion needs)."""
    got = _kernel_rk(src_text, path, kernel)
    if got is None:
        return None
    src, rk = got
    for rl in rk.spread:
        lp = rl.info
        if lp.form != "for" or len(lp.reductions) != 1 or lp.reductions[0].op not in (MAX, MIN) \
                or lp.step != 1 or lp.cmp != "<" or lp.start is None or text(src, lp.start) != "1":
            continue
        m = lp.reductions[0].var
        reads = [n for n in walk(lp.body) if n.type == "subscript_expression" and not unevaluated(n)
                 and uses(src, n, lp.var)]
        if len({_renamed(src, n, lp.var, "0") for n in reads}) != 1:
            continue
        seed = _seed(src, rk, lp, m)
        if seed is None or not _first_element(src, unparen(seed), reads[0], lp.var):
            continue
        return span_text(src, 0, len(src.data), [(lp.start.start_byte, lp.start.end_byte, "0")])
    return None


def _first_element(src: SourceFile, seed, read, var: str) -> bool:
    """The seed reads what the loop's read does at var = 0 (`x[0]` for `x[j]`, `inp[row * C]` for
    `inp[row * C + j]`)."""
    if " ".join(text(src, seed).split()) == _renamed(src, read, var, "0"):
        return True
    a, b = subscript_parts(src, seed), subscript_parts(src, read)
    if seed.type != "subscript_expression" or a is None or b is None or a[0] != b[0]:
        return False
    p0 = index_poly(src, a[1], {})
    return p0 is not None and p0 == index_poly(src, b[1], {var: const(0)})


def _seed(src: SourceFile, rk: RowKernel, lp: LoopInfo, m: str):
    """The value m is declared with just before the loop (nothing between writes it)."""
    prev = lp.node.prev_named_sibling
    while prev is not None and prev.type != "declaration":
        if uses(src, prev, m) or prev.type not in ("comment", "expression_statement", "preproc_call"):
            return None
        prev = prev.prev_named_sibling
    if prev is None:
        return None
    for d in prev.children_by_field_name("declarator"):
        if d.type == "init_declarator" and text(src, d.child_by_field_name("declarator")) == m:
            return d.child_by_field_name("value")
    return None


# ---------------------------------------------------------------- online softmax


def fuse_online(src_text: str, path: str, kernel: str) -> str | None:
    """A max loop followed by a sum-of-exponentials loop over the same range -> one loop."""
    got = _kernel_rk(src_text, path, kernel)
    if got is None:
        return None
    src, rk = got
    spread = [rl.info for rl in rk.spread]
    for i, l1 in enumerate(spread):
        if len(l1.reductions) != 1 or l1.reductions[0].op != MAX or any(a.is_write for a in l1.accesses):
            continue
        m = l1.reductions[0].var
        for l2 in spread[i + 1:]:
            if not (_siblings(l1, l2) and _same_range(src, l1, l2)):
                break
            if len(l2.reductions) != 1 or l2.reductions[0].op != SUM or any(a.is_write for a in l2.accesses):
                break
            s = l2.reductions[0].var
            between = _between(l1, l2)
            if m in _writes_scalars(src, between) or any(uses(src, t, m) for t in between) or \
                    any(n.type == "subscript_expression" and _is_target(n) for t in between for n in walk(t)):
                break
            new = _fused(src, l1, l2, m, s, between)
            if new is None:
                break
            got2 = _kernel_rk(new, path, kernel)
            if got2 is None:
                break
            src2, rk2 = got2
            # the fused loop must be recognised as an online (max, rescaled sum) pair
            if any({(r.var, r.op) for r in rl.info.reductions} == {(m, ONLINE), (s, ONLINE)} for rl in rk2.spread):
                return new
            break
    return None


def _fused(src: SourceFile, l1: LoopInfo, l2: LoopInfo, m: str, s: str, between: list) -> str | None:
    exp_fn = next((src.node_text(n.child_by_field_name("function")) for n in walk(l2.body)
                   if n.type == "call_expression" and src.node_text(n.child_by_field_name("function"))
                   in ("expf", "__expf", "exp", "exp2f", "__exp2f", "exp2")), None)
    if exp_fn is None:
        return None
    ind = line_indent(src, l1.node)
    i1 = ind + "  "
    b1 = reindent(node_with(src, l1.body, [(l1.increment.start_byte, l1.increment.end_byte, "")]
                            if l1.increment else []), line_indent(src, l1.body), i1)
    inc2 = [(l2.increment.start_byte, l2.increment.end_byte, "")] if l2.increment else []
    renames = [s for s in ident_subs(src, l2.body, l2.var, l1.var)
               if not any(a <= s[0] < b for a, b, _ in inc2)]  # none inside the step it drops
    b2 = reindent(node_with(src, l2.body, renames + inc2), line_indent(src, l2.body), i1)
    # a while loop's step stays the last statement of its body, outside the two blocks
    step = f"\n{i1}{text(src, l1.increment)}" if l1.form == "while" and l1.increment is not None else ""
    # the sum's declaration (between the loops) moves before the fused loop
    hoist, subs = [], []
    for t in between:
        if t.type == "declaration" and s in {src.node_text(d.child_by_field_name("declarator")) for d in
                                             t.children_by_field_name("declarator") if d.type == "init_declarator"}:
            hoist.append(text(src, t))
            subs.append(_whole_lines(src, t))
        elif uses(src, t, s):
            return None
    header_end = l1.body.start_byte
    header = span_text(src, l1.node.start_byte, header_end)
    body = ("{  // kernelpro: running max and rescaled sum (online softmax): two passes in one\n"
            f"{i1}const auto kp_mold = {m};\n"
            f"{i1}{b1}\n"
            f"{i1}if ({m} != kp_mold) {s} = {s} * {exp_fn}(kp_mold - {m});\n"
            f"{i1}{b2}{step}\n"
            f"{ind}}}")
    pre = "".join(h + f"\n{ind}" for h in hoist)
    subs.append((l1.node.start_byte, l1.node.end_byte, pre + header + body))
    subs.append(_whole_lines(src, l2.node))
    return span_text(src, 0, len(src.data), subs)


def _with_prelude(text_: str) -> str:
    from .prelude import with_prelude
    return with_prelude(text_)


def instantiate_template_calls(src_text: str, path: str, kernel: str) -> str | None:
    """A call with explicit template arguments of a `__device__` function template of this file that loops
    (`scanLocalMem<float, SCAN_BLOCK>(val, s)`, `warpReduce<blockSize>(s, tid)`) calls a copy of it with those
    arguments written in (`kp_scanLocalMem_i1`, placed before the kernel), which the helper passes then read as
    any helper; only templates defined once (no specialisation) whose arguments name none of the kernel's own
    template parameters. None if none."""
    from .virtual import insert_before

    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    defs = {}
    for f in walk(src.root):
        if f.type != "function_definition" or f.parent is None or f.parent.type != "template_declaration" or \
                "__device__" not in text(src, f).split("(")[0] or "__global__" in text(src, f).split("(")[0]:
            continue
        d = function_declarator(f)
        name = d.child_by_field_name("declarator") if d is not None else None
        if name is None:
            continue
        key = text(src, name.child_by_field_name("name") if name.type == "template_function" else name)
        defs[key] = None if key in defs or name.type == "template_function" else f  # (a specialisation: none)
    own = {p for _, p in (k.template_params or [])}
    made, subs, extra = {}, [], []
    for call in walk(k.body):
        fn = call.child_by_field_name("function") if call.type == "call_expression" else None
        if fn is None or fn.type != "template_function":
            continue
        f = defs.get(text(src, fn.child_by_field_name("name")))
        targs = fn.child_by_field_name("arguments")
        if f is None or targs is None or not any(n.type in ("for_statement", "while_statement", "do_statement")
                                                 for n in walk(f)):
            continue
        args = [" ".join(text(src, a).split()) for a in targs.named_children]
        params, kinds = [], []
        for prm in f.parent.child_by_field_name("parameters").named_children:
            if prm.type not in ("type_parameter_declaration", "parameter_declaration"):
                params = None  # (a default, `int N = B`, or a pack: left as written)
                break
            names = [x for x in prm.named_children if x.type in ("type_identifier", "identifier")]
            params.append(text(src, names[-1]) if names else None)
            kinds.append("type" if prm.type == "type_parameter_declaration" else "value")
        if params is None or len(args) != len(params) or None in params or \
                any(re.search(rf"\b{re.escape(t)}\b", a) for a in args for t in own) or \
                any(kd == "value" and src.eval_int(a) is None for kd, a in zip(kinds, targs.named_children)) or \
                any(x.type in ("namespace_identifier", "qualified_identifier") and
                    re.search(r"\b(" + "|".join(map(re.escape, params)) + r")\b", text(src, x)) for x in walk(f)):
            continue  # (a value argument must be a constant of the file; `T::value_type`, `C::N`: not substituted)
        key = (text(src, fn.child_by_field_name("name")), tuple(args))
        if key not in made:
            new_name = f"kp_{key[0]}_i{len(made) + 1}"
            value = {p: str(src.eval_int(a)) if kd == "value" else t
                     for p, kd, a, t in zip(params, kinds, targs.named_children, args)}  # (a value as its number)
            kind = dict(zip(params, kinds))
            decl = function_declarator(f).child_by_field_name("declarator")
            reps = [(x.start_byte, x.end_byte, f"({value[text(src, x)]})" if kind[text(src, x)] == "value"
                     else value[text(src, x)])
                    for x in walk(f) if x.type in ("identifier", "type_identifier") and text(src, x) in params
                    and not (x.parent is not None and x.parent.type == "field_expression")
                    and not (decl is not None and decl.start_byte <= x.start_byte < decl.end_byte)]
            if decl is not None:
                reps.append((decl.start_byte, decl.end_byte, new_name))  # (the name itself, not a match in its type)
            made[key] = new_name
            extra.append(span_text(src, f.start_byte, f.end_byte, reps) + "\n\n")
        subs.append((fn.start_byte, fn.end_byte, made[key]))
    if not subs:
        return None
    at = insert_before(src, k)
    return span_text(src, 0, len(src.data), subs + [(at, at, "".join(extra))])


def inline_loop_helpers(src_text: str, path: str, kernel: str) -> str | None:
    """`T v = f(a, b);` where f is a __device__ function of this file that loops (a row max or a
    row mean in a helper) becomes f's statements in place, its parameters and locals renamed
    `kp_<f><n>_<name>`, then `T v = <f's returned expression>;`, so the row plans see and spread
    its loop (left as a call, every lane of a team would run the whole loop). Only helpers of
    plain parameters, one `return` as the last statement, and no parameter assigned; None if none.
    A `void` helper that loops (a row scaled into the output) called as a statement is inlined the
    same way, and a helper's call inside an expression (`rsqrtf(sum_sq(x, C) / C + eps)`) is first
    taken out into a declaration of its own, where nothing makes the call conditional."""
    hoisted = _hoist_helper_calls(src_text, path, kernel)
    new = _inline_helpers(hoisted or src_text, path, kernel)
    return new if new is not None else hoisted


def _helpers(src: SourceFile, k) -> dict:
    """name -> (parameters [(declaration, name)], body, return type) of the file's __device__
    functions that loop: those returning a value with one `return e;` last, and `void` ones with no
    `return` but a last `return;`; parameters plain and never assigned."""
    helpers = {}
    for f in walk(src.root):
        if f.type != "function_definition" or f == k.node or "__device__" not in text(src, f).split("(")[0]:
            continue
        d = function_declarator(f)
        name = d.child_by_field_name("declarator") if d is not None else None
        params = d.child_by_field_name("parameters") if d is not None else None
        body = f.child_by_field_name("body")
        if name is None or name.type != "identifier" or params is None or body is None:
            continue
        stmts = body.named_children
        rtype = text(src, f.child_by_field_name("type")) if f.child_by_field_name("type") is not None else ""
        returns = [n for n in walk(body) if n.type == "return_statement"]
        if not any(n.type in ("for_statement", "while_statement", "do_statement") for n in walk(body)):
            continue
        if rtype == "void":
            if any(r.named_children for r in returns) or (returns and returns != [stmts[-1]]):
                continue
        elif not stmts or stmts[-1].type != "return_statement" or not stmts[-1].named_children or len(returns) != 1:
            continue
        ps = []
        for prm in params.named_children:
            pn = prm.child_by_field_name("declarator")
            while pn is not None and pn.type == "pointer_declarator":
                pn = pn.child_by_field_name("declarator")
            if prm.type != "parameter_declaration" or pn is None or pn.type != "identifier":
                ps = None
                break
            ps.append((prm, text(src, pn)))
        if not ps or any(x in _writes_scalars(src, [body]) for _, x in ps):
            continue
        helpers[text(src, name)] = (ps, body, rtype)
    return helpers


def _hoist_helper_calls(src_text: str, path: str, kernel: str) -> str | None:
    """A looping helper's call inside a statement's expression taken out: `T kp_hN = f(...);`
    before the statement; not where the call sits under `?:`, `&&`, `||` or in a loop's header."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    helpers = {n: h for n, h in _helpers(src, k).items() if h[2] != "void"}
    subs, count = [], 0
    for call in walk(k.body):
        fn = call.child_by_field_name("function") if call.type == "call_expression" else None
        if fn is None or text(src, fn) not in helpers:
            continue
        up, ok = call.parent, True
        while up is not None and not (up.type in ("declaration", "expression_statement")
                                      and up.parent is not None and up.parent.type == "compound_statement"):
            if up.type in ("conditional_expression", "for_statement", "while_statement", "do_statement", "if_statement") \
                    or up.type == "binary_expression" and text(src, up.child_by_field_name("operator")) in ("&&", "||"):
                ok = False  # evaluated sometimes, or many times
            up = up.parent
        if up is None or not ok:
            continue
        if up.type == "declaration" and len(up.children_by_field_name("declarator")) > 1:
            continue  # `float a = f(..), b = g(.., a)`: a call may read a name declared before it there
        whole = up.type == "declaration" and len(up.children_by_field_name("declarator")) == 1 and \
            up.children_by_field_name("declarator")[0].child_by_field_name("value") == call
        if whole or any(a <= call.start_byte < b for a, b, _ in subs):
            continue
        count += 1
        name = f"kp_h{count}"
        subs.append((up.start_byte, up.start_byte,
                     f"{helpers[text(src, fn)][2]} {name} = {text(src, call)};\n{line_indent(src, up)}"))
        subs.append((call.start_byte, call.end_byte, name))
    if not subs:
        return None
    subs.sort(key=lambda s: (s[0], s[1]))
    return span_text(src, 0, len(src.data), subs)


def _inline_helpers(src_text: str, path: str, kernel: str) -> str | None:
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    helpers = _helpers(src, k)
    subs, count = [], 0
    for d in walk(k.body):
        if d.type == "expression_statement" and d.parent is not None and d.parent.type == "compound_statement" \
                and d.named_children and d.named_children[0].type == "call_expression":
            call = d.named_children[0]
            fn = call.child_by_field_name("function")
            if text(src, fn) in helpers and helpers[text(src, fn)][2] == "void":
                count += 1
                got = _inlined(src, d, call, fn, helpers[text(src, fn)], count, None)
                if got is not None:
                    subs.append((d.start_byte, d.end_byte, got))
            continue
        decs = d.children_by_field_name("declarator") if d.type == "declaration" else []
        if len(decs) != 1 or decs[0].type != "init_declarator" or d.parent is None \
                or d.parent.type != "compound_statement":
            continue
        call = decs[0].child_by_field_name("value")
        fn = call.child_by_field_name("function") if call is not None and call.type == "call_expression" else None
        if fn is None or text(src, fn) not in helpers or helpers[text(src, fn)][2] == "void":
            continue
        count += 1
        got = _inlined(src, d, call, fn, helpers[text(src, fn)], count, decs[0])
        if got is not None:
            subs.append((d.start_byte, d.end_byte, got))
    return span_text(src, 0, len(src.data), subs) if subs else None


def _inlined(src: SourceFile, d, call, fn, helper, count: int, dec) -> str | None:
    """The text replacing statement d (`T v = f(...);`, or `f(...);` for a void helper, dec None)."""
    ps, body, rtype = helper
    args = [a for a in call.child_by_field_name("arguments").named_children if a.type != "comment"]
    if len(args) != len(ps):
        return None
    pre = f"kp_{text(src, fn)}{count}_"
    # a parameter given a name or a number is that argument (parameters are never assigned)
    direct = {x: text(src, a) for (_, x), a in zip(ps, args) if a.type in ("identifier", "number_literal")}
    # a returned local of the declared type is the declared variable itself
    ret = body.named_children[-1].named_children[0] if dec is not None else None
    target = dec.child_by_field_name("declarator") if dec is not None else None
    same = ret is not None and ret.type == "identifier" and target is not None and target.type == "identifier" and any(
        n.type == "declaration" and text(src, n.child_by_field_name("type")) == text(src, d.child_by_field_name("type"))
        and text(src, ret) in {text(src, c.child_by_field_name("declarator") or c)
                               for c in n.children_by_field_name("declarator")}
        and not any(q.type == "type_qualifier" for q in n.children) for n in body.named_children)
    if same:
        direct[text(src, ret)] = text(src, target)
    local = {x for _, x in ps} | declared_names(src, body)
    renames = [(n.start_byte, n.end_byte, direct.get(text(src, n), pre + text(src, n))) for n in walk(body)
               if n.type == "identifier" and text(src, n) in local
               and not (n.parent is not None and n.parent.type == "field_expression"
                        and n.parent.child_by_field_name("field") == n)]
    ind = line_indent(src, d)
    lines = [f"// kernelpro: {text(src, fn)}() inlined"]
    for (prm, x), a in zip(ps, args):
        if x in direct:
            continue
        pdecl = node_with(src, prm, [(n.start_byte, n.end_byte, pre + x) for n in walk(prm)
                                     if n.type == "identifier" and text(src, n) == x])
        lines.append(f"{pdecl} = ({text(src, a)});")
    last = body.named_children[-1] if body.named_children else None
    keep = body.named_children[:-1] if last is not None and last.type == "return_statement" else body.named_children
    for s in keep:
        lines.append(reindent(node_with(src, s, [r for r in renames if s.start_byte <= r[0] < s.end_byte]),
                              line_indent(src, s), ind))
    if ret is not None and not same:
        value = node_with(src, ret, [r for r in renames if ret.start_byte <= r[0] < ret.end_byte])
        lines.append(f"{span_text(src, d.start_byte, call.start_byte)}({value});")
    return f"\n{ind}".join(lines)


def rename_reassigned_pointers(src_text: str, path: str, kernel: str) -> str | None:
    """A pointer given a new value by a statement `p = e;` (or moved by `p += e;`) after its declaration
    (llm.c's softmax reads its output back through the input's pointer: `x = out + idx * C;`; a batched
    product moves its operands to the batch: `A += batch * M * K;`) becomes a new pointer
    from there, `T* p_1 = e;` with every later mention renamed, so that each name has one value the
    index analysis follows. Only for a statement of a block outside any loop, e not reading p, every
    later mention of p in that block; one at a time (None if there is none)."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    types = _pointer_types(src, k)
    names = {text(src, n) for n in walk(k.node) if n.type == "identifier"}
    for s in walk(k.body):
        e = s.named_children[0] if s.type == "expression_statement" and s.named_children else None
        op = text(src, e.child_by_field_name("operator")) if e is not None and e.type == "assignment_expression" else None
        if op not in ("=", "+=", "-="):
            continue
        left, right = e.child_by_field_name("left"), e.child_by_field_name("right")
        p = text(src, left) if left is not None and left.type == "identifier" else None
        if p not in types or s.parent is None or s.parent.type != "compound_statement" or uses(src, right, p):
            continue
        up, in_loop = s.parent, False
        while up is not None and up != k.body:
            in_loop = in_loop or up.type in ("for_statement", "while_statement", "do_statement")
            up = up.parent
        later = [n for n in walk(k.body) if n.type == "identifier" and text(src, n) == p and n.start_byte >= s.end_byte]
        if in_loop or any(n.end_byte > s.parent.end_byte for n in later) or any(
                n.parent is not None and n.parent.type == "pointer_expression" and text(src, n.parent).startswith("&")
                for n in later):
            continue
        if any(n.type == "reference_declarator" for n in walk(k.body)):
            continue  # a reference may hold the pointer's old value under another name
        fresh = next(f"{p}_{i}" for i in range(1, 100) if f"{p}_{i}" not in names)
        value = text(src, right) if op == "=" else f"{p} {op[0]} ({text(src, right)})"  # `p += e`: p's old value
        subs = [(s.start_byte, s.end_byte, f"{types[p]}{fresh} = {value};")]
        subs += [(n.start_byte, n.end_byte, fresh) for n in later]
        return span_text(src, 0, len(src.data), subs)
    return None


def _pointer_types(src: SourceFile, k) -> dict[str, str]:
    """Each pointer the kernel declares (parameters included) -> its type as written before the
    name (`const float* `, `float* __restrict__ `)."""
    out = {}
    for d in walk(k.node):
        if d.type not in ("declaration", "parameter_declaration"):
            continue
        decls = d.children_by_field_name("declarator")
        for dd in decls:
            ptr = dd.child_by_field_name("declarator") if dd.type == "init_declarator" else dd
            if ptr is None or ptr.type != "pointer_declarator":
                continue
            name = next((n for n in walk(ptr) if n.type == "identifier"), None)
            if name is None:
                continue
            head = src.data[d.start_byte:decls[0].start_byte].decode()
            star = src.data[ptr.start_byte:name.start_byte].decode()
            out[text(src, name)] = " ".join(head.split()) + " " + " ".join(star.split()) + " "
    return out


def simplify(src_text: str, path: str, kernel: str, limit: int = 12) -> tuple[str, list[str]]:
    """Forwarding, dead stores and online fusion to a fixed point: (text, what changed)."""
    done = []
    for _ in range(limit):
        for name, fn in (("the running mean and variance as two passes", split_welford),
                         ("hold an element in a register", promote_elements),
                         ("forward a stored value", forward_stores), ("drop a dead store", drop_dead_stores),
                         ("use a variable for its copy", propagate_copies),
                         ("start the max at its seed", unseed_max), ("online max and sum", fuse_online)):
            new = fn(src_text, path, kernel)
            if new is not None and new != src_text:
                src_text = new
                done.append(name)
                break
        else:
            break
    return src_text, done


_PRODUCT = re.compile(r"^\(?(?:blockIdx\.([xyz])\*blockDim\.\1|blockDim\.([xyz])\*blockIdx\.\2)\)?$")


def _plus_terms(src: SourceFile, n) -> list:
    """The terms of a chain of `+` (a + b + c -> [a, b, c])."""
    if n.type == "binary_expression" and text(src, n.child_by_field_name("operator")) == "+":
        return _plus_terms(src, n.child_by_field_name("left")) + _plus_terms(src, n.child_by_field_name("right"))
    return [n]


def _global_terms(src: SourceFile, n) -> tuple[str, list, list] | None:
    """For a `+` chain holding `blockIdx.d * blockDim.d` and `threadIdx.d` (any order, any other terms):
    (d, those two terms, the other terms); None otherwise."""
    if n.type == "parenthesized_expression" and n.named_children:
        inner = _global_terms(src, n.named_children[0])
        return inner if inner is not None and not inner[2] else None
    terms = _plus_terms(src, n)
    if len(terms) < 2:
        return None
    for a in terms:
        m = _PRODUCT.match(re.sub(r"\s+", "", text(src, a)))
        d = m and (m.group(1) or m.group(2))
        t = next((b for b in terms if re.sub(r"\s+", "", text(src, b)) == f"threadIdx.{d}"), None) if d else None
        if t is not None:
            return d, [a, t], [x for x in terms if x is not a and x is not t]
    return None


def name_thread_indices(src_text: str, path: str, kernel: str) -> str | None:
    out = None
    for _ in range(6):  # one edit per written-out index each round: nested ones need the outer named first
        new = _name_thread_indices(out or src_text, path, kernel)
        if new is None:
            return out
        out = new
    return out


def _through_casts(src: SourceFile, n):
    """(the init_declarator whose whole value n is, through parentheses and one cast (`(int)(..)`,
    `static_cast<index_t>(..)`), the cast's type or None); (None, None) when n is not such a value."""
    cast, par = None, n.parent
    while par is not None and par.type == "parenthesized_expression":
        n, par = par, par.parent
    if par is not None and par.type == "cast_expression" and par.child_by_field_name("value") == n:
        cast, n, par = " ".join(text(src, par.child_by_field_name("type")).split()), par, par.parent
    elif par is not None and par.type == "argument_list" and len(par.named_children) == 1 and par.parent is not None \
            and par.parent.type == "call_expression":
        fn = par.parent.child_by_field_name("function")
        targs = fn.child_by_field_name("arguments") if fn is not None and fn.type == "template_function" else None
        if targs is None or text(src, fn.child_by_field_name("name")) != "static_cast":
            return None, None
        cast, n, par = " ".join(text(src, targs)[1:-1].split()), par.parent, par.parent.parent
    if par is not None and par.type == "init_declarator" and par.child_by_field_name("value") == n:
        return par, cast
    return None, None


def _name_thread_indices(src_text: str, path: str, kernel: str) -> str | None:
    """A thread's global index written out where it is used (`A[(blockIdx.y * blockDim.y + threadIdx.y)
    * n + k]`) named once at the top of the kernel (`const int gy_ = blockIdx.y * blockDim.y +
    threadIdx.y;`, or the kernel's own local that already holds it and is never reassigned), so the
    plans that start from a named row or column read it; None if nothing is written out."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    found: dict[str, list] = {}  # axis -> [(chain node, its other terms)]
    named: dict[str, str] = {}
    for n in walk(k.body):
        g = _global_terms(src, n)
        if g is None or (n.parent is not None and (_global_terms(src, n.parent) is not None or (
                n.parent.type == "binary_expression" and text(src, n.parent.child_by_field_name("operator")) == "+"))):
            continue
        axis, _, others = g
        par, cast = _through_casts(src, n)
        if not others and par is not None and par.type == "init_declarator":
            name = text(src, par.child_by_field_name("declarator"))
            decl_type = par.parent.child_by_field_name("type") if par.parent is not None else None
            same = cast is None or (decl_type is not None and " ".join(text(src, decl_type).split()) == cast
                                    and not re.search(r"float|double|half|bfloat", cast))
            if same and all(w != name for w, _ in writes_in(src, k.body)) and axis not in named:
                named[axis] = name
            continue  # a declaration's whole value (a loop's start included) stays as written
        found.setdefault(axis, []).append((n, others))
    if not found:
        return None
    names = {text(src, n) for n in walk(k.node) if n.type == "identifier"}
    subs, decls = [], []
    for axis, uses_ in found.items():
        name = named.get(axis)
        if name is None:
            name = next(f"g{axis}{'_' * i}" for i in range(1, 9) if f"g{axis}{'_' * i}" not in names)
            decls.append(f"const int {name} = blockIdx.{axis} * blockDim.{axis} + threadIdx.{axis};")
        else:
            decl = next(d for d in walk(k.body) if d.type == "init_declarator"
                        and text(src, d.child_by_field_name("declarator")) == name)
            uses_ = [u for u in uses_ if u[0].start_byte > decl.end_byte]
        for u, others in uses_:
            if any(a < u.end_byte and u.start_byte < b for a, b, _ in subs):
                continue  # overlaps an edit of this round: the next round takes it
            new = " + ".join([text(src, o) for o in others] + [name])
            subs.append((u.start_byte, u.end_byte, f"({new})" if others and u.type == "parenthesized_expression" else new))
    if decls:
        first = k.body.named_children[0] if k.body.named_children else None
        at = first.start_byte if first is not None else k.body.start_byte + 1
        ind = line_indent(src, first) if first is not None else "    "
        subs.append((at, at, "".join(d + "\n" + ind for d in decls)))
    return span_text(src, 0, len(src.data), subs) if subs else None


def canonical_digits(src_text: str, path: str, kernel: str) -> str | None:
    """Locals that hold digits of the flat thread index through other digits (`rem = tid % (M * N); row = rem / N;
    col = rem % N;`) declared from the index itself, `((tid / (N)) % (M))` and `(tid % (N))` (digits.flat_index: the
    same values for a non-negative index), so that every plan reads each coordinate as one digit. Only locals
    declared once and never written; None if none changes."""
    from kernelpro.profilers.analysis.digits import flat_index

    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    fi = flat_index(src, k)
    if not hasattr(fi, "uses"):
        return None
    written = {n for n, _ in writes_in(src, k.body)}
    remainders = {text(src, n.parent.child_by_field_name("declarator")) for n, _ in fi.uses
                  if n.parent is not None and n.parent.type == "init_declarator" and unparen(n).type == "binary_expression"
                  and text(src, unparen(n).child_by_field_name("operator")) == "%"} - {fi.name}
    subs = []
    for n, d in fi.uses:
        dec = n.parent
        if dec is None or dec.type != "init_declarator" or dec.child_by_field_name("value") != n:
            continue
        name = text(src, dec.child_by_field_name("declarator"))
        own = fi.canonical(d)
        ty = text(src, dec.parent.child_by_field_name("type")) if dec.parent is not None and \
            dec.parent.child_by_field_name("type") is not None else ""
        reads = {text(src, x) for x in walk(n) if x.type == "identifier"}
        if name in written or not re.search(r"[%/]", text(src, n)) or \
                re.sub(r"[\s()]", "", own) == re.sub(r"[\s()]", "", text(src, n)):
            continue
        if not re.fullmatch(r"(const\s+)?(unsigned\s+|signed\s+)?(int|long|long long|size_t|u?int(32|64)_t|unsigned)",
                            " ".join(ty.split())) or re.search(r"float|double|half|\d\.|\.\d", text(src, n)):
            continue  # an integer digit only (`(float)x / W` is a division, not a digit)
        if not (reads & remainders):
            continue  # only a digit read through a remainder's local (`row = rem / N`): no new products
        if not re.fullmatch(rf"\(*{re.escape(fi.name)}\b.*", own):
            continue
        subs.append((n.start_byte, n.end_byte, own))
    if not subs:
        return None
    for n, d in fi.uses:  # a digit local that only the rewritten values read (`rem`): its declaration dropped
        dec = n.parent
        if dec is None or dec.type != "init_declarator" or dec.parent is None or dec.parent.type != "declaration" \
                or len(dec.parent.children_by_field_name("declarator")) != 1:
            continue
        name = text(src, dec.child_by_field_name("declarator"))
        if name in written or name == fi.name:
            continue
        left = [x for x in walk(k.body) if x.type == "identifier" and text(src, x) == name
                and x != dec.child_by_field_name("declarator") and not any(a <= x.start_byte < b for a, b, _ in subs)]
        if not left and not any(a <= dec.start_byte < b for a, b, _ in subs):
            subs.append((dec.parent.start_byte, dec.parent.end_byte, ""))
    return span_text(src, 0, len(src.data), subs)


def remainder_by_subtraction(src_text: str, path: str, kernel: str) -> str | None:
    """A remainder written by subtraction, `j = t - i * N` where `i = t / N` (or `t - (t / N) * N`), read as
    `t % N`: what C defines the remainder to be (a - (a / b) * b), so the flat index's split reads as the plans
    expect. None if there is none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    quotients = {}  # i -> (t, N) for `i = t / N`

    def parts(n, op):
        n = unparen(n)
        if n is None or n.type != "binary_expression" or text(src, n.child_by_field_name("operator")) != op:
            return None
        return unparen(n.child_by_field_name("left")), unparen(n.child_by_field_name("right"))

    for d in walk(k.body):
        if d.type == "init_declarator" and d.child_by_field_name("declarator").type == "identifier":
            q = parts(d.child_by_field_name("value"), "/")
            if q is not None:
                quotients[text(src, d.child_by_field_name("declarator"))] = (text(src, q[0]), text(src, q[1]))
    subs = []
    for d in walk(k.body):
        v = d.child_by_field_name("value") if d.type == "init_declarator" else None
        diff = parts(v, "-") if v is not None else None
        prod = parts(diff[1], "*") if diff else None
        if prod is None:
            continue
        t = text(src, diff[0])
        for q, n in (prod, prod[::-1]):
            qt = text(src, q)
            quot = quotients.get(qt) if q.type == "identifier" else \
                ((text(src, parts(q, "/")[0]), text(src, parts(q, "/")[1])) if parts(q, "/") else None)
            if quot == (t, text(src, n)) and not _reassigned(src, k, [t, text(src, n)] + ([qt] if qt in quotients else [])):
                subs.append((v.start_byte, v.end_byte, f"{_paren(diff[0], t)} % {_paren(n, text(src, n))}"))
                break
    return span_text(src, 0, len(src.data), subs) if subs else None


def _paren(n, t: str) -> str:
    return t if n.type in ("identifier", "number_literal", "field_expression") else f"({t})"


def _reassigned(src: SourceFile, k, names: list[str]) -> bool:
    """Some of `names` is assigned after its declaration (the quotient and the remainder might then differ)."""
    return any(name in names for name, _ in writes_in(src, k.body))


def flatten_array_params(src_text: str, path: str, kernel: str) -> str | None:
    """A parameter declared as a multi-dimensional array (`float A[N][N]`, or `float (*A)[N]`: a pointer to rows of N) read
    through a flat pointer to its first element, `kp_A[(i) * (N) + (k)]` for `A[i][k]`, the signature kept:
    the analyses read the accesses as strided indices. None if there is none (or one is read otherwise:
    a row taken whole, `A[i]`)."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    fd = function_declarator(k.node)
    arrays = {}  # name -> (element type, [inner dimensions])
    for p in (fd.child_by_field_name("parameters").named_children if fd is not None else []):
        d = p.child_by_field_name("declarator") if p.type == "parameter_declaration" else None
        dims = []
        while d is not None and d.type == "array_declarator":
            size = d.child_by_field_name("size")
            dims.insert(0, text(src, size) if size is not None else None)
            d = d.child_by_field_name("declarator")
        if d is not None and d.type == "parenthesized_declarator" and dims:  # `float (*A)[N]`: a pointer to rows of N
            inner = d.named_children[0] if d.named_children else None
            if inner is not None and inner.type == "pointer_declarator":
                d = inner.child_by_field_name("declarator")
                dims.insert(0, None)
        if d is not None and d.type == "identifier" and len(dims) >= 2 and None not in dims[1:]:
            quals = " ".join(text(src, c) for c in p.children if c.type == "type_qualifier")
            arrays[text(src, d)] = (f"{quals} {text(src, p.child_by_field_name('type'))}".strip(), dims[1:])
    if not arrays:
        return None
    subs = []
    for n in walk(k.body):
        if n.type == "identifier" and text(src, n) in arrays:
            chain, top = [], n
            while top.parent is not None and top.parent.type == "subscript_expression" and \
                    top.parent.child_by_field_name("argument") == top:
                top = top.parent
                chain.append(top)
            inner = arrays[text(src, n)][1]
            if len(chain) != len(inner) + 1:
                return None  # a row (or a plane) taken whole: left as it is
            idx = [_index_text(src, c) for c in chain]
            if None in idx:
                return None
            flat = f"({idx[0]})"
            for dim, i in zip(inner, idx[1:]):
                flat = f"({flat}) * ({dim}) + ({i})"
            subs.append((top.start_byte, top.end_byte, f"kp_{text(src, n)}[{flat}]"))
    decls = "".join(f"\n  {ty}* kp_{name} = ({ty}*){name};" for name, (ty, dims) in arrays.items())
    subs.append((k.body.start_byte + 1, k.body.start_byte + 1, decls))
    return span_text(src, 0, len(src.data), subs)


def _index_text(src: SourceFile, sub) -> str | None:
    n = subscript_index(sub)
    return text(src, n) if n is not None else None


def reroll_loops(src_text: str, path: str, kernel: str) -> str | None:
    """A loop unrolled by hand, `for (; k + 3 < K; k += 4) s += f(k) + f(k + 1) + f(k + 2) + f(k + 3);` (or one
    `s += f(k + u);` per u), followed by its remainder loop `for (; k < K; ++k) s += f(k);`, read as the
    remainder loop alone (the unrolled loop dropped, its initializer kept): the same sum in another order.
    None if there is none."""
    return _first_loop_edit(src_text, path, kernel, lambda src, k, a, b: _reroll(src, a, b) if b is not None else
                            _reroll_guarded(src, a))


def join_split_sums(src_text: str, path: str, kernel: str) -> str | None:
    """A sum split over two ranges, `for (int k = 0; k < h; k++) lo += f(k); for (int k = h; k < K; k++) hi +=
    f(k);` then read once as `lo + hi`, read as one loop over 0..K into lo (the same terms, the two halves added in
    another order): each partial zero where declared, written only by its loop, and read only in that sum.
    None if there is none."""
    def edit(src, k, a, b):
        if b is None:
            return None
        sa, sb = _loop_step(src, a), _loop_step(src, b)
        ha, hb = a.child_by_field_name("initializer"), b.child_by_field_name("initializer")
        if sa is None or sb is None or sa != sb or sa[1] != 1 or ha is None or hb is None \
                or ha.type != "declaration" or hb.type != "declaration":
            return None
        var = sa[0]
        ca = re.fullmatch(rf"{var}<(.+)", re.sub(r"\s+", "", text(src, a.child_by_field_name("condition"))))
        cb = re.fullmatch(rf"{var}<(.+)", re.sub(r"\s+", "", text(src, b.child_by_field_name("condition"))))
        start_b = re.sub(r"\s+", "", text(src, hb)).rstrip(";")
        if ca is None or cb is None or not start_b.endswith(f"{var}={ca.group(1)}") or \
                re.sub(r"\s+", "", text(src, ha)).split(var + "=")[0] != start_b.split(var + "=")[0]:
            return None  # (the second range starts where the first ends, the counter of the same type)
        ua, ub = _sum_update(src, a.child_by_field_name("body")), _sum_update(src, b.child_by_field_name("body"))
        if ua is None or ub is None or ua[0] == ub[0] or [re.sub(r"\s+", "", t) for t in ua[1]] != \
                [re.sub(r"\s+", "", t) for t in ub[1]]:
            return None
        lo, hi = ua[0], ub[0]
        ends = set(re.findall(r"[A-Za-z_]\w*", ca.group(1) + " " + cb.group(1)))
        if ends & {lo, hi, var} or ends & {name for name, _ in writes_in(src, a)}:
            return None  # (the first loop moves neither the split point nor the end)
        reads = [n for n in walk(k.body) if n.type == "identifier" and text(src, n) in (lo, hi)
                 and n.start_byte >= b.end_byte]
        sums = {n.parent.id for n in reads if n.parent is not None and n.parent.type == "binary_expression"
                and text(src, n.parent.child_by_field_name("operator")) == "+"}
        if len(reads) != 2 or len(sums) != 1 or {text(src, n) for n in reads} != {lo, hi}:
            return None
        plus = reads[0].parent
        if {text(src, plus.child_by_field_name("left")), text(src, plus.child_by_field_name("right"))} != {lo, hi}:
            return None
        writes = [n for n, _ in writes_in(src, k.body)]
        for acc in (lo, hi):
            d = next((x for x in walk(k.body) if x.type == "init_declarator"
                      and text(src, x.child_by_field_name("declarator")) == acc), None)
            v = d.child_by_field_name("value") if d is not None else None
            if v is None or not _zero(text(src, v)) or writes.count(acc) != 1:
                return None
        end = cb.group(1)
        cond = a.child_by_field_name("condition")
        return [(cond.start_byte, cond.end_byte, f"{var} < {end}"), (b.start_byte, b.end_byte, ""),
                (plus.start_byte, plus.end_byte, lo)]
    return _first_loop_edit(src_text, path, kernel, edit)


_PURE_CALLS = {"fmaf", "fma", "fabsf", "fabs", "sqrtf", "sqrt", "expf", "exp", "__expf", "logf", "log", "__ldg", "min",
               "max", "fminf", "fmaxf", "__half2float", "__bfloat162float", "__float2half", "static_cast"}


def join_parallel_sums(src_text: str, path: str, kernel: str) -> str | None:
    """Two sums over the same range in two loops, `for (int k = 0; k < M; ++k) ab += f(k);` and, after only
    declarations, `for (int l = 0; l < M; ++l) ba += g(l);`, then read once as `ab + ba` (A·Bᵀ + B·Aᵀ through a
    helper called twice), read as one loop `ab += f(k) + g(k)` and `ab`: each sum zero where declared, written only
    by its loop, neither loop reading the other's sum, the range's end written by neither. None if there is none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    writes = [n for n, _ in writes_in(src, k.body)]
    pure = set(src.macros) | _PURE_CALLS  # (a macro of the file, `IDX(r, c, ld)`, or math without side effects)
    for kids in _statement_lists(k):
        loops = [c for c in kids if c.type == "for_statement"]
        for a, b in zip(loops, loops[1:]):
            between = kids[kids.index(a) + 1:kids.index(b)]
            if any(x.type != "declaration" for x in between):
                continue
            sa, sb = _loop_step(src, a), _loop_step(src, b)
            ha, hb = a.child_by_field_name("initializer"), b.child_by_field_name("initializer")
            if sa is None or sb is None or sa[1] != 1 or sb[1] != 1 or ha is None or hb is None \
                    or ha.type != "declaration" or hb.type != "declaration":
                continue
            va, vb = sa[0], sb[0]
            flat = lambda n, v: re.sub(r"\s+", "", text(src, n)).replace(v, "\0")  # noqa: E731
            if flat(ha, va) != flat(hb, vb) or flat(a.child_by_field_name("condition"), va) != \
                    flat(b.child_by_field_name("condition"), vb):
                continue
            ua, ub = _sum_update(src, a.child_by_field_name("body")), _sum_update(src, b.child_by_field_name("body"))
            if ua is None or ub is None or ua[0] == ub[0] or not re.fullmatch(r"\w+", ua[0] + ub[0]):
                continue
            lo, hi = ua[0], ub[0]
            end = set(re.findall(r"[A-Za-z_]\w*", text(src, a.child_by_field_name("condition")))) - {va}
            ida, idb = ({text(src, x) for e in walk(y.child_by_field_name("body")) if e.type == "assignment_expression"
                         for x in walk(e.child_by_field_name("right")) if x.type == "identifier"} for y in (a, b))
            between_names = {n for x in between for n in declared_names(src, x)}
            between_reads = {text(src, x) for d in between for x in walk(d) if x.type == "identifier"}
            if end & ({n for n, _ in writes_in(src, a)} | {n for n, _ in writes_in(src, b)}) \
                    or {lo, hi} & (ida | idb) or (between_names - {hi}) & idb \
                    or lo in between_reads or any(x.type == "update_expression" or (
                        x.type == "call_expression" and text(src, x.child_by_field_name("function")) not in pure) or (
                        x.type == "assignment_expression" and x.parent is not None and
                        x.parent.type != "expression_statement")
                        for y in (a, b) for x in walk(y.child_by_field_name("body"))) \
                    or [n for n, _ in writes_in(src, a.child_by_field_name("body"))] != [lo] \
                    or [n for n, _ in writes_in(src, b.child_by_field_name("body"))] != [hi]:
                continue  # (each loop only adds its terms to its own sum; b reads nothing declared between)
            reads = [n for n in walk(k.body) if n.type == "identifier" and text(src, n) in (lo, hi)
                     and n.start_byte >= b.end_byte]
            plus = reads[0].parent if len(reads) == 2 else None
            if plus is None or plus.type != "binary_expression" or text(src, plus.child_by_field_name("operator")) != "+" \
                    or {text(src, plus.child_by_field_name("left")), text(src, plus.child_by_field_name("right"))} != {lo, hi}:
                continue
            ok = True
            for acc in (lo, hi):
                d = next((x for x in walk(k.body) if x.type == "init_declarator"
                          and text(src, x.child_by_field_name("declarator")) == acc), None)
                v = d.child_by_field_name("value") if d is not None else None
                ok = ok and v is not None and _zero(text(src, v)) and writes.count(acc) == 1
            if not ok:
                continue
            if plus.parent is not None and plus.parent.type == "parenthesized_expression":
                plus = plus.parent  # (`alpha * (ab + ba)`: `alpha * ab`)
            rhs = [e.child_by_field_name("right") for e in walk(b.child_by_field_name("body"))
                   if e.type == "assignment_expression"]
            renamed = [span_text(src, r.start_byte, r.end_byte, [
                (x.start_byte, x.end_byte, va) for x in walk(r) if x.type == "identifier" and text(src, x) == vb
                and not (x.parent is not None and x.parent.type == "field_expression"
                         and x.parent.child_by_field_name("field") == x)]) for r in rhs]
            more = " + ".join(f"({t})" for t in renamed)
            body = a.child_by_field_name("body")
            new = "{ " + f"{lo} += " + " + ".join(f"({t})" for t in ua[1]) + f" + {more}; }}"
            return span_text(src, 0, len(src.data), [(body.start_byte, body.end_byte, new), (b.start_byte, b.end_byte, ""),
                                                      (plus.start_byte, plus.end_byte, lo)])
    return None


def _first_loop_edit(src_text: str, path: str, kernel: str, edit) -> str | None:
    """The text with the first edit(src, k, a, b) that applies to two `for` loops in a row of one block, or to one
    loop alone (b None, after the pairs of its block): (start, end, text), or None where it does not."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    for kids in _statement_lists(k):
        loops = [c for c in kids if c.type == "for_statement"]
        pairs = [(a, b) for a, b in zip(kids, kids[1:]) if a.type == b.type == "for_statement"]
        for a, b in pairs + [(a, None) for a in loops]:
            got = edit(src, k, a, b)
            if got is not None:  # (one substitution, or several)
                return span_text(src, 0, len(src.data), got if isinstance(got, list) else [got])
    return None


def _reroll_guarded(src: SourceFile, a):
    """`for (...; k < K; k += 4) { s += f(k); if (k + 1 < K) s += f(k + 1); ...; if (k + 3 < K) s += f(k + 3); }`
    (each later step guarded against the end, no remainder loop): `for (...; k < K; ++k) { s += f(k); }`, the same
    terms in the same order. Unguarded later steps too (`s += f(k); s += f(k + 1);` with `k += 2`): the same loop
    wherever the one as written stays in bounds (K a multiple of the step); past that it read beyond K."""
    step = _loop_step(src, a)
    body, upd = a.child_by_field_name("body"), a.child_by_field_name("update")
    if step is None or step[1] < 2 or body is None or body.type != "compound_statement" or upd is None:
        return None
    var, unroll = step
    cond = re.sub(r"\s+", "", text(src, a.child_by_field_name("condition")))
    m = re.fullmatch(rf"{var}<(.+)", cond)
    if m is None:
        return None
    end = m.group(1)
    stmts = [c for c in body.named_children if c.type != "comment"]
    if len(stmts) != unroll:
        return None
    init = a.child_by_field_name("initializer")
    if init is None or init.type != "declaration":  # a counter read after the loop would end elsewhere
        return None
    acc, want, left, first = None, None, set(range(unroll)), None
    guarded = any(st.type == "if_statement" for st in stmts)  # all later steps guarded, or none (K a multiple of
    for pos, st in enumerate(stmts):  # the step, as such a loop as written needs); one unguarded among guards: no
        u, inner = (0 if guarded else pos), st
        if st.type == "if_statement":
            if st.child_by_field_name("alternative") is not None:
                return None
            c = re.sub(r"\s+", "", text(src, st.child_by_field_name("condition")))
            g = re.fullmatch(rf"\(?{var}\+(\d+)<{re.escape(end)}\)?", c.strip("()")) or \
                re.fullmatch(rf"{var}\+(\d+)<{re.escape(end)}", c.strip("()"))
            if g is None or int(g.group(1)) == 0:
                return None
            u, inner = int(g.group(1)), st.child_by_field_name("consequence")
        upd_ = _sum_update(src, inner)
        if upd_ is None or len(upd_[1]) != 1 or acc not in (None, upd_[0]) or u != pos:  # steps in order: the
            return None  # same sums in the same order
        acc = upd_[0]
        read = _offset_read(upd_[1][0], var, u)
        if read is None or want not in (None, read):
            return None
        want = want or read
        left.discard(u)
        if u == 0:
            first = inner
    if left or first is None or stmts[0].start_byte != first.start_byte:
        return None
    if span_text(src, upd.end_byte, body.start_byte).strip() != ")":
        return None
    return upd.start_byte, body.end_byte, f"++{var}) {{ {text(src, first)} }}"


def _statement_lists(k):
    """The statements of each block of the kernel, comments left out."""
    for blk in walk(k.body):
        if blk.type == "compound_statement":
            yield [c for c in blk.named_children if c.type != "comment"]


def _loop_step(src: SourceFile, lp) -> tuple[str, int] | None:
    """(var, step) of `v += U`, `v++`, `++v`, `v = v + U`."""
    u = lp.child_by_field_name("update")
    t = re.sub(r"\s+", "", text(src, u)) if u is not None else ""
    m = re.fullmatch(r"(\w+)\+=(\d+)", t) or re.fullmatch(r"(\w+)=\1\+(\d+)", t)
    if m:
        return m.group(1), int(m.group(2))
    m = re.fullmatch(r"(\w+)\+\+|\+\+(\w+)", t)
    return ((m.group(1) or m.group(2)), 1) if m else None


def _sum_update(src: SourceFile, body) -> tuple[str, list[str]] | None:
    """(s, [terms]) of a body that only does `s += t0 + t1 ...;` (one or several such statements)."""
    stmts = [c for c in (body.named_children if body.type == "compound_statement" else [body]) if c.type != "comment"]
    acc, terms = None, []
    for st in stmts:
        e = st.named_children[0] if st.type == "expression_statement" and st.named_children else None
        if e is None or e.type != "assignment_expression" or text(src, e.child_by_field_name("operator")) != "+=":
            return None
        left = text(src, e.child_by_field_name("left"))
        if acc not in (None, left):
            return None
        acc = left
        terms += [text(src, unparen(t)) for t in _plus_terms(src, e.child_by_field_name("right"))]
    return (acc, terms) if acc else None


def _offset_read(t: str, var: str, u: int) -> str | None:
    """t with each `k + u` read as k; None where k appears otherwise (bare, with another offset, or where
    precedence would bind `+ u` to something else: `x * k + 1`, `k + 1 * N`)."""
    t = re.sub(r"\s+", "", t)
    if u:
        def one(m):
            before, after = t[:m.start()], t[m.end():]
            if m.group(0).startswith("("):
                return var
            if (before and before[-1] not in "[(+,=") or (after and after[0] in "*/%"):
                return "\0"
            return var
        got = re.sub(rf"\(\b{var}\+{u}\)|\b{var}\+{u}(?![\w.])", one, t)
        if "\0" in got or len(re.findall(rf"\b{var}\b", got)) != len(re.findall(rf"\b{var}\+{u}(?![\w.])", t)):
            return None
        t = got
    elif re.search(rf"\b{var}\+\d", t):
        return None
    return re.sub(r"\((\w+)\)", r"\1", t)


def _reroll(src: SourceFile, a, b):
    sa, sb = _loop_step(src, a), _loop_step(src, b)
    if sa is None or sb is None or sa[0] != sb[0] or sb[1] != 1 or sa[1] < 2 or b.child_by_field_name("initializer"):
        return None
    var, unroll = sa
    ca = re.sub(r"\s+", "", text(src, a.child_by_field_name("condition")))
    cb = re.sub(r"\s+", "", text(src, b.child_by_field_name("condition")))
    m = _unrolled_bound(ca, var)
    if m is None or m[0] != unroll - 1 or cb != f"{var}<{m[1]}":
        return None
    ua, ub = _sum_update(src, a.child_by_field_name("body")), _sum_update(src, b.child_by_field_name("body"))
    partials = _partial_sums(src, a, ub) if ua is None and ub is not None else None
    if partials is not None:  # `s0 += f(k); s1 += f(k + 1); ...`, the partial sums added up after the loops
        ua = (ub[0], [t for _, t in partials[0]])
    if ua is None or ub is None or ua[0] != ub[0] or len(ub[1]) != 1 or len(ua[1]) != unroll:
        return None

    bare = lambda t: t and re.sub(rf"\(({var})\)", r"\1", t)  # noqa: E731  (`B[(k) * N + c]` is `B[k*N+c]`)
    want = bare(_offset_read(ub[1][0], var, 0))
    left = set(range(unroll))
    for t in ua[1]:
        u = next((u for u in sorted(left) if want is not None and bare(_offset_read(t, var, u)) == want), None)
        if u is None:
            return None
        left.discard(u)
    init = a.child_by_field_name("initializer")
    keep = text(src, init).rstrip(";") + ";" if init is not None else ""
    if partials is not None:  # the sum of the partials read as the remainder's sum alone (the others stay zero)
        return [(a.start_byte, a.end_byte, keep), (partials[1].start_byte, partials[1].end_byte, ub[0])]
    return a.start_byte, a.end_byte, keep


def _unrolled_bound(cond: str, var: str) -> tuple[int, str] | None:
    """(d, E) of an unrolled loop's condition (spaces removed) that says `var + d < E`: also written `var + d + 1 <= E`,
    `var < E - d` or `var <= E - d - 1`."""
    for pat, less in ((rf"{var}\+(\d+)<(?!=)(.+)", 0), (rf"{var}\+(\d+)<=(.+)", 1)):
        m = re.fullmatch(pat, cond)
        if m:
            return int(m.group(1)) - less, m.group(2)
    for pat, less in ((rf"{var}<(?!=)(.+)-(\d+)", 0), (rf"{var}<=(.+)-(\d+)", 1)):
        m = re.fullmatch(pat, cond)
        if m and re.fullmatch(r"\w+", m.group(1)):  # (`k < K - 3`: E a name, so the - binds as written)
            return int(m.group(2)) - less, m.group(1)
    return None


def _partial_sums(src: SourceFile, a, ub):
    """([(partial sum, term)], the expression adding them up) where the unrolled loop's statements each add one term
    to its own partial sum (`s0 += f(k); s1 += f(k + 1);`), the remainder loop adds to one of them, each partial
    starts at zero, nothing else writes it, and the partials are read once, all together, in one sum of them alone
    (`(s0 + s1) + (s2 + s3)`); None otherwise."""
    body = a.child_by_field_name("body")
    stmts = [c for c in (body.named_children if body is not None and body.type == "compound_statement" else [])
             if c.type != "comment"]
    pairs = []
    for st in stmts:
        one = _sum_update(src, st)
        if one is None or len(one[1]) != 1:
            return None
        pairs.append((one[0], one[1][0]))
    accs = [p for p, _ in pairs]
    if len(set(accs)) != len(accs) or ub[0] not in accs or len(accs) < 2:
        return None
    scope = a.parent
    reads = [n for n in walk(scope) if n.type == "identifier" and text(src, n) in accs and n.start_byte >= a.end_byte
             and not (n.parent.type == "assignment_expression" and n == n.parent.child_by_field_name("left")
                      and text(src, n.parent.child_by_field_name("operator")) == "=")]
    others = [n for n in reads if text(src, n) != ub[0]]
    if len(others) != len(accs) - 1:
        return None
    top = others[0]  # the one `+` expression over exactly the partials
    while top.parent is not None and (top.parent.type == "parenthesized_expression" or (
            top.parent.type == "binary_expression" and text(src, top.parent.child_by_field_name("operator")) == "+")):
        top = top.parent
    leaves = [n for n in walk(top) if n.named_child_count == 0 and n.type not in ("(", ")", "+")]
    if sorted(text(src, n) for n in leaves) != sorted(accs) or any(n.type != "identifier" for n in leaves):
        return None
    b_loop = a.next_named_sibling
    while b_loop is not None and b_loop.type == "comment":
        b_loop = b_loop.next_named_sibling
    within = lambda n, x: x is not None and x.start_byte <= n.start_byte < x.end_byte  # noqa: E731
    for name in accs:
        writes = [w for nm, w in writes_in(src, scope) if nm == name]
        if name == ub[0]:  # the remainder's sum: written in the two loops alone, read after them in the sum alone
            if any(not (within(w, body) or within(w, b_loop)) for w in writes if w.start_byte >= a.start_byte) or any(
                    not within(n, top) and not within(n, b_loop) for n in reads if text(src, n) == name):
                return None
            continue
        decl = next((d for d in walk(scope) if d.type == "init_declarator"
                     and text(src, d.child_by_field_name("declarator")) == name), None)
        if len(writes) != 1 or not within(writes[0], body) or decl is None or \
                text(src, decl.child_by_field_name("value")).strip() not in _ZERO:
            return None
    return pairs, top


_PURE = {"fmaxf", "fminf", "fmax", "fmin", "max", "min", "fabsf", "fabs", "abs", "__ldg", "expf", "exp", "__expf",
         "logf", "log", "sqrtf", "sqrt", "rsqrtf", "tanhf", "fmaf", "fma", "__fmaf_rn", "__fadd_rn", "__fmul_rn",
         "__half2float", "__bfloat162float", "__float2half", "__float2bfloat16", "float", "double", "int"}


def _only_accumulates(src: SourceFile, lp: LoopInfo) -> bool:
    """Every statement of the loop's body updates one of its reductions (`s += e`, `s = s + e`, `m = fmaxf(m,
    e)`), nothing else is assigned or stepped (`x[j++]` walks a second index), and every call is pure math."""
    accs = {r.var for r in lp.reductions}
    for n in walk(lp.body):
        if n.type == "update_expression":
            return False
        if n.type == "assignment_expression":
            left = n.child_by_field_name("left")
            if left is None or left.type != "identifier" or text(src, left) not in accs:
                return False
        if n.type == "call_expression" and text(src, n.child_by_field_name("function")) not in _PURE:
            return False
    return True


def plain_memory_intrinsics(src_text: str, path: str, kernel: str) -> str | None:
    """Loads and stores through cache-hint intrinsics as plain accesses: `__ldg(&in[i])` -> `in[i]`,
    `__stcs(&out[j], v);` -> `out[j] = v;` (the hints only steer caching; the values are the same), so a copy
    reads as the copy it is. None if the kernel has none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    subs = []
    for n in walk(k.body):
        if any(s <= n.start_byte < e for s, e, _ in subs):
            continue  # (inside a store already written out)
        hinted = _hinted_access(src, n)
        if hinted is None:
            continue
        target, value = hinted
        if value is None:
            subs.append((n.start_byte, n.end_byte, f"({target})"))
        elif n.parent is not None and n.parent.type == "expression_statement":
            loads = [(m.start_byte, m.end_byte, f"({h[0]})") for m in walk(value)
                     if (h := _hinted_access(src, m)) is not None and h[1] is None]
            outer = [x for x in loads if not any(o[0] <= x[0] and x[1] <= o[1] and o != x for o in loads)]
            subs.append((n.start_byte, n.end_byte, f"{target} = {span_text(src, value.start_byte, value.end_byte, outer)}"))
    return span_text(src, 0, len(src.data), subs) if subs else None


def _hinted_access(src: SourceFile, n):
    """(the accessed element's text, the stored value node or None for a load) of `__ldg(&a[i])` or
    `__stcs(&a[i], v)`; None for anything else."""
    from kernelpro.profilers.analysis.affine import LOAD_INTRINSICS, STORE_INTRINSICS

    fn = n.child_by_field_name("function") if n.type == "call_expression" else None
    args = n.child_by_field_name("arguments").named_children if fn is not None else []
    name = text(src, fn) if fn is not None else ""
    ref = unparen(args[0]) if args else None
    if ref is None or ref.type != "pointer_expression" or not text(src, ref).startswith("&"):
        return None
    if name in LOAD_INTRINSICS and len(args) == 1:
        return text(src, ref.child_by_field_name("argument")), None
    if name in STORE_INTRINSICS and len(args) == 2:
        return text(src, ref.child_by_field_name("argument")), args[1]
    return None


_RN = {"__fadd_rn": "+", "__fsub_rn": "-", "__fmul_rn": "*", "__dadd_rn": "+", "__dsub_rn": "-", "__dmul_rn": "*",
       "__hadd": "+", "__hsub": "-", "__hmul": "*"}  # (half and bf16: what their operators call)


def plain_rn_arithmetic(src_text: str, path: str, kernel: str) -> str | None:
    """`__fadd_rn(s, __fmul_rn(a, b))` (round-to-nearest intrinsics, written to keep nvcc from contracting the
    product into an FMA) read as `(s + (a * b))`, the arithmetic the analyses read: each operation rounds the
    same way; only the FMA contraction the intrinsics forbade becomes allowed (a rounding difference within the
    tolerance, as a tiled rewrite's reordered sum is). Innermost calls first; None if the kernel has none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    for n in walk(k.body):
        fn = n.child_by_field_name("function") if n.type == "call_expression" else None
        args = n.child_by_field_name("arguments") if fn is not None else None
        if fn is None or text(src, fn) not in _RN or args is None or len(args.named_children) != 2:
            continue
        if any(c.type == "call_expression" and text(src, c.child_by_field_name("function")) in _RN
               for a in args.named_children for c in walk(a)):
            continue  # the inner call first
        a, b = (text(src, x) for x in args.named_children)
        return span_text(src, 0, len(src.data), [(n.start_byte, n.end_byte, f"(({a}) {_RN[text(src, fn)]} ({b}))")])
    return None


def split_lower_guards(src_text: str, path: str, kernel: str) -> str | None:
    """A guard with a lower bound beside the upper one, `if (i > 0 && i < n) body` (also `i >= 1`, `0 < i`, in
    any order, other conditions on i too), split into the upper bound outside and the rest inside:
    `if (i < n) { if (i > 0) body }`, the form the element-wise plans read (each element keeps its own test).
    Only for an `if` without `else` at the kernel's top level whose conditions call nothing. None if none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    for s in statements(k.body):
        got = _split_guard(src, s, lower_only=False)
        if got is None:
            continue
        upper, rest = got
        then = s.child_by_field_name("consequence")
        inner = " && ".join(f"({text(src, p)})" for p in rest)
        body = span_text(src, then.start_byte, then.end_byte)
        return span_text(src, 0, len(src.data), [(s.start_byte, s.end_byte,
                                                  f"if ({text(src, upper)}) {{ if ({inner}) {body} }}")])
    return None


def lower_guard_to_stores(src_text: str, path: str, kernel: str) -> str | None:
    """A thread-per-column sum guarded by a lower bound beside the upper one, `if (j > 0 && j < N) { float t =
    0; for (i...) t += A[i * N + j]; s[j] = t; }`: the sum run for every j < N and the lower bound kept on what
    follows it, `if (j < N) { float t = 0; for (...) ...; if ((j > 0)) { s[j] = t; } }` (the column split's
    form). Only where the loop reads memory alone, at indices whose constant part is >= 0 and whose other terms
    are products of indices and sizes (so a column the bound left out reads in bounds too), and the statements
    before the loop only declare. None if none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    from kernelpro.profilers.analysis.affine import build_env, global_accesses

    for s in statements(k.body):
        got = _split_guard(src, s, lower_only=True)
        if got is None:
            continue
        upper, rest = got
        body = statements(s.child_by_field_name("consequence"))
        loops = [i for i, b in enumerate(body) if b.type == "for_statement"]
        if len(loops) != 1 or any(b.type != "declaration" for b in body[:loops[0]]) or not body[loops[0] + 1:]:
            continue
        lp = body[loops[0]]
        accs = [a for a in global_accesses(build_env(src, k), include_unknown=True)
                if lp.start_byte <= a.node.start_byte < lp.end_byte]
        if not accs or any(a.is_write or a.index is None or a.index.get((), 0) < 0 or any(
                c < 0 for m, c in a.index.items() if m) for a in accs):
            continue
        rest = " && ".join(f"({text(src, p)})" for p in rest)
        after = span_text(src, body[loops[0] + 1].start_byte, body[-1].end_byte)
        head = span_text(src, body[0].start_byte, lp.end_byte)
        ind = line_indent(src, lp)
        return span_text(src, 0, len(src.data), [(s.start_byte, s.end_byte,
                                                  f"if ({text(src, upper)}) {{\n{ind}{head}\n{ind}if ({rest}) {{\n"
                                                  f"{ind}  {after}\n{ind}}}\n{line_indent(src, s)}}}")])
    return None


def _split_guard(src: SourceFile, s, lower_only: bool):
    """(the upper bound `v < E`, the other conditions) of a top-level `if` without `else` whose condition is a
    conjunction of plain comparisons, one of them the only upper bound of v and the others mentioning v (with
    lower_only, each a lower bound of v); else None."""
    if s.type != "if_statement" or s.child_by_field_name("alternative") is not None:
        return None
    parts = operands(s.child_by_field_name("condition"))
    if len(parts) < 2 or any(n.type in ("call_expression", "assignment_expression", "update_expression")
                             for p in parts for n in walk(p)):
        return None
    upper = [p for p in parts if _upper_bound_of(src, p)]
    if len(upper) != 1:
        return None
    v = _upper_bound_of(src, upper[0])
    rest = [p for p in parts if p is not upper[0]]
    if lower_only and not all(_lower_bound_on(src, p, v) for p in rest):
        return None  # (only lower bounds of the same index move: `threadIdx.x == 0 &&` is another matter)
    if not any(n.type == "identifier" and text(src, n) == v for p in rest for n in walk(p)):
        return None  # (no bound on the same index: nothing to split)
    return upper[0], rest


def _lower_bound_on(src: SourceFile, c, v: str) -> bool:
    """c is `v > E`, `v >= E`, `E < v` or `E <= v`, E not reading v."""
    if c is None or c.type != "binary_expression":
        return False
    op, left, right = text(src, c.child_by_field_name("operator")), unparen(c.child_by_field_name("left")), \
        unparen(c.child_by_field_name("right"))
    if op in (">", ">=") and text(src, left) == v:
        other = right
    elif op in ("<", "<=") and text(src, right) == v:
        other = left
    else:
        return False
    return not any(n.type == "identifier" and text(src, n) == v for n in walk(other))


def _upper_bound_of(src: SourceFile, c) -> str | None:
    """v of `v < E` (or `E > v`), v a plain name."""
    if c is None or c.type != "binary_expression":
        return None
    op, left, right = text(src, c.child_by_field_name("operator")), unparen(c.child_by_field_name("left")), \
        unparen(c.child_by_field_name("right"))
    if op == "<" and left.type == "identifier":
        return text(src, left)
    if op == ">" and right.type == "identifier":
        return text(src, right)
    return None


def break_to_bound(src_text: str, path: str, kernel: str) -> str | None:
    """`for (k = S; k < E; ++k) { if (k > X) break; ... }` (a causal mask as a break) read as the loop with its
    bound, `for (k = S; k <= X; ++k) { ... }`, where X < E is known (an early `if (X >= E ...) return;` before
    the loop or an enclosing `if (X < E && ...)`) and X is not written in the loop: the same iterations run.
    `k >= X` gives `k < X` (X <= E known). None if there is no such loop."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    flip = {">": "<", ">=": "<=", "<": ">", "<=": ">="}
    for lp in analyze_kernel(src, k).loops:
        f = lp.node
        body = f.child_by_field_name("body") if f.type == "for_statement" else None
        if body is None or body.type != "compound_statement" or lp.var is None or lp.step != 1 or lp.cmp != "<" \
                or lp.bound is None or not body.named_children:
            continue
        first = body.named_children[0]
        if first.type != "if_statement" or first.child_by_field_name("alternative") is not None:
            continue
        then = first.child_by_field_name("consequence")
        if then is None or [c.type for c in (then.named_children if then.type == "compound_statement" else [then])] \
                != ["break_statement"]:
            continue
        c = unparen(first.child_by_field_name("condition"))
        if c is None or c.type != "binary_expression":
            continue
        op, left, right = text(src, c.child_by_field_name("operator")), c.child_by_field_name("left"), \
            c.child_by_field_name("right")
        if text(src, left) != lp.var:
            if text(src, right) != lp.var or op not in flip:
                continue
            op, right = flip[op], left
        if op not in (">", ">=") or any(n.type == "identifier" and text(src, n) in _writes_scalars(src, [body]) | {lp.var}
                                        for n in walk(right)) or any(n.type == "call_expression" for n in walk(right)):
            continue
        x, e = text(src, right), text(src, lp.bound)
        if not _known_below(src, k, f, x, e, strict=op == ">"):
            continue
        cond = f.child_by_field_name("condition")
        new_cond = f"{lp.var} <= {x}" if op == ">" else f"{lp.var} < {x}"
        return span_text(src, 0, len(src.data), [(cond.start_byte, cond.end_byte, new_cond), _whole_lines(src, first)])
    return None


def _known_below(src: SourceFile, k, loop, x: str, e: str, strict: bool) -> bool:
    """x < e (strict) or x <= e holds at the loop: an early return on the negation before it, or an enclosing `if`."""
    norm = lambda t: re.sub(r"\s+", "", t)  # noqa: E731
    want_ret = {f"{x}>={e}", f"{e}<={x}"} if strict else {f"{x}>{e}", f"{e}<{x}"}
    want_if = {f"{x}<{e}", f"{e}>{x}"} if strict else {f"{x}<={e}", f"{e}>={x}", f"{x}<{e}", f"{e}>{x}"}
    for n in walk(k.body):
        if n.type != "if_statement" or n.start_byte >= loop.start_byte:
            continue
        cond = unparen(n.child_by_field_name("condition"))
        then = n.child_by_field_name("consequence")
        if n.end_byte < loop.start_byte and then is not None and (then.type == "return_statement" or (
                then.type == "compound_statement" and [c.type for c in then.named_children] == ["return_statement"])):
            if want_ret & {norm(text(src, q)) for q in operands(cond, "||")}:
                return True
        elif n.start_byte < loop.start_byte and loop.end_byte <= n.end_byte and then is not None \
                and then.start_byte <= loop.start_byte and loop.end_byte <= then.end_byte:
            if want_if & {norm(text(src, q)) for q in operands(cond)}:
                return True
    return False


def ascending_sum_loops(src_text: str, path: str, kernel: str) -> str | None:
    """A counted loop run backwards, `for (int k = K - 1; k >= 0; --k) s += a[..k..] * b[..k..];`, whose
    iterations meet only in sums, maxima or minima (nothing else carried, no memory linking them, no break,
    return, barrier or call), read as the same loop forwards, `for (int k = 0; k <= K - 1; ++k)`, the loop the
    analyses read. A sum of floats is then added in the other order (a rounding difference within the tolerance
    of that reduction length, as any tiled rewrite's order is); integer sums are the same. None if none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    for lp in analyze_kernel(src, k).loops:
        f = lp.node
        if f.type != "for_statement" or lp.var is None or not lp.declared_in_header or lp.step != -1 \
                or lp.cmp not in (">=", ">") or lp.start is None or lp.bound is None:
            continue
        if not lp.reductions or lp.carried or lp.memory_deps or lp.escapes \
                or any(r.op not in (SUM, MAX, MIN) for r in lp.reductions) or not _only_accumulates(src, lp):
            continue
        accs = {r.var for r in lp.reductions}
        if any(n.type == "call_expression" or (n.type == "identifier" and text(src, n) in accs)
               for end in (lp.start, lp.bound) for n in walk(end)):
            continue  # (the ends are evaluated at the other moment now: nothing they read may change)
        t = lp.var_type or "int"
        first = text(src, lp.bound) if lp.cmp == ">=" else f"({text(src, lp.bound)}) + 1"
        # (the old start in the loop's type: `n - 1` of an unsigned n = 0 is -1 there, no iteration, as before)
        header = f"for ({t} {lp.var} = {first}; {lp.var} <= ({t})({text(src, lp.start)}); ++{lp.var}) "
        return span_text(src, 0, len(src.data), [(f.start_byte, f.child_by_field_name("body").start_byte, header)])
    return None


def counter_into_header(src_text: str, path: str, kernel: str) -> str | None:
    """`int k = 0;` then `for (; k < K; ++k)`, k not read after the loop: `for (int k = 0; k < K; ++k)`, the
    loop the analyses read (what a remainder loop left alone by reroll_loops looks like). None if none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    for kids in _statement_lists(k):
        for i, (d, lp) in enumerate(zip(kids, kids[1:])):
            if d.type != "declaration" or lp.type != "for_statement" or lp.child_by_field_name("initializer"):
                continue
            decs = d.children_by_field_name("declarator")
            if len(decs) != 1 or decs[0].type != "init_declarator":
                continue
            v = text(src, decs[0].child_by_field_name("declarator"))
            step = _loop_step(src, lp)
            if step is None or step[0] != v or any(n.type == "identifier" and text(src, n) == v
                                                   for later in kids[i + 2:] for n in walk(later)):
                continue
            cond = lp.child_by_field_name("condition")
            return span_text(src, 0, len(src.data), [(d.start_byte, cond.start_byte,
                                                      f"for ({text(src, d).rstrip(';').strip()}; ")])
    return None


def static_shared_regions(src_text: str, path: str, kernel: str, dynamic_bytes: int | None) -> str | None:
    """Dynamic shared memory cut into arrays by pointers, `extern __shared__ float smem[]; float* As = smem;
    float* Bs = smem + T * T;` (offsets constants of the source), read as the static arrays they are,
    `__shared__ float As[T * T]; __shared__ float Bs[...]` (the last one to the launch's `dynamic_bytes`), so
    the tile loop reads as staged arrays. None where smem is read otherwise or an offset is not a constant."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None or not dynamic_bytes:
        return None
    ext = next((d for d in walk(k.body) if d.type == "declaration" and "extern" in text(src, d)
                and "__shared__" in text(src, d)), None)
    if ext is None or len(ext.children_by_field_name("declarator")) != 1:
        return None
    arr = ext.child_by_field_name("declarator")
    if arr.type != "array_declarator" or arr.child_by_field_name("size") is not None:
        return None
    name, ty = text(src, arr.child_by_field_name("declarator")), text(src, ext.child_by_field_name("type"))
    size = table_for(src).bytes(ty)
    regions = []  # (offset, alias, its declaration)
    for d in walk(k.body):
        if d.type != "declaration" or d == ext:
            continue
        for dec in d.children_by_field_name("declarator"):
            if dec.type != "init_declarator" or dec.child_by_field_name("declarator").type != "pointer_declarator":
                continue
            v = unparen(dec.child_by_field_name("value"))
            off = None
            if v is not None and v.type == "identifier" and text(src, v) == name:
                off = 0
            elif v is not None and v.type == "binary_expression" and text(src, v.child_by_field_name("operator")) == "+" \
                    and text(src, unparen(v.child_by_field_name("left"))) == name:
                off = src.eval_int(v.child_by_field_name("right"))
            elif v is not None and v.type == "pointer_expression" and text(src, v).startswith("&"):
                sub = unparen(v.child_by_field_name("argument"))
                if sub is not None and sub.type == "subscript_expression" and \
                        text(src, sub.child_by_field_name("argument")) == name:
                    off = src.eval_int(subscript_index(sub))
            if off is None:
                continue
            if len(d.children_by_field_name("declarator")) != 1 or text(src, d.child_by_field_name("type")) != ty:
                return None
            alias = text(src, dec.child_by_field_name("declarator").child_by_field_name("declarator"))
            regions.append((off, alias, d))
    if not regions or size is None:
        return None
    aliases = {a for _, a, _ in regions}
    if _reassigned(src, k, list(aliases) + [name]):
        return None
    decls = {d for _, _, d in regions}
    for n in walk(k.body):  # smem itself read elsewhere: the regions might overlap its other uses
        if n.type == "identifier" and text(src, n) == name and not any(d.start_byte <= n.start_byte < d.end_byte
                                                                        for d in decls | {ext}):
            return None
    regions.sort()
    ends = [o for o, _, _ in regions[1:]] + [dynamic_bytes // size]
    if any(e <= o for (o, _, _), e in zip(regions, ends)):
        return None
    subs = [(d.start_byte, d.end_byte, "") for d in decls]
    subs.append((ext.start_byte, ext.end_byte,
                 " ".join(f"__shared__ {ty} {a}[{e - o}];" for (o, a, _), e in zip(regions, ends))))
    return span_text(src, 0, len(src.data), subs)


def unshare_preloads(src_text: str, path: str, kernel: str) -> str | None:
    """A shared array filled by the block from global memory and then only read, `for (i = threadIdx.x; i < K;
    i += blockDim.x) s[i] = A[f(i)]; __syncthreads();`, read from global memory where it is read (`s[e]` as
    `A[f(e)]`): the fill loop, its barrier and the array go, so the plans see the access the cache stood for
    (they stage it again their own way). Only where A is not written in the kernel, s is written by that loop
    alone, the barrier directly follows it and no other shared memory needs it. None if there is none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    shared = [d for d in walk(k.body) if d.type == "declaration" and "__shared__" in text(src, d)]
    if len(shared) != 1 or len(shared[0].children_by_field_name("declarator")) != 1:
        return None
    dec = shared[0].child_by_field_name("declarator")
    while dec is not None and dec.type == "array_declarator":
        dec = dec.child_by_field_name("declarator")
    if dec is None or dec.type != "identifier":
        return None
    name = text(src, dec)
    for kids in _statement_lists(k):
        for lp, bar in zip(kids, kids[1:]):
            if lp.type != "for_statement" or text(src, bar).replace(" ", "") != "__syncthreads();":
                continue
            step = text(src, lp.child_by_field_name("update") or lp).replace(" ", "")
            init = lp.child_by_field_name("initializer")
            body = lp.child_by_field_name("body")
            stmts = [c for c in (body.named_children if body.type == "compound_statement" else [body])
                     if c.type != "comment"]
            e = stmts[0].named_children[0] if len(stmts) == 1 and stmts[0].named_children else None
            var = text(src, init).split("=")[0].split()[-1] if init is not None and "=" in text(src, init) else ""
            start = text(src, init).split("=", 1)[1].strip(" ;") if var else ""
            if start != "threadIdx.x" or step not in (f"{var}+=blockDim.x", f"{var}={var}+blockDim.x") \
                    or e is None or e.type != "assignment_expression" or text(src, e.child_by_field_name("operator")) != "=":
                continue
            left, right = unparen(e.child_by_field_name("left")), unparen(e.child_by_field_name("right"))
            if left.type != "subscript_expression" or text(src, left.child_by_field_name("argument")) != name \
                    or _index_text(src, left) != var or right.type != "subscript_expression":
                continue
            arr = text(src, right.child_by_field_name("argument"))
            if _reassigned(src, k, [arr]) or any(  # the cache written elsewhere, or the array it copies
                    n.type == "assignment_expression" and n != e and text(src, unparen(n.child_by_field_name("left")))
                    .startswith((name + "[", arr + "[")) for n in walk(k.body)):
                continue
            idx = _index_text(src, right)
            if idx is None or _reassigned(src, k, sorted(set(re.findall(r"[A-Za-z_]\w*", idx)) - {var})):
                continue  # the copied index's names must mean the same where the cache is read
            subs = [(shared[0].start_byte, shared[0].end_byte, ""), (lp.start_byte, bar.end_byte, "")]
            for n in walk(k.body):
                if n.type == "subscript_expression" and text(src, n.child_by_field_name("argument")) == name \
                        and not (lp.start_byte <= n.start_byte < lp.end_byte):
                    at = _index_text(src, n)
                    moved = re.sub(r"\b" + re.escape(var) + r"\b", lambda m, at=at: f"({at})", idx)
                    subs.append((n.start_byte, n.end_byte, f"{arr}[{moved}]"))
            if "__syncthreads" in text(src, k.body)[bar.end_byte - k.body.start_byte:]:
                continue  # another barrier needs the block together: left as written
            return span_text(src, 0, len(src.data), subs)
    return None


def sums_into_locals(src_text: str, path: str, kernel: str) -> str | None:
    """A row of outputs zeroed in global memory and accumulated there over an outer loop (llm.c's
    attention_value_kernel1):

        for (int i = 0; i < n; i++) { out[i] = 0.0f; }
        for (int k = 0; k < K; k++) { const float a = x[k]; for (int i = 0; i < n; i++) { out[i] += a * y[k * n + i]; } }

    becomes one sum per output in a local, the output loop outside the k loop:

        for (int i = 0; i < n; i++) { float kp_sum = 0.0f; for (int k = 0; k < K; k++) { const float a = x[k];
            kp_sum += a * y[k * n + i]; } out[i] = kp_sum; }

    Each output gets the same terms in the same order, rounded to the element's type at every step as before.
    Only where the k loop's other statements are declarations, the inner loop is its last statement with the same
    bound, and nothing in the k loop reads the output's array (its root parameter read nowhere else in there).
    None if there is no such pair."""
    return _first_loop_edit(src_text, path, kernel, lambda src, k, a, b: _sink_output_loop(src, k, a, b)
                            if b is not None else None)


def _count_loop(src: SourceFile, lp) -> tuple[str, str] | None:
    """(i, n) of `for (int i = 0; i < n; i++)` (++i, i += 1)."""
    init, cond = lp.child_by_field_name("initializer"), lp.child_by_field_name("condition")
    if init is None or cond is None or _loop_step(src, lp) is None or _loop_step(src, lp)[1] != 1:
        return None
    m = re.fullmatch(r"(?:int|long|long long|unsigned|size_t|unsigned int)\s+(\w+)\s*=\s*0\s*;?", text(src, init).strip())
    c = re.fullmatch(r"\(?\s*(\w+)\s*<\s*(.+?)\s*\)?", text(src, cond).strip())
    if m is None or c is None or c.group(1) != m.group(1) or _loop_step(src, lp)[0] != m.group(1):
        return None
    return m.group(1), re.sub(r"\s+", " ", c.group(2))


def _only_statement(body):
    stmts = [c for c in (body.named_children if body.type == "compound_statement" else [body]) if c.type != "comment"]
    return stmts[0] if len(stmts) == 1 else None


def _element_store(src: SourceFile, st, op: str):
    """(array text, index node, value node) of `A[idx] op value;`."""
    got = _store(src, st) if st is not None else None
    if got is None or got[2] != op:
        return None
    left, value, _ = got
    return text(src, left.child_by_field_name("argument")), left.child_by_field_name("indices"), value


def _root_param(src: SourceFile, k, name: str, depth: int = 0) -> str | None:
    """The pointer parameter a local pointer is taken from (`float* p = out + b * n;` -> out)."""
    if k.param(name) is not None:
        return name
    if depth > 4:
        return None
    d = next((x for x in walk(k.body) if x.type == "init_declarator"
              and text(src, x.child_by_field_name("declarator")).lstrip("*").strip() == name), None)
    v = d.child_by_field_name("value") if d is not None else None
    if v is None:
        return None
    roots = {r for n in walk(v) if n.type == "identifier"
             for r in [_root_param(src, k, text(src, n), depth + 1)]
             if r is not None and k.param(r) is not None and k.param(r).is_pointer}
    return roots.pop() if len(roots) == 1 else None


def _sink_output_loop(src: SourceFile, k, init_loop, kloop):
    head = _count_loop(src, init_loop)
    zero = _element_store(src, _only_statement(init_loop.child_by_field_name("body")), "=")
    if head is None or zero is None or text(src, zero[2]).strip() not in ("0", "0.0", "0.f", "0.0f", "0.0F", "0.F"):
        return None
    i, n = head
    arr, idx0, _ = zero
    body = kloop.child_by_field_name("body")
    if body is None or body.type != "compound_statement":
        return None
    # the k loop runs again for every output: its counter declared in its header (from a value that does not move),
    # stepped alone, and not the output loop's name; nothing in it declares that name again
    kinit, kupd = kloop.child_by_field_name("initializer"), kloop.child_by_field_name("update")
    kvar = _loop_step(src, kloop)
    if kinit is None or kinit.type != "declaration" or kupd is None or kupd.type == "comma_expression" \
            or kvar is None or kvar[0] == i \
            or re.fullmatch(rf"[\w\s:<>*]+\b{kvar[0]}\s*=\s*[^,]+", text(src, kinit).strip().rstrip(";")) is None \
            or _writes_scalars(src, [kinit.child_by_field_name("declarator").child_by_field_name("value")]):
        return None
    stmts = [c for c in body.named_children if c.type != "comment"]
    if not stmts or stmts[-1].type != "for_statement" or any(s.type != "declaration" for s in stmts[:-1]):
        return None
    inner = stmts[-1]
    if any(i in declared_names(src, st) for st in stmts[:-1]):  # the output's counter hidden inside: refused
        return None
    ih = _count_loop(src, inner)
    acc = _element_store(src, _only_statement(inner.child_by_field_name("body")), "+=")
    if ih is None or acc is None or ih[1] != n or acc[0] != arr:
        return None
    j = ih[0]
    # the same element: the store's index with the inner counter read as the outer one
    same = lambda node, var: re.sub(rf"\b{var}\b", "\0", re.sub(r"\s+", "", text(src, node)))  # noqa: E731
    if same(idx0, i) != same(acc[1], j):
        return None
    root = _root_param(src, k, re.sub(r"\s+", "", arr))
    if root is None:
        return None
    for s in stmts[:-1] + [acc[2]]:  # the output's array is not read, and the bound not changed, in the k loop
        for nd in walk(s):
            if nd.type == "identifier" and _root_param(src, k, text(src, nd)) == root:
                return None
    if _writes_scalars(src, [kloop]) & set(re.findall(r"[A-Za-z_]\w*", n)):
        return None
    ctype = _pointee(src, k, root)  # the element's type: each step rounded to it, as the stores did
    if not ctype:
        return None
    ind = line_indent(src, init_loop)
    one = ind + "    "
    value = span_text(src, acc[2].start_byte, acc[2].end_byte, ident_subs(src, acc[2], j, i))
    decls = "".join(f"{one}    {text(src, s)}\n" for s in stmts[:-1])
    header = span_text(src, kloop.start_byte, body.start_byte).rstrip()
    idx = text(src, idx0)
    new = (f"for (int {i} = 0; {i} < {n}; {i}++) {{  // kernelpro: one sum per output, kept in a local\n"
           f"{one}{ctype} kp_sum = ({ctype})0;\n"
           f"{one}{header} {{\n{decls}{one}    kp_sum += {value};\n{one}}}\n"
           f"{one}{arr}{idx} = kp_sum;\n{ind}}}")
    return init_loop.start_byte, kloop.end_byte, new


def _pointee(src: SourceFile, k, name: str) -> str | None:
    p = k.param(name)
    return p.base_type if p is not None else None


_THREAD_COORD = re.compile(r"(?:blockIdx\.([xyz])\*blockDim\.\1\+threadIdx\.\1|threadIdx\.([xyz])\+blockIdx\.\2\*blockDim\.\2"
                           r"|blockDim\.([xyz])\*blockIdx\.\3\+threadIdx\.\3|threadIdx\.([xyz])\+blockDim\.\4\*blockIdx\.\4)")


def _int_type(src: SourceFile, k, name: str) -> bool | None:
    """Whether the name is an `int` or `unsigned` scalar (a parameter or a local); None where unknown (a macro)."""
    got = local_types(src, k).get(name)
    return None if got is None else got[0] in _INT_NAMES and not got[1]


_INT_NAMES = {"int", "unsigned", "unsigned int", "signed", "signed int"}


def ternary_min_max(src_text: str, path: str, kernel: str) -> str | None:
    """`((a) >= (b) ? (a) : (b))` (a MAX or MIN macro expanded, `a > b ? a : b`, `a < b ? b : a`) written `max(a, b)`
    or `min(a, b)` where a and b are index arithmetic: no loads, calls, assignments or floating-point literals (for
    those, NaN and signed zeros make the two differ). None if none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    flat = lambda n: re.sub(r"\s", "", text(src, unparen(n)))  # noqa: E731  (inner parentheses kept)
    names = {text(src, x) for x in walk(k.node) if x.type == "identifier" and not called(src, x)}
    if names & {"max", "min"}:
        return None
    subs = []
    for n in walk(k.body):
        if n.type != "conditional_expression" or any(a <= n.start_byte < b for a, b, _ in subs) or \
                any(x.type == "conditional_expression" for x in walk(n) if x != n):
            continue  # (a nested one first: the next call takes the outer)
        c = unparen(n.child_by_field_name("condition"))
        if c is None or c.type != "binary_expression" or text(src, c.child_by_field_name("operator")) not in (
                ">", ">=", "<", "<="):
            continue
        left, right = unparen(c.child_by_field_name("left")), unparen(c.child_by_field_name("right"))
        yes, no = unparen(n.child_by_field_name("consequence")), unparen(n.child_by_field_name("alternative"))
        if any(x.type in ("subscript_expression", "assignment_expression", "update_expression",
                          "pointer_expression", "field_expression", "sizeof_expression", "cast_expression") or
               (x.type == "call_expression" and text(src, x.child_by_field_name("function")) not in ("min", "max")) or
               (x.type == "number_literal" and re.search(r"[.eEfFlL]", text(src, x))) or
               (x.type == "identifier" and _int_type(src, k, text(src, x)) is False)
               for side in (left, right) for x in walk(side)):
            continue  # (int and unsigned only: CUDA's max of size_t and int is ambiguous, of floats drops NaN)
        greater = text(src, c.child_by_field_name("operator"))[0] == ">"
        if (flat(yes), flat(no)) == (flat(left), flat(right)):
            fn = "max" if greater else "min"
        elif (flat(yes), flat(no)) == (flat(right), flat(left)):
            fn = "min" if greater else "max"
        else:
            continue
        subs.append((n.start_byte, n.end_byte, f"{fn}({text(src, left)}, {text(src, right)})"))
    return span_text(src, 0, len(src.data), subs) if subs else None


def clamped_neighbours(src_text: str, path: str, kernel: str) -> str | None:
    """Neighbours clamped at the edges read as fixed neighbours under a condition (Rodinia's hotspot and srad):

        int N = (r == 0) ? idx : idx - cols;   ... t[N]          ->  ((r == 0) ? t[idx] : t[idx - cols])
        int iN = max(i - 1, 0);                 ... J[iN * n + j] ->  ((i > 0) ? J[(i - 1) * n + j] : J[(i) * n + j])

    `max(i - 1, 0)` is `i > 0 ? i - 1 : i` and `min(i + 1, R - 1)` is `i < R - 1 ? i + 1 : i` for a thread's
    coordinate i (never negative) under a guard `i < R` (or an early return on `i >= R`): an edge clamps to the
    point itself. A load through a local defined once as `c ? a : b` (nothing it reads assigned again) becomes
    the choice between the two loads, each evaluated only where it is chosen, as before. None if none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    assigned = _writes_scalars(src, [k.body])
    decls = {}
    for d in walk(k.body):
        if d.type == "init_declarator" and d.child_by_field_name("declarator").type == "identifier":
            decls.setdefault(text(src, d.child_by_field_name("declarator")), []).append(d)
    once = {n: ds[0] for n, ds in decls.items() if len(ds) == 1 and n not in assigned}
    subs = []
    for name, d in once.items():  # the clamps, where the coordinate is one and guarded (the value, or a part of it:
        # `grid_cols * max(yidx - 1, 0) + xidx`)
        for v in [x for x in walk(d.child_by_field_name("value")) if x.type == "call_expression"]:
            if any(a <= v.start_byte < b for a, b, _ in subs) or _inside_min_max(src, v, d):
                continue  # (a clamp inside another min or max: the outer call is read whole, both sides or none)
            choice = _clamp_choice(src, k, v, once, d)
            if choice is not None:
                subs.append((v.start_byte, v.end_byte, choice))
    if subs:
        return span_text(src, 0, len(src.data), subs)
    ptrs = {p.name for p in k.params if p.is_pointer}
    for n in walk(k.body):  # loads through a chosen index
        if n.type != "subscript_expression" or text(src, n.child_by_field_name("argument")) not in ptrs:
            continue
        parent = n.parent
        if parent is not None and parent.type in ("assignment_expression", "update_expression") and (
                parent.child_by_field_name("left") == n or parent.child_by_field_name("argument") == n):
            continue  # a store: left as it is
        if parent is not None and parent.type == "pointer_expression":
            continue  # &a[i]
        idx = n.child_by_field_name("indices")
        idx = idx.named_children[0] if idx is not None and idx.type != "number_literal" and idx.named_children else idx
        if idx is None:
            continue
        for ident in walk(idx):
            name = text(src, ident) if ident.type == "identifier" else None
            d = once.get(name)
            whole = unparen(d.child_by_field_name("value")) if d is not None else None
            conds = [x for x in walk(whole) if x.type == "conditional_expression"] if whole is not None else []
            if len(conds) != 1:
                continue
            v = conds[0]  # (the value itself, or one part of it: `grid_cols * (y > 0 ? y - 1 : y) + x`)
            reads = {text(src, x) for x in walk(whole) if x.type == "identifier"}
            if reads & assigned or any(x.type in ("call_expression", "subscript_expression") for x in walk(whole)) \
                    or any(len(decls.get(r, ())) > 1 for r in reads):  # a name declared again could be hidden there
                continue
            c, a, b = (v.child_by_field_name(f) for f in ("condition", "consequence", "alternative"))
            arr = text(src, n.child_by_field_name("argument"))

            def load(alt, ident=ident, idx=idx, whole=whole, v=v):
                value = f"({text(src, alt)})" if v == whole else "(" + span_text(
                    src, whole.start_byte, whole.end_byte, [(v.start_byte, v.end_byte, f"({text(src, alt)})")]) + ")"
                return f"{arr}[{span_text(src, idx.start_byte, idx.end_byte, ident_subs(src, idx, text(src, ident), value))}]"
            subs.append((n.start_byte, n.end_byte, f"({text(src, unparen(c))} ? {load(a)} : {load(b)})"))
            break
    return span_text(src, 0, len(src.data), subs) if subs else None


def _clamp_choice(src: SourceFile, k, v, once: dict, decl) -> str | None:
    """`i > 0 ? i - 1 : i` for `max(i - 1, 0)`, `i < R - 1 ? i + 1 : i` for `min(i + 1, R - 1)` (either argument
    order), i a thread's coordinate guarded by `i < R`; None otherwise."""
    if v is None or v.type != "call_expression":
        return None
    fn = text(src, v.child_by_field_name("function"))
    args = [unparen(a) for a in v.child_by_field_name("arguments").named_children if a.type != "comment"]
    if fn not in ("max", "min", "::max", "::min", "std::max", "std::min") or len(args) != 2:
        return None
    both = _clamped_both_sides(src, k, fn, args, once, decl)
    if both is not None:
        return both
    flat = [re.sub(r"\s+", "", text(src, a)) for a in args]
    for near, edge in ((flat[0], flat[1]), (flat[1], flat[0])):
        m = re.fullmatch(r"(\w+)([+-])1", near)
        if m is None or m.group(1) not in once:
            continue
        i = m.group(1)
        if not _signed(src, once[i]) or not _nonneg_coord(src, k, once[i]):
            continue  # (an unsigned `i - 1` wraps at 0: `max` picks it, not 0)
        if fn.endswith("max") and m.group(2) == "-" and edge == "0":
            return f"({i} > 0 ? {i} - 1 : {i})"
        if fn.endswith("min") and m.group(2) == "+":
            r = re.fullmatch(r"(.+)-1", edge)
            if r is not None and _guarded_below(src, k, i, r.group(1), decl):
                return f"({i} < {text(src, args[flat.index(edge)])} ? {i} + 1 : {i})"
    return None


def _inside_min_max(src: SourceFile, v, decl) -> bool:
    """v sits inside a min or max call of the declaration's value."""
    p = v.parent
    while p is not None and p != decl:
        if p.type == "call_expression" and re.sub(r"^(::|std::)", "", text(src, p.child_by_field_name("function"))) in (
                "min", "max"):
            return True
        p = p.parent
    return False


def _nonneg_coord(src: SourceFile, k, decl) -> bool:
    """The local `decl` declares is a thread's coordinate, never negative: block and thread indices (and block
    sizes) times non-negative constants, summed (`blockIdx.x * blockDim.x + threadIdx.x`, `BLOCK_SIZE * bx + tx`
    with `bx = blockIdx.x`)."""
    from kernelpro.profilers.analysis.affine import build_env

    p = build_env(src, k).poly(decl.child_by_field_name("value"))
    if not p or any(c < 0 for c in p.values()):
        return False
    return all(a.split(".")[0] in ("blockIdx", "threadIdx", "blockDim") for m in p for a in m) and \
        any(a.startswith("threadIdx.") for m in p for a in m)


def _signed(src: SourceFile, decl) -> bool:
    """The local `decl` declares is of a signed integer type (`int`, `long`), not `unsigned` or `size_t`."""
    d = decl.parent
    t = text(src, d.child_by_field_name("type")) if d is not None and d.child_by_field_name("type") is not None else ""
    return not re.search(r"\bunsigned\b|\bsize_t\b|\buint\w*", t)


def _clamped_both_sides(src: SourceFile, k, fn: str, args: list, once: dict, decl) -> str | None:
    """`min(max(i + d, 0), R - 1)` (or `max(min(i + d, R - 1), 0)`), i a guarded thread coordinate (0 <= i < R)
    and d -1, 0 or 1 (a clamp-to-edge image filter's taps once unrolled): only one side can bind, so it is
    `max(i - 1, 0)`'s choice, `min(i + 1, R - 1)`'s, or i itself; None otherwise."""
    inner_fn = "max" if fn.endswith("min") else "min"
    names = {inner_fn, "::" + inner_fn, "std::" + inner_fn}
    for inner, outer in ((args[0], args[1]), (args[1], args[0])):
        if inner.type != "call_expression" or text(src, inner.child_by_field_name("function")) not in names:
            continue
        iargs = [unparen(a) for a in inner.child_by_field_name("arguments").named_children if a.type != "comment"]
        if len(iargs) != 2:
            continue
        lo, hi = (iargs, [outer]) if inner_fn == "max" else ([outer], iargs)  # the 0 side and the R - 1 side
        zero = [a for a in lo if re.sub(r"\s+", "", text(src, a)) == "0"]
        top = [a for a in hi if a.type == "binary_expression" and text(src, a.child_by_field_name("operator")) == "-"
               and text(src, a.child_by_field_name("right")).strip() == "1"]
        near = [a for a in iargs if a not in zero and a not in top]
        if len(zero) != 1 or len(top) != 1 or len(near) != 1:
            continue
        m = re.fullmatch(r"(\w+)(?:([+-])\(?(-?[01])\)?)?", re.sub(r"\s+", "", text(src, near[0])))
        if m is None or m.group(1) not in once or not _THREAD_COORD.fullmatch(
                re.sub(r"\s+", "", text(src, unparen(once[m.group(1)].child_by_field_name("value"))))):
            continue
        i, bound = m.group(1), re.sub(r"\s+", "", text(src, top[0].child_by_field_name("left")))
        if not _signed(src, once[i]) or not _guarded_below(src, k, i, bound, decl):
            continue
        d = 0 if m.group(2) is None else int(m.group(3)) * (1 if m.group(2) == "+" else -1)
        if d == 0:
            return f"({i})"
        if d == -1:
            return f"({i} > 0 ? {i} - 1 : {i})"
        if d == 1:
            return f"({i} < {text(src, top[0])} ? {i} + 1 : {i})"
    return None


def _guarded_below(src: SourceFile, k, i: str, bound: str, decl) -> bool:
    """i < bound holds wherever the clamp `decl` declares is computed and read: an `if (... && i < bound && ...)`
    whose body holds the declaration and every read of its name, or an early `if (... || i >= bound || ...)
    return;` among the kernel's top-level statements before the declaration."""
    name = text(src, decl.child_by_field_name("declarator"))
    reads = [n for n in walk(k.body) if n.type == "identifier" and text(src, n) == name]

    def chain(n, op):  # the operands of a top-level `a op b op c` (parentheses looked through)
        n = unparen(n)
        if n is not None and n.type == "binary_expression" and text(src, n.child_by_field_name("operator")) == op:
            return chain(n.child_by_field_name("left"), op) + chain(n.child_by_field_name("right"), op)
        return [re.sub(r"\s+", "", text(src, n))] if n is not None else []
    for n in walk(k.body):
        if n.type != "if_statement":
            continue
        cond = n.child_by_field_name("condition")
        cond = cond.named_children[-1] if cond is not None and cond.named_children else cond
        then = n.child_by_field_name("consequence")
        if f"{i}<{bound}" in chain(cond, "&&") and n.child_by_field_name("alternative") is None \
                and all(then.start_byte <= x.start_byte < then.end_byte for x in reads + [decl]):
            return True
        if re.fullmatch(r"\{?\s*return\s*;\s*\}?", text(src, then).strip()) and n.parent is not None \
                and n.parent.id == k.body.id and n.end_byte <= decl.start_byte \
                and ({f"{i}>={bound}", f"{bound}<={i}"} & set(chain(cond, "||"))):
            return True
    return False


def merge_sum_loops(src_text: str, path: str, kernel: str) -> str | None:
    """Two counted loops nested around one sum (`for k < K: for l < L: s += A[(i*K + k)*L + l] * B[(k*L + l)*N + j]`)
    whose every global index moves by L times as much along k as along l (they read k*L + l, a merged index)
    become one loop over kp_k < K * L with each index rewritten in kp_k: a contraction over two indices read as
    the product over one. Only where k and l appear in those indices alone; None if no such nest."""
    from kernelpro.profilers.analysis.affine import build_env, coefficient, mul
    from kernelpro.profilers.analysis.loops import analyze_loop

    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    env = build_env(src, k)

    def only(body):
        while body is not None and body.type == "compound_statement":
            kids = [c for c in body.named_children if c.type != "comment"]
            if len(kids) != 1:
                return None
            body = kids[0]
        return body

    for outer in walk(k.body):
        if outer.type != "for_statement":
            continue
        inner = only(outer.child_by_field_name("body"))
        if inner is None or inner.type != "for_statement":
            continue
        stmt = only(inner.child_by_field_name("body"))
        if stmt is None:  # `const float* x = dout + b * T * OC + t * OC; sum += x[o] * ...;`: the rows read in place
            offsets = row_pointers_inlined(src, k, inner.child_by_field_name("body"))
            merged = merge_sum_loops(offsets, path, kernel) if offsets is not None else None
            if merged is not None:
                return merged
        if stmt is None or stmt.type != "expression_statement":
            continue
        lo, li = analyze_loop(src, env, outer), analyze_loop(src, env, inner)
        if not (lo.declared_in_header and li.declared_in_header) or lo.escapes or li.escapes:
            continue
        if any(x.cmp != "<" or x.step != 1 or x.start is None or src.eval_int(x.start) != 0 for x in (lo, li)):
            continue
        bounds = [index_poly(src, x.bound, env.values_at(x.bound.start_byte)) for x in (lo, li)]
        if any(b is None or any(lo.var in m or li.var in m or any(a.startswith("threadIdx") for a in m) for m in b)
               for b in bounds):
            continue
        accs = [a for a in global_accesses(env) if stmt.start_byte <= a.node.start_byte < stmt.end_byte]
        subs, moved = [], False
        for a in accs:
            parts = subscript_parts(src, a.node) if a.node.type == "subscript_expression" else None
            if a.index is None or parts is None or parts[0] != a.array or k.param(a.array) is None:
                break  # (through a pointer cut from the parameter, the index text is not the whole index)
            ck, cl = coefficient(a.index, lo.var), coefficient(a.index, li.var)
            if ck is None or cl is None or ck != mul(bounds[1], cl):
                break
            moved = moved or bool(cl)
            # linear in both, k's step L times l's: the index at (k, l) is its value at (0, k * L + l)
            idx = subscript_index(a.node)
            subs += ident_subs(src, idx, lo.var, "0")
            subs += ident_subs(src, idx, li.var, "kp_k")
        else:
            if not moved:
                continue
            # k and l nowhere else in the statement: every use is inside a rewritten index
            spans = [(s, e) for s, e, _ in subs]
            stray = [n for n in walk(stmt) if n.type == "identifier" and src.node_text(n) in (lo.var, li.var)
                     and not any(s <= n.start_byte < e for s, e in spans)]
            if stray:
                continue
            body = span_text(src, stmt.start_byte, stmt.end_byte, subs)
            kk, ll = src.node_text(lo.bound), src.node_text(li.bound)
            loop = (f"for ({lo.var_type or 'int'} kp_k = 0; kp_k < ({kk}) * ({ll}); ++kp_k)  "
                    f"// kernelpro: the loops over {lo.var} and {li.var} read as one over {lo.var} * {ll} + {li.var}\n"
                    f"{line_indent(src, outer)}  {body}")
            return span_text(src, 0, len(src.data), [(outer.start_byte, outer.end_byte, loop)])
    return None


def row_pointers_inlined(src: SourceFile, k, body) -> str | None:
    """The file with a loop body of pointer declarations cut from parameters (`const float* x = p + E;`), value
    locals read through them (`float d = x[o];`) and one statement that reads them (`x[i] * d`) rewritten as that
    statement reading the parameters (`p[(E) + (i)]`, the values in place); None where the body is not that
    (another statement, a pointer used otherwise or assigned, a local assigned again)."""
    if body is None or body.type != "compound_statement":
        return None
    kids = [c for c in body.named_children if c.type != "comment"]
    if len(kids) < 2 or kids[-1].type != "expression_statement":
        return None
    ptrs, values = {}, {}

    def reads(node) -> str | None:  # the node's text with the pointers read at the parameters, the values in place
        subs = []
        for n in walk(node):
            if n.type == "identifier" and src.node_text(n) in ptrs:
                up = n.parent
                if up is None or up.type != "subscript_expression" or up.child_by_field_name("argument") != n:
                    return None  # used otherwise than read at an index
                base, off = ptrs[src.node_text(n)]
                subs.append((up.start_byte, up.end_byte, f"{base}[({off}) + ({src.node_text(subscript_index(up))})]"))
            elif n.type == "identifier" and src.node_text(n) in values and not any(a <= n.start_byte < b for a, b, _ in subs):
                subs.append((n.start_byte, n.end_byte, f"({values[src.node_text(n)]})"))
        return span_text(src, node.start_byte, node.end_byte, subs) if subs else None

    for d in kids[:-1]:
        decs = d.children_by_field_name("declarator") if d.type == "declaration" else []
        if len(decs) != 1 or decs[0].type != "init_declarator":
            return None
        target, value = decs[0].child_by_field_name("declarator"), unparen(decs[0].child_by_field_name("value"))
        if target is not None and target.type == "identifier" and value is not None:  # `float d = x[o];`
            got = reads(value)
            if got is None or any(name == src.node_text(target) for name, _ in writes_in(src, body)):
                return None
            declared = table_for(src).scalar(src.node_text(d.child_by_field_name("type")).replace("const", "").strip())
            for n in walk(value):  # its type keeps the values it reads (not `int d = x[o]` of a float x)
                nm = src.node_text(n) if n.type == "identifier" else None
                base = ptrs[nm][0] if nm in ptrs else nm if nm and k.param(nm) and k.param(nm).is_pointer else None
                e = table_for(src).scalar(k.param(base).base_type) if base and k.param(base) else None
                if declared is not None and e is not None and not declared.keeps(e):
                    return None
            values[src.node_text(target)] = got
            continue
        if target is None or target.type != "pointer_declarator" or value is None or value.type != "binary_expression" \
                or src.node_text(value.child_by_field_name("operator")) != "+":
            return None
        base = value
        while base.type == "binary_expression" and src.node_text(base.child_by_field_name("operator")) == "+":
            base = unparen(base.child_by_field_name("left"))  # `p + a + b`: p, the chain's first operand
        if base.type != "identifier" or k.param(src.node_text(base)) is None or not k.param(src.node_text(base)).is_pointer:
            return None
        name = src.node_text(target.child_by_field_name("declarator"))
        ptrs[name] = (src.node_text(base), span_text(src, value.start_byte, value.end_byte,
                                                      [(base.start_byte, base.end_byte, "0")]))
    last = kids[-1]
    got = reads(last)
    if got is None:
        return None
    return span_text(src, 0, len(src.data), [(body.start_byte, body.end_byte, "{ " + got + " }")])


def scalar_vector_dots(src_text: str, path: str, kernel: str) -> str | None:
    """A dot product read through vector views (`const float4* qa = reinterpret_cast<const float4*>(q + i * D);`,
    then `for (d < D / 4) { float4 a = qa[d], b = kb[d]; acc += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }`)
    as the scalar loop it sums: `for (e < 4 * (D / 4)) acc += q[(i * D) + e] * k[(j * D) + e];`. Only where each
    vector local is loaded at the loop's counter from a view of a parameter of the vector's element type, and the
    update adds the products of matching components of two such locals, every component once. None if none."""
    from kernelpro.profilers.analysis.extents import pointer_cast
    src = parse_source(src_text, path)
    types = table_for(src)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    views = {}  # view name -> (parameter, offset text, lanes)
    for d in walk(k.body):
        if d.type != "init_declarator":
            continue
        target, value = d.child_by_field_name("declarator"), d.child_by_field_name("value")
        if target is None or target.type != "pointer_declarator" or value is None:
            continue
        name = target.child_by_field_name("declarator")
        cast = pointer_cast(src, value)
        if name is None or cast is None:
            continue
        vec = types.vector(" ".join(w for w in cast[0].replace("*", " ").split() if w != "const"))
        base = " ".join(src.node_text(cast[1]).split())
        bm = re.fullmatch(r"&\s*(\w+)\s*\[(.*)\]", base) or re.fullmatch(r"(\w+)\s*\+\s*(.*)", base) or \
            re.fullmatch(r"(\w+)()", base)
        p = k.param(bm.group(1)) if bm else None
        if vec is None or p is None or not p.is_pointer or types.scalar(p.base_type) != vec[0]:
            continue
        views[src.node_text(name)] = (p.name, bm.group(2).strip() or "0", vec[1])
    if not views:
        return None
    from kernelpro.profilers.analysis.affine import build_env
    from kernelpro.profilers.analysis.loops import analyze_loop
    env = build_env(src, k)
    for loop in walk(k.body):
        if loop.type != "for_statement":
            continue
        info = analyze_loop(src, env, loop)
        body = loop.child_by_field_name("body")
        if not info.declared_in_header or info.step != 1 or info.cmp != "<" or info.start is None \
                or src.eval_int(info.start) != 0 or body is None:
            continue
        stmts = [s for s in (body.named_children if body.type == "compound_statement" else [body]) if s.type != "comment"]
        locals_, update = {}, None
        for s in stmts:
            if s.type == "declaration":
                for dec in s.children_by_field_name("declarator"):
                    v = dec.child_by_field_name("value") if dec.type == "init_declarator" else None
                    vm = re.fullmatch(r"(\w+)\s*\[\s*(\w+)\s*\]", src.node_text(v).strip()) if v is not None else None
                    if vm is None or vm.group(1) not in views or vm.group(2) != info.var:
                        locals_ = None
                        break
                    locals_[src.node_text(dec.child_by_field_name("declarator"))] = vm.group(1)
            elif update is None and s.type == "expression_statement":
                update = s
            else:
                locals_ = None
            if locals_ is None:
                break
        if not locals_ or update is None:
            continue
        um = re.fullmatch(r"(\w+)\s*\+=\s*(.*);", " ".join(src.node_text(update).split()), re.S)
        if um is None:
            continue
        terms = [t.strip() for t in um.group(2).split("+")]
        pairs = set()
        for t in terms:
            tm = re.fullmatch(r"\(?\s*(\w+)\.([xyzw])\s*\*\s*(\w+)\.([xyzw])\s*\)?", t)
            if tm is None or tm.group(2) != tm.group(4) or tm.group(1) not in locals_ or tm.group(3) not in locals_:
                pairs = None
                break
            pairs.add((tm.group(1), tm.group(3), tm.group(2)))
        if not pairs:
            continue
        names = {(a, b) for a, b, _ in pairs}
        lanes = views[locals_[next(iter(names))[0]]][2]
        if len(names) != 1 or len(pairs) != lanes or len(terms) != lanes \
                or {c for _, _, c in pairs} != set("xyzw"[:lanes]):
            continue
        a, b = next(iter(names))
        (pa, oa, _), (pb, ob, _) = views[locals_[a]], views[locals_[b]]
        bound = src.node_text(info.bound)
        new = (f"for (int kp_e = 0; kp_e < {lanes} * ({bound}); ++kp_e)  // kernelpro: the {lanes}-wide loads' dot "
               f"product, element by element\n{line_indent(src, loop)}  {um.group(1)} += {pa}[({oa}) + kp_e] * "
               f"{pb}[({ob}) + kp_e];")
        return span_text(src, 0, len(src.data), [(loop.start_byte, loop.end_byte, new)])
    return None


def split_serial_tail(src_text: str, path: str, kernel: str) -> str | None:
    """A block's last statement `if (tid == 0) { float s = 0; for (..) s += S[k]; atomicAdd(out, s); }` (one
    thread summing the shared array after the barrier) split into the loop and what uses its result, the
    locals declared before both: `float s = 0; if (tid == 0) { for (..) ... } if (tid == 0) { atomicAdd(..); }`,
    the shape of a phase and an epilogue the block-tree reading takes. None where it is not that."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None or "__shared__" not in src.node_text(k.body):
        return None
    stmts = [s for s in k.body.named_children if s.type != "comment"]
    if len(stmts) < 2 or stmts[-1].type != "if_statement" or stmts[-1].child_by_field_name("alternative") is not None:
        return None
    last = stmts[-1]
    cond = re.sub(r"\s+", "", src.node_text(last.child_by_field_name("condition"))).strip("()")
    m = re.fullmatch(r"(threadIdx\.x|\w+)==0|0==(threadIdx\.x|\w+)", cond)
    if not m:
        return None
    who = m.group(1) or m.group(2)
    if who != "threadIdx.x":  # a name for the thread's index, set once: `int tid = threadIdx.x;`
        defs = [d for d in walk(k.body) if d.type == "init_declarator"
                and src.node_text(d.child_by_field_name("declarator")) == who]
        if len(defs) != 1 or re.sub(r"\s+", "", src.node_text(defs[0].child_by_field_name("value"))) != "threadIdx.x" \
                or any(w == who for w, _ in writes_in(src, k.body)):
            return None
    body = last.child_by_field_name("consequence")
    if body is None or body.type != "compound_statement":
        return None
    inner = [s for s in body.named_children if s.type != "comment"]
    at = next((i for i, s in enumerate(inner) if s.type in ("for_statement", "while_statement")), None)
    if at is None or at + 1 >= len(inner) or any(s.type != "declaration" for s in inner[:at]):
        return None
    top = {src.node_text(d.child_by_field_name("declarator")) for st in stmts[:-1] for d in walk(st)
           if d.type == "init_declarator"}
    for d in inner[:at]:  # moved before the `if`, every thread runs them: literals only, names not taken
        for x in d.children_by_field_name("declarator"):
            v = x.child_by_field_name("value") if x.type == "init_declarator" else None
            nm = src.node_text(x.child_by_field_name("declarator") if x.type == "init_declarator" else x)
            if nm in top or (v is not None and not re.fullmatch(r"[-+]?[\d.]+[fFuUlL]*|0x[0-9a-fA-F]+", src.node_text(v).strip())):
                return None
    if any(n.type in ("for_statement", "while_statement") for s in inner[at + 1:] for n in walk(s)):
        return None
    c = src.node_text(last.child_by_field_name("condition"))
    ind = line_indent(src, last)
    decls = "".join(src.node_text(s) + "\n" + ind for s in inner[:at])
    loop = src.node_text(inner[at])
    tail = " ".join(src.node_text(s) for s in inner[at + 1:])
    new = f"{decls}if {c} {{ {loop} }}\n{ind}if {c} {{ {tail} }}"
    return span_text(src, 0, len(src.data), [(last.start_byte, last.end_byte, new)])


def name_compound_guards(src_text: str, path: str, kernel: str) -> str | None:
    """A comparison one of whose sides sums two or more locals naming the thread's position (`cRow * BS + threadRow
    < M`, siboehm's kernel 3 guarding rows it reaches through advanced pointers) named once after the last of those
    locals (`const int kp_pos0 = cRow * BS + threadRow;`) and read by name there: the output's row or column the
    matrix-product recogniser folds the indices into (contraction._fold). Only where none of the names is assigned
    after its declaration; None if there is no such comparison."""
    from kernelpro.profilers.analysis.contraction import coordinates

    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    coords = coordinates(src, k)
    if len(coords) < 2:
        return None
    decls = {}
    for d in walk(k.body):
        if d.type == "init_declarator" and text(src, d.child_by_field_name("declarator")) in coords:
            decls.setdefault(text(src, d.child_by_field_name("declarator")), d.parent)
    written = {name for name, w in writes_in(src, k.body) if not (w.type == "init_declarator")}
    groups: dict[str, list] = {}
    for n in walk(k.body):
        if n.type != "binary_expression" or text(src, n.child_by_field_name("operator")) not in ("<", "<=", ">", ">="):
            continue
        for side in (n.child_by_field_name("left"), n.child_by_field_name("right")):
            e = unparen(side)
            if e is None or e.type != "binary_expression" or text(src, e.child_by_field_name("operator")) != "+":
                continue
            names = {text(src, x) for x in walk(e) if x.type == "identifier"}
            used = names & set(coords)
            fixed = set(coords) | {p.name for p in k.params if not p.is_pointer} | set(src.constants) | {
                n for _, n in k.template_params}
            if len(used) < 2 or names - fixed or used & written or any(nm not in decls for nm in used) or any(
                    x.type in ("call_expression", "subscript_expression", "field_expression") for x in walk(e)):
                continue
            groups.setdefault(re.sub(r"\s+", "", text(src, e)), []).append((e, used))
    if not groups:
        return None
    subs = []
    for i, (key, uses) in enumerate(groups.items()):
        name = f"kp_pos{i}"
        last = max((decls[nm] for nm in uses[0][1]), key=lambda d: d.end_byte)
        subs.append((last.end_byte, last.end_byte, f"\n{line_indent(src, last)}const int {name} = "
                                                  f"{text(src, uses[0][0])};  // kernelpro: the position named once"))
        subs += [(e.start_byte, e.end_byte, name) for e, _ in uses]
    return span_text(src, 0, len(src.data), subs)


def branch_selects_to_max(src_text: str, path: str, kernel: str) -> str | None:
    """`if (a > m) m = a;` written `m = max(m, a);` (and `<` as min, `if (c && s[j] > s[i]) s[i] = s[j];` as `if (c)
    s[i] = max(s[i], s[j]);`), so a running maximum or a tree of maxima reads as what it computes: each side read
    twice has no side effects, and the assignment is the branch's only statement. None if none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    subs = []
    names = {text(src, x) for x in walk(k.node) if x.type == "identifier" and not called(src, x)}
    for n in walk(k.body):
        if n.type != "if_statement" or n.child_by_field_name("alternative") is not None:
            continue
        then = n.child_by_field_name("consequence")
        body = statements(then) if then.type == "compound_statement" else [then]
        e = body[0].named_children[0] if len(body) == 1 and body[0].type == "expression_statement" and \
            body[0].named_children else None
        if e is None or e.type != "assignment_expression" or text(src, e.child_by_field_name("operator")) != "=":
            continue
        dst, new = (" ".join(text(src, e.child_by_field_name(f)).split()) for f in ("left", "right"))
        cond = n.child_by_field_name("condition")
        if cond.type == "condition_clause" and len(cond.named_children) != 1:
            continue  # (an if-initialiser, `if (float v = a[i]; v > m)`: its declaration would be lost)
        cond = unparen(cond.named_children[-1] if cond.type == "condition_clause" and cond.named_children else cond)
        value = e.child_by_field_name("right")
        if not any(x.type == "subscript_expression" or (x.type == "identifier" and k.param(text(src, x)) is None)
                   for x in walk(value)) or names & {"max", "min"}:
            continue  # a clamp to a constant or a size (`if (b < 0) b = 0;`) stays a clamp; a name `max` stays
        rest = None
        if cond.type == "binary_expression" and text(src, cond.child_by_field_name("operator")) == "&&":
            rest, cond = cond.child_by_field_name("left"), unparen(cond.child_by_field_name("right"))
        if cond.type != "binary_expression" or any(x.type in ("assignment_expression", "update_expression",
                                                              "call_expression")
                                                   for side in ("left", "right") for x in walk(e.child_by_field_name(side))):
            continue
        op = text(src, cond.child_by_field_name("operator"))
        a, b = (" ".join(text(src, cond.child_by_field_name(f)).split()) for f in ("left", "right"))
        fn = {(">", new, dst): "max", ("<", dst, new): "max", ("<", new, dst): "min", (">", dst, new): "min"}.get(
            (op, a, b))
        if fn is None:
            continue
        head = f"if ({text(src, rest)}) " if rest is not None else ""
        subs.append((n.start_byte, n.end_byte, f"{head}{dst} = {fn}({dst}, {new});"))
    return span_text(src, 0, len(src.data), subs) if subs else None


def return_after_loop_to_if(src_text: str, path: str, kernel: str) -> str | None:
    """A top-level `if (c) return;` after a top-level loop (`if (nrm < 1e-12f) return;` after a column's sum) written
    `if (!(c)) { the statements after it }`: the same kernel (nothing follows the body's end), in the shape the
    plans read as a pass after the reduction. The guards before the first loop stay returns. None if none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    stmts = statements(k.body)
    first = next((i for i, x in enumerate(stmts) if x.type in ("for_statement", "while_statement", "do_statement")), None)
    for i, x in enumerate(stmts):
        if first is None or i <= first or x.type != "if_statement" or x.child_by_field_name("alternative") is not None:
            continue
        then = x.child_by_field_name("consequence")
        body = statements(then) if then.type == "compound_statement" else [then]
        if len(body) != 1 or body[0].type != "return_statement" or body[0].named_children or i == len(stmts) - 1:
            continue
        cond = x.child_by_field_name("condition")
        if cond.type == "condition_clause" and len(cond.named_children) != 1:
            continue  # (an if-initialiser: its declaration would be lost)
        cond = unparen(cond.named_children[-1] if cond.type == "condition_clause" and cond.named_children else cond)
        rest_start, rest_end = stmts[i + 1].start_byte, stmts[-1].end_byte
        return span_text(src, 0, len(src.data), [
            (x.start_byte, x.end_byte, f"if (!({text(src, cond)})) {{"), (rest_end, rest_end, " }")])
    return None


def else_to_return(src_text: str, path: str, kernel: str) -> str | None:
    """The kernel's last statement `if (edge) { A } else { B }` (or the last one of its bounds guard's block,
    `if (i < n) { ...; if (edge) .. else .. }`) written `if (edge) { A return; } B`: the same thing where nothing
    follows it, in the shape the restaging reads (each store but the last returns; a heat
    step that copies its border and computes its interior). Only where A does not already leave, B's
    declarations name nothing else in the kernel, and neither branch has another `else`. None if none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    stmts = statements(k.body)
    s = stmts[-1] if stmts else None
    while s is not None and s.type == "if_statement" and s.child_by_field_name("alternative") is None and \
            s.child_by_field_name("consequence").type == "compound_statement" and statements(
                s.child_by_field_name("consequence")):  # the last statement of the bounds guard's block: nothing
        s = statements(s.child_by_field_name("consequence"))[-1]  # follows it either
    if s is None or s.type != "if_statement":
        return None
    then, alt = s.child_by_field_name("consequence"), s.child_by_field_name("alternative")
    if alt is None or then is None:
        return None
    kids = [c for c in alt.named_children if c.type != "comment"] if alt.type == "else_clause" else [alt]
    if len(kids) != 1:
        return None
    other = kids[0]  # (a comment between `else` and its branch is not the branch)
    if other.type == "if_statement" or any(n.type in ("return_statement", "break_statement", "continue_statement",
                                                      "goto_statement") for n in walk(then)):
        return None
    own = declared_names(src, other)
    if any(n.type == "identifier" and text(src, n) in own and not (other.start_byte <= n.start_byte < other.end_byte)
           for n in walk(k.body)):
        return None
    ind = line_indent(src, s)
    body = src.node_text(then)
    first = (body[:-1].rstrip() + f"\n{ind}  return;\n{ind}}}") if then.type == "compound_statement" else \
        f"{{ {body} return; }}"
    rest = src.node_text(other)
    if other.type == "compound_statement":
        rest = rest.strip()[1:-1].strip()
    cond = src.node_text(s.child_by_field_name("condition"))
    return span_text(src, 0, len(src.data), [(s.start_byte, s.end_byte, f"if {cond} {first}\n{ind}{rest}")])


def hoist_invariant_guards(src_text: str, path: str, kernel: str) -> str | None:
    """`for (p...) { const float av = a[..]; if (col < n) acc = fmaf(av, b[..], acc); }` written
    `if (col < n) for (p...) { ... }`: a loop whose body is local declarations and one `if` without `else`, whose
    condition reads nothing the loop writes (its counter, the locals, memory it stores), is that loop under the
    condition (a coarsened column's guard read where the loop's sums are). None if there is none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    for lp in walk(k.body):
        if lp.type != "for_statement":
            continue
        body = lp.child_by_field_name("body")
        init, upd = lp.child_by_field_name("initializer"), lp.child_by_field_name("update")
        if init is None or init.type != "declaration" or (upd is not None and upd.type == "comma_expression"):
            continue  # (a counter or a comma step read after the loop would stop elsewhere when it does not run)
        stmts = statements(body) if body is not None and body.type == "compound_statement" else \
            ([body] if body is not None else [])
        ifs = [s for s in stmts if s.type == "if_statement"]
        if len(ifs) != 1 or ifs[0] is not stmts[-1] or ifs[0].child_by_field_name("alternative") is not None:
            continue
        if any(s.type not in ("declaration", "if_statement", "comment") for s in stmts):
            continue
        if any(n.type in ("assignment_expression", "update_expression") or (n.type == "call_expression" and "atomic"
               in src.node_text(n.child_by_field_name("function"))) for s in stmts if s.type == "declaration"
               for n in walk(s)):
            continue  # a declaration with an effect runs whatever the condition
        cond = ifs[0].child_by_field_name("condition")
        written = {n for n, _ in writes_in(src, lp)} | declared_names(src, lp)
        names = {src.node_text(n) for n in walk(cond) if n.type == "identifier"}
        if names & written or any(n.type in ("call_expression", "subscript_expression", "pointer_expression",
                                             "assignment_expression", "update_expression") for n in walk(cond)):
            continue
        inner = src.node_text(ifs[0].child_by_field_name("consequence"))
        new_body = span_text(src, body.start_byte, body.end_byte, [(ifs[0].start_byte, ifs[0].end_byte, inner)]) \
            if body.type == "compound_statement" else inner
        head = src.data[lp.start_byte:body.start_byte].decode()
        return span_text(src, 0, len(src.data), [(lp.start_byte, lp.end_byte,
                                                  f"if {src.node_text(cond)} {{ {head}{new_body} }}")])
    return None


ACCUMULATING = ("__dp4a", "__dp2a_lo", "__dp2a_hi")  # (a, b, c) -> c + a . b, exactly, in integers


def accumulating_calls(src_text: str, path: str, kernel: str) -> str | None:
    """`acc = __dp4a(a[w], b[w], acc);` written `acc += __dp4a(a[w], b[w], 0);`: the same integer sum, in the form
    the sums' recognisers read (a sum of a function of two operands: the tiles add it). None if there is none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    subs = []
    for n in walk(k.body):
        if n.type != "assignment_expression" or src.node_text(n.child_by_field_name("operator")) != "=":
            continue
        left, right = n.child_by_field_name("left"), unparen(n.child_by_field_name("right"))
        if left is None or left.type != "identifier" or right is None or right.type != "call_expression" \
                or src.node_text(right.child_by_field_name("function")) not in ACCUMULATING:
            continue
        args = right.child_by_field_name("arguments").named_children
        if len(args) != 3 or src.node_text(args[2]).strip() != src.node_text(left) \
                or uses(src, args[0], src.node_text(left)) or uses(src, args[1], src.node_text(left)):
            continue
        fn = src.node_text(right.child_by_field_name("function"))
        acc_type = prefix_declared(src, k, src.node_text(left), table_for(src))
        if acc_type is None:
            continue
        zero = "0u" if "unsigned" in acc_type or acc_type.strip().startswith("uint") else "0"  # (the overload's)
        subs.append((n.start_byte, n.end_byte, f"{src.node_text(left)} += {fn}({src.node_text(args[0])}, "
                                                f"{src.node_text(args[1])}, {zero})"))
    return span_text(src, 0, len(src.data), subs) if subs else None


def drop_bumped_unrolled_loop(src_text: str, path: str, kernel: str) -> str | None:
    """A loop unrolled by hand over pointers it bumps (`for (; k + 3 < K; k += 4) { s += a[0] * b[0]; ...;
    s += a[3] * b[3 * N]; a += 4; b += 4 * N; }`) followed by its remainder loop over the same pointers (`for (; k <
    K; ++k) { s += *a * *b; ++a; b += N; }`): the remainder loop alone, where running its body U times does what
    one pass of the unrolled body does (the same sums of the same elements in the same order, the pointers moved
    as far: followed symbolically, offsets as polynomials of the sizes). None if there is none."""
    from kernelpro.profilers.analysis.affine import add, const, index_poly, poly_text

    def edit(src, k, a, b):
        if b is None:
            return None
        sa, sb = _loop_step(src, a), _loop_step(src, b)
        if sa is None or sb is None or sa[0] != sb[0] or sb[1] != 1 or sa[1] < 2:
            return None
        var, unroll = sa
        if a.child_by_field_name("initializer") is not None or b.child_by_field_name("initializer") is not None:
            return None  # (a counter declared before both: the remainder starts where the other left it)
        ca = re.sub(r"\s+", "", text(src, a.child_by_field_name("condition")))
        cb = re.sub(r"\s+", "", text(src, b.child_by_field_name("condition")))
        m = re.fullmatch(rf"{var}<(.+)", cb)
        if m is None or ca not in (f"{var}+{unroll - 1}<{m.group(1)}", f"{var}<={m.group(1)}-{unroll}",
                                   f"{var}+{unroll}<={m.group(1)}"):
            return None

        def run(body, times):
            stmts = [c for c in (body.named_children if body.type == "compound_statement" else [body])
                     if c.type != "comment"]
            off, seq = {}, []
            for _ in range(times):
                for st in stmts:
                    e = st.named_children[0] if st.type == "expression_statement" and st.named_children else None
                    if e is None or uses(src, e, var):
                        return None
                    if e.type == "update_expression" and "++" in text(src, e):
                        p = text(src, e.child_by_field_name("argument"))
                        off[p] = add(off.get(p, {}), const(1))
                        continue
                    if e.type != "assignment_expression":
                        return None
                    op, left = text(src, e.child_by_field_name("operator")), e.child_by_field_name("left")
                    right = e.child_by_field_name("right")
                    if left.type == "identifier" and op == "+=" and any(
                            n.type in ("pointer_expression", "subscript_expression") for n in walk(right)):
                        subs = []
                        for n in walk(right):
                            if n.type == "pointer_expression" and text(src, n).startswith("*"):
                                p, i = text(src, n.child_by_field_name("argument")), {}
                            elif n.type == "subscript_expression":
                                p = text(src, n.child_by_field_name("argument"))
                                idx = n.child_by_field_name("indices") or n.child_by_field_name("index")
                                i = index_poly(src, idx.named_children[0] if idx is not None and idx.type ==
                                               "subscript_argument_list" else idx, {})
                                if i is None:
                                    return None
                            else:
                                continue
                            if any(s[0] <= n.start_byte < s[1] for s in subs):
                                return None  # a load inside a load's index
                            subs.append((n.start_byte, n.end_byte, f"@{p}[{poly_text(add(off.get(p, {}), i))}]"))
                        seq.append((text(src, left), " ".join(span_text(src, right.start_byte, right.end_byte,
                                                                        sorted(subs)).split())))
                    elif left.type == "identifier" and op == "+=":
                        step = index_poly(src, right, {})
                        if step is None:
                            return None
                        off[text(src, left)] = add(off.get(text(src, left), {}), step)
                    else:
                        return None
            return seq, {p: poly_text(o) for p, o in off.items()}
        one, many = run(a.child_by_field_name("body"), 1), run(b.child_by_field_name("body"), unroll)
        if one is None or many is None or one != many or not one[0]:
            return None
        return a.start_byte, a.end_byte, ""
    return _first_loop_edit(src_text, path, kernel, edit)


_GROUP_CALLS = {"thread_rank": "(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))",
                "size": "(blockDim.x * blockDim.y * blockDim.z)", "num_threads": "(blockDim.x * blockDim.y * blockDim.z)"}
_GROUP_DIMS = {"thread_index": "threadIdx", "group_index": "blockIdx", "group_dim": "blockDim", "dim_threads": "blockDim"}


def group_indices(src_text: str, path: str, kernel: str, one_dim: bool = False) -> str | None:
    """A cooperative-groups block handle's indices as the built-ins they are (`block.thread_rank()` ->
    `(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))`, `block.size()`, `block.thread_index().x`
    -> `threadIdx.x`, `block.group_index().y` -> `blockIdx.y`), so the trees and scans that index shared memory by
    the rank read as their textbook forms. Only for a `thread_block` handle (a tile's rank is another number).
    one_dim: the launch's block is one-dimensional (the rank is threadIdx.x, the size blockDim.x). None if there
    is none."""
    from kernelpro.profilers.analysis.blocksim import declared, is_group_handle

    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None
    handles = {n for d in walk(k.body) if d.type == "declaration" and is_group_handle(src, d)
               and "".join(src.node_text(d.child_by_field_name("type")).split()).endswith("thread_block")
               for n in declared(src, d)}
    if not handles:
        return None
    subs = []
    for n in walk(k.body):
        if n.type != "call_expression":
            continue
        f = n.child_by_field_name("function")
        if f is None or f.type != "field_expression" or src.node_text(f.child_by_field_name("argument")) not in handles:
            continue
        method = src.node_text(f.child_by_field_name("field"))
        if method in _GROUP_CALLS and not n.child_by_field_name("arguments").named_children:
            subs.append((n.start_byte, n.end_byte, ("threadIdx.x" if method == "thread_rank" else "blockDim.x")
                         if one_dim else _GROUP_CALLS[method]))
        elif method in _GROUP_DIMS and n.parent is not None and n.parent.type == "field_expression":
            d = src.node_text(n.parent.child_by_field_name("field"))
            if d in ("x", "y", "z"):
                subs.append((n.parent.start_byte, n.parent.end_byte, f"{_GROUP_DIMS[method]}.{d}"))
    return span_text(src, 0, len(src.data), sorted(subs)) if subs else None


def merge_branch_stores(src_text: str, path: str, kernel: str) -> str | None:
    """`if (c1) out[p] = a; else if (c2) out[p] = b; else out[p] = d;`, each branch one store of the same element,
    written `out[p] = (c1) ? (a) : (c2) ? (b) : (d);`: one store on every path, as before (a Game of Life rule's
    three outcomes), in the shape the stencil and element-wise analyses read. None if there is none."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        return None

    def store(n):
        """(target text, value node) of a branch that is one plain store to an element; None otherwise."""
        if n is not None and n.type == "compound_statement":
            kids = [c for c in n.named_children if c.type != "comment"]
            n = kids[0] if len(kids) == 1 else None
        e = n.named_children[0] if n is not None and n.type == "expression_statement" and n.named_children else None
        if e is None or e.type != "assignment_expression" or src.node_text(e.child_by_field_name("operator")) != "=":
            return None
        left = e.child_by_field_name("left")
        if left is None or left.type != "subscript_expression":
            return None
        return " ".join(src.node_text(left).split()), e.child_by_field_name("right")
    for s in walk(k.body):
        if s.type != "if_statement" or (s.parent is not None and s.parent.type == "else_clause"):
            continue
        conds, values, cur, target, node = [], [], s, None, None
        while cur is not None and cur.type == "if_statement":
            got = store(cur.child_by_field_name("consequence"))
            if got is None or (target is not None and got[0] != target):
                break
            target = got[0]
            node = node or cur
            conds.append(src.node_text(cur.child_by_field_name("condition")))
            values.append(src.node_text(got[1]))
            alt = cur.child_by_field_name("alternative")
            kids = [c for c in alt.named_children if c.type != "comment"] if alt is not None else []
            cur = kids[0] if len(kids) == 1 else None
            if cur is not None and cur.type != "if_statement":
                last = store(cur)
                if last is None or last[0] != target:
                    cur = None
                    break
                values.append(src.node_text(last[1]))
                value = values[-1]
                for c, v in reversed(list(zip(conds, values[:-1]))):  # (an if's condition keeps its parentheses)
                    value = f"({c}) ? ({v}) : ({value})"
                return span_text(src, 0, len(src.data), [(s.start_byte, s.end_byte, f"{target} = {value};")])
    return None
