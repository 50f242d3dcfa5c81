"""Advice: the one shape every micro-profiling tool returns.

The same object becomes an LSP diagnostic, a CLI line, a JSON object and text for an LLM.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any

from pathlib import Path

_LOCAL_DOCS = Path(__file__).resolve().parent.parent / "docs" / "rules.md"
# A checkout (editable install) links to its own docs; an installed wheel to the project's.
DOCS_URL = _LOCAL_DOCS.as_uri() if _LOCAL_DOCS.is_file() else "https://github.com/kernelpro/kernelpro/blob/main/docs/rules.md"


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    HINT = "hint"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "info": 2, "hint": 3}[self.value]


@dataclass
class Evidence:
    """One number behind a diagnosis, with its unit and where it came from."""

    name: str
    value: float | int | str
    unit: str = ""
    source: str = ""  # "ptxas", "sass", "source", "ncu", "nvml", "occupancy", ...

    def text(self) -> str:
        v = f"{self.value:g}" if isinstance(self.value, float) else str(self.value)
        return f"{self.name} = {v}{(' ' + self.unit) if self.unit else ''}" + (
            f" ({self.source})" if self.source else ""
        )


@dataclass
class Location:
    file: str
    line: int  # 1-based
    column: int | None = None  # 1-based, in characters of the line (not bytes)
    end_line: int | None = None
    end_column: int | None = None  # exclusive, 1-based
    message: str = ""


@dataclass
class Link:
    """Something worth opening with the advice: a building block to use instead of hand-rolled
    code, a reference. `url` opens in an editor (file:///...#L12) or a browser."""

    title: str  # what it is, e.g. "kernelpro::block_reduce_sum"
    url: str
    detail: str = ""  # how to use it, e.g. "#include <kernelpro/block_reduce.cuh>"


@dataclass
class Advice:
    rule: str
    severity: Severity
    kernel: str | None
    file: str
    line: int  # 1-based
    message: str  # one-sentence diagnosis
    remedy: str  # concrete fix
    column: int | None = None  # 1-based
    end_line: int | None = None
    end_column: int | None = None  # exclusive
    evidence: list[Evidence] = field(default_factory=list)
    gain: float | None = None  # estimated speedup factor (1.3 = 30% faster), when computable
    gain_note: str = ""
    related: list[Location] = field(default_factory=list)
    fix: dict[str, Any] | None = None  # data for a mechanical quick fix (see docs/rules.md)
    links: list[Link] = field(default_factory=list)  # building blocks the remedy names
    instantiation: str | None = None  # `reduce<float, 256>`: found in that instantiation of a template only
    data: dict[str, Any] = field(default_factory=dict)  # numbers a tool can act on, e.g. {"register_cap": 64}

    @property
    def doc_url(self) -> str:
        return f"{DOCS_URL}#{self.rule}"

    def sort_key(self):
        return (self.severity.rank, -(self.gain or 1.0), self.file, self.line, self.rule)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["severity"] = self.severity.value
        d["doc_url"] = self.doc_url
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Advice":
        d = dict(d)
        d.pop("doc_url", None)
        d["severity"] = Severity(d["severity"])
        d["evidence"] = [Evidence(**e) for e in d.get("evidence", [])]
        d["related"] = [Location(**r) for r in d.get("related", [])]
        d["links"] = [Link(**x) for x in d.get("links", [])]
        return cls(**d)

    def text(self, with_evidence: bool = True) -> str:
        """Plain text for a terminal or an LLM: where, what, why, how to fix."""
        where = f"{self.file}:{self.line}" + (f":{self.column}" if self.column else "")
        head = f"{where}: {self.severity.value} [{self.rule}]"
        if self.kernel:
            head += f" in {self.instantiation or self.kernel}"
        out = [f"{head}: {self.message}"]
        if with_evidence and self.evidence:
            out.append("  evidence: " + "; ".join(e.text() for e in self.evidence))
        out.append(f"  fix: {self.remedy}")
        for link in self.links:
            out.append(f"  see: {link.title}" + (f" ({link.detail})" if link.detail else "") + f" {link.url}")
        if self.gain:
            out.append(f"  estimated gain: {self.gain:.2f}x" + (f" ({self.gain_note})" if self.gain_note else ""))
        return "\n".join(out)


def sort_advice(items: list[Advice]) -> list[Advice]:
    return sorted(items, key=Advice.sort_key)
