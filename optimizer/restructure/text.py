"""Small text tools for rewriting source under tree-sitter nodes."""
from __future__ import annotations

import re

from kernelpro.profilers.source import SourceFile, span_text, walk  # noqa: F401 (span_text: for the rewrites)


class Refuse(Exception):
    """A transform cannot prove its rewrite safe here; the message says why. `source`: the text its line numbers
    count in, where a pass rewrote the kernel first (helpers inserted above it, say); the plans report them as
    the file counts them (lines_as_written)."""

    def __init__(self, message: str = "", source: str | None = None):
        super().__init__(message)
        self.source = source


def lines_as_written(message: str, written: str, source: str | None) -> str:
    """`line N` in message, N counted in `source` (a rewrite of `written`), counted in `written`: the line that
    holds the same text, or the nearest one before it that does."""
    if not source or source == written:
        return message
    import difflib

    a, b = written.split("\n"), source.split("\n")
    back: dict[int, int] = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        for j in range(j1, j2):
            back[j] = i1 + (j - j1 if tag == "equal" else 0)

    def one(n: int) -> int:
        return back.get(n - 1, n - 1) + 1 if 0 < n <= len(b) else n

    def put(m):  # `line 19`, `lines 3 and 5`, `line 19, 25`
        return m.group(1) + re.sub(r"\d+", lambda d: str(one(int(d.group(0)))), m.group(2))
    return re.sub(r"\b(lines? )(\d+(?:(?:, | and )\d+)*)", put, message)


class NotThisShape(Refuse):
    """The kernel is not the shape a plan rewrites at all: nothing to report to the user."""


def line_indent(src: SourceFile, node) -> str:
    line = src.lines[node.start_point[0]]
    return line[: len(line) - len(line.lstrip())]


def node_with(src: SourceFile, node, subs: list[tuple[int, int, str]] = ()) -> str:
    return span_text(src, node.start_byte, node.end_byte, subs)


def ident_subs(src: SourceFile, node, name: str, new: str) -> list[tuple[int, int, str]]:
    """Substitutions replacing every identifier `name` under node by `new`."""
    return [(n.start_byte, n.end_byte, new) for n in walk(node)
            if n.type == "identifier" and src.node_text(n) == name
            and not (n.parent is not None and n.parent.type == "field_expression"
                     and n.parent.child_by_field_name("field") == n)]


def reindent(text: str, old: str, new: str) -> str:
    """Move continuation lines of text from indentation `old` to `new`."""
    lines = text.split("\n")
    for i in range(1, len(lines)):
        ln = lines[i]
        if ln.startswith(old):
            lines[i] = new + ln[len(old):]
        elif ln.strip():
            lines[i] = new + ln.lstrip()
    return "\n".join(lines)


def edit(src: SourceFile, start: int, end: int, new: str) -> dict:
    """An apply_edits edit over a byte range of src (1-based lines, character columns)."""
    def pos(byte):
        ls = src.data.rfind(b"\n", 0, byte) + 1
        return src.data.count(b"\n", 0, byte) + 1, len(src.data[ls:byte].decode("utf-8", errors="replace")) + 1
    l1, c1 = pos(start)
    l2, c2 = pos(end)
    return {"line": l1, "column": c1, "end_line": l2, "end_column": c2, "new_text": new}


_INT_CAST = re.compile(r"\(\s*(?:const\s+)?(?:unsigned\s+|signed\s+)?(?:std::)?(?:size_t|ptrdiff_t|long\s+long|long|"
                       r"u?int64_t)\s*\)|static_cast<\s*(?:std::)?(?:size_t|ptrdiff_t|long\s+long|long|u?int64_t)\s*>")
# (widening casts only: `(int)` may truncate a float expression; a 32-bit cast of a bare name, `(unsigned)M`, keeps a
# size's value)
_NAME_CAST = re.compile(r"\(\s*(?:unsigned\s+int|unsigned|int|u?int32_t)\s*\)\s*(?=[A-Za-z_]\w*\b(?!\s*[(\[.]))")


def in_terms_of(expr: str, table: dict) -> str | None:
    """An expression of names and numbers with every name replaced by its value in table,
    parenthesised (a kernel's parameters in the spec's terms, or in a launch's arguments); None
    where a name has no value. Widening integer casts (`(size_t)M`, `static_cast<long>(K)`) go: a size's value
    is the same in them."""
    expr = _NAME_CAST.sub("", _INT_CAST.sub("", expr))
    names = set(re.findall(r"[A-Za-z_]\w*", expr))
    if any(n not in table for n in names):
        return None
    return re.sub(r"[A-Za-z_]\w*", lambda m: f"({table[m.group(0)]})", expr)


def leaving_jumps(loop) -> list:
    """Every `break` and `continue` in loop's body that leaves loop itself: not one of an inner loop, nor a `break`
    of a switch inside it (a `continue` there still leaves the loop)."""
    out = []
    for n in walk(loop.child_by_field_name("body")):
        if n.type not in ("break_statement", "continue_statement"):
            continue
        p = n.parent
        while p is not None and p != loop and p.type not in ("for_statement", "while_statement", "do_statement",
                                                             "for_range_loop", "lambda_expression") and not (
                p.type == "switch_statement" and n.type == "break_statement"):
            p = p.parent
        if p == loop:
            out.append(n)
    return out


def leaving_jump(loop):
    """The first `break` or `continue` in loop's body that leaves loop itself (`leaving_jumps`); None if there is
    none: the loop can then be read as one pass of its body."""
    jumps = leaving_jumps(loop)
    return jumps[0] if jumps else None