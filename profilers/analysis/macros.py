"""Function-like macros in a kernel read as what they stand for (`#define A(i, j) a[(i) + (j) * lda]`,
cuBLAS's `IDX2C`): the restructuring passes and the spec inference both read the accesses behind them."""
from __future__ import annotations

import re

from ..source import parse_source, span_text, walk
from .loops import text


def expand_macros(src_text: str, path: str, kernel: str, rounds: int = 4) -> str | None:
    """Calls in the kernel of the file's function-like macros (`#define A(i, j) a[(i) + (j) * lda]`, cuBLAS's
    `IDX2C(i, j, ld)`) replaced by their bodies with the arguments in parentheses, so the plans read the
    accesses they stand for; macros that stringize, paste or take `...` are left alone. None if none."""
    out = None
    for _ in range(rounds):  # a macro whose body calls another
        src = parse_source(src_text, path)
        k = src.kernel(kernel)
        if k is None or k.body is None:
            return out
        macros = {}
        for n in walk(src.root):
            if n.type != "preproc_function_def" or n.child_by_field_name("value") is None:
                continue
            raw = src.node_text(n.child_by_field_name("value")).replace("\\\n", " ")  # (text() joins lines first)
            raw = re.sub(r"/\*.*?\*/", " ", raw, flags=re.S)
            raw = re.sub(r"//.*", " ", raw)  # a comment after the body (`#define LOAD(p) __ldcs(p) // streaming`)
            body = " ".join(raw.split())
            params = [text(src, p) for p in n.child_by_field_name("parameters").named_children]
            if "#" in body or any(not re.fullmatch(r"[A-Za-z_]\w*", p) for p in params):
                continue
            macros[text(src, n.child_by_field_name("name"))] = (params, body)
        subs = _object_macros(src, k)
        subs += _statement_macros(src, k, macros)
        for call in walk(k.body):
            fn = call.child_by_field_name("function") if call.type == "call_expression" else None
            if fn is None or fn.type != "identifier" or text(src, fn) not in macros \
                    or any(a <= call.start_byte < b for a, b, _ in subs):
                continue
            params, body = macros[text(src, fn)]
            args = [a for a in call.child_by_field_name("arguments").named_children if a.type != "comment"]
            if len(args) != len(params):
                continue
            value = {p: text(src, a) if a.type in ("identifier", "number_literal") else f"({text(src, a)})"
                     for p, a in zip(params, args)}
            bare = {p_ for p_, a in zip(params, args) if a.type == "identifier"}  # `(i)` given a name: the bare
            # name (`(j) + (i)` reads as a cast of `+(i)` to type j); every parameter replaced in one pass

            def put(m, value=value, bare=bare):
                if m.group(1) is not None:
                    return value[m.group(1)] if m.group(1) in bare else \
                        f"({value[m.group(1)]})" if m.group(1) in value else m.group(0)
                return value.get(m.group(2), m.group(2))
            new = re.sub(r"\(\s*([A-Za-z_]\w*)\s*\)|\b([A-Za-z_]\w*)\b", put, body)
            if call.parent.type == "expression_statement" and _statements(new):
                # `CALCULATE_ELEMENTWISE_INDEX_OR_EXIT(id, M * N);`: a macro of statements, put in as statements
                subs.append((call.parent.start_byte, call.parent.end_byte,
                             new if new.rstrip().endswith((";", "}")) else new + ";"))
                continue
            subs.append((call.start_byte, call.end_byte, new if _primary(new) else f"({new})"))
        if not subs:
            return out
        src_text = out = span_text(src, 0, len(src.data), subs)
    return out


def _statements(body: str) -> bool:
    """A macro body that is statements rather than an expression: a `;` outside parentheses, or a leading keyword
    of a statement."""
    depth = 0
    for ch in body:
        depth += (ch == "(") - (ch == ")")
        if ch == ";" and depth == 0:
            return True
    return bool(re.match(r"\s*(if|for|while|do|switch|return)\b|\s*\{", body))


def _statement_macros(src, k, macros: dict) -> list:
    """Substitutions for a loop header written as a macro before a block (Caffe's `CUDA_KERNEL_LOOP(i, n) { .. }`,
    which the parser reads as a nested function definition): the call replaced by the macro's body with the
    arguments, names or numbers only, put in as they are."""
    subs = []
    for n in walk(k.body):
        d = n.child_by_field_name("declarator") if n.type == "function_definition" else None
        name = d.child_by_field_name("declarator") if d is not None and d.type == "function_declarator" else None
        if name is None or text(src, name) not in macros:
            continue
        params, body = macros[text(src, name)]
        args = [text(src, a).strip() for a in d.child_by_field_name("parameters").named_children]
        if len(args) != len(params) or any(not re.fullmatch(r"[A-Za-z_]\w*|\d+", a) for a in args):
            continue
        value = dict(zip(params, args))
        subs.append((d.start_byte, d.end_byte, re.sub(r"\b([A-Za-z_]\w*)\b", lambda m: value.get(m.group(1), m.group(1)),
                                                      body)))
    return subs


RUNTIME = ("threadIdx", "blockIdx", "blockDim", "gridDim")


def _object_macros(src, k) -> list:
    """Substitutions for the kernel's uses of object-like macros that stand for values known only at run time:
    a kernel parameter (PolyBench's `#define _PB_NI ni`) or an expression of the parameters or the thread's
    coordinates (`#define SIZE (nx * ny)`, `#define TID threadIdx.x`). Numeric macros stay (they are constants
    already) and so do types and statements."""
    params = {p.name for p in k.params if p.name}
    macros = {}
    for n in walk(src.root):
        if n.type == "preproc_call" and text(src, n.child_by_field_name("directive")).strip() == "#undef" \
                and n.start_byte < k.node.start_byte:
            macros.pop(text(src, n.child_by_field_name("argument")).strip(), None)
            continue
        if n.type != "preproc_def" or n.child_by_field_name("value") is None or n.start_byte > k.node.start_byte:
            continue  # (a macro defined after the kernel, or inside it, is not what the kernel reads)
        raw = re.sub(r"/\*.*?\*/", " ", src.node_text(n.child_by_field_name("value")).replace("\\\n", " "), flags=re.S)
        body = " ".join(re.sub(r"//.*", " ", raw).split())
        words = set(re.findall(r"[A-Za-z_]\w*", body))
        pasted = bool(words) and all(w in src.constants for w in words) and re.fullmatch(r"[\w\s+\-*/%()<>]+", body) \
            and not (body.startswith("(") and body.endswith(")"))  # `W / 2`: pasted as the compiler does
        if not body or any(c in body for c in "#;{}") or not (words & params or any(w in body for w in RUNTIME)
                                                              or pasted):
            continue
        macros[text(src, n.child_by_field_name("name"))] = body
    subs = []
    for n in walk(k.body):
        if n.type == "identifier" and text(src, n) in macros and not (
                n.parent is not None and n.parent.type == "field_expression" and n.parent.child_by_field_name("field") == n) \
                and not any(a.type.startswith("preproc") for a in _ancestors(n, k.body)):
            subs.append((n.start_byte, n.end_byte, macros[text(src, n)]))  # pasted as the preprocessor does
    return subs


def _ancestors(n, stop):
    while n is not None and n != stop:
        n = n.parent
        if n is not None:
            yield n


def _primary(e: str) -> bool:
    """`a[...]` (one subscript, its bracket closing at the end) or a name: safe without parentheses, also
    where it is stored to."""
    m = re.match(r"[A-Za-z_]\w*\s*", e)
    if m is None:
        return False
    rest = e[m.end():]
    if not rest:
        return True
    if not rest.startswith("["):
        return False
    depth = 0
    for i, ch in enumerate(rest):
        depth += ch == "["
        depth -= ch == "]"
        if depth == 0:
            return i == len(rest) - 1
    return False
