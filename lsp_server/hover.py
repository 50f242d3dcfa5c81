"""Hover: a kernel's resources, occupancy and measured numbers; a line's evidence."""
from __future__ import annotations

from typing import Any

from lsprotocol import types

from kernelpro.profilers.profile import KernelSummary

from .server import KernelProServer


def setup(server: KernelProServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: KernelProServer, params: types.HoverParams):
        st = ls.docs.get(params.text_document.uri)
        if st is None or st.report is None:
            return None
        doc = ls.workspace.get_text_document(params.text_document.uri)
        word = doc.word_at_position(params.position)
        parts = []
        k = next((k for k in st.report.kernels if k.name == word), None)
        if k is not None:
            parts.append(kernel_markdown(k, st.measured.get(k.name)))
        if st.report_version == doc.version:
            line = params.position.line + 1
            here = [a for a in st.report.advice if a.line == line]
            if here:
                parts.append(line_markdown(line, here))
        if not parts:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(parts)))


def _num(v, unit: str = "") -> str:
    return "?" if v is None else f"{v}{unit}"


def kernel_markdown(k: KernelSummary, measured: dict[str, Any] | None = None) -> str:
    out = [f"**KernelPro · `{k.name}`**", ""]
    if k.registers is None:
        out.append("not compiled (see the errors in this file)")
    else:
        spills = "0" if not (k.spill_stores or k.spill_loads) else f"{k.spill_stores} B stored / {k.spill_loads} B loaded"
        out += [
            f"- registers: **{k.registers}** per thread",
            f"- spills: {spills}",
            f"- stack frame: {_num(k.stack_bytes, ' B')}",
            f"- shared memory: {_num(k.shared_bytes, ' B')} static",
        ]
        if k.occupancy is not None:
            out.append(f"- occupancy: **{k.occupancy * 100:.0f}%**, limited by {k.occupancy_limiter or '?'}")
        if k.occupancy_text:
            out.append(f"  ({k.occupancy_text})")
    out.append(f"- block: {k.block} threads (from {k.block_origin})")
    if measured:
        out += ["", "**Last GPU run**", ""] + [f"- {line}" for line in measured_lines(measured)]
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


def line_markdown(line: int, advice) -> str:
    out = [f"**KernelPro · line {line}**", ""]
    for a in advice:
        out.append(f"- `{a.rule}`: {a.message}")
        for e in a.evidence:
            out.append(f"  - {e.text()}")
        if a.gain:
            out.append(f"  - estimated gain: {a.gain:.2f}x")
    return "\n".join(out)
