"""The benchmark report's plots, as SVG that regenerates byte for byte from the same JSON.

Determinism: no pyplot (no global state), a fixed `svg.hashsalt` (the ids of clip paths and
markers), text kept as text (`svg.fonttype: none`, so no glyph outlines depend on the fonts found),
no date or creator in the metadata, and every input sorted.
"""
from __future__ import annotations

import io
import statistics

from report_data import curves, family_row, roofline_points

RC = {"svg.hashsalt": "kernelpro-report", "svg.fonttype": "none", "font.family": "DejaVu Sans", "font.size": 9,
      "axes.spines.top": False, "axes.spines.right": False, "path.simplify": False}
COLORS = {"optimizer": "#1f77b4", "best": "#2ca02c", "torch_eager": "#ff7f0e", "torch_compile": "#d62728",
          "naive": "#7f7f7f", "mcts": "#1f77b4", "greedy": "#ff7f0e", "random": "#2ca02c"}
LABELS = {"optimizer": "KernelPro (MCTS, median of seeds)", "best": "hand-written best", "torch_eager": "PyTorch eager",
          "torch_compile": "torch.compile", "naive": "naive"}


def _figure(w: float, h: float):
    from matplotlib.figure import Figure

    return Figure(figsize=(w, h), layout="constrained")


def _times_axis(ax) -> None:
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}x"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def _legend_below(ax, ncols: int) -> None:
    ax.legend(fontsize=7, frameon=False, ncols=ncols, loc="upper center", bbox_to_anchor=(0.5, -0.16))


def _svg(fig) -> bytes:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches=None)
    return buf.getvalue().encode()


def _title(text: str, synthetic: bool) -> str:
    return text + (" (SYNTHETIC TEST DATA)" if synthetic else "")


def speedup_plot(results: dict, synthetic: bool) -> bytes:
    fams = sorted(results["families"])
    rows = [family_row(f, results["families"][f]) for f in fams]
    fig = _figure(8, 4.0)
    ax = fig.add_subplot()
    series = ["optimizer", "best", "torch_eager", "torch_compile"]
    width = 0.8 / len(series)
    for i, key in enumerate(series):
        xs, ys, lo, hi = [], [], [], []
        for j, r in enumerate(rows):
            v = r[key]["median"] if key == "optimizer" and r[key] else (r[key] if key != "optimizer" else None)
            if v is None:
                continue
            xs.append(j + (i - (len(series) - 1) / 2) * width)
            ys.append(v)
            if key == "optimizer":
                lo.append(v - r[key]["min"])
                hi.append(r[key]["max"] - v)
        if xs:
            ax.bar(xs, ys, width, label=LABELS[key], color=COLORS[key],
                   yerr=[lo, hi] if key == "optimizer" else None, capsize=2 if key == "optimizer" else 0)
    for j, r in enumerate(rows):  # say why a kernel has no KernelPro bar
        if not r["optimizer"]:
            ax.annotate(r["optimizer_status"], (j - 1.5 * width, 1.0), rotation=90, fontsize=6, ha="center",
                        va="bottom", xytext=(0, 2), textcoords="offset points")
    ax.axhline(1.0, color="black", linewidth=0.6)
    ax.set_yscale("log")
    _times_axis(ax)
    ax.set_xticks(range(len(fams)), fams, rotation=20)
    ax.set_ylabel("speedup over the naive kernel")
    ax.set_title(_title("Speedup over the naive kernel, re-measured\n(geometric mean over sizes; "
                        "KernelPro: median and range over seeds)", synthetic), fontsize=9)
    _legend_below(ax, 4)
    return _svg(fig)


def roofline_plot(results: dict, synthetic: bool) -> bytes:
    ceil = (results.get("environment") or {}).get("ceilings") or {}
    dram, peak = ceil.get("dram_gbs"), ceil.get("fp32_gflops")
    fig = _figure(6.5, 4.2)
    ax = fig.add_subplot()
    pts = {f: roofline_points(results["families"][f]) for f in sorted(results["families"])}
    ais = [p[0] for d in pts.values() for p in d.values()]
    if dram and peak and ais:
        lo, hi = min(ais + [peak / dram]) / 4, max(ais + [peak / dram]) * 4
        xs = [lo * (hi / lo) ** (k / 100) for k in range(101)]
        ax.plot(xs, [min(dram * x, peak) for x in xs], color="black", linewidth=1,
                label=f"measured ceilings: DRAM {dram:.0f} GB/s, FP32 {peak / 1000:.1f} TFLOP/s")
    for f, d in pts.items():
        if "naive" in d:
            ax.scatter([d["naive"][0]], [d["naive"][1]], facecolors="none", edgecolors=COLORS["naive"], s=22)
        if "best" in d:
            ax.scatter([d["best"][0]], [d["best"][1]], marker="x", color=COLORS["best"], s=22)
        if "optimizer" in d:
            ax.scatter([d["optimizer"][0]], [d["optimizer"][1]], color=COLORS["optimizer"], s=18)
            if "naive" in d:
                ax.annotate("", xy=d["optimizer"][:2], xytext=d["naive"][:2],
                            arrowprops={"arrowstyle": "->", "color": COLORS["optimizer"], "linewidth": 0.7})
    ax.set_xscale("log")
    ax.set_yscale("log")
    for f, (xy, off, ha) in _label_places(ax, pts).items():
        ax.annotate(f, xy, textcoords="offset points", xytext=off, fontsize=7, ha=ha)
    ax.scatter([], [], facecolors="none", edgecolors=COLORS["naive"], label="naive")
    ax.scatter([], [], color=COLORS["optimizer"], label="KernelPro (median seed)")
    ax.scatter([], [], marker="x", color=COLORS["best"], label="hand-written best")
    ax.set_xlabel("arithmetic intensity ([cost] FLOP per byte)")
    ax.set_ylabel("achieved GFLOP/s (largest size)")
    ax.set_title(_title("Roofline: each kernel before and after", synthetic))
    ax.legend(fontsize=7, frameon=False, loc="lower right")
    return _svg(fig)


LABEL_SLOTS = (((4, 3), "left"), ((4, -10), "left"), ((-4, 3), "right"), ((-4, -10), "right"))


def _label_places(ax, pts: dict) -> dict:
    """Each family's label beside its point (KernelPro's, else naive's or the hand-written one's), in the
    first slot whose box (estimated from the text's length) overlaps no label placed before (else the first)."""
    ax.autoscale_view()
    px = ax.figure.dpi / 72  # pixels per point
    placed, out = [], {}
    for f, d in pts.items():
        anchor = d.get("optimizer") or d.get("naive") or d.get("best")
        if not anchor:
            continue
        x, y = ax.transData.transform(anchor[:2])
        w, h = 0.6 * 7 * len(f) * px, 8 * px
        for off, ha in LABEL_SLOTS + (LABEL_SLOTS[0],):
            x0 = x + off[0] * px - (w if ha == "right" else 0)
            box = (x0, y + off[1] * px, x0 + w, y + off[1] * px + h)
            if not any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in placed):
                break
        placed.append(box)
        out[f] = (anchor[:2], off, ha)
    return out


def energy_plot(results: dict, synthetic: bool) -> bytes:
    fams = sorted(results["families"])
    rows = [family_row(f, results["families"][f]) for f in fams]
    fig = _figure(8, 3.8)
    ax = fig.add_subplot()
    series = ["naive", "optimizer", "best"]
    width = 0.8 / len(series)
    for i, key in enumerate(series):
        pts = [(j + (i - 1) * width, r["energy_j"][key] * 1e3) for j, r in enumerate(rows) if r["energy_j"][key]]
        if pts:
            ax.bar([p[0] for p in pts], [p[1] for p in pts], width, color=COLORS[key],
                   label=LABELS[key] if key != "optimizer" else "KernelPro (median seed)")
    ax.set_xticks(range(len(fams)), fams, rotation=20)
    ax.set_ylabel("energy per launch, largest size (mJ)")
    ax.set_title(_title("Energy per launch before and after (NVML)", synthetic), fontsize=9)
    _legend_below(ax, 3)
    return _svg(fig)


def search_plot(results: dict, synthetic: bool, strategies=("mcts", "greedy", "random")) -> bytes:
    fams = sorted(results["families"])
    cols = 4
    rows_n = max(1, -(-len(fams) // cols))
    fig = _figure(10, 2.4 * rows_n + 0.6)
    for k, f in enumerate(fams):
        ax = fig.add_subplot(rows_n, cols, k + 1)
        for s in strategies:
            cs = [c for c in curves(results["families"][f], s) if c]
            if not cs:
                continue
            n = max(len(c) for c in cs)
            # a curve that stopped early keeps its last value (the search had nothing left to try)
            filled = [[c[min(i, len(c) - 1)][1] for i in range(n)] for c in cs]
            xs = list(range(1, n + 1))
            med = [statistics.median(col) for col in zip(*filled)]
            ax.plot(xs, med, color=COLORS[s], linewidth=1, label=f"{s} ({len(cs)} seeds)")
            if len(cs) > 1:
                ax.fill_between(xs, [min(col) for col in zip(*filled)], [max(col) for col in zip(*filled)],
                                color=COLORS[s], alpha=0.15, linewidth=0)
        ax.set_title(f, fontsize=8)
        ax.tick_params(labelsize=7)
        if k % cols == 0:
            ax.set_ylabel("best so far (x)", fontsize=7)
        if k >= len(fams) - cols:
            ax.set_xlabel("evaluations", fontsize=7)
        if k == 0:
            ax.legend(fontsize=6, frameon=False)
    fig.suptitle(_title("Best speedup so far over evaluations, as the search measured it "
                        "(median and range over seeds)", synthetic), fontsize=9)
    return _svg(fig)


PLOTS = {"speedup.svg": speedup_plot, "roofline.svg": roofline_plot, "energy.svg": energy_plot,
         "search.svg": search_plot}


def render_all(results: dict, synthetic: bool) -> dict[str, bytes]:
    import matplotlib

    with matplotlib.rc_context(RC):
        return {name: fn(results, synthetic) for name, fn in PLOTS.items()}
