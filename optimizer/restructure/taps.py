"""Loops over a stencil's taps written out: `for (dy = -1; dy <= 1; dy++)` with constant bounds and a few
iterations becomes one block per value (`{ const int dy = -1; ... }`), so every neighbour load has a
constant offset the stencil analysis can read. A `continue` jumps past its copy; a loop that breaks or
returns is left as it is."""
from __future__ import annotations

import re

from kernelpro.profilers.analysis.affine import build_env
from kernelpro.profilers.analysis.loops import LOOPS, analyze_loop, declared_names, writes_in
from kernelpro.profilers.source import parse_source, walk

from .text import Refuse, ident_subs, span_text
from .flags import as_written, with_fallback

MAX_TAPS = 9  # iterations of one loop written out


def _values(src, info) -> list[int] | None:
    if info.form != "for" or info.var is None or info.step is None or info.step <= 0:
        return None
    start, bound = src.eval_int(info.start), src.eval_int(info.bound)
    if start is None or bound is None or info.cmp not in ("<", "<=", "!="):
        return None
    end = bound + 1 if info.cmp == "<=" else bound
    vals = list(range(start, end, info.step))
    return vals if 0 < len(vals) <= MAX_TAPS else None


def unroll_taps(text: str, path: str, kernel: str) -> str | None:
    """The text with every innermost constant loop over taps written out (nests too); None if none."""
    changed, serial = False, 0
    for _ in range(6):
        src = parse_source(text, path)
        k = src.kernel(kernel)
        if k is None or k.body is None:
            return None
        env = build_env(src, k)
        target = None
        for n in walk(k.body):
            if n.type != "for_statement":
                continue
            body = n.child_by_field_name("body")
            if body is None or any(m.type in LOOPS for m in walk(body)) or "[" not in src.node_text(body):
                continue
            info = analyze_loop(src, env, n)
            inside = {src.node_text(x.child_by_field_name("label")) for x in walk(body) if x.type == "labeled_statement"}
            jumps_out = any(x.type == "goto_statement" and src.node_text(x.child_by_field_name("label")) not in inside
                            for x in walk(body))  # (a tap's own `goto kp_tapN` stays inside the loop's body)
            if any(e in ("break", "return") for e in info.escapes) or jumps_out or any(
                    e.startswith("barrier") for e in info.escapes):
                continue
            vals = _values(src, info)
            if vals is not None and info.declared_in_header:
                target = (n, info, vals, body)
                break
        if target is None:
            break
        n, info, vals, body = target
        conts = [c for c in walk(body) if c.type == "continue_statement"]
        copies = []
        for v in vals:
            label = f"kp_tap{serial}"
            serial += 1
            renames = []  # each copy's own locals and labels get names of their own (one definition per name)
            for name in declared_names(src, body):
                renames += ident_subs(src, body, name, f"{name}_{label}")
            own = {src.node_text(x.child_by_field_name("label")) for x in walk(body) if x.type == "labeled_statement"}
            renames += [(x.start_byte, x.end_byte, f"{src.node_text(x)}_{label}") for x in walk(body)
                        if x.type == "statement_identifier" and src.node_text(x) in own]
            inner = span_text(src, body.start_byte, body.end_byte,
                              [(c.start_byte, c.end_byte, f"goto {label};") for c in conts]
                              + ident_subs(src, body, info.var, f"({v})") + renames)
            if body.type != "compound_statement":
                inner = "{ " + inner + " }"
            t = info.var_type or "int"
            copies.append(f"{{ const {t} {info.var} = {v}; {inner} }}" + (f" {label}:;" if conts else ""))
        # one block for the copies: the loop may be the unbraced body of another
        text = fold(span_text(src, 0, len(src.data), [(n.start_byte, n.end_byte, "{\n" + "\n".join(copies) + "\n}")]),
                    path, kernel)
        text = decided_jumps(text, path, kernel)  # `if (dr == 0 && dc == 0) continue;` settled per tap
        changed = True
    return text if changed else None


def _c_int(src, n) -> int | None:
    """An integer expression of literals only, with C's rules (division truncates toward zero)."""
    t = n.type
    if t == "number_literal":
        return src.eval_int(n)
    if t == "parenthesized_expression" and len(n.named_children) == 1:
        return _c_int(src, n.named_children[0])
    if t == "unary_expression" and src.node_text(n.child_by_field_name("operator")) in ("-", "+"):
        v = _c_int(src, n.child_by_field_name("argument"))
        return None if v is None else (-v if src.node_text(n.child_by_field_name("operator")) == "-" else v)
    if t == "binary_expression":
        a, b = _c_int(src, n.child_by_field_name("left")), _c_int(src, n.child_by_field_name("right"))
        op = src.node_text(n.child_by_field_name("operator"))
        if a is None or b is None:
            return None
        if op in ("/", "%"):
            if b == 0:
                return None
            q = abs(a) // abs(b) * (1 if (a >= 0) == (b > 0) else -1)
            return q if op == "/" else a - b * q
        return {"+": a + b, "-": a - b, "*": a * b}.get(op)
    return None


def fold(text: str, path: str, kernel: str) -> str:
    """Integer expressions of literals in the kernel replaced by their values (`(2) / 3 - 1` -> `-1`)."""
    src = parse_source(text, path)
    k = src.kernel(kernel)
    subs, stack = [], [k.body] if k is not None and k.body is not None else []
    while stack:
        n = stack.pop()
        if n.type in ("binary_expression", "parenthesized_expression") and "." not in src.node_text(n):
            v = _c_int(src, n)
            if v is not None:
                subs.append((n.start_byte, n.end_byte, f"({v})"))
                continue
        stack.extend(n.children)
    return span_text(src, 0, len(src.data), subs) if subs else text


def _runtime_loops(src, k) -> list:
    """[(loop node, global load)]: loops whose counter moves a global load along a thread dimension (`in[i + off]`,
    `in[(y + dy) * W + x]`: the counter's stride is threadIdx.x's or threadIdx.y's) while their bounds are not
    constants or they run more than MAX_TAPS times; none where threads already share a tile."""
    from kernelpro.profilers.analysis.affine import coefficient, global_accesses

    if k is None or k.body is None or any(w in src.node_text(k.body) for w in ("__shared__", "__syncthreads")):
        return []
    env = build_env(src, k)
    accs = [a for a in global_accesses(env) if not a.is_write and a.index is not None]
    out = []
    for n in walk(k.body):
        if n.type != "for_statement":
            continue
        info = analyze_loop(src, env, n)
        if info.var is None or info.step != 1 or _values(src, info) is not None or info.start is None or any(
                w in src.node_text(info.start) for w in ("threadIdx", "blockIdx", "blockDim", "gridDim")):
            continue  # a grid- or block-stride loop over the thread's points is not a loop over taps
        for a in accs:
            if n.start_byte <= a.node.start_byte < n.end_byte:
                c = coefficient(a.index, info.var)
                if c and any(c == coefficient(a.index, t) for t in ("threadIdx.x", "threadIdx.y")):
                    out.append((n, info, a))
                    break
    return out


def runtime_taps(text: str, path: str, kernel: str) -> str | None:
    """Why the taps of a loop over neighbours cannot be written out (its bounds are not constants, `-R..R` with R
    a parameter, or it runs more than MAX_TAPS times); None where there is no such loop."""
    src = parse_source(text, path)
    for n, _, a in _runtime_loops(src, src.kernel(kernel))[:1]:
        bounds = " ".join(src.node_text(n).split("{")[0].split())
        return (f"line {n.start_point[0] + 1}: `{bounds}` runs over neighbours of {a.array} whose number is known "
                f"only at run time (or more than {MAX_TAPS}); the shared-memory tile stages fixed offsets "
                "(literal or #define bounds), or a run-time radius the spec gives one value")
    return None


INT_TYPES = ("int", "unsigned", "unsigned int", "long", "long long", "size_t", "short", "int64_t", "int32_t",
             "uint32_t", "uint64_t", "unsigned long", "unsigned long long")


def tap_params(text: str, path: str, kernel: str) -> list[str]:
    """The kernel's integer scalar parameters that set the bounds of its run-time tap loops (`-R..R`, `< 2*r + 1`),
    directly or through locals initialised from them (`int half = width / 2`)."""
    src = parse_source(text, path)
    k = src.kernel(kernel)
    loops = _runtime_loops(src, k)
    if not loops:
        return []
    inits: dict[str, list] = {}  # local -> initialisers (several: a name declared twice is followed through both)
    for d in walk(k.body):
        if d.type == "init_declarator" and d.child_by_field_name("value") is not None:
            nm = d.child_by_field_name("declarator")
            if nm is not None and nm.type == "identifier":
                inits.setdefault(src.node_text(nm), []).append(d.child_by_field_name("value"))
    names, todo = set(), []
    for _, info, _ in loops:
        todo += [x for x in (info.start, info.bound) if x is not None]
    seen = set()
    while todo:
        x = todo.pop()
        for m in walk(x):
            if m.type != "identifier" or (nm := src.node_text(m)) in seen:
                continue
            seen.add(nm)
            names.add(nm)
            todo += inits.get(nm, [])
    return [p.name for p in k.params if p.name in names and not p.is_pointer and p.base_type in INT_TYPES]


def specialize(text: str, path: str, kernel: str, values: dict[str, int]) -> str:
    """The kernel's body with each parameter of `values` written as its value, and the integer locals that become
    constants so (initialised from literals, never assigned) declared `const`: bounds the taps' unrolling reads."""
    src = parse_source(text, path)
    k = src.kernel(kernel)
    subs = []
    for name, v in values.items():
        p = k.param(name)
        if any(w == name for w, _ in writes_in(src, k.body)):
            raise Refuse(f"{name} is assigned in the kernel: no one value to specialise it to")
        subs += ident_subs(src, k.body, name, f"(({p.type_text.strip() if p else 'int'})({v}))"
                           if p is not None and p.base_type != "int" else f"({v})")
    text = fold(span_text(src, 0, len(src.data), subs), path, kernel)
    src = parse_source(text, path)
    k = src.kernel(kernel)
    assigned = {w for w, _ in writes_in(src, k.body)}
    consts = []
    for d in walk(k.body):
        if d.type != "declaration" or "const" in src.node_text(d).split("=")[0].split() or \
                src.node_text(d.child_by_field_name("type")) not in INT_TYPES:
            continue
        decls = d.children_by_field_name("declarator")
        if len(decls) != 1 or decls[0].type != "init_declarator":
            continue
        nm, val = decls[0].child_by_field_name("declarator"), decls[0].child_by_field_name("value")
        if nm is not None and nm.type == "identifier" and src.node_text(nm) not in assigned and \
                _c_int(src, val) is not None:
            consts.append((d.start_byte, d.start_byte, "const "))
    return span_text(src, 0, len(src.data), consts) if consts else text


def with_generic_path(new: str, original: str, path: str, kernel: str, values: dict[str, int]) -> str:
    """`new` (a rewrite of the kernel specialised to `values`, keeping its launch) with the kernel as written behind
    it (flags.py's mechanism, the same launch): called, and returned from, when a parameter has another value (a
    uniform branch for the whole block, before any barrier)."""
    kept = as_written(original, path, kernel, virtual=False)
    kept.fn = f"// the kernel as written, for {', '.join(f'{n} != {v}' for n, v in values.items())}\n" + kept.fn
    return with_fallback(new, path, kernel, kept, " && ".join(f"{n} == {v}" for n, v in values.items()))


def _c_truth(src, n) -> int | None:
    """A condition of literals only (`(0) == 0 && (-1) == 0`) as C's 0 or 1; None where it reads anything else."""
    t = n.type
    if t in ("parenthesized_expression", "condition_clause") and len(n.named_children) == 1:
        return _c_truth(src, n.named_children[0])
    if t == "unary_expression" and src.node_text(n.child_by_field_name("operator")) == "!":
        v = _c_truth(src, n.child_by_field_name("argument"))
        return None if v is None else int(not v)
    if t == "binary_expression":
        op = src.node_text(n.child_by_field_name("operator"))
        if op in ("&&", "||"):  # one side settles it (`dr == 0 && (-1) == 0` is false whatever dr is)
            a, b = _c_truth(src, n.child_by_field_name("left")), _c_truth(src, n.child_by_field_name("right"))
            if op == "&&" and 0 in (a, b) or op == "||" and 1 in (a, b):
                return int(op == "||")
            if a is None or b is None:
                return None
            return int((a and b) if op == "&&" else (a or b))
        if op in ("==", "!=", "<", "<=", ">", ">="):
            a, b = _c_int(src, n.child_by_field_name("left")), _c_int(src, n.child_by_field_name("right"))
            if a is None or b is None:
                return None
            return int({"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op])
    v = _c_int(src, n)
    return None if v is None else int(v != 0)


def decided_jumps(text: str, path: str, kernel: str) -> str:
    """A tap's copy whose `continue` (written `goto kp_tapN;`) is decided by literals alone: never taken, the `if`
    goes; always taken, the copy goes (the tap the loop skipped: the centre of a neighbour count)."""
    for _ in range(64):
        src = parse_source(text, path)
        k = src.kernel(kernel)
        if k is None or k.body is None:
            return text
        edit = None
        for n in walk(k.body):
            if n.type != "if_statement" or n.child_by_field_name("alternative") is not None:
                continue
            body = n.child_by_field_name("consequence")
            m = re.fullmatch(r"\{?\s*goto\s+(kp_tap\w+)\s*;\s*\}?", src.node_text(body).strip())
            truth = _c_truth(src, n.child_by_field_name("condition")) if m else None
            if truth is None:
                continue
            label = next((x for x in walk(k.body) if x.type == "labeled_statement"
                          and src.node_text(x.child_by_field_name("label")) == m.group(1)), None)
            if label is None:
                continue
            if not truth:
                edit = (n.start_byte, n.end_byte, "")
            else:
                copy = label.prev_named_sibling
                while copy is not None and copy.type == "comment":
                    copy = copy.prev_named_sibling
                if copy is None or copy.type != "compound_statement" or not (copy.start_byte <= n.start_byte < copy.end_byte):
                    continue
                # the copy is `{ const T v = value; { body } }`: it does nothing only where the jump is the body's
                # first statement (an update before it would be lost with the copy)
                parts = [c for c in copy.named_children if c.type != "comment"]
                inner = [c for c in parts[-1].named_children if c.type != "comment"] if parts and \
                    parts[-1].type == "compound_statement" else []
                if len(parts) != 2 or parts[0].type != "declaration" or not inner or inner[0].id != n.id:
                    continue
                edit = (copy.start_byte, label.end_byte, "")
            break
        if edit is None:
            return text
        text = span_text(src, 0, len(src.data), [edit])
    return text
