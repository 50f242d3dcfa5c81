"""Inlay hints at the end of a line: what its SASS does that matters, and after a GPU run what
Nsight Compute measured there. "2 LDL/STL · 3 FP64 · 2× LDG.32"; lines without such facts
get no hint."""
from __future__ import annotations

from lsprotocol import types

from .convert import code_end, units
from .state import KernelProServer

GLOBAL = ("LDG", "STG")


def line_facts(report) -> dict[int, str]:
    """1-based line (of the profiled text) -> "2 LDL/STL · 3 FP64 · 2× LDG.32 · STG.128". A template
    compiled more than once: facts every instantiation shares are said once, those that differ
    name their instantiation ("scale_add<double>: 3 FP64")."""
    art = report.artifact
    if art is None or not art.ok:
        return {}
    by_name: dict[str, list] = {}
    for b in art.kernels:
        by_name.setdefault(b.name, []).append(b)
    parts: dict[int, list[str]] = {}
    for builds in by_name.values():
        if len(builds) == 1:
            for ln, text in _facts(report, builds).items():
                parts.setdefault(ln, []).append(text)
            continue
        each = [(b.label, _facts(report, [b])) for b in builds]
        for ln in sorted({ln for _, f in each for ln in f}):
            texts = [(lab, f.get(ln)) for lab, f in each]
            if len({t for _, t in texts}) == 1:
                parts.setdefault(ln, []).append(texts[0][1])
            else:
                parts.setdefault(ln, []).append(" | ".join(f"{lab}: {t}" for lab, t in texts if t))
    return {ln: " · ".join(p) for ln, p in parts.items()}


def _facts(report, builds) -> dict[int, str]:
    from kernelpro.profilers.rules.fp64 import is_fp64
    from kernelpro.profilers.rules.spills import LOCAL_OPS
    from kernelpro.profilers.rules.vector_loads import access_width

    counts: dict[int, dict[str, int]] = {}
    for b in builds:
        for ins in b.sass:
            ln = ins.line_in(report.path)
            if ln is None:
                continue
            c = counts.setdefault(ln, {})
            if ins.base in LOCAL_OPS:
                c["LDL/STL"] = c.get("LDL/STL", 0) + 1
            elif is_fp64(ins.opcode):
                c["FP64"] = c.get("FP64", 0) + 1
            elif ins.base in GLOBAL:
                key = f"{ins.base}.{access_width(ins.opcode)}"
                c[key] = c.get(key, 0) + 1
    out = {}
    for ln, c in counts.items():
        parts = [f"{c[k]} {k}" for k in ("LDL/STL", "FP64") if k in c]
        parts += [(f"{n}× {k}" if n > 1 else k) for k, n in sorted(c.items()) if k.startswith(GLOBAL)]
        if parts:
            out[ln] = " · ".join(parts)
    return out


def setup(server: KernelProServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT)
    def inlay_hints(ls: KernelProServer, params: types.InlayHintParams):
        st = ls.docs.get(params.text_document.uri)
        if st is None or st.report is None or not ls.settings.raw.get("inlayHints", True):
            return []
        doc = ls.workspace.get_text_document(params.text_document.uri)
        lines = doc.source.split("\n")
        if st.facts is None or st.facts[0] is not st.report:
            st.facts = (st.report, line_facts(st.report))
        per_line: dict[int, list[str]] = {}
        for old, facts in ((st.report_text, st.facts[1]), (st.gpu_text, st.gpu_lines)):
            m = st.line_map(old, doc.source)
            for ln, text in (facts.items() if m is not None else ()):
                new = m.line(ln - 1)
                if new is not None and params.range.start.line <= new <= params.range.end.line:
                    per_line.setdefault(new, []).append(text)
        out = []
        for row, texts in sorted(per_line.items()):
            text = lines[row] if row < len(lines) else ""
            col = units(text[: code_end(text) - 1], ls.encoding)
            out.append(types.InlayHint(position=types.Position(line=row, character=col), label=" · ".join(texts),
                                       padding_left=True,
                                       tooltip="KernelPro: SASS of this line (and the last GPU run's counters)"))
        return out
