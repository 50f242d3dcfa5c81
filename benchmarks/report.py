"""The benchmark report, docs/benchmarks/, generated from run_suite.py's JSON alone (no GPU).

    python benchmarks/report.py            # docs/benchmarks/ from docs/benchmarks/results.json (or the page
                                           # that says the run has not been made), each rule's hit rate in
                                           # docs/rules.md, the headline in README.md
    python benchmarks/report.py --check    # exit 1 when any of those differs from what would be generated
    python benchmarks/report.py RESULTS.json --out DIR   # another JSON (e.g. the synthetic fixture) elsewhere

Writes index.md (tables) and four SVG plots (report_plots.py); the same JSON gives the same bytes.
Synthetic JSON (the test fixture) is refused for docs/: it is not a measurement.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import docblocks  # noqa: E402
import hit_rates  # noqa: E402
import report_data as rd  # noqa: E402
import run_suite  # noqa: E402

ROOT = HERE.parent
DOCS = ROOT / "docs" / "benchmarks"
RESULTS = DOCS / "results.json"
README_BLOCK = "benchmark-report"
STRATEGIES = ("mcts", "greedy", "random")
# The report's selection (scripts/gpu_report.sh's defaults): every family, the three strategies, three seeds,
# torch.compile, the energy objective on GELU.
SEEDS = [0, 1, 2]
ENERGY_FAMILIES = ("gelu",)
COMMAND = "KERNELPRO_COMMIT=<commit> bash scripts/gpu_report.sh"


# --- formatting ------------------------------------------------------------------------------------------------
def fx(v, why: str = "—") -> str:
    return f"{v:.2f}x" if v is not None else why


def pct(v) -> str:
    return f"{v * 100:.0f}%" if v is not None else "—"


def ceiling_text(f) -> str:
    if not f or f[0] is None:
        return "—"
    return pct(f[0]) + (" FLOP" if f[1] == "FLOP" else "")


def spread_text(s: dict | None, why: str = "not run") -> str:
    if not s:
        return why
    if s["n"] == 1:
        return f"{s['median']:.2f}x (1 seed)"
    return f"{s['median']:.2f}x [{s['min']:.2f}–{s['max']:.2f}] ({s['n']} seeds)"


def table(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(r) + " |" for r in rows]


# --- the device plan ------------------------------------------------------------------------------------------------
def plan_units(cfg) -> list:
    return run_suite.units_for(run_suite.suite_families(), list(STRATEGIES), SEEDS, "time", compile_=True,
                               energy_families=ENERGY_FAMILIES)


def call_text(units: list) -> str:
    """What a planned call runs, in short: kinds of unit and the families they cover."""
    parts = []
    for kind, what in (("baseline", "baselines"), ("run", "runs"), ("compile", "torch.compile")):
        us = [u for u in units if u.kind == kind and (kind != "run" or u.objective == "time")]
        if us:
            fams = sorted({u.family for u in us})
            parts.append(f"{len(us)} {what} ({', '.join(fams)})")
    energy = [u.family for u in units if u.kind == "run" and u.objective == "energy"]
    if energy:
        parts.append(f"the energy objective ({', '.join(energy)})")
    return "; ".join(parts)


def plan_section(results: dict | None) -> list[str]:
    cfg_json = (results or {}).get("config") or {}
    cfg = run_suite.Config(budget=cfg_json.get("budget") or run_suite.Config().budget,
                           repeats=cfg_json.get("repeats") or run_suite.Config().repeats)
    units = plan_units(cfg)
    calls = run_suite.plan_calls(units, cfg, results)
    lines = ["## Running it on the H200", "",
             "Device calls of at most 10 minutes, each the same command on the device machine from the repository "
             f"root (`.gpuwheels` carried, see [gpu-validation.md](../gpu-validation.md)): `{COMMAND}`. It stops by "
             f"itself before {run_suite.CALL_SECONDS} s (`DEADLINE`), starting only units whose estimated cost fits. "
             "After each call copy its `results.json` over `docs/benchmarks/results.json` (the next call continues "
             "it: finished units are kept, a unit cut short runs again) and run `python benchmarks/report.py`. "
             f"The selection: every family; MCTS, greedy and random, seeds {', '.join(map(str, SEEDS))}, "
             f"{cfg.budget} evaluations per run; {cfg.repeats} alternating rounds per re-measurement; torch.compile "
             f"after the runs; last, the energy objective (MCTS, seed 0) on {', '.join(ENERGY_FAMILIES)}.", ""]
    if not calls:
        return lines + ["Every unit of the selection is done."]
    total = sum(run_suite.call_seconds_of(c, cfg, results) for c in calls)
    lines += table(["call", "units", "estimated device time", "what"],
                   [[str(i), str(len(c)), f"~{run_suite.call_seconds_of(c, cfg, results):.0f} s", call_text(c)]
                    for i, c in enumerate(calls, 1)])
    lines += ["", f"Left: about **{total / 60:.0f} device minutes** in {len(calls)} call{'s' if len(calls) != 1 else ''}. "
              "The estimates come from the units already in results.json once a call has run; before that from "
              "`COST` in `benchmarks/run_suite.py` (the H200's 2026-12-03 suite runs: about 1.7 s per evaluation, the "
              "root's evaluation up to 50 s; a family's later runs share its evaluator and measure only new candidates; "
              "torch.compile's times are guesses). `python benchmarks/run_suite.py --plan --out "
              "docs/benchmarks/results.json --energy-families gelu` prints the units of each call."]
    return lines


# --- the pages ----------------------------------------------------------------------------------------------------
def pending_page() -> str:
    lines = ["# Benchmark report (the H200 run has not been made yet)", "",
             "**No numbers here yet: the suite has not been run on the H200 for this report.** This page is generated "
             "by `python benchmarks/report.py`; once `docs/benchmarks/results.json` holds a real run it becomes the "
             "report: per kernel the naive time, KernelPro's best at a fixed budget (MCTS over several seeds, with "
             "greedy and random at the same budget), the hand-written best, PyTorch eager and torch.compile, each "
             "result's fraction of the measured DRAM and FLOP ceilings, energy per launch before and after, "
             "evaluations and wall time, the energy objective's saving at equal speed, each rule's hit rate, and four "
             "plots. Every speedup is re-measured outside the search, in another process; a result beyond the "
             "device's ceilings is flagged, not reported. The LLM agent's column says \"not run\" unless an "
             "endpoint is configured.", "",
             "What the benchmarks measure on the development machine (latency of the profiler, the language server, "
             "the hunter) is on [the benchmarks page](../benchmarks.md); the suite's kernels are in "
             "[benchmarks/suite/](../../benchmarks/suite/README.md).", ""]
    lines += plan_section(None)
    return "\n".join(lines) + "\n"


def clocks_seen(results: dict) -> dict:
    """The clocks of every call together: the lowest minimum, the highest maximum, the range of the medians."""
    per_call = [c["clocks"] for c in results.get("calls") or [] if (c.get("clocks") or {}).get("samples")]
    if not per_call:
        return (results.get("environment") or {}).get("clocks") or {}
    out = {"samples": sum(c["samples"] for c in per_call)}
    for k in ("sm_mhz", "mem_mhz"):
        meds = sorted(c[k]["median"] for c in per_call)
        out[k] = {"min": min(c[k]["min"] for c in per_call), "max": max(c[k]["max"] for c in per_call),
                  "median": f"{meds[0]}" if meds[0] == meds[-1] else f"{meds[0]} to {meds[-1]}"}
    return out


def _us(v) -> str:
    return f"{v * 1e6:.1f} µs" if v else "—"


def size_section(results: dict, fams: list[str]) -> list[str]:
    """Per family and size: KernelPro's best and the hand-written kernel against every peer, the fastest
    peer named, and the ratios (above 1: ours faster)."""
    lines = ["", "## Per size, against the best peer", "",
             "Times at each size of the spec (medians, the L2 flushed before each call, the same harness for all). "
             "Peers: PyTorch eager, torch.compile (default and max-autotune without CUDA graphs), Liger-Kernel and QuACK where they "
             "implement the operation, each checked against PyTorch eager's output first. "
             "KernelPro / best peer and hand-written / best peer: the best peer's time over ours (above 1.00x: ours "
             "is faster). DRAM: the fraction of the measured copy ceiling.", ""]
    for f in fams:
        fam = results["families"][f]
        rows = rd.size_rows(fam)
        if not rows or not any(r["peers_s"] for r in rows):
            continue
        peers = [p for p in rd.PEER_LABELS if any(p in r["peers_s"] for r in rows)]
        lines += [f"**`{f}`**", ""]
        lines += table(["size", "naive", "KernelPro", "hand-written"] + [rd.PEER_LABELS[p] for p in peers]
                       + ["best peer", "KernelPro / best peer", "hand-written / best peer", "DRAM: KernelPro, hand-written"],
                       [[r["size"] + " (" + ", ".join(f"{k}={v}" for k, v in (fam["sizes"].get(r["size"]) or {}).items())
                         + ")", _us(r["naive_s"]), _us(r["kernelpro_s"]), _us(r["best_s"])]
                        + [_us(r["peers_s"].get(p)) for p in peers]
                        + [rd.PEER_LABELS.get(r["best_peer"], "—"), fx(r["kernelpro_vs_peer"]), fx(r["best_vs_peer"]),
                           f"{pct(r['kernelpro_dram'])}, {pct(r['best_dram'])}"] for r in rows])
        why = rd.peer_status(fam)
        if why:
            lines += ["", "No time from: " + "; ".join(f"{rd.PEER_LABELS.get(k, k)} ({v})" for k, v in why.items())]
        lines += [""]
    return lines


def report_page(results: dict, mpl_version: str) -> str:
    synthetic = bool(results.get("synthetic"))
    env = results.get("environment") or {}
    dev, nvml, ceil = env.get("device") or {}, env.get("nvml") or {}, env.get("ceilings") or {}
    clocks = clocks_seen(results)
    cfg = results.get("config") or {}
    fams = sorted(results.get("families", {}))
    title = "# Benchmark report: the suite on the " + (dev.get("name") or "GPU")
    lines = [title, ""]
    if synthetic:
        lines += [f"**SYNTHETIC TEST DATA, NOT A MEASUREMENT.** {results.get('note', '')}".rstrip(), ""]
        title += " (synthetic test data)"
        lines[0] = title
    lines += ["Generated by `python benchmarks/report.py` from `results.json` (written by `benchmarks/run_suite.py`); "
              "every speedup is the geometric mean over the spec's sizes of times re-measured outside the search, in "
              "another process, on fresh inputs. The naive kernel's benchmarks page is [../benchmarks.md](../benchmarks.md).",
              "", "## Machine", ""]
    sm, mem = clocks.get("sm_mhz") or {}, clocks.get("mem_mhz") or {}
    tk = env.get("toolkit") or {}
    calls = results.get("calls") or []
    lines += table(["", ""], [
        ["device", f"{dev.get('name', '?')} ({dev.get('sms', '?')} SMs, compute capability {dev.get('compute_capability', '?')})"],
        ["driver / CUDA", f"{nvml.get('driver', '?')} / {nvml.get('cuda_driver', '?')}"],
        ["toolkit", ", ".join(f"{k} {v}" for k, v in sorted(tk.items())) or "?"],
        ["clocks seen", (f"SM {sm.get('min')} to {sm.get('max')} MHz (median {sm.get('median')}), memory {mem.get('min')} "
                         f"to {mem.get('max')} MHz, {clocks.get('samples')} samples; max SM {nvml.get('max_sm_mhz', '?')} MHz; "
                         "left as found") if sm else "not sampled"],
        ["measured ceilings", f"DRAM {ceil.get('dram_gbs', 0):.0f} GB/s, FP32 {(ceil.get('fp32_gflops') or 0) / 1000:.1f} TFLOP/s"],
        ["budget", f"{cfg.get('budget', '?')} evaluations per run for MCTS, greedy and random alike (the energy "
                   f"objective too), built-in proposer; {cfg.get('repeats', '?')} alternating rounds per re-measurement"],
        ["date", f"{env.get('date', '?')} ({len(calls)} device call{'s' if len(calls) != 1 else ''})"],
        ["source", f"commit {((env.get('source') or {}).get('commit') or '?')[:12]}"
                   + (" (with uncommitted changes)" if (env.get("source") or {}).get("dirty") else "")],
        ["LLM agent", (results.get("llm") or {}).get("status", "not run")],
    ])
    rows = [rd.family_row(f, results["families"][f]) for f in fams]
    llm_off = not (results.get("llm") or {}).get("configured")
    lines += ["", "## Per kernel", "", "![Speedup over the naive kernel per family](speedup.svg)", ""]
    body = []
    for r in rows:
        st = r["status"]
        body.append([
            f"`{r['family']}`", f"{r['naive_s'] * 1e6:.1f} µs" if r["naive_s"] else st["naive"] or "—",
            spread_text(r["optimizer"], r["optimizer_status"]), fx(r["best"], st["best"] or "—"),
            fx(r["torch_eager"], st["torch_eager"] or "—"), r["torch_policy"] or "—",
            fx(r["torch_compile"], st["torch_compile"] or "—"),
            pct(r["fraction_of_best"]),
            " → ".join(ceiling_text(r["ceiling"][k]) for k in ("naive", "optimizer", "best")),
            " → ".join(f"{r['energy_j'][k] * 1e3:.1f}" if r["energy_j"][k] else "—" for k in ("naive", "optimizer")),
            f"{r['evaluations']:.0f}" if r["evaluations"] is not None else "—",
            f"{r['wall_s']:.0f} s" if r["wall_s"] is not None else "—",
            "not run" if llm_off else spread_text(r["llm"]),
        ])
    lines += table(["kernel", "naive (largest size)", "KernelPro, MCTS", "hand-written", "PyTorch eager",
                    "PyTorch's precision", "torch.compile", "KernelPro / hand-written", "of the ceiling: naive → KernelPro → hand-written",
                    "energy/launch mJ: naive → KernelPro", "evaluations", "search wall time (first run)", "LLM agent"], body)
    lines += ["", "KernelPro's column: the median over seeds of each run's best candidate's re-measured speedup [min–max]; "
              "the DRAM, energy and description columns are those of the median seed's run. A run that found nothing "
              "2% faster than the naive kernel: 1.00x. PyTorch's precision: the policy its matrix product ran under (fp32: "
              "strict, TF32 off; bf16), — where it has none. Search wall time: the median over the family's first MCTS runs in a "
              "device call (the later runs reuse their measurements). Fractions of the measured ceilings at the largest size: of the DRAM "
              "bandwidth, or of the FLOP rate (marked FLOP) where the kernel is compute-bound.", ""]
    lines += [f"- `{r['family']}`: {r['description']}" for r in rows if r["description"]]
    lines += size_section(results, fams)
    lines += ["", "## Roofline and energy", "", "![Roofline, each kernel before and after](roofline.svg)", "",
              "![Energy per launch before and after](energy.svg)", ""]
    st = rd.strategy_table(results)
    lines += ["## MCTS, greedy and random at equal budget", "",
              "![Best so far over evaluations per strategy](search.svg)", ""]
    lines += table(["kernel", "MCTS", "greedy", "random"],
                   [[f"`{f}`"] + [spread_text(st[f][s], rd.runs_status(results["families"][f], strategy=s))
                                  for s in STRATEGIES] for f in fams]
                   + [["geometric mean of the medians"] + [fx(st["_geomean"][s]) for s in STRATEGIES]])
    lines += ["", f"Each run: {cfg.get('budget', '?')} evaluations. Re-measured speedups, median [min–max] over seeds, "
              "whatever they show. The curves are the search's own measurements (in-run), not re-measured. A family's "
              "runs in one device call shared one evaluator: a candidate that one run had evaluated (the same source, "
              "launch and flags) was not measured again for another, so the strategies are compared on the same "
              "measurements; each run still counts every evaluation it asks for. The runs write no branches (and so "
              "run no Compute Sanitizer); a run's best is re-measured beside the naive kernel in another process.", ""]
    er = rd.energy_rows(results)
    lines += ["## Energy objective", ""]
    if not er:
        lines += ["Not run yet (the last units of the plan below).", ""]
    else:
        body = []
        for e in er:
            ej = e["energy_j"]
            body.append([f"`{e['family']}`", str(e["seed"]),
                         " / ".join(f"{ej[k] * 1e3:.1f}" if ej[k] else "—" for k in ("naive", "time_best", "optimized")),
                         pct(e["saved_vs_naive"]), pct(e["saved_vs_time_best"]),
                         f"{e['time_ratio']:.3f}" if e["time_ratio"] is not None else "—",
                         {True: "yes", False: "no", None: "—"}[e["equal_speed"]], e["status"] or ""])
        lines += table(["kernel", "seed", "energy/launch mJ: naive / time objective's best / energy objective's best",
                        "saved vs naive", "saved vs the time objective's best", "time ratio", "equal speed (≤ 2%)",
                        "note"], body)
        eq = [e["saved_vs_time_best"] for e in er if e["equal_speed"]]
        lines += ["", (f"Energy saved at equal speed, mean over {len(eq)} kernels: **{pct(sum(eq) / len(eq))}** "
                       "(the paper reports 11.6%)." if eq else "No kernel reached equal speed with less energy."), ""]
    hr = hit_rates.hit_rates(results)
    lines += ["## Rule hit rates", "",
              f"From the search memory of the {hr['runs']} completed time-objective runs: for each rule, the runs in "
              "which it fired on the naive kernel, the runs and candidates that answered it, and how many of those "
              f"candidates were correct and more than {hit_rates.HIT_SPEEDUP:g}x faster (as the search measured them). "
              "Each rule's section in [rules.md](../rules.md) shows its rate.", ""]
    lines += table(["rule", "tool", "fired (runs)", "answered (runs)", "candidates", "correct",
                    f"> {hit_rates.HIT_SPEEDUP:g}x", "hit rate"],
                   [[f"`{k}`", v["tool"], str(v["fired_runs"]), str(v["followed_runs"]), str(v["candidates"]),
                     str(v["correct"]), str(v["hits"]), pct(v["hit_rate"])] for k, v in hr["rules"].items()])
    fl = rd.flagged(results)
    lines += ["", "## Flagged: beyond the measured ceilings (not reported)", ""]
    lines += table(["kernel", "measurement", "why"], [[f"`{a}`", b, c] for a, b, c in fl]) if fl else ["None."]
    lines += [""] + plan_section(results)
    lines += ["", f"<sub>Plots made with matplotlib {mpl_version}.</sub>"]
    return "\n".join(lines) + "\n"


def build(results: dict | None) -> dict[str, bytes]:
    """file name -> bytes for docs/benchmarks/ (index.md and, with results, the plots)."""
    if results is None:
        return {"index.md": pending_page().encode()}
    import matplotlib

    from report_plots import render_all

    files = {"index.md": report_page(results, matplotlib.__version__).encode()}
    files.update(render_all(results, bool(results.get("synthetic"))))
    return files


def readme_block(results: dict | None) -> str:
    if not results:
        return ("Benchmark report: [docs/benchmarks/](docs/benchmarks/index.md) (the H200 run has not been made yet; "
                "the page gives the commands).")
    return ("[![Speedup over the naive kernel per family](docs/benchmarks/speedup.svg)](docs/benchmarks/index.md)\n\n"
            "The benchmark report, measured on the H200: [docs/benchmarks/](docs/benchmarks/index.md).")


def doc_updates(results: dict | None) -> dict[Path, str]:
    """docs/rules.md with the hit rates and README.md with the headline, as they should read."""
    from kernelpro.profilers.tools import load_builtin

    rules = {r for t in load_builtin().values() for r in t.rules}
    rules_md, readme = ROOT / "docs" / "rules.md", ROOT / "README.md"
    return {rules_md: hit_rates.rules_doc(rules_md.read_text(), results, rules),
            readme: docblocks.replace_block(readme.read_text(), README_BLOCK, readme_block(results), "README.md")}


def load(path: Path | None) -> dict | None:
    import json

    if path is None:
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise SystemExit(f"report: {path}: cannot read the results ({e})")


def _stamp(index: bytes) -> str | None:
    text = index.decode(errors="replace")
    mark = "<sub>Plots made with matplotlib "
    return text.split(mark, 1)[1].split(".</sub>", 1)[0] if mark in text else None


def check(out: Path, files: dict[str, bytes], docs: dict[Path, str]) -> list[str]:
    """What differs from what would be generated (empty when everything is current)."""
    problems = []
    old_index = (out / "index.md").read_bytes() if (out / "index.md").exists() else b""
    made_with, new_with = _stamp(old_index), _stamp(files["index.md"])
    for name, data in sorted(files.items()):
        p = out / name
        if name.endswith(".svg") and made_with != new_with:
            continue  # another matplotlib draws other bytes; said below
        if not p.exists() or p.read_bytes() != data:
            problems.append(f"{p.relative_to(ROOT) if p.is_relative_to(ROOT) else p} is not what "
                            "`python benchmarks/report.py` generates: run it")
    for p in sorted(out.glob("*.svg")):
        if p.name not in files:
            problems.append(f"{p} is left over (the report no longer makes it): remove it")
    for p, text in docs.items():
        if p.read_text() != text:
            problems.append(f"{p.relative_to(ROOT)}: its generated blocks are out of date: run python benchmarks/report.py")
    if made_with != new_with and any(n.endswith(".svg") for n in files):
        print(f"report: plots not compared byte for byte: made with matplotlib {made_with}, this is {new_with}")
    return problems


def check_committed() -> list[str]:
    """report.py --check with the defaults: docs/benchmarks/ and the blocks against docs/benchmarks/results.json."""
    results = load(RESULTS if RESULTS.exists() else None)
    return check(DOCS, build(results), doc_updates(results))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="?", default=None, help="results JSON (default: docs/benchmarks/results.json if any)")
    ap.add_argument("--out", default=None, help="folder for index.md and the plots (default: docs/benchmarks)")
    ap.add_argument("--check", action="store_true", help="compare instead of writing; exit 1 on a difference")
    args = ap.parse_args(argv)
    path = Path(args.results) if args.results else (RESULTS if RESULTS.exists() else None)
    out = Path(args.out) if args.out else DOCS
    results = load(path)
    into_docs = out.resolve() == DOCS.resolve()
    if results is not None and results.get("synthetic") and into_docs:
        print(f"report: {path} is synthetic test data, not a measurement: it never goes into docs/benchmarks/",
              file=sys.stderr)
        return 2
    files = build(results)
    docs = doc_updates(results) if into_docs else {}
    if args.check:
        problems = check(out, files, docs)
        for p in problems:
            print(f"report: {p}", file=sys.stderr)
        return 1 if problems else 0
    out.mkdir(parents=True, exist_ok=True)
    for p in out.glob("*.svg"):
        if p.name not in files:
            p.unlink()
    for name, data in files.items():
        (out / name).write_bytes(data)
    for p, text in docs.items():
        p.write_text(text)
    print(f"report: wrote {', '.join(sorted(files))} to {out}" + (" and the blocks of rules.md and README.md" if docs else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
