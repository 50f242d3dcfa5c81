"""Hover: a kernel's resources, occupancy and measured numbers; what a line's findings rest on.

The diagnostic under the cursor is shown by the editor itself: the line part adds only what
the diagnostic leaves out (the rest of the diagnosis, the evidence, the estimated gain). All
text from the tools is Markdown-escaped outside its `code spans`.
"""
from __future__ import annotations

import re
from typing import Any

from lsprotocol import types

from kernelpro.profilers.occupancy import limiter_words
from kernelpro.profilers.profile import KernelSummary, ProfileReport

from .convert import _same_file, message_detail
from .state import KernelProServer

_SPECIAL = re.compile(r"([\\*_\[\]<>#|~])")


def md(text: str) -> str:
    """`text` as literal Markdown: special characters escaped, `code spans` kept as they are."""
    parts = re.split(r"(`[^`]*`)", str(text))
    return "".join(p if p.startswith("`") and p.endswith("`") and len(p) > 1 else _SPECIAL.sub(r"\\\1", p)
                   for p in parts)


def code(text: str) -> str:
    """A code span that holds any text (backticks inside get a longer fence)."""
    text = str(text)
    fence = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def pct(fraction: float) -> str:
    """An occupancy or share as the rules print it: 12.5%, 18.75%, 100%."""
    return f"{fraction * 100:.4g}%"


def setup(server: KernelProServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: KernelProServer, params: types.HoverParams):
        st = ls.docs.get(params.text_document.uri)
        if st is None or st.report is None:
            return None
        doc = ls.workspace.get_text_document(params.text_document.uri)
        word = doc.word_at_position(params.position)
        parts = []
        for k in (k for k in st.report.kernels if k.name == word):  # each instantiation of a template
            parts.append(kernel_markdown(k, st.measured.get(k.name), no_machine_code(st.report, k.name)))
        here = []
        for old, advice in ((st.report_text, st.report.advice), (st.gpu_text, st.gpu_advice)):
            m = st.line_map(old, doc.source)
            if m is not None:
                here += [a for a in advice if m.line(a.line - 1) == params.position.line and _same_file(a.file, st.path)]
        if here:
            parts.append(line_markdown(here))
        if not parts:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(parts)))


def _num(v, unit: str = "") -> str:
    return "?" if v is None else f"{v}{unit}"


def no_machine_code(report: ProfileReport, kernel: str) -> str:
    """Why a kernel has no registers to show, in the words of docs/editor.md."""
    if not report.ok:
        return "cannot profile (see Problems)"
    src = report.source.kernel(kernel)
    if src is not None and src.is_template:
        return "no machine code: a template this file never instantiates (only the source rules ran)"
    return "no machine code for it in this build (see the log)"


def kernel_markdown(k: KernelSummary, measured: dict[str, Any] | None = None, missing: str = "") -> str:
    """`missing`: why there is no machine code (`no_machine_code`), said when there are no registers."""
    out = [f"**KernelPro · {code(k.instantiation or k.name)}**", ""]
    if k.registers is None:
        out.append(md(missing or "no machine code"))
    else:
        spills = "0" if not (k.spill_stores or k.spill_loads) else f"{k.spill_stores} B stored / {k.spill_loads} B loaded"
        out += [
            f"- registers: **{k.registers}** per thread",
            f"- spills: {spills}",
            f"- stack frame: {_num(k.stack_bytes, ' B')}",
            f"- shared memory: {_num(k.shared_bytes, ' B')} static",
        ]
        if k.occupancy is not None:
            limit = f", limited by {md(limiter_words(k.occupancy_limiter or '?'))}" if k.occupancy < 1 else ""
            out.append(f"- occupancy: **{pct(k.occupancy)}**{limit}")
        if k.occupancy_text:
            out.append(f"  ({md(k.occupancy_text)})")
    if k.block_origin == "default":
        out.append(f"- block: {k.block} threads, **assumed** (no launch spec, launch site or `__launch_bounds__` says)")
    else:
        out.append(f"- block: {k.block} threads (from {md(k.block_origin)})")
    if measured:
        out += ["", "**Last GPU run**", ""] + [f"- {md(line)}" for line in measured_lines(measured)]
    return "\n".join(out)


def measured_lines(row: dict[str, Any]) -> list[str]:
    """A row of `kernelpro profile --run --json` ("measured"): time, bandwidth and its fraction
    of the measured DRAM ceiling, energy per launch, the roofline verdict."""
    if row.get("ok") is False:  # its time is no measurement: 0 when the check failed
        return [f"failed at size {row.get('size', '?')}: {row.get('check') or 'the GPU run failed'}"]
    out = []
    if row.get("time_us") is not None:
        spread = f" (spread {row['spread_pct']:.1f}%)" if row.get("spread_pct") is not None else ""
        out.append(f"time: {row['time_us']:.4g} µs at size {row.get('size', '?')}{spread}")
    if row.get("bandwidth_gbs") is not None:
        frac = f" ({row['bw_fraction'] * 100:.0f}% of the DRAM peak)" if row.get("bw_fraction") is not None else ""
        out.append(f"bandwidth: {row['bandwidth_gbs']:.4g} GB/s{frac}")
    if row.get("gflops"):
        out.append(f"arithmetic: {row['gflops']:.4g} GFLOP/s")
    if row.get("energy_uj") is not None:
        unc = f" ± {row['energy_uncertainty_pct']:.0f}%" if row.get("energy_uncertainty_pct") is not None else ""
        out.append(f"energy: {row['energy_uj'] / 1000:.4g} mJ per launch{unc}")
    if row.get("bound"):
        out.append(f"verdict: {row['bound']}")
    return out or ["no numbers in the last GPU run"]


def line_markdown(advice) -> str:
    """Per finding on the line: its rule, what the diagnostic's one sentence leaves out, the
    evidence and the estimated gain (the fix is the diagnostic's related information)."""
    out = []
    for a in advice:
        detail = message_detail(a.message, a.line)
        out.append(f"**{code(a.rule)}**" + (f": {md(detail)}" if detail else ""))
        for e in a.evidence:
            out.append(f"- {md(e.text())}")
        if a.gain:
            out.append(f"- estimated gain: {a.gain:.2f}x" + (f" ({md(a.gain_note)})" if a.gain_note else ""))
        out.append("")
    return "\n".join(out).rstrip()
