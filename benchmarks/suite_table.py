"""Merge suite_run.py JSON files (one per device call) and print the Markdown table of the record.

    python benchmarks/suite_table.py a.json b.json [--out merged.json]
"""
from __future__ import annotations

import argparse
import json
import math
import sys


def us(t):
    return f"{t * 1e6:.0f}" if t is not None else "-"


def merge(paths: list[str]) -> dict:
    out: dict = {"families": {}, "calls": []}
    for p in paths:
        d = json.load(open(p))
        out["calls"].append({k: d.get(k) for k in ("date", "budget", "seed", "device", "dram_gbs")})
        out["families"].update(d.get("families", {}))
    fr = [r["optimized_fraction_of_best"] for r in out["families"].values() if r.get("optimized_fraction_of_best")]
    if fr:
        out["geomean_fraction_of_best"] = math.exp(sum(math.log(x) for x in fr) / len(fr))
        out["min_fraction_of_best"] = min(fr)
    return out


def table(d: dict) -> str:
    rows = ["| family | size | naive µs | optimizer µs | hand-written µs | PyTorch µs | optimizer / hand-written "
            "| DRAM (opt / best) | evaluations (structural, local, flags, tuning) | launch-only share |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for fam, r in sorted(d["families"].items()):
        m = r.get("measured", {})
        sizes = list((m.get("best") or {}).get("times_s", {}))
        spend = (r.get("search") or {}).get("spend", {})
        kinds = spend.get("by_kind", {})
        ev = ", ".join(str(kinds.get(k, 0)) for k in ("structural", "local", "flags", "tuning"))
        for i, s in enumerate(sizes):
            t = {k: (m.get(k) or {}).get("times_s", {}).get(s) for k in ("naive", "optimized", "best")}
            torch_t = ((r.get("torch") or {}).get("times_s") or {}).get(s)
            frac = f"{t['best'] / t['optimized']:.2f}" if t["best"] and t["optimized"] else "-"
            dram = " / ".join(str((m.get(k) or {}).get("dram_fraction", {}).get(s, "-")) for k in ("optimized", "best"))
            first = i == 0
            rows.append(f"| {fam if first else ''} | {s} | {us(t['naive'])} | {us(t['optimized'])} | {us(t['best'])} | "
                        f"{us(torch_t)} | {frac} | {dram} | "
                        f"{(str(spend.get('total', '-')) + ' (' + ev + ')') if first else ''} | "
                        f"{spend.get('launch_parameter_share', '-') if first else ''} |")
    g = d.get("geomean_fraction_of_best")
    if g:
        rows.append("")
        rows.append(f"Geometric mean of the optimizer's speed as a fraction of the hand-written kernel's: "
                    f"**{g:.3f}** (lowest family {d['min_fraction_of_best']:.3f}).")
    return "\n".join(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    d = merge(a.files)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(d, f, indent=2)
    print(table(d))
    return 0


if __name__ == "__main__":
    sys.exit(main())
