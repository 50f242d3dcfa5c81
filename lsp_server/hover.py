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
    """Time, bandwidth (fraction of peak) and energy of a measured row, whatever its key names."""
    out = []
    t = _pick(row, "time_ms", "median_ms", "ms")
    if t is not None:
        out.append(f"time: {t:.4g} ms")
    elif (us := _pick(row, "time_us", "median_us")) is not None:
        out.append(f"time: {us:.4g} µs")
    bw = _pick(row, "bandwidth_gbs", "gbps", "bandwidth_GBs", "bandwidth")
    peak = _pick(row, "fraction_of_peak", "bandwidth_fraction", "peak_fraction")
    if bw is not None:
        out.append(f"bandwidth: {bw:.4g} GB/s" + (f" ({peak * 100:.0f}% of peak)" if peak is not None else ""))
    e = _pick(row, "energy_j", "energy_mj", "energy")
    if e is not None:
        out.append(f"energy: {e:.4g} {'mJ' if 'energy_mj' in row else 'J'} per launch")
    return out or [", ".join(f"{k}={v}" for k, v in row.items())]


def _pick(row: dict[str, Any], *keys: str) -> float | None:
    for k in keys:
        v = row.get(k)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v)
    return None


def line_markdown(line: int, advice) -> str:
    out = [f"**KernelPro · line {line}**", ""]
    for a in advice:
        out.append(f"- `{a.rule}`: {a.message}")
        for e in a.evidence:
            out.append(f"  - {e.text()}")
        if a.gain:
            out.append(f"  - estimated gain: {a.gain:.2f}x")
    return "\n".join(out)
