"""An open document's state, what a static profile found on one text of it (as diagnostics), and the
last few such results per document (an Undo back to a text already profiled shows its result at once)."""
from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types

from kernelpro.profilers.profile import ProfileReport

from . import convert
from .linemap import LineMap
from .profiling import Outcome


@dataclass(frozen=True)
class HeaderFindings:
    """Findings a profile placed in a project header it includes, on the header's text it read."""
    text: str
    diagnostics: list[types.Diagnostic]


@dataclass(frozen=True)
class Result:
    """A profile's outcome on `text`: shown while the buffer holds that text (moved onto nearby texts)."""
    text: str
    generation: int
    report: ProfileReport | None
    static: list[types.Diagnostic]  # the document's own diagnostics, on `text`
    problem: str | None = None  # why there is no report
    # resolved path of each project header with kernels that the compiled file includes -> its findings
    headers: dict[str, HeaderFindings] = field(default_factory=dict)

    def covers(self, header: str) -> bool:
        """Whether this profile compiled and analysed the kernels of `header` (a resolved path)."""
        return header in self.headers


class Known:
    """The last results of a document by text (most recent last)."""

    def __init__(self, limit: int = 4):
        self.limit = limit
        self._by_text: OrderedDict[str, Result] = OrderedDict()

    def add(self, r: Result) -> None:
        self._by_text.pop(r.text, None)
        self._by_text[r.text] = r
        while len(self._by_text) > self.limit:
            self._by_text.popitem(last=False)

    def get(self, text: str, generation: int) -> Result | None:
        r = self._by_text.get(text)
        return r if r is not None and r.generation == generation else None


def resolved(path: str) -> str:
    try:
        return str(Path(path).resolve())
    except OSError:
        return path


def result_of(out: Outcome, uri: str, encoding: str) -> Result:
    """The outcome's diagnostics: compiler messages and advice in the file itself, and the advice in
    each project header it includes, converted on that header's text (published to the header)."""
    snap = out.snapshot
    lines = snap.text.split("\n")
    if out.report is None:
        sev = types.DiagnosticSeverity.Information if out.kind == "too-large" else types.DiagnosticSeverity.Error
        d = types.Diagnostic(range=convert.line_range(lines, 1, 1, encoding=encoding), message=out.problem or "not profiled",
                             severity=sev, source=convert.SOURCE, code=out.kind)
        return Result(snap.text, snap.generation, None, [d], out.problem)
    rep = out.report
    headers = rep.artifact.headers if rep.artifact else []
    own = resolved(snap.path)
    diags = convert.compiler_diagnostics(rep.diagnostics, snap.path, lines, rep.source.includes, headers, encoding)
    diags += convert.advice_diagnostics([a for a in rep.advice if a.file and resolved(a.file) == own], lines, uri, encoding)
    found: dict[str, HeaderFindings] = {}
    for path, text in out.headers.items():
        advice = [a for a in rep.advice if a.file and resolved(a.file) == path]
        found[path] = HeaderFindings(text, convert.advice_diagnostics(advice, text.split("\n"), Path(path).as_uri(), encoding))
    return Result(snap.text, snap.generation, rep, diags, None, found)


@dataclass
class DocState:
    uri: str
    path: str
    dirty: bool = False  # the buffer may differ from the file (changed since open, save or reload)
    disk: tuple | None = None  # (mtime_ns, size) of the file when the buffer last matched it
    result: Result | None = None  # the profile shown: on result.text, moved onto the buffer's text
    known: Known = field(default_factory=Known)  # the last profiles by text: a buffer back at one shows it at once
    published_version: int | None = None
    shown: tuple = ()  # the diagnostics (as computed, before moving) of the last publish
    inflight: tuple | None = None  # (text, generation) of the last snapshot sent to a worker
    typing_timer: asyncio.TimerHandle | None = None
    measured: dict[str, dict[str, Any]] = field(default_factory=dict)  # kernel -> measured row (GPU)
    gpu_text: str | None = None  # the file's text the GPU run measured
    gpu: list[types.Diagnostic] = field(default_factory=list)  # measured findings, on gpu_text
    gpu_advice: list = field(default_factory=list)  # the same as Advice (for the hover)
    gpu_lines: dict[int, str] = field(default_factory=dict)  # 1-based line -> measured counters, on gpu_text
    facts: tuple | None = None  # (report, line -> SASS facts) for the inlay hints
    _maps: dict = field(default_factory=dict)  # id(old text) -> (old, new, LineMap): the last map asked for

    @property
    def report(self) -> ProfileReport | None:
        return self.result.report if self.result else None

    @property
    def report_text(self) -> str | None:
        """The text the report (and `static`) was computed on."""
        return self.result.text if self.result else None

    @property
    def static(self) -> list[types.Diagnostic] | None:
        return self.result.static if self.result else None

    @property
    def problem(self) -> str | None:
        return self.result.problem if self.result else None

    def line_map(self, old: str | None, new: str, encoding: str = "utf-16") -> LineMap | None:
        if old is None:
            return None
        hit = self._maps.get(id(old))
        if hit is None or hit[0] is not old or hit[1] is not new or hit[2].encoding != encoding:
            if len(self._maps) > 4:
                self._maps.clear()
            hit = self._maps[id(old)] = (old, new, LineMap(old, new, encoding))
        return hit[2]
