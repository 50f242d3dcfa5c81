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
