"""Small helpers shared by the static rules."""
from __future__ import annotations

import tree_sitter as ts

from ..advice import Advice, Evidence, Severity
from ..source import Kernel, walk
from ..tools import Context


def advice_at(ctx: Context, rule: str, severity: Severity, kernel: Kernel | None, node_or_line,
              message: str, remedy: str, evidence: list[Evidence] | None = None, **kw) -> Advice:
    """An Advice anchored at a tree-sitter node (exact range) or at a line number."""
    if isinstance(node_or_line, ts.Node):
        line, col, end_line, end_col = ctx.source.pos(node_or_line)
        if end_line != line:  # keep diagnostics to one line: the end of the first line
            end_line, end_col = line, len(ctx.source.lines[line - 1]) + 1
    else:
        line, col, end_line, end_col = int(node_or_line), None, None, None
    return Advice(rule=rule, severity=severity, kernel=kernel.name if kernel else None, file=ctx.path,
                  line=line, column=col, end_line=end_line, end_column=end_col, message=message,
                  remedy=remedy, evidence=evidence or [], **kw)


def nodes(kernel: Kernel, *types: str):
    """Nodes of the given types in the kernel's body."""
    if kernel.body is None:
        return
    for n in walk(kernel.body):
        if n.type in types:
            yield n


def shared_declarations(src, kernel: Kernel):
    """(declaration node, element type text) of each `__shared__` declaration in the kernel."""
    for d in nodes(kernel, "declaration"):
        if any(c.type == "type_qualifier" and src.node_text(c) == "__shared__" for c in d.children):
            t = d.child_by_field_name("type")
            yield d, " ".join(src.node_text(t).split()) if t is not None else ""


def first_code_column(ctx: Context, line: int) -> int:
    text = ctx.source.lines[line - 1] if 0 < line <= len(ctx.source.lines) else ""
    return len(text) - len(text.lstrip()) + 1


def _shared_helpers(src) -> set[str]:
    """Functions and structs of the file (not kernels) that hand out shared memory: their body
    declares `__shared__` (the CUDA samples' `SharedMemory<T>`, a `__device__ float* smem()`)."""
    memo = src.memo.get("shared_helpers")
    if memo is not None:
        return memo
    out = set()
    for n in walk(src.root):
        if n.type == "struct_specifier" or n.type == "class_specifier":
            name = n.child_by_field_name("name")
            body = n.child_by_field_name("body")
            if name is not None and body is not None and b"__shared__" in src.data[body.start_byte:body.end_byte]:
                out.add(src.node_text(name))
        elif n.type == "function_definition" and not any(c.type == "__global__" for c in n.children):
            body = n.child_by_field_name("body")
            d = n.child_by_field_name("declarator")
            while d is not None and d.type != "function_declarator":
                d = d.child_by_field_name("declarator")
            name = d.child_by_field_name("declarator") if d is not None else None
            if name is not None and body is not None and b"__shared__" in src.data[body.start_byte:body.end_byte]:
                out.add(src.node_text(name).split("::")[-1])
    src.memo["shared_helpers"] = out
    return out


def _file_shared(src) -> set[str]:
    """`__shared__` arrays declared at namespace scope (`extern __shared__ float smem[];`)."""
    memo = src.memo.get("file_shared")
    if memo is None:
        memo = set()
        for d in src.root.named_children:
            if d.type == "declaration" and any(c.type == "type_qualifier" and src.node_text(c) == "__shared__"
                                               for c in d.children):
                for x in d.children_by_field_name("declarator"):
                    while x is not None and x.type != "identifier":
                        x = x.child_by_field_name("declarator")
                    if x is not None:
                        memo.add(src.node_text(x))
        src.memo["file_shared"] = memo
    return memo


def shared_pointers(src, kernel: Kernel) -> dict[str, tuple]:
    """Local pointers of the kernel that point into shared memory -> (declaration node, element
    type): `T* s = SharedMemory<T>();`, `float* row = smem + 32 * w;`, `(float*)&buf[0]`. The rules
    that read `__shared__` arrays read these as 1-D shared arrays of their pointee type."""
    helpers = _shared_helpers(src)
    shared: set[str] = set()
    for d, _ in shared_declarations(src, kernel):
        for x in d.children_by_field_name("declarator"):
            while x is not None and x.type != "identifier":
                x = x.child_by_field_name("declarator")
            if x is not None:
                shared.add(src.node_text(x))
    shared |= _file_shared(src)
    out: dict[str, tuple] = {}
    for d in nodes(kernel, "declaration"):
        t = d.child_by_field_name("type")
        for x in d.children_by_field_name("declarator"):
            if x.type != "init_declarator":
                continue
            decl, value = x.child_by_field_name("declarator"), x.child_by_field_name("value")
            if decl is None or decl.type != "pointer_declarator" or value is None:
                continue
            ident = decl.child_by_field_name("declarator")
            if ident is None or ident.type != "identifier":
                continue
            names = {src.node_text(n).split("<")[0].split("::")[-1] for n in walk(value)
                     if n.type in ("identifier", "type_identifier", "template_function", "template_type")}
            if names & (shared | set(out) | helpers):
                elem = " ".join(src.node_text(t).replace("const", " ").split()) if t is not None else ""
                out[src.node_text(ident)] = (d, elem)
    return out
