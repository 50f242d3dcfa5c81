"""Accurate (slow) math functions and float divisions inside loops, built without fast math."""
from __future__ import annotations

import tree_sitter as ts

from ..advice import Evidence, Severity
from ..source import Kernel, Loop, SourceFile, walk
from ..tools import Context, tool
from .common import advice_at
from .fp64 import call_name, declared_types, expr_type

FAST_FLAGS = ("--use_fast_math", "-use_fast_math")
INTRINSIC = {"expf": "__expf", "exp": "__expf", "logf": "__logf", "log": "__logf", "sinf": "__sinf",
             "sin": "__sinf", "cosf": "__cosf", "cos": "__cosf", "tanf": "__tanf", "tan": "__tanf",
             "powf": "__powf", "pow": "__powf", "log2f": "__log2f", "log2": "__log2f",
             "log10f": "__log10f", "log10": "__log10f", "exp10f": "__exp10f", "exp10": "__exp10f",
             "exp2": "exp2f", "sincosf": "__sincosf"}
# no intrinsic of their own: --use_fast_math turns them into one MUFU (tanh.approx.f32, sm_75 on)
FAST_MATH_ONLY = {"tanhf": "tanh.approx.f32", "tanh": "tanh.approx.f32"}
MIN_SLOW = 12  # SASS instructions on a line: the accurate sequence, not one MUFU and a multiply


def _simple(n: ts.Node) -> bool:
    return n.type in ("identifier", "subscript_expression", "field_expression") and "(" not in n.text.decode()


def _float_lit(src: SourceFile, n: ts.Node | None) -> float | None:
    if n is None or n.type != "number_literal":
        return None
    try:
        return float(src.node_text(n).rstrip("fF"))
    except ValueError:
        return None


def _innermost_loop(k: Kernel, n: ts.Node) -> Loop | None:
    inside = [lp for lp in k.loops if lp.node.start_byte <= n.start_byte < lp.node.end_byte]
    return max(inside, key=lambda lp: lp.depth) if inside else None


def _assigned_in(src: SourceFile, loop: Loop, name: str) -> bool:
    for n in walk(loop.node):
        if n.type in ("assignment_expression", "update_expression"):
            left = n.child_by_field_name("left") or n.child_by_field_name("argument")
            if left is not None and src.node_text(left) == name:
                return True
        if n.type == "init_declarator":
            d = n.child_by_field_name("declarator")
            if d is not None and src.node_text(d) == name:
                return True
    return loop.var == name


@tool(
    "slow_math",
    """Accurate single-precision math in hot loops without --use_fast_math: powf, expf,
    logf, sinf, cosf, tanf (and their unsuffixed overloads) and divisions by a float
    variable inside loops, where the SASS on that line shows the long accurate sequence
    (range reduction around MUFU, or a CALL to the slow-path routine). Suggests intrinsics
    (__expf, exp2f with a pre-scaled argument), a hoisted reciprocal, x*x for powf(x, 2),
    or --use_fast_math when its precision is acceptable (tanhf, which has no intrinsic,
    becomes one tanh.approx there). Use it for compute-bound loops.""",
    needs=("artifact", "sass"),
    rules=("slow-math-in-loop",),
)
def slow_math_tool(ctx: Context):
    if ctx.artifact is None or any(f in FAST_FLAGS for f in ctx.artifact.options.extra_flags):
        return []
    out = []
    src = ctx.source
    for k in src.kernels:
        if k.body is None or not k.loops:
            continue
        by_line = ctx.sass_by_line(k)
        types = declared_types(src, k)
        for n in walk(k.body):
            loop = _innermost_loop(k, n) if n.type in ("call_expression", "binary_expression") else None
            if loop is None:
                continue
            ln = n.start_point[0] + 1
            ins = by_line.get(ln, [])
            ops = [i.base for i in ins]
            if n.type == "call_expression" and call_name(src, n) in INTRINSIC:
                if "CALL" in ops or len(ins) >= MIN_SLOW:
                    out.append(_call_advice(ctx, k, n, loop, ins))
            elif n.type == "call_expression" and call_name(src, n) in FAST_MATH_ONLY:
                args = n.child_by_field_name("arguments").named_children
                single = call_name(src, n).endswith("f") or (len(args) == 1 and expr_type(src, args[0], types) == "float")
                if single and ("CALL" in ops or len(ins) >= MIN_SLOW):
                    out.append(_call_advice(ctx, k, n, loop, ins))
            elif n.type == "binary_expression" and src.node_text(n.child_by_field_name("operator")) == "/":
                right = n.child_by_field_name("right")
                if right.type == "number_literal" or expr_type(src, right, types) != "float":
                    continue
                if expr_type(src, n.child_by_field_name("left"), types) == "double":
                    continue  # a double division: __fdividef would make it a float one
                if "FCHK" in ops or "CALL" in ops:
                    out.append(_div_advice(ctx, k, n, loop, ins, types))
    return out


def _evidence(ins, loop: Loop):
    ops = [i.base for i in ins]
    return [Evidence("SASS instructions on this line", len(ins), "", "sass"),
            Evidence("MUFU on this line", ops.count("MUFU"), "", "sass"),
            Evidence("CALL to slow path on this line", ops.count("CALL"), "", "sass"),
            Evidence("loop", f"line {loop.line}", "", "source"),
            Evidence("fast math", "off", "", "nvcc flags")]


def _call_advice(ctx, k, n, loop, ins):
    src = ctx.source
    name = call_name(src, n)
    fn = n.child_by_field_name("function")
    args = n.child_by_field_name("arguments").named_children
    ln = n.start_point[0] + 1
    msg = (f"{name}() on line {ln}, inside the loop of line {loop.line}, compiles to the accurate sequence "
           f"({len(ins)} SASS instructions on the line) and runs every iteration; the build has no --use_fast_math")
    fix = None
    expo = _float_lit(src, args[1]) if name in ("powf", "pow") and len(args) == 2 else None
    line, col, _, end = src.pos(fn)
    if expo == 2.0 and _simple(args[0]):
        x = src.node_text(args[0])
        remedy = f"write {x} * {x} instead of {src.node_text(n)}"
        nl, nc, el, ec = src.pos(n)
        fix = {"title": f"Replace with {x} * {x}", "edits": [
            {"line": nl, "column": nc, "end_line": el, "end_column": ec, "new_text": f"({x} * {x})"}]}
    elif expo == 0.5:
        remedy = f"use sqrtf({src.node_text(args[0])}) (or rsqrtf for 1/sqrt)"
    elif name in FAST_MATH_ONLY:  # no intrinsic to write instead: no fix
        remedy = (f"build with --use_fast_math if its precision is acceptable for the whole file: {name} becomes one "
                  f"{FAST_MATH_ONLY[name]} (relative error about 2^-11, below bf16's and half's rounding), or call "
                  f"that instruction through inline PTX for this line alone (sm_75 and later)")
    else:
        alt = INTRINSIC[name]
        tips = {"__expf": "; or exp2f(x * 1.4426950f) with the log2(e) factor folded into a loop-invariant constant",
                "__powf": " (for x > 0), or exp2f(y * __log2f(x)); for small integer exponents multiply out",
                "__sinf": " when the argument stays within a few multiples of pi (sincosf/__sincosf when both are "
                          "needed)",
                "__cosf": " when the argument stays within a few multiples of pi",
                "__tanf": " when the argument stays within a few multiples of pi"}
        remedy = (f"use {alt}() (hardware approximation, a few ULP less accurate){tips.get(alt, '')}, "
                  "or build with --use_fast_math if its precision is acceptable for the whole file")
        fix = {"title": f"Use {alt}", "edits": [{"line": line, "column": col, "end_line": line,
                                                  "end_column": end, "new_text": alt}]}
    return advice_at(ctx, "slow-math-in-loop", Severity.INFO, k, n, msg, remedy, _evidence(ins, loop), fix=fix)


def _div_advice(ctx, k, n, loop, ins, types):
    src = ctx.source
    right = n.child_by_field_name("right")
    left = n.child_by_field_name("left")
    d = src.node_text(right)
    ln = n.start_point[0] + 1
    invariant = right.type == "identifier" and not _assigned_in(src, loop, d)
    msg = (f"the division by {d} on line {ln}, inside the loop of line {loop.line}, is an IEEE division "
           f"(reciprocal, correction steps and a slow-path call: {len(ins)} SASS instructions on the line) "
           "executed every iteration")
    if invariant:
        remedy = (f"{d} does not change in the loop: compute `const float inv_{d} = 1.0f / {d};` before the loop "
                  f"and multiply by inv_{d} inside it (or use __fdividef, which gives 0 when |{d}| > 2^126, "
                  "or --use_fast_math)")
    else:
        remedy = (f"use __fdividef({src.node_text(left)}, {d}) or multiply by __frcp_rn({d}) if a few ULP are "
                  f"acceptable (__fdividef gives 0 when |{d}| > 2^126)")
    # three edits around the operands, none over them, so a fix inside an operand (Use __expf)
    # applies together with this one
    ll, lc, *_ = src.pos(left)
    _, _, le, lec = src.pos(left)
    rl, rc, re_, rec = src.pos(right)
    fix = {"title": "Use __fdividef", "edits": [
        {"line": ll, "column": lc, "end_line": ll, "end_column": lc, "new_text": "__fdividef("},
        {"line": le, "column": lec, "end_line": rl, "end_column": rc, "new_text": ", "},
        {"line": re_, "column": rec, "end_line": re_, "end_column": rec, "new_text": ")"}]}
    return advice_at(ctx, "slow-math-in-loop", Severity.INFO, k, n, msg, remedy, _evidence(ins, loop), fix=fix)
