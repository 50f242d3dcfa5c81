"""Advice and compiler messages as LSP diagnostics; fixes as workspace edits.

Advice columns are 1-based code-point columns (end exclusive); LSP columns count UTF-16
code units by default. Conversions use the text of the line.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from lsprotocol import types

from kernelpro.profilers.advice import _LOCAL_DOCS, DOCS_URL, Advice
from kernelpro.profilers.cachekey import MAX_HEADER_BYTES, read_bounded
from kernelpro.profilers.nvcc_diag import Diagnostic as CompilerMessage

SOURCE = "kernelpro"
SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
    "remark": types.DiagnosticSeverity.Information,
}


def units(text: str, encoding: str = "utf-16") -> int:
    """Length of `text` in the client's position units."""
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def position(lines: list[str], line: int, column: int | None, encoding: str = "utf-16") -> types.Position:
    """LSP position of a 1-based line and 1-based code-point column (None: start of line)."""
    row = min(max(line - 1, 0), max(len(lines) - 1, 0))
    text = lines[row] if lines else ""
    col = len(text) + 1 if column is None else min(max(column, 1), len(text) + 1)
    return types.Position(line=row, character=units(text[: col - 1], encoding))


def code_end(text: str) -> int:
    """1-based column just after the last character of code on a line (a trailing // comment
    and spaces are not code); the line's end when it has no code."""
    quote, i = "", 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif text.startswith("//", i) or text.startswith("/*", i) and "*/" not in text[i:]:
            break
        i += 1
    code = text[:i].rstrip()
    return len(code) + 1 if code.strip() else len(text) + 1


def line_range(lines: list[str], line: int, column: int | None = None, end_line: int | None = None,
               end_column: int | None = None, encoding: str = "utf-16") -> types.Range:
    """The exact range when known; otherwise from the column (or the first code) to the end of
    the line's code."""
    row = min(max(line - 1, 0), max(len(lines) - 1, 0))
    text = lines[row] if lines else ""
    if column is None:
        column = len(text) - len(text.lstrip()) + 1
    start = position(lines, line, column, encoding)
    if end_line is None or end_column is None:
        end = position(lines, line, code_end(text), encoding)
        if end.character <= start.character:
            end = types.Position(line=start.line, character=start.character + 1)
    else:
        end = position(lines, end_line, end_column, encoding)
    return types.Range(start=start, end=end)


def advice_diagnostic(a: Advice, lines: list[str], uri: str, encoding: str = "utf-16",
                      source: str = SOURCE) -> types.Diagnostic:
    """One short sentence as the message; the fix and the other places as related information
    (the evidence is in the hover)."""
    rng = line_range(lines, a.line, a.column, a.end_line, a.end_column, encoding)
    related = []
    if a.remedy:
        related.append(types.DiagnosticRelatedInformation(location=types.Location(uri=uri, range=rng),
                                                          message=f"fix: {a.remedy}"))
    for loc in a.related:
        loc_uri = uri if _same_file(loc.file, a.file) else Path(loc.file).resolve().as_uri()
        loc_lines = lines if loc_uri == uri else _read_lines(loc.file)
        related.append(types.DiagnosticRelatedInformation(
            location=types.Location(uri=loc_uri, range=line_range(loc_lines, loc.line, loc.column, loc.end_line,
                                                                   loc.end_column, encoding)),
            message=loc.message or f"{Path(loc.file).name}:{loc.line}"))
    for link in a.links:  # building blocks: the editor opens them at their line
        if link.url.startswith("file:"):
            path, _, frag = link.url.partition("#L")
            row = max(int(frag) - 1, 0) if frag.isdigit() else 0
            pos = types.Position(line=row, character=0)
            related.append(types.DiagnosticRelatedInformation(
                location=types.Location(uri=path, range=types.Range(start=pos, end=pos)),
                message=f"building block: {link.title} ({link.detail})"))
    message = short_message(a.message, a.line)
    if a.instantiation and a.instantiation not in message:  # a template's finding says which instantiation
        message += f" (in {a.instantiation})"
    return types.Diagnostic(
        range=rng,
        message=message,
        severity=SEVERITY.get(a.severity.value, types.DiagnosticSeverity.Information),
        code=a.rule,
        code_description=types.CodeDescription(href=rule_link(a.rule)),
        source=source,
        related_information=related or None,
        data={"rule": a.rule, "fix": a.fix, "kernel": a.kernel},
    )


def advice_diagnostics(advice: list[Advice], lines: list[str], uri: str, encoding: str = "utf-16",
                       source: str = SOURCE) -> list[types.Diagnostic]:
    return [advice_diagnostic(a, lines, uri, encoding, source) for a in advice]


def _on_line(line: int | None) -> re.Pattern:
    """" on line N" for the diagnostic's own line (the range says where); other lines stay."""
    return re.compile(rf",? on line {line if line else r'(?!)'}(?=[\s,:;)]|$)")
SHORT = 120  # a message longer than this loses its parenthesised asides
MIN_HEAD = 24  # a first clause shorter than this ("lut_activation") keeps the next one


def _top_level(text: str, chars: str):
    """Indices of `chars` outside `code spans`, brackets and parentheses."""
    depth, code = 0, False
    for i, c in enumerate(text):
        if c == "`":
            code = not code
        elif code:
            continue
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0 and c in chars:
            yield i


def short_message(message: str, line: int | None = None) -> str:
    """The diagnosis in one short sentence: without "on line N" for its own line, up to the first
    top-level ':' or ';' (the rest is evidence), without asides in parentheses when long."""
    text = _on_line(line).sub("", message).strip()
    for i in _top_level(text, ":;"):
        if i + 1 < len(text) and text[i + 1] == " " and i >= MIN_HEAD:
            text = text[:i]
            break
    if len(text) > SHORT:
        spans, depth, start = [], 0, 0
        for i, c in enumerate(text):
            if c == "(":
                if depth == 0:
                    start = i
                depth += 1
            elif c == ")" and depth:
                depth -= 1
                if depth == 0 and start > 0 and text[start - 1] == " ":
                    spans.append((start - 1, i + 1))
        for a, b in reversed(spans):
            text = text[:a] + text[b:]
    return text.strip().rstrip(",;:")


def message_detail(message: str, line: int | None = None) -> str:
    """What the short message leaves out, for the hover ("" when nothing)."""
    short = short_message(message, line)
    full = _on_line(line).sub("", message).strip()
    if full == short:
        return ""
    return full[len(short):].lstrip(":; ") if full.startswith(short) else full


_HEADINGS: dict[str, int] = {}


def rule_link(rule: str) -> str:
    """The rule's section of docs/rules.md. A local file gets `#L<line>`, the fragment editors
    (VS Code) open at; a web page keeps its `#rule` anchor."""
    if not DOCS_URL.startswith("file:"):
        return f"{DOCS_URL}#{rule}"
    if not _HEADINGS:
        try:
            text = _LOCAL_DOCS.read_text(encoding="utf-8")
        except OSError:
            return f"{DOCS_URL}#{rule}"
        for n, line in enumerate(text.split("\n"), 1):
            m = re.match(r"^#{2,4} ([a-z0-9-]+)\s*$", line)
            if m:
                _HEADINGS.setdefault(m.group(1), n)
    n = _HEADINGS.get(rule)
    return f"{DOCS_URL}#L{n}" if n else DOCS_URL


def compiler_diagnostics(messages: list[CompilerMessage], path: str, lines: list[str], includes,
                         headers: list[str], encoding: str = "utf-16") -> list[types.Diagnostic]:
    """nvcc errors and warnings; those in included headers go on the #include line."""
    out = []
    for m in messages:
        if m.severity not in ("error", "warning"):
            continue
        sev = SEVERITY[m.severity]
        code = f"nvcc-{m.code}" if m.code else m.tool
        if not m.file or _same_file(m.file, path):
            if m.line:
                rng = line_range(lines, m.line, m.column, encoding=encoding)
            else:
                rng = line_range(lines, 1, encoding=encoding)
            out.append(types.Diagnostic(range=rng, message=m.message, severity=sev, code=code, source=SOURCE))
            continue
        line = include_line(m.file, path, includes, headers)
        where = f"{m.file}:{m.line}" + (f":{m.column}" if m.column else "") if m.line else m.file
        out.append(types.Diagnostic(range=line_range(lines, line, encoding=encoding), message=f"{where}: {m.message}",
                                    severity=sev, code=code, source=SOURCE))
    return out


def include_line(header: str, path: str, includes, headers: list[str]) -> int:
    """Line of the #include in `path` that brings in `header` (directly, else the first project include)."""
    target = _resolve(header)
    here = Path(path).resolve().parent
    for inc in includes:
        if _resolve(str(here / inc.header)) == target or Path(inc.header).name == Path(header).name:
            return inc.line
    known = {_resolve(h) for h in headers}
    for inc in includes:
        if inc.quoted and _resolve(str(here / inc.header)) in known:
            return inc.line
    return includes[0].line if includes else 1


def fix_edit(uri: str, fix: dict[str, Any], lines: list[str], version: int | None,
             encoding: str = "utf-16") -> types.WorkspaceEdit:
    """A WorkspaceEdit from an Advice fix: {"title", "edits": [{"line","column","end_line","end_column","new_text"}]}."""
    edits = []
    for e in fix.get("edits", []):
        start = position(lines, int(e["line"]), int(e["column"]), encoding)
        end = position(lines, int(e.get("end_line", e["line"])), int(e.get("end_column", e["column"])), encoding)
        edits.append(types.TextEdit(range=types.Range(start=start, end=end), new_text=str(e.get("new_text", ""))))
    doc = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
    return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(text_document=doc, edits=edits)])


def _resolve(p: str) -> str:
    try:
        return str(Path(p).resolve())
    except OSError:
        return os.path.abspath(p)


def _same_file(a: str | None, b: str | None) -> bool:
    return bool(a and b) and _resolve(a) == _resolve(b)


def _read_lines(path: str) -> list[str]:
    try:
        return read_bounded(path, MAX_HEADER_BYTES).decode(errors="replace").split("\n")
    except OSError:
        return []
