"""Put a model's device code into the user's file, keeping the file's host code as written.

The model answers with kernels and device helpers. Host functions it copies back unchanged
from the file (a launcher, say) are dropped before the answer is policed; the candidate is
the parent file with each redefined device function replaced in place, new device
functions inserted before the first kernel, and new #include / #define lines added after
the file's own. Top-level declarations (`__device__` and `__constant__` variables, structs,
typedefs, constexpr constants) replace the file's own of the same name, or go before the
file's first function. Device variables are state that outlives a launch: the runner puts
them back to their initial values before every launch (profilers/runtime/runner.ModuleState)
and the evaluation lists them (Evaluation.resources["device_state"]).
"""
from __future__ import annotations

import re

from .answer import _PARSER, _declarator_name

_DEVICE = {"__global__", "__device__"}
_DEFINE = re.compile(r"\s*#\s*define\s+(\w+)")


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


def _top_functions(src: str) -> list[tuple[str, set[str], int, int]]:
    """(name, qualifiers, start byte, end byte) of top-level functions (templates included;
    also those inside extern "C" and namespace blocks, as the profiler finds them)."""
    data = src.encode()
    tree = _PARSER.parse(data)
    out = []
    items = list(tree.root_node.children)
    while items:
        n = items.pop(0)
        if n.type in ("linkage_specification", "namespace_definition"):
            body = n.child_by_field_name("body")
            if body is not None and body.type == "declaration_list":
                items[0:0] = list(body.children)
                continue
        fn = n
        if n.type == "linkage_specification":
            fn = n.child_by_field_name("body")
        if fn is not None and fn.type == "template_declaration":
            fn = next((c for c in fn.named_children if c.type == "function_definition"), None)
        if fn is None or fn.type != "function_definition":
            continue
        quals = {c.type for c in fn.children} | {data[c.start_byte:c.end_byte].decode() for c in fn.children}
        out.append((_declarator_name(fn), quals, n.start_byte, n.end_byte))
    return out


_DECLS = {"declaration", "struct_specifier", "class_specifier", "union_specifier", "enum_specifier",
          "type_definition", "alias_declaration", "template_declaration"}


def _decl_name(n, data: bytes) -> str:
    """The name a top-level declaration declares (its first declarator's identifier, or the type's name)."""
    if n.type == "template_declaration":
        inner = next((c for c in n.named_children if c.type in _DECLS), None)
        return _decl_name(inner, data) if inner is not None else ""
    stack = [n]
    while stack:
        c = stack.pop(0)
        if c.type in ("identifier", "type_identifier") and c.parent is not None and c.parent.type != "template_parameter_list":
            if c.type == "identifier" or n.type != "declaration":
                return data[c.start_byte:c.end_byte].decode()
        stack.extend(x for x in c.named_children if x.type not in ("field_declaration_list", "initializer_list",
                                                                     "compound_statement", "type_descriptor"))
    return ""


def _top_declarations(src: str) -> list[tuple[str, int, int]]:
    """(name, start byte, end byte) of top-level declarations that are not functions (a trailing `;`
    of a struct included)."""
    data = src.encode()
    tree = _PARSER.parse(data)
    out = []
    kids = list(tree.root_node.children)
    for i, n in enumerate(kids):
        if n.type not in _DECLS or (n.type == "template_declaration" and any(
                c.type == "function_definition" for c in n.named_children)):
            continue
        if n.type == "declaration" and any(c.type == "function_declarator" for c in n.named_children):
            continue  # a prototype: the definition is what counts
        end = n.end_byte
        if i + 1 < len(kids) and kids[i + 1].type == ";" and n.type != "declaration":
            end = kids[i + 1].end_byte
        out.append((_decl_name(n, data), n.start_byte, end))
    return out


def drop_copied_host_code(answer: str, parent: str) -> str:
    """The answer without host functions that the parent file has, unchanged."""
    parent_norm = _norm(parent)
    data = answer.encode()
    for name, quals, a, b in reversed(_top_functions(answer)):
        if quals & _DEVICE:
            continue
        if _norm(data[a:b].decode()) in parent_norm:
            data = data[:a] + data[b:]
    return data.decode()


def _declaration_edits(parent: str, answer: str) -> list[tuple[int, int, str]]:
    """The answer's top-level declarations: each replaces the parent's of the same name in place, the
    new ones go (in the answer's order) before the parent's first function."""
    adata, pdata = answer.encode(), parent.encode()
    pdecls = {name: (a, b) for name, a, b in _top_declarations(parent) if name}
    pnorm = {_norm(pdata[a:b].decode()) for _, a, b in _top_declarations(parent)}
    first = min((a for _, _, a, _ in _top_functions(parent)), default=len(pdata))
    edits, fresh = [], []
    for name, a, b in _top_declarations(answer):
        text = adata[a:b].decode()
        if _norm(text) in pnorm:
            continue
        if name and name in pdecls:
            pa, pb = pdecls[name]
            edits.append((pa, pb, text))
        else:
            fresh.append(text)
    if fresh:
        edits.append((first, first, "\n".join(fresh) + "\n\n"))
    return edits


def splice(parent: str, answer: str) -> str:
    """The parent file with the answer's device functions and new preprocessor lines in it."""
    adata = answer.encode()
    new_funcs = [(n, adata[a:b].decode()) for n, q, a, b in _top_functions(answer) if q & _DEVICE]
    pdata = parent.encode()
    pfuncs = {n: (a, b) for n, q, a, b in _top_functions(parent) if q & _DEVICE}
    inserts = []
    fresh: list[str] = []  # new functions keep their place relative to the replaced ones
    last_end = None
    for name, text in new_funcs:
        if name not in pfuncs:
            fresh.append(text)
            continue
        a, b = pfuncs[name]
        inserts.append((a, b, text))
        if fresh:
            inserts.append((a, a, "\n\n".join(fresh) + "\n\n"))
            fresh = []
        last_end = b
    if fresh:
        if last_end is not None:
            inserts.append((last_end, last_end, "\n\n" + "\n\n".join(fresh)))
        else:
            first = min((a for a, b in pfuncs.values()), default=len(pdata))
            inserts.append((first, first, "\n\n".join(fresh) + "\n\n"))
    inserts += _declaration_edits(parent, answer)
    # from the end backwards; at one offset the replacement goes before the insertion
    for a, b, text in sorted(inserts, key=lambda x: (-x[0], -x[1])):
        pdata = pdata[:a] + text.encode() + pdata[b:]
    out = pdata.decode()
    have = {_norm(l) for l in out.splitlines() if l.lstrip().startswith("#")}
    pre = [l for l in answer.splitlines() if re.match(r"\s*#\s*(include|define)\b", l) and _norm(l) not in have]
    lines = out.split("\n")
    for l in list(pre):  # a changed #define replaces the file's own, which would win otherwise
        m = _DEFINE.match(l)
        hit = next((i for i, x in enumerate(lines) if m and (d := _DEFINE.match(x)) and d.group(1) == m.group(1)), None)
        if hit is not None:
            lines[hit] = l
            pre.remove(l)
    out = "\n".join(lines)
    if pre:
        lines = out.split("\n")
        last = max((i for i, l in enumerate(lines) if re.match(r"\s*#\s*include\b", l)), default=-1)
        lines[last + 1:last + 1] = pre
        out = "\n".join(lines)
    return out
