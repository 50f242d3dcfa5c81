"""Branches chosen by the kernel's scalar arguments alone, read at the spec's values.

Reference BLAS decodes `char transa` into `nota`, a framework kernel takes `bool transB`, an epilogue tests
`beta == 0.0f`: every thread takes the same side, so the kernel is one of several fixed kernels chosen per call,
and none of them is the plain product the plans read. `specialised` gives the kernel with each such condition
replaced by its value at the spec's sizes (where every size agrees); `with_fallback` puts the kernel as written
back into a candidate of that text for every other value: a uniform `if` at the top of the candidate runs the old
body for each thread of the old launch (a grid-stride loop over virtual threads), so the candidate computes what
the kernel computes for any argument, fast for the spec's.

Only flag-like parameters are read this way (bool, char and floating scalars, and integers used in conditions
alone), never a size: `if (K % 4 == 0)` chooses by size, and a size the spec lacks would take the slow path.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from kernelpro.profilers.analysis.loops import writes_in
from kernelpro.profilers.analysis.types import table_for
from kernelpro.profilers.source import SourceFile, parse_source, walk

from .text import Refuse, span_text
from .virtual import insert_before, param_list, template_parts

BUILTINS = ("threadIdx", "blockIdx", "blockDim", "gridDim")
FLAG_TYPES = {"bool", "char", "unsigned char", "signed char", "float", "double"}
# what the kernel as written may not do to be run for virtual threads: meet other threads of its block
COOPERATES = re.compile(r"__shared__|__syncthreads|__syncwarp|__shfl|__ballot|__activemask|__any_sync|__all_sync|"
                        r"cooperative_groups|this_thread_block|tiled_partition|__match|__reduce_\w+_sync|asm\b")


@dataclass
class Specialised:
    text: str  # the file with the kernel's uniform conditions replaced by their values
    guard: str  # C over the parameters: true exactly where those values hold
    note: str  # what the candidate assumes, for its description and branch note


def _conditions(src: SourceFile, body) -> list:
    """The condition nodes of the body's `if`s and `?:`s."""
    out = []
    for n in walk(body):
        if n.type == "if_statement":
            c = n.child_by_field_name("condition")
            if c is not None:
                out.append(c.named_children[-1] if c.type == "condition_clause" and c.named_children else c)
        elif n.type == "conditional_expression":
            c = n.child_by_field_name("condition")
            if c is not None:
                out.append(c)
    return out


def _inside(n, nodes) -> bool:
    while n is not None:
        if any(n.id == m.id for m in nodes):
            return True
        n = n.parent
    return False


def _assigned(src: SourceFile, body) -> set[str]:
    return {name for name, _ in writes_in(src, body)}


def _uses(src: SourceFile, node) -> list:
    return [n for n in walk(node) if n.type == "identifier"]


def _pure(src: SourceFile, node, names: set[str]) -> bool:
    """Only literals, operators and `names` (no call, memory, field or built-in)."""
    ids = _uses(src, node)
    if not ids or any(src.node_text(i) not in names for i in ids):
        return False
    return not any(n.type in ("call_expression", "subscript_expression", "field_expression", "pointer_expression",
                              "assignment_expression", "update_expression", "sizeof_expression") for n in walk(node))


def _locals(src: SourceFile, body, params: set[str]) -> dict[str, object]:
    """Scalar locals declared once, with a value of parameters (and earlier such locals), and never assigned
    again: name -> the value's node, with each one's declared type in `.types`."""
    assigned, out, seen, types = _assigned(src, body), {}, {}, {}
    for n in walk(body):
        if n.type != "declaration":
            continue
        for d in n.children_by_field_name("declarator"):
            name = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
            while name is not None and name.type not in ("identifier",) and name.child_by_field_name("declarator"):
                name = name.child_by_field_name("declarator")
            if name is not None:
                seen[src.node_text(name)] = seen.get(src.node_text(name), 0) + 1
            if d.type != "init_declarator":
                continue
            val = d.child_by_field_name("value")
            if name is None or val is None or name.type != "identifier" or src.node_text(name) in assigned:
                continue
            if _pure(src, val, params | set(out)):
                out[src.node_text(name)] = val
                types[src.node_text(name)] = " ".join(src.node_text(n.child_by_field_name("type")).replace(
                    "const", "").split())
    got = _Locals({name: v for name, v in out.items() if seen.get(name) == 1 and name not in params})  # (shadowed:
    got.types = types  # none)
    return got


class _Locals(dict):
    """name -> value node, and `types`: name -> the declared type (a local's value is converted to it)."""
    types: dict


def _flag_params(src: SourceFile, k, conds: list, locals_: dict) -> set[str]:
    """The scalar parameters that choose rather than size: flag-typed, or used only in conditions (directly or
    through the locals of `locals_`)."""
    body, out = k.body, set()
    inits = list(locals_.values())
    types = table_for(src)
    assigned = _assigned(src, body)
    for p in k.params:
        if p.is_pointer or p.name in assigned:  # (`if (transa >= 'a') transa -= 32;`: not the spec's value after)
            continue
        base = " ".join(p.type_text.replace("const", "").split())
        sc = types.scalar(base)  # (through typedefs and macros: `#define BASE double`)
        if base in FLAG_TYPES or sc is not None and (sc.kind == "float" or sc.name in ("bool", "int8", "uint8")):
            out.add(p.name)
            continue
        uses = [i for i in _uses(src, body) if src.node_text(i) == p.name]
        if uses and all((_inside(i, conds) or _inside(i, inits)) and _chooses(src, i) for i in uses):
            out.add(p.name)
    return out


def _chooses(src: SourceFile, use) -> bool:
    """An integer's use that picks rather than sizes: tested for (in)equality, as a truth value or by a bit mask
    (`mode == 2`, `if (trans)`, `opts & 2`), never ordered against a value (`ncols >= 64` reads a size)."""
    p = use.parent
    while p is not None and p.type == "parenthesized_expression":
        p = p.parent
    if p is None or p.type != "binary_expression":
        return True
    return src.node_text(p.child_by_field_name("operator")) in ("==", "!=", "&", "&&", "||")


def _value(src: SourceFile, n, env: dict, locals_: dict, depth: int = 0):
    """The C expression's value with `env`'s parameters; None where it cannot be told."""
    if n is None or depth > 40:
        return None
    t, txt = n.type, src.node_text(n).strip()
    if t == "number_literal":
        s = txt.lower().rstrip("ulf") if not txt.lower().startswith("0x") else txt.lower().rstrip("ul")
        try:
            return int(s, 0) if re.fullmatch(r"0x[0-9a-f]+|\d+", s) else float(s)
        except ValueError:
            return None
    if t == "char_literal":
        m = re.fullmatch(r"'(.)'", txt)
        return ord(m.group(1)) if m else None
    if t in ("true", "false"):
        return t == "true"
    if t == "identifier":
        if txt in locals_:
            return _converted(_value(src, locals_[txt], env, locals_, depth + 1), locals_.types.get(txt, ""))
        return env.get(txt)
    if t == "parenthesized_expression":
        return _value(src, n.named_children[0], env, locals_, depth + 1) if n.named_children else None
    if t == "cast_expression":
        v = _value(src, n.child_by_field_name("value"), env, locals_, depth + 1)
        ty = src.node_text(n.child_by_field_name("type"))
        return None if v is None else (bool(v) if "bool" in ty else int(v) if re.search(r"int|char|long", ty) else v)
    if t == "unary_expression":
        v = _value(src, n.child_by_field_name("argument"), env, locals_, depth + 1)
        op = src.node_text(n.child_by_field_name("operator"))
        return None if v is None else {"!": not v, "-": -v, "+": v}.get(op)
    if t == "conditional_expression":
        c = _value(src, n.child_by_field_name("condition"), env, locals_, depth + 1)
        return None if c is None else _value(src, n.child_by_field_name("consequence" if c else "alternative"),
                                             env, locals_, depth + 1)
    if t == "binary_expression":
        op = src.node_text(n.child_by_field_name("operator"))
        a = _value(src, n.child_by_field_name("left"), env, locals_, depth + 1)
        if op in ("&&", "||") and a is not None and bool(a) == (op == "||"):
            return op == "||"
        b = _value(src, n.child_by_field_name("right"), env, locals_, depth + 1)
        if a is None or b is None:
            return None
        ops = {"==": lambda: a == b, "!=": lambda: a != b, "<": lambda: a < b, "<=": lambda: a <= b,
               ">": lambda: a > b, ">=": lambda: a >= b, "&&": lambda: bool(a) and bool(b),
               "||": lambda: bool(a) or bool(b), "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
               "&": lambda: int(a) & int(b), "|": lambda: int(a) | int(b)}
        return ops[op]() if op in ops else None
    return None


def _converted(v, type_text: str):
    """A value as a local of that type holds it (`const bool t = opts & 2;` holds true)."""
    if v is None:
        return None
    if type_text == "bool":
        return bool(v)
    if re.search(r"\b(int|char|short|long|unsigned|size_t|int\d+_t|uint\d+_t)\b", type_text):
        return int(v)
    return v


def _in_params(src: SourceFile, n, locals_: dict, depth: int = 0) -> str:
    """The expression as C over the parameters (each local replaced by its value converted to its type)."""
    def value(i) -> str:
        v = locals_[src.node_text(i)]
        ty = locals_.types.get(src.node_text(i))
        inner = _in_params(src, v, locals_, depth + 1)
        return f"(({ty})({inner}))" if ty else f"({inner})"
    subs = [(i.start_byte, i.end_byte, value(i)) for i in _uses(src, n) if src.node_text(i) in locals_ and depth < 8]
    return span_text(src, n.start_byte, n.end_byte, subs)


def _same_reads(src: SourceFile, a, b) -> bool:
    """Both sides are reads of one array, or of pointer parameters of one element type (`A[i + l * lda]`,
    `A[l + i * lda]`): the side alone has the expression's type."""
    k = next((x for x in src.kernels if x.node.start_byte <= a.start_byte < x.node.end_byte), None)
    bases = []
    for n in (a, b):
        while n is not None and n.type == "parenthesized_expression" and n.named_children:
            n = n.named_children[0]
        arg = n.child_by_field_name("argument") if n is not None and n.type == "subscript_expression" else None
        bases.append(src.node_text(arg) if arg is not None and arg.type == "identifier" else None)
    if bases[0] is not None and bases[0] == bases[1]:
        return True  # (one array read at two places: `A[i + l * lda]` or `A[l + i * lda]`)
    types = set()
    for n in (a, b):
        while n is not None and n.type == "parenthesized_expression" and n.named_children:
            n = n.named_children[0]
        arg = n.child_by_field_name("argument") if n is not None and n.type == "subscript_expression" else None
        p = k.param(src.node_text(arg)) if k is not None and arg is not None and arg.type == "identifier" else None
        if p is None or not p.is_pointer:
            return False
        types.add(" ".join(p.base_type.replace("const", "").split()))
    return len(types) == 1


def _chosen(src: SourceFile, cond, value: bool) -> tuple[int, int, str]:
    """The edit that keeps the side `value` of the `if` or `?:` whose condition is `cond`."""
    owner = cond.parent
    if owner.type == "condition_clause":
        owner = owner.parent
    if owner.type == "conditional_expression":
        side = owner.child_by_field_name("consequence" if value else "alternative")
        other = owner.child_by_field_name("alternative" if value else "consequence")
        if _same_reads(src, side, other):
            return owner.start_byte, owner.end_byte, "(" + src.node_text(side) + ")"
        # (`unit ? 1 : 0.5f` is a float: the condition a literal keeps the common type of the two sides)
        return cond.start_byte, cond.end_byte, "true" if value else "false"
    if value:
        side = owner.child_by_field_name("consequence")
    else:
        alt = owner.child_by_field_name("alternative")
        side = (alt.named_children[-1] if alt is not None and alt.type == "else_clause" else alt)
    return owner.start_byte, owner.end_byte, src.node_text(side) if side is not None else ";"


def specialised(text: str, path: str, kernel: str, envs: list[dict]) -> Specialised | None:
    """The kernel with each condition on flag-like parameters alone replaced by its value at every spec size
    (`envs`: one dict of parameter values a size), where the sizes agree; None where there is none."""
    said: dict[str, bool] = {}
    for _ in range(8):  # outermost conditions first; the kept sides may hold more
        src = parse_source(text, path)
        k = src.kernel(kernel)
        if k is None or k.body is None or k.is_template:
            return None
        names = {p.name for p in k.params if not p.is_pointer}
        conds = _conditions(src, k.body)
        locals_ = _locals(src, k.body, names)
        flags = _flag_params(src, k, conds, locals_)
        enums = {n: v for n, v in _enumerators(src).items() if n not in names and n not in locals_}
        uniform = _Locals({n: v for n, v in locals_.items() if _pure(src, v, flags | set(locals_) | set(enums))})
        uniform.types = locals_.types
        chosen = []
        for c in conds:
            if not _pure(src, c, flags | set(uniform) | set(enums)) or any(_inside(c.parent, [d]) for d, _ in chosen):
                continue
            vals = {_value(src, c, {**enums, **env}, uniform) for env in envs}
            if len(vals) != 1 or None in vals:
                continue
            v = bool(vals.pop())
            chosen.append((c, v))
            said[_in_params(src, c, uniform).strip()] = v
        if not chosen:
            break
        text = span_text(src, 0, len(src.data), [_chosen(src, c, v) for c, v in chosen])
    if not said:
        return None
    text = _drop_unused(text, path, kernel)
    guard = " && ".join(f"({c})" if v else f"!({c})" for c, v in said.items())
    src = parse_source(text, path)
    k = src.kernel(kernel)
    if k is None:
        return None
    env0 = envs[0] if envs else {}
    vals = ", ".join(f"{p.name} = {_shown(env0.get(p.name), p.type_text)}" for p in k.params
                     if not p.is_pointer and any(re.search(rf"\b{re.escape(p.name)}\b", c) for c in said))
    note = (f"specialised to the spec's {vals} (each condition on them read at that value); any other value "
            f"runs the kernel as written, for each thread of its launch")
    return Specialised(text, guard, note)


def _enumerators(src: SourceFile) -> dict[str, int]:
    """The file's enumerators and their values (`CUBLAS_OP_N = 0`, or one more than the one before)."""
    out = {}
    for lst in walk(src.root):
        if lst.type != "enumerator_list":
            continue
        nxt = 0
        for e in lst.named_children:
            if e.type != "enumerator":
                continue
            v = e.child_by_field_name("value")
            val = src.eval_int(v) if v is not None else nxt
            if val is None:
                break
            out[src.node_text(e.child_by_field_name("name"))] = val
            nxt = val + 1
    return out


def _shown(v, type_text: str) -> str:
    if isinstance(v, int) and "char" in type_text and 32 < v < 127:
        return f"'{chr(v)}'"
    return str(v)


def _drop_unused(text: str, path: str, kernel: str) -> str:
    """Declarations of scalar locals of pure values that nothing reads any more."""
    for _ in range(8):
        src = parse_source(text, path)
        k = src.kernel(kernel)
        if k is None or k.body is None:
            return text
        params = {p.name for p in k.params if not p.is_pointer}
        locals_ = _locals(src, k.body, params)
        used = {src.node_text(i) for i in _uses(src, k.body) if i.parent.type != "init_declarator"
                or i.parent.child_by_field_name("declarator") != i}
        dead = [n for n in walk(k.body) if n.type == "declaration" and
                all(d.type == "init_declarator" and src.node_text(d.child_by_field_name("declarator")) in locals_
                    and src.node_text(d.child_by_field_name("declarator")) not in used
                    for d in n.children_by_field_name("declarator"))]
        if not dead:
            return text
        text = span_text(src, 0, len(src.data), [(d.start_byte, d.end_byte, "") for d in dead])
    return text


@dataclass
class Kept:
    """The kernel as written as a helper: its definition, the call that runs it, the kernel's parameter names."""
    fn: str
    call: str
    names: list


def as_written(text: str, path: str, kernel: str, virtual: bool = True) -> Kept:
    """The kernel as written as a `__device__` helper of its parameters (its definition, and the call that runs it
    in a kernel of the same signature). `virtual`: the four built-ins are arguments too, so any thread can run any
    old thread's body (`with_fallback`); Refuse where the body, a helper or a macro of the file meets other threads
    of the block or reads the built-ins behind the helper's back. Else the helper reads the built-ins themselves:
    for a candidate that keeps the kernel's launch (`taps.with_generic_path`)."""
    src = parse_source(text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None or any(not p.name for p in k.signature):
        raise Refuse(f"{kernel}: no body, or a parameter without a name, to keep the kernel as written")
    body = src.node_text(k.body)
    tmpl, targs, _ = template_parts(src, k)
    names = [p.name for p in k.signature]
    args = ", ".join(names)
    if not virtual:
        return Kept(f"{tmpl}__device__ __forceinline__ void kp_{kernel}_any({param_list(src, k)}) {body}\n\n",
                    f"kp_{kernel}_any{targs}({args})", names)
    if k.is_template:
        raise Refuse(f"{kernel}: a template kernel, not yet kept as written for virtual threads")
    if COOPERATES.search(body):
        raise Refuse(f"{kernel} meets other threads of its block (shared memory, a barrier or a shuffle): its "
                     f"body cannot run for a virtual thread")
    builtin = re.compile(r"\b(" + "|".join(BUILTINS) + r")\b")
    for n in walk(src.root):
        if n.type == "function_definition" and n.id != k.node.id and "__global__" not in \
                src.node_text(n)[:src.node_text(n).find("(")] and (builtin.search(src.node_text(n)) or
                                                                 COOPERATES.search(src.node_text(n))):
            raise Refuse("a helper of the file reads the thread's built-in indices or meets other threads: the "
                         "kernel as written cannot run for a virtual thread")
        if n.type in ("preproc_def", "preproc_function_def") and n.child_by_field_name("value") is not None and (
                builtin.search(src.node_text(n.child_by_field_name("value")))
                or COOPERATES.search(src.node_text(n.child_by_field_name("value")))):
            raise Refuse("a macro of the file reads the thread's built-in indices or meets other threads: the "
                         "kernel as written cannot run for a virtual thread")
    params = param_list(src, k)
    extra = ", ".join(f"const dim3 kp_{b}" for b in BUILTINS)
    body = builtin.sub(r"kp_\1", body)
    fn = (f"// {kernel} as written, for one thread of its own launch (the candidate runs it where the arguments "
          f"differ from the spec's)\nstatic __device__ __noinline__ void kp_as_written_{kernel}("
          f"{params + ', ' if params else ''}{extra})\n{body}\n\n")
    return Kept(fn, f"kp_as_written_{kernel}({args + ', ' if args else ''}kp_ti, kp_bi, kp_b, kp_g)", names)  # (the
    # built-ins in BUILTINS' order)


def with_fallback(source: str, path: str, kernel: str, kept: Kept, guard: str,
                  grid: list[str] | None = None, block: list[int] | None = None) -> str:
    """The candidate `source` with the kept kernel (`as_written`) before its kernel, and the kernel's body opened by a
    uniform `if (!(guard))` (the same for the whole grid, before any barrier) that runs it and returns: once (the
    candidate keeps the kernel's launch: grid None), or for every thread of the old launch (grid: C over the
    parameters, block: numbers), each its old indices."""
    src = parse_source(source, path)
    k = src.kernel(kernel)
    if k is None or k.body is None:
        raise Refuse(f"the candidate has no kernel {kernel} to keep the other arguments' path in")
    if [p.name for p in k.signature] != kept.names:
        raise Refuse(f"the candidate changed {kernel}'s parameters")
    call = kept.call
    ind = "    "
    if grid is None:
        path_ = f"\n{ind}if (!({guard})) {{ {call}; return; }}  // other arguments than the spec's: as written"
    else:
        g = list(grid) + ["1ull"] * (3 - len(grid))
        b = [int(x) for x in block] + [1] * (3 - len(block))
        path_ = (f"\n{ind}if (!({guard})) {{  // other arguments than the spec's: the kernel as written\n"
                 f"{ind}    const dim3 kp_g((unsigned)({g[0]}), (unsigned)({g[1]}), (unsigned)({g[2]})), "
                 f"kp_b({b[0]}, {b[1]}, {b[2]});\n"
                 f"{ind}    const unsigned long long kp_nt = {b[0] * b[1] * b[2]}ull, "
                 f"kp_n = kp_nt * kp_g.x * kp_g.y * kp_g.z;\n"
                 f"{ind}    const unsigned long long kp_step = (unsigned long long)gridDim.x * gridDim.y * gridDim.z * "
                 f"blockDim.x * blockDim.y * blockDim.z;\n"
                 f"{ind}    for (unsigned long long kp_v = ((unsigned long long)(blockIdx.z * gridDim.y + blockIdx.y) * "
                 f"gridDim.x + blockIdx.x) * (blockDim.x * blockDim.y * blockDim.z) + (threadIdx.z * blockDim.y + "
                 f"threadIdx.y) * blockDim.x + threadIdx.x; kp_v < kp_n; kp_v += kp_step) {{\n"
                 f"{ind}        const unsigned long long kp_k = kp_v / kp_nt, kp_t = kp_v % kp_nt;\n"
                 f"{ind}        const dim3 kp_bi((unsigned)(kp_k % kp_g.x), (unsigned)(kp_k / kp_g.x % kp_g.y), "
                 f"(unsigned)(kp_k / kp_g.x / kp_g.y));\n"
                 f"{ind}        const dim3 kp_ti((unsigned)(kp_t % {b[0]}), (unsigned)(kp_t / {b[0]} % {b[1]}), "
                 f"(unsigned)(kp_t / {b[0] * b[1]}));\n"
                 f"{ind}        {call};\n"
                 f"{ind}    }}\n{ind}    return;\n{ind}}}")
    at = insert_before(src, k)  # (before `extern "C"` and a template header, which would bind the helper)
    return span_text(src, 0, len(src.data), [(at, at, kept.fn), (k.body.start_byte + 1, k.body.start_byte + 1,
                                                                   path_)])
