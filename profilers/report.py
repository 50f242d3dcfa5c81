"""The terminal report of a profile, with rich."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .advice import Severity

if TYPE_CHECKING:  # a cached report (report_cache.CachedReport) prints without loading the profiler
    from .profile import ProfileReport

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan", Severity.HINT: "dim"}


def _rel(path: str | None) -> str:
    if not path:
        return "?"
    try:
        r = os.path.relpath(path)
        return r if not r.startswith("..") else path
    except ValueError:
        return path


def _n(v, unit: str = "") -> str:
    return "-" if v is None else f"{v}{unit}"


def print_report(rep: ProfileReport, console: Console | None = None, dynamic: dict | None = None) -> None:
    c = console or Console(highlight=False, soft_wrap=True, width=None if os.isatty(1) else 160)
    where = _rel(rep.path)
    cache = " (cached)" if rep.cache_hit else ""
    c.print(Text.assemble((where, "bold"), f"  {rep.arch}  {rep.duration_s * 1000:.0f} ms{cache}"))  # a path is not markup
    for d in rep.diagnostics:
        style = "bold red" if d.severity == "error" else "yellow"
        loc = f"{_rel(d.file)}:{d.line}" + (f":{d.column}" if d.column else "") if d.file else d.tool
        c.print(Text(f"{loc}: {d.severity}: {d.message}", style=style))
    if rep.errors:
        c.print(Text(f"{len(rep.errors)} compile error(s); no profile", style="bold red"))
    if rep.kernels and rep.ok:
        t = Table(show_edge=False, pad_edge=False, caption="bytes: spills (stored/loaded), shared memory, stack",
                  caption_justify="left")
        for col in ("kernel", "line", "regs", "spills", "smem", "stack", "block", "occupancy", "limiter"):
            # every header whole on an 80-column terminal: the kernel's name folds instead
            t.add_column(col, justify="left" if col in ("kernel", "limiter") else "right",
                         no_wrap=col not in ("kernel", "limiter"), overflow="fold",
                         min_width=len(col) if col in ("kernel", "limiter") else None)
        for k in rep.kernels:
            occ = "-" if k.occupancy is None else f"{k.occupancy * 100:.4g}%"  # as the messages say it: 18.75%
            file = getattr(k, "file", "") or rep.path
            t.add_row(getattr(k, "instantiation", None) or k.name,
                      str(k.line) if file == rep.path else f"{os.path.basename(file)}:{k.line}", _n(k.registers), f"{_n(k.spill_stores)}/{_n(k.spill_loads)}",
                      _n(k.shared_bytes), _n(k.stack_bytes), f"{k.block}" + ("*" if k.block_origin == "default" else ""),
                      occ, k.occupancy_limiter or "-")
        c.print(t)
        if any(k.block_origin == "default" for k in rep.kernels):
            c.print("[dim]* block size not known from a launch spec or launch site: 256 assumed (use --block N)[/dim]")
    if dynamic:
        _print_measured(c, dynamic)
    advice = list(rep.advice) + (list(dynamic.get("advice", [])) if dynamic else [])
    if advice:
        c.print(f"\n[bold]{len(advice)} finding(s)[/bold], most important first:")
        for a in advice:
            loc = f"{_rel(a.file)}:{a.line}" + (f":{a.column}" if a.column else "")
            line = Text(f"{loc}: {a.severity.value} [{a.rule}]", style=_STYLE[a.severity])
            if a.instantiation and a.instantiation not in a.message:
                line.append(f" in {a.instantiation}", style="bold")
            line.append(f" {a.message}", style="default")
            c.print(line)
            if a.evidence:
                c.print(Text("    evidence: " + "; ".join(e.text() for e in a.evidence), style="dim"))
            c.print(Text(f"    fix: {a.remedy}"))
            for link in a.links:
                c.print(Text(f"    see: {link.title} ({link.detail}) {link.url}", style="cyan"))
            if a.gain:
                c.print(Text(f"    estimated gain: up to {a.gain:.2f}x" + (f" ({a.gain_note})" if a.gain_note else ""), style="green"))
    elif rep.ok and rep.kernels and getattr(rep, "analysed", True):
        c.print("\nno findings")
    for n in rep.notes:
        c.print(Text(f"note: {n}", style="dim"))


def _print_measured(c: Console, dyn: dict) -> None:
    rows = dyn.get("measured", [])
    if not rows:
        return
    t = Table(title="measured", show_edge=False, pad_edge=False)
    for col in ("kernel", "size", "time", "spread", "bandwidth", "of peak", "GFLOP/s", "energy/launch", "bound", "error"):
        t.add_column(col, justify="left" if col in ("kernel", "size", "bound") else "right")
    for r in rows:
        t.add_row(r["kernel"], r["size"], f"{r['time_us']:.2f} us", f"{r['spread_pct']:.1f}%",
                  f"{r['bandwidth_gbs']:.0f} GB/s" if r.get("bandwidth_gbs") is not None else "-",
                  f"{r['bw_fraction'] * 100:.0f}%" if r.get("bw_fraction") is not None else "-",
                  f"{r['gflops']:.0f}" if r.get("gflops") is not None else "-",
                  f"{r['energy_uj']:.1f} uJ" if r.get("energy_uj") is not None else "-",
                  r.get("bound") or "-", f"{r['rel_l2']:.1e}" if r.get("rel_l2") is not None else "-")
    c.print(t)
