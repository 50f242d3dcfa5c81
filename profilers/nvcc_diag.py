"""nvcc, gcc-preprocessor and ptxas messages as structured records with file, line, column."""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass

# EDG front end: file(12): error: identifier "y" is undefined   /  warning #177-D: ...
_EDG = re.compile(r"^(?P<file>.+?)\((?P<line>\d+)\): (?P<sev>error|warning|remark|catastrophic error)(?: #(?P<code>[\w-]+))?: (?P<msg>.*)$")
# gcc/cpp style: file:2:10: fatal error: missing.h: No such file or directory
_GCC = re.compile(r"^(?P<file>[^:\s][^:]*):(?P<line>\d+):(?P<col>\d+): (?P<sev>fatal error|error|warning|note): (?P<msg>.*)$")
_TOOL = re.compile(r"^(?P<tool>ptxas|nvcc|nvlink|fatbinary)\s+(?P<sev>fatal|error|warning|info)\s*: (?P<msg>.*)$")
_PTXAS_LINE = re.compile(r"^(?P<file>.+?), line (?P<line>\d+); (?P<sev>error|warning)\s*: (?P<msg>.*)$")

# EDG echoes the line with CUDA keywords expanded; undo that to find the caret's real column.
_EXPANSIONS = [(f"__attribute__(({k}))", f"__{k}__") for k in ("global", "device", "host", "shared", "constant", "managed")]


@dataclass
class Diagnostic:
    severity: str  # "error" | "warning" | "remark"
    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None  # 1-based, characters
    code: str | None = None
    tool: str = "nvcc"

    def to_json(self) -> dict:
        return asdict(self)

    def text(self) -> str:
        where = self.file or self.tool
        if self.file and self.line:
            where += f":{self.line}" + (f":{self.column}" if self.column else "")
        return f"{where}: {self.severity}: {self.message}"


def _caret_column(echo: str, caret: str, source_line: str | None) -> int | None:
    if "^" not in caret:
        return None
    pos = caret.index("^")
    # both lines are indented by two spaces
    prefix = echo[2:pos] if echo.startswith("  ") else echo[:pos]
    for expanded, orig in _EXPANSIONS:
        prefix = prefix.replace(expanded, orig)
    col = len(prefix) + 1
    if source_line is not None:
        rest = echo[pos:].lstrip()[:12] if pos < len(echo) else ""
        tok = re.match(r"\w+|\S", rest)
        if tok and source_line[col - 1 : col - 1 + len(tok.group(0))] != tok.group(0):
            found = source_line.find(tok.group(0))
            if found >= 0:
                col = found + 1
    return col


def parse_diagnostics(text: str, read_line=None) -> list[Diagnostic]:
    """read_line(file, line) -> str | None gives the real source line for caret columns."""
    lines = text.splitlines()
    out: list[Diagnostic] = []
    i = 0
    while i < len(lines):
        ln = lines[i]
        m = _EDG.match(ln)
        if m:
            sev = "error" if "error" in m.group("sev") else m.group("sev")
            d = Diagnostic(sev, m.group("msg").strip(), m.group("file"), int(m.group("line")), code=m.group("code"))
            if i + 2 < len(lines) and "^" in lines[i + 2] and lines[i + 2].strip() == "^":
                src = read_line(d.file, d.line) if read_line else None
                d.column = _caret_column(lines[i + 1], lines[i + 2], src)
                i += 2
            out.append(d)
            i += 1
            continue
        m = _GCC.match(ln)
        if m and m.group("sev") != "note":
            sev = "error" if "error" in m.group("sev") else "warning"
            out.append(Diagnostic(sev, m.group("msg").strip(), m.group("file"), int(m.group("line")), int(m.group("col")), tool="cpp"))
            i += 1
            continue
        m = _PTXAS_LINE.match(ln.replace("ptxas ", "", 1)) if ln.startswith("ptxas ") and ", line " in ln else None
        if m:
            out.append(Diagnostic(m.group("sev"), m.group("msg").strip(), m.group("file"), int(m.group("line")), tool="ptxas"))
            i += 1
            continue
        m = _TOOL.match(ln)
        if m and m.group("sev") != "info":
            sev = "error" if m.group("sev") in ("fatal", "error") else "warning"
            out.append(Diagnostic(sev, m.group("msg").strip(), tool=m.group("tool")))
        i += 1
    return out
