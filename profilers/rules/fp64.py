"""FP64 instructions in float kernels, traced to the unsuffixed literal or double math call."""
from __future__ import annotations

import re

import tree_sitter as ts

from ..advice import Evidence, Severity
from ..source import Kernel, SourceFile, walk
from ..tools import Context, tool
from .common import advice_at, nodes

FP64_OPS = {"DADD", "DMUL", "DFMA", "DSETP", "DSET", "DMNMX", "DMMA"}
# math functions whose unsuffixed name has a double overload (the float one ends in f)
DOUBLE_MATH = {
    "sqrt", "rsqrt", "cbrt", "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p",
    "pow", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
    "erf", "erfc", "fmod", "hypot", "floor", "ceil", "round", "trunc", "fabs", "fmin", "fmax",
    "fma", "sincos", "sinpi", "cospi", "lgamma", "tgamma",
}
FLOAT_MATH = {n + "f" for n in DOUBLE_MATH} | {"__expf", "__logf", "__powf", "__sinf", "__cosf", "__tanf",
                                                "__fdividef", "__exp10f", "__log2f", "__log10f", "__saturatef",
                                                "__frcp_rn", "__fsqrt_rn", "__fmul_rn", "__fadd_rn", "__fmaf_rn"}
# FP64:FP32 throughput per SM by architecture
FP64_RATIO = {"sm_60": 1 / 2, "sm_61": 1 / 32, "sm_62": 1 / 32, "sm_70": 1 / 2, "sm_72": 1 / 32,
              "sm_75": 1 / 32, "sm_80": 1 / 2, "sm_86": 1 / 64, "sm_87": 1 / 64, "sm_89": 1 / 64,
              "sm_90": 1 / 2, "sm_100": 1 / 2, "sm_120": 1 / 64}
_FLOAT_LIT = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+(?=[eE]))([eE][+-]?\d+)?$")
_INT_TYPES = {"int", "unsigned", "long", "short", "char", "bool", "size_t", "int32_t", "int64_t",
              "uint32_t", "uint64_t", "unsigned int", "long long", "unsigned long", "unsigned long long"}


def is_fp64(opcode: str) -> bool:
    base, *mods = opcode.split(".")
    return base in FP64_OPS or (base in ("F2F", "I2F", "F2I", "MUFU", "FRND") and any("64" in m for m in mods))


def scalar_kind(type_text: str) -> str | None:
    t = " ".join(w for w in type_text.replace("*", " ").split() if w not in ("const", "volatile", "__restrict__", "static", "register"))
    if t in ("float", "double"):
        return t
    if t in _INT_TYPES or t.startswith("unsigned"):
        return "int"
    if t in ("half", "__half"):
        return "half"
    return None


def typedefs(src: SourceFile) -> dict[str, str]:
    """`typedef double real;` and `using real = double;` of the file: name -> type text."""
    memo = src.memo.get("typedefs")
    if memo is not None:
        return memo
    out = {}
    for n in walk(src.root):
        if n.type == "type_definition":
            t, d = n.child_by_field_name("type"), n.child_by_field_name("declarator")
            if t is not None and d is not None and d.type == "type_identifier":
                out[src.node_text(d)] = src.node_text(t)
        elif n.type == "alias_declaration":
            name, t = n.child_by_field_name("name"), n.child_by_field_name("type")
            if name is not None and t is not None:
                out[src.node_text(name)] = src.node_text(t)
    src.memo["typedefs"] = out
    return out


def resolver(src: SourceFile, resolve=None):
    """type text -> type text with typedefs (and, through `resolve`, template arguments) put in."""
    tds = typedefs(src)

    def go(text: str) -> str:
        for _ in range(4):  # typedefs of typedefs
            new = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: tds.get(m.group(0), m.group(0)), resolve(text) if resolve else text)
            if new == text:
                break
            text = new
        return text
    return go


def declared_types(src: SourceFile, k: Kernel, resolve=None) -> dict[str, tuple[str | None, bool]]:
    """name -> (scalar kind, is pointer or array) for the kernel's params and locals.

    `resolve` maps a type as written to the type it stands for (template arguments, typedefs)."""
    resolve = resolve or (lambda t: t)
    out = {p.name: (scalar_kind(resolve(p.base_type)), p.is_pointer) for p in k.params}
    for d in nodes(k, "declaration"):
        tnode = d.child_by_field_name("type")
        kind = scalar_kind(resolve(src.node_text(tnode))) if tnode is not None else None
        for dec in d.children_by_field_name("declarator"):
            ptr, n = False, dec
            while n is not None and n.type != "identifier":
                if n.type in ("pointer_declarator", "array_declarator"):
                    ptr = True
                n = n.child_by_field_name("declarator")
            if n is not None:
                out[src.node_text(n)] = (kind, ptr)
    return out


def call_name(src: SourceFile, call: ts.Node) -> str:
    fn = call.child_by_field_name("function")
    return src.node_text(fn).split("::")[-1].strip() if fn is not None else ""


def expr_type(src: SourceFile, n: ts.Node | None, types: dict, lits_float: bool = False) -> str | None:
    """'float', 'double', 'int', 'half' or None (unknown) for an expression.

    lits_float: count unsuffixed literals as float (the type once the literals are fixed).
    """
    if n is None:
        return None
    t = n.type
    if t == "number_literal":
        s = src.node_text(n)
        if s[-1:] in "fF" and not s.lower().startswith(("0x", "-0x")):
            return "float"
        return ("float" if lits_float else "double") if _FLOAT_LIT.match(s) else "int"
    if t == "identifier":
        kind, ptr = types.get(src.node_text(n), (None, False))
        return None if ptr else kind
    if t == "field_expression":
        base = src.node_text(n.child_by_field_name("argument") or n)
        return "int" if base in ("threadIdx", "blockIdx", "blockDim", "gridDim") else None
    if t == "subscript_expression":
        arg = n.child_by_field_name("argument")
        if arg is not None and arg.type == "identifier":
            kind, ptr = types.get(src.node_text(arg), (None, False))
            return kind if ptr else None
        return None
    if t in ("parenthesized_expression",):
        return expr_type(src, n.named_children[0] if n.named_children else None, types, lits_float)
    if t == "unary_expression":
        op = src.node_text(n.child_by_field_name("operator"))
        return "int" if op == "!" else expr_type(src, n.child_by_field_name("argument"), types, lits_float)
    if t == "cast_expression":
        tn = n.child_by_field_name("type")
        return scalar_kind(src.node_text(tn)) if tn is not None else None
    if t == "binary_expression":
        op = src.node_text(n.child_by_field_name("operator"))
        if op in ("<", ">", "<=", ">=", "==", "!=", "&&", "||"):
            return "int"
        return promote(expr_type(src, n.child_by_field_name("left"), types, lits_float),
                       expr_type(src, n.child_by_field_name("right"), types, lits_float))
    if t == "conditional_expression":
        return promote(expr_type(src, n.child_by_field_name("consequence"), types, lits_float),
                       expr_type(src, n.child_by_field_name("alternative"), types, lits_float))
    if t == "call_expression":
        name = call_name(src, n)
        if name in FLOAT_MATH:
            return "float"
        if name in DOUBLE_MATH:
            args = n.child_by_field_name("arguments")
            kinds = [expr_type(src, a, types, lits_float) for a in (args.named_children if args is not None else [])]
            if None in kinds or not kinds:
                return None
            return "float" if all(x == "float" for x in kinds) else "double"
        return None
    return None


def promote(a: str | None, b: str | None) -> str | None:
    if "double" in (a, b):
        return "double"
    if a is None or b is None:
        return None
    if "float" in (a, b):
        return "float"
    return "half" if "half" in (a, b) else "int"


def is_double_literal(src: SourceFile, n: ts.Node) -> bool:
    return n.type == "number_literal" and bool(_FLOAT_LIT.match(src.node_text(n)))


def literal_cause(src: SourceFile, lit: ts.Node, types: dict) -> bool:
    """Whether this double literal can make the expression around it double at run time."""
    cur, parent = lit, lit.parent
    while parent is not None and parent.type in ("parenthesized_expression", "unary_expression"):
        cur, parent = parent, parent.parent
    if parent is None:
        return False
    pt = parent.type
    if pt == "init_declarator" or pt == "cast_expression":
        return False  # converted once, at compile time
    if pt == "assignment_expression":
        op = src.node_text(parent.child_by_field_name("operator"))
        return op != "="  # x *= 0.5 computes x * 0.5 in double
    if pt == "argument_list":
        call = parent.parent
        return call is not None and call_name(src, call) in DOUBLE_MATH
    if pt == "binary_expression":
        other = parent.child_by_field_name("right" if parent.child_by_field_name("left") == cur else "left")
        return expr_type(src, other, types, lits_float=True) != "double"
    return pt in ("conditional_expression", "return_statement", "subscript_argument_list")


def computes_in_double(src: SourceFile, k: Kernel, types: dict, resolve=None) -> bool:
    if any(kind == "double" for kind, _ in types.values()):
        return True
    resolve = resolve or (lambda t: t)
    return any("double" in resolve(src.node_text(c.child_by_field_name("type") or c)) for c in nodes(k, "cast_expression"))


def _ratio_value(arch: str) -> str:
    r = FP64_RATIO.get(arch)
    return f"1/{round(1 / r)}" if r else "unknown"


def fp64_ratio_text(arch: str) -> str:
    r = FP64_RATIO.get(arch)
    if r is None:
        return f"FP64 throughput on {arch} is below FP32 (1/2 on data-center parts, 1/64 on consumer parts)"
    return f"FP64 runs at 1/{round(1 / r)} of the FP32 rate on {arch}"


@tool(
    "fp64",
    """FP64 (double-precision) instructions in kernels whose data is float. Reads the SASS
    (DADD, DMUL, DFMA, DSETP, F2F.F64 conversions, mapped to source lines) and the source, and
    names the unsuffixed literal (2.0 instead of 2.0f) or the double math call (pow(x, 2)
    instead of powf) that promoted the arithmetic to double. Use it when a float kernel is
    slower than expected, especially on consumer GPUs where FP64 runs at 1/64 of FP32.""",
    needs=("artifact", "sass"),
    rules=("fp64-in-float-kernel",),
)
def fp64_tool(ctx: Context):
    out = []
    src = ctx.source
    for k in src.kernels:
        by_line = ctx.sass_by_line(k)
        per_line = {ln: sum(1 for i in ins if is_fp64(i.opcode)) for ln, ins in by_line.items()}
        per_line = {ln: c for ln, c in per_line.items() if c}
        total = sum(per_line.values())
        if not total:
            continue
        resolve = resolver(src, lambda t, k=k: ctx.type_of(k, t))
        types = declared_types(src, k, resolve)
        if computes_in_double(src, k, types, resolve):
            continue  # a double kernel (or instantiation) computes in double on purpose
        if not any(kind in ("float", "half") for kind, _ in types.values()):
            continue  # not known to be a float kernel: say nothing
        name = ctx.label(k)
        ratio = fp64_ratio_text(ctx.arch)
        lines = [ln for ln in sorted(per_line)
                 if k.contains_line(ln) and src.lines[ln - 1].strip().strip("{}").strip()]  # not library code at a brace
        causes = {ln: _causes(src, k, ln, types) for ln in lines}
        for ln in lines:
            ev = [Evidence("FP64 instructions on this line", per_line[ln], "", "sass"),
                  Evidence("FP64 instructions in kernel", total, "", "sass"),
                  Evidence("FP64:FP32 throughput", _ratio_value(ctx.arch), ctx.arch, "arch")]
            found = causes[ln]
            for node, kind in found:
                out.append(_advice(ctx, k, node, kind, ln, per_line[ln], total, ratio, ev, name))
            # a loop's first line without a cause while a line inside the loop has one: the compiler
            # hoisted the invariant there; the cause is reported where it is written
            hoisted = any(l.line == ln and any(l.line < c <= l.end_line and causes[c] for c in causes) for l in k.loops)
            if not found and not hoisted and not _has_float_math(src, k, ln):
                a = advice_at(ctx, "fp64-in-float-kernel", Severity.WARNING, k, ln,
                              f"line {ln} of float kernel {name} runs {per_line[ln]} FP64 instructions "
                              f"(of {total} in the kernel) but no double literal or double math call was found "
                              f"on it; {ratio}",
                              "look for a double value on this line (an unsuffixed literal, a double variable "
                              "or macro, an int passed to a math function) and make it float",
                              ev)
                out.append(a)
    return out


def _has_float_math(src: SourceFile, k: Kernel, ln: int) -> bool:
    """sinf/cosf/powf... use a few FP64 instructions in their slow path: not the user's doing."""
    return any(n.start_point[0] + 1 == ln and call_name(src, n) in FLOAT_MATH for n in nodes(k, "call_expression"))


def _causes(src: SourceFile, k: Kernel, ln: int, types: dict) -> list[tuple[ts.Node, str]]:
    found = []
    lits = [n for n in nodes(k, "number_literal") if n.start_point[0] + 1 == ln and is_double_literal(src, n)]
    causes = [n for n in lits if literal_cause(src, n, types)]
    found += [(n, "literal") for n in causes]
    macros = float_macros(src)
    for n in nodes(k, "identifier"):
        if n.start_point[0] + 1 == ln and src.node_text(n) in macros and literal_cause(src, n, types):
            found.append((n, "macro"))
    for call in nodes(k, "call_expression"):
        if call.start_point[0] + 1 != ln or call_name(src, call) not in DOUBLE_MATH:
            continue
        if any(call.start_byte <= n.start_byte < call.end_byte for n in causes):
            continue  # the literal inside is the cause; its f suffix fixes the call too
        if expr_type(src, call, types) == "double":
            found.append((call, "call"))
    return sorted(found, key=lambda x: x[0].start_byte)


def float_macros(src: SourceFile) -> dict[str, tuple[int, int, str]]:
    """#define NAME 0.9 -> {NAME: (line, end column of the value, value text)}."""
    out = {}
    for n in walk(src.root):
        if n.type == "preproc_def":
            name, value = n.child_by_field_name("name"), n.child_by_field_name("value")
            if name is None or value is None:
                continue
            text = src.node_text(value).strip()
            if _FLOAT_LIT.match(text):
                line, col, _, _ = src.pos(value)
                lead = len(src.node_text(value)) - len(src.node_text(value).lstrip())
                out[src.node_text(name)] = (line, col + lead + len(text), text)
    return out


def template_type_of(src: SourceFile, k: Kernel, node: ts.Node) -> str | None:
    """The kernel's type template parameter (`T`) the statement around `node` computes in: a
    name it uses is declared with a type that mentions T (`T* y`, `T a`, `const T v`). A fix
    there must keep T: `T(0.3)`, not `0.3f`, which would change the `double` instantiation."""
    tparams = [name for kind, name in k.template_params if kind == "type"]
    if not tparams:
        return None
    written = {p.name: p.type_text for p in k.params}
    for d in nodes(k, "declaration"):
        t = d.child_by_field_name("type")
        for dec in d.children_by_field_name("declarator"):
            n = dec
            while n is not None and n.type != "identifier":
                n = n.child_by_field_name("declarator")
            if n is not None and t is not None:
                written[src.node_text(n)] = src.node_text(t)
    stmt = node
    while stmt.parent is not None and not (stmt.type.endswith("_statement") or stmt.type == "declaration") \
            and stmt != k.body:
        stmt = stmt.parent
    for x in walk(stmt):
        text = src.node_text(x)
        if x.type in ("type_identifier",) and text in tparams:
            return text
        if x.type == "identifier" and text in written:
            hit = next((tp for tp in tparams if re.search(rf"\b{re.escape(tp)}\b", written[text])), None)
            if hit:
                return hit
    return None


def _advice(ctx, k, node, kind, ln, count, total, ratio, ev, name_k):
    src = ctx.source
    tparam = template_type_of(src, k, node)
    if tparam is not None and kind in ("macro", "literal"):
        return _template_advice(ctx, k, node, kind, ln, count, total, ratio, ev, name_k, tparam)
    if kind == "macro":
        name = src.node_text(node)
        mline, mend, value = float_macros(src)[name]
        msg = (f"the macro {name} (#define {name} {value}, line {mline}) is a double literal: it promotes the "
               f"arithmetic on line {ln} to FP64 in float kernel {name_k} ({count} FP64 instructions on this line, "
               f"{total} in the kernel); {ratio}")
        fix = {"title": f"Make {name} a float literal ({value}f)",
               "edits": [{"line": mline, "column": mend, "end_line": mline, "end_column": mend, "new_text": "f"}]}
        return advice_at(ctx, "fp64-in-float-kernel", Severity.WARNING, k, node, msg,
                         f"write #define {name} {value}f (or a float variable) so the arithmetic stays in float",
                         list(ev), fix=fix)
    if kind == "literal":
        text = src.node_text(node)
        expr = node.parent
        while expr is not None and expr.type in ("parenthesized_expression", "unary_expression", "argument_list"):
            expr = expr.parent
        ctx_text = " ".join(src.node_text(expr).split()) if expr is not None else text
        if len(ctx_text) > 60:
            ctx_text = ctx_text[:57] + "..."
        line, col, _, end = src.pos(node)
        msg = (f"the literal {text} on line {ln} is a double: it promotes `{ctx_text}` to FP64 in float kernel "
               f"{name_k} ({count} FP64 instructions on this line, {total} in the kernel); {ratio}")
        remedy = f"write {text}f so the arithmetic stays in float"
        fix = {"title": f"Make {text} a float literal ({text}f)",
               "edits": [{"line": line, "column": end, "end_line": line, "end_column": end, "new_text": "f"}]}
        return advice_at(ctx, "fp64-in-float-kernel", Severity.WARNING, k, node, msg, remedy, list(ev), fix=fix)
    fn = node.child_by_field_name("function")
    name = src.node_text(fn)
    short = name.split("::")[-1]
    line, col, _, end = src.pos(fn)
    msg = (f"{name}() on line {ln} calls the double-precision version (an integer or double argument) in float "
           f"kernel {name_k} ({count} FP64 instructions on this line, {total} in the kernel); {ratio}")
    remedy = f"call {short}f() with float arguments (for pow(x, 2) write x * x)"
    fix = {"title": f"Use {short}f", "edits": [{"line": line, "column": col, "end_line": line,
                                                "end_column": end, "new_text": short + "f"}]}
    if tparam is not None:  # `powf` would be wrong in the other instantiations of the template
        remedy = (f"call {short}() with arguments of type {tparam} (for pow(x, 2) write x * x), so each "
                  f"instantiation of {k.name} picks its own overload")
        fix = None
    return advice_at(ctx, "fp64-in-float-kernel", Severity.WARNING, k, node, msg, remedy, list(ev), fix=fix)


def _template_advice(ctx, k, node, kind, ln, count, total, ratio, ev, name_k, tparam: str):
    """A double literal (or macro) in an expression of the template's type T: the fix converts it
    to T, `T(0.3)`, which is float in this instantiation and stays double in a `double` one."""
    src = ctx.source
    text = src.node_text(node)
    line, col, _, end = src.pos(node)
    bound = ctx.type_of(k, tparam)
    what = f"the macro {text}" if kind == "macro" else f"the literal {text}"
    expr = node.parent
    while expr is not None and expr.type in ("parenthesized_expression", "unary_expression", "argument_list"):
        expr = expr.parent
    ctx_text = " ".join(src.node_text(expr).split()) if expr is not None else text
    if len(ctx_text) > 60:
        ctx_text = ctx_text[:57] + "..."
    msg = (f"{what} on line {ln} is a double: it promotes `{ctx_text}` to FP64 in float kernel {name_k} "
           f"({count} FP64 instructions on this line, {total} in the kernel; {tparam} is {bound} here); {ratio}")
    remedy = (f"write {tparam}({text}) so the arithmetic stays in {tparam} in every instantiation of {k.name} "
              f"({text}f would change the double ones)")
    fix = {"title": f"Convert {text} to {tparam} ({tparam}({text}))",
           "edits": [{"line": line, "column": col, "end_line": line, "end_column": end, "new_text": f"{tparam}({text})"}]}
    return advice_at(ctx, "fp64-in-float-kernel", Severity.WARNING, k, node, msg, remedy, list(ev), fix=fix)
