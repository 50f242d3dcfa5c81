"""Carry diagnostics computed on one text over to a newer text of the same document.

A profile takes seconds; the user may type meanwhile. Its diagnostics still hold wherever the
edits left the text alone: those move with the text (a line diff; on a line changed in place,
the changed span within the line), the ones an edit touched are dropped (a quick fix applied
takes its diagnostic with it), and so are quick fixes that would touch changed text.
"""
from __future__ import annotations

import copy
import difflib
from dataclasses import dataclass

from lsprotocol import types

from .convert import units


@dataclass(frozen=True)
class LineEdit:
    """One line changed in place: its old columns [lo, hi) became new ones [lo, hi + delta)."""
    line: int  # 0-based, in the new text
    lo: int
    hi: int
    delta: int

    def columns(self, start: int | None, end: int | None) -> tuple[int | None, int | None] | None:
        """Old columns [start, end) (None: the line's start or end) in the new line, or None when
        the edit touches them (a boundary counts: `0.5` -> `0.5f` touches the literal)."""
        if end is not None and end < self.lo:
            return start, end
        if start is not None and start > self.hi:
            return start + self.delta, None if end is None else end + self.delta
        return None


def line_edit(old: str, new: str, line: int, measure=len) -> LineEdit:
    """The edit that turns `old` into `new` (one span: their common prefix and suffix stay),
    in the columns `measure` counts (code points, or the client's units)."""
    n = min(len(old), len(new))
    p = 0
    while p < n and old[p] == new[p]:
        p += 1
    s = 0
    while s < n - p and old[-1 - s] == new[-1 - s]:
        s += 1
    return LineEdit(line, measure(old[:p]), measure(old[: len(old) - s]), measure(new) - measure(old))


class LineMap:
    """0-based line numbers of `old` -> the same, unchanged line in `new` (or None); ranges (in the
    client's `encoding`) also move on lines changed in place when the change is elsewhere on the line."""

    def __init__(self, old: str, new: str, encoding: str = "utf-16"):
        a, b = old.split("\n"), new.split("\n")
        self.same = a == b
        self.encoding = encoding
        self.lines: dict[int, int] = {}
        self.edits: dict[int, LineEdit] = {}  # old line -> its edit in the client's units
        self.points: dict[int, LineEdit] = {}  # the same in code points (Advice fixes count those)
        if self.same:
            return
        # the lines before the first and after the last difference match as they are (an edit is
        # usually in one place: the diff then runs on a few lines, not the file)
        head = 0
        while head < min(len(a), len(b)) and a[head] == b[head]:
            head += 1
        tail = 0
        while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
            tail += 1
        for k in range(head):
            self.lines[k] = k
        for k in range(1, tail + 1):
            self.lines[len(a) - k] = len(b) - k
        sm = difflib.SequenceMatcher(None, a[head:len(a) - tail], b[head:len(b) - tail], autojunk=False)
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            i1, i2, j1, j2 = i1 + head, i2 + head, j1 + head, j2 + head
            if tag == "equal":
                for k in range(i2 - i1):
                    self.lines[i1 + k] = j1 + k
            elif tag == "replace" and i2 - i1 == j2 - j1:  # lines edited one for one
                for k in range(i2 - i1):
                    old_line, new_line = a[i1 + k], b[j1 + k]
                    self.points[i1 + k] = line_edit(old_line, new_line, j1 + k)
                    self.edits[i1 + k] = line_edit(old_line, new_line, j1 + k, lambda t: units(t, encoding))

    def line(self, old: int) -> int | None:
        """The new line of an unchanged old line."""
        return old if self.same else self.lines.get(old)

    def _moved(self, edits: dict[int, LineEdit], sl: int, sc: int, el: int, ec: int) -> tuple[int, int, int, int] | None:
        """Old (line, column) .. (line, column) in the new text, or None where an edit touches it."""
        if self.same:
            return sl, sc, el, ec
        if any(self.line(k) is None for k in range(sl + 1, el)):
            return None
        if sl == el:
            if sl in self.lines:
                return self.lines[sl], sc, el - sl + self.lines[sl], ec
            e = edits.get(sl)
            cols = e.columns(sc, ec) if e else None
            return None if cols is None else (e.line, cols[0], e.line, cols[1])
        start = self._end(edits, sl, sc, None)
        end = self._end(edits, el, None, ec)
        if start is None or end is None or end[0] - start[0] != el - sl:
            return None
        return start[0], start[1], end[0], end[1]

    def _end(self, edits: dict[int, LineEdit], line: int, start: int | None, end: int | None) -> tuple[int, int] | None:
        """One end of a range spanning lines: the start (`start` to the line's end) or the end (the
        line's start to `end`)."""
        if line in self.lines:
            return self.lines[line], start if start is not None else end
        e = edits.get(line)
        cols = e.columns(start, end) if e else None
        if cols is None:
            return None
        return e.line, cols[0] if start is not None else cols[1]

    def range(self, r: types.Range) -> types.Range | None:
        m = self._moved(self.edits, r.start.line, r.start.character, r.end.line, r.end.character)
        if m is None:
            return None
        return types.Range(start=types.Position(line=m[0], character=m[1]), end=types.Position(line=m[2], character=m[3]))

    def diagnostic(self, d: types.Diagnostic, uri: str) -> types.Diagnostic | None:
        """`d` moved to the new text, or None when an edit touched it."""
        if self.same:
            return d
        rng = self.range(d.range)
        if rng is None:
            return None
        out = copy.copy(d)
        out.range = rng
        if d.related_information:
            rel = []
            for info in d.related_information:
                if info.location.uri != uri:
                    rel.append(info)
                elif (r := self.range(info.location.range)) is not None:
                    rel.append(types.DiagnosticRelatedInformation(types.Location(uri=uri, range=r), info.message))
            out.related_information = rel or None
        if isinstance(d.data, dict) and d.data.get("fix"):
            out.data = {**d.data, "fix": self.fix(d.data["fix"])}
        return out

    def fix(self, fix: dict) -> dict | None:
        """An Advice fix ({"edits": [{"line", "column", "end_line", "end_column", ...}]}, 1-based
        lines and code-point columns) moved, or None when the text it edits changed."""
        edits = []
        for e in fix.get("edits", []):
            line, end_line = int(e["line"]) - 1, int(e.get("end_line", e["line"])) - 1
            col = int(e.get("column", 1)) - 1
            end_col = int(e.get("end_column", e.get("column", 1))) - 1
            m = self._moved(self.points, line, col, end_line, end_col)
            if m is None:
                return None
            moved = {**e, "line": m[0] + 1, "end_line": m[2] + 1}
            if "column" in e:
                moved["column"] = m[1] + 1
            if "end_column" in e:
                moved["end_column"] = m[3] + 1
            edits.append(moved)
        return {**fix, "edits": edits}
