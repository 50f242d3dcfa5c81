"""Carry diagnostics computed on one text over to a newer text of the same document.

A profile takes seconds; the user may type meanwhile. Its diagnostics still hold on every
line the edits left alone: those move with the text (a line diff), the others are dropped,
and so are quick fixes that would touch a changed line.
"""
from __future__ import annotations

import copy
import difflib

from lsprotocol import types


class LineMap:
    """0-based line numbers of `old` -> the same, unchanged line in `new` (or None)."""

    def __init__(self, old: str, new: str):
        a, b = old.split("\n"), new.split("\n")
        self.same = a == b
        self.lines: dict[int, int] = {}
        if self.same:
            return
        sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
        for blk in sm.get_matching_blocks():
            for k in range(blk.size):
                self.lines[blk.a + k] = blk.b + k

    def line(self, old: int) -> int | None:
        return old if self.same else self.lines.get(old)

    def range(self, r: types.Range) -> types.Range | None:
        s, e = self.line(r.start.line), self.line(r.end.line)
        if s is None or e is None or e - s != r.end.line - r.start.line:
            return None
        return types.Range(start=types.Position(line=s, character=r.start.character),
                           end=types.Position(line=e, character=r.end.character))

    def diagnostic(self, d: types.Diagnostic, uri: str) -> types.Diagnostic | None:
        """`d` moved to the new text, or None when its lines changed."""
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
        """An Advice fix ({"edits": [{"line", "end_line", ...}]}, 1-based lines) moved, or None."""
        edits = []
        for e in fix.get("edits", []):
            s = self.line(int(e["line"]) - 1)
            end = self.line(int(e.get("end_line", e["line"])) - 1)
            if s is None or end is None:
                return None
            edits.append({**e, "line": s + 1, "end_line": end + 1})
        return {**fix, "edits": edits}
