"""The numbers the benchmark report shows, computed from run_suite.py's JSON alone.

Every speedup here is a ratio of times re-measured outside the search (the baseline unit's naive
and hand-written kernels and PyTorch side by side; each run's best beside the naive kernel):
the geometric mean over the spec's sizes of naive time / other time. A measurement flagged as beyond
the device's ceilings, or one that failed, gives no number. A run that found nothing 2% faster
than the naive kernel: its result is the naive kernel, 1.00x.
"""
from __future__ import annotations

import math
import statistics

from suite_run import geomean_ratio

EQUAL_SPEED = 0.02  # "at equal speed": within 2% in time (the memory's neutral band)


def usable(m: dict | None) -> bool:
    return bool(m) and "times_s" in m and not m.get("flagged")


def status(m: dict | None) -> str:
    """Why a measurement gives no number ('' when it does)."""
    if not m:
        return "not run"
    if m.get("flagged"):
        return "flagged"
    if "times_s" not in m:
        return "failed"
    return ""


def speedup(naive: dict | None, other: dict | None) -> float | None:
    if not (usable(naive) and usable(other)):
        return None
    return geomean_ratio(naive["times_s"], other["times_s"])


def improved(run: dict) -> bool:
    """The run found something more than 2% faster than the naive kernel: a best branch (a `kernelpro optimize`
    run) or a best candidate (a run of suite_lab's shared evaluator, which writes no branch)."""
    return bool(run.get("best_branch") or run.get("best_candidate"))


def run_speedup(run: dict) -> float | None:
    """The run's best, re-measured beside the naive kernel; 1.0 when it found nothing 2% faster."""
    if not run.get("complete") or run.get("error") or run.get("rc") not in (0, None):
        return None
    if not improved(run):
        return 1.0
    meas = run.get("measured") or {}
    return speedup(meas.get("naive"), meas.get("optimized"))


def runs_of(fam: dict, objective: str = "time", strategy: str = "mcts") -> list[tuple[int, dict]]:
    out = [(r.get("seed"), r) for r in fam.get("runs", {}).values()
           if r.get("objective") == objective and r.get("strategy") == strategy]
    return sorted(out, key=lambda t: t[0])


def runs_status(fam: dict, objective: str = "time", strategy: str = "mcts") -> str:
    """Why a family's runs give no speedup: not run, incomplete, flagged or failed."""
    runs = [r for _, r in runs_of(fam, objective, strategy)]
    if not runs:
        return "not run"
    if not any(r.get("complete") for r in runs):
        return "incomplete"
    if any(m.get("flagged") for r in runs for m in (r.get("measured") or {}).values()):
        return "flagged"
    return "failed"


def spread(values: list[float]) -> dict | None:
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def representative(fam: dict, objective: str = "time", strategy: str = "mcts") -> dict | None:
    """The run whose speedup is the median (the lower of two middles) of its seeds: its numbers stand for the optimizer."""
    scored = [(s, seed, r) for seed, r in runs_of(fam, objective, strategy) if (s := run_speedup(r)) is not None]
    if not scored:
        return None
    scored.sort(key=lambda t: (t[0], t[1]))
    return scored[(len(scored) - 1) // 2][2]


def geomean(xs: list[float]) -> float | None:
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def family_row(name: str, fam: dict) -> dict:
    """Per kernel: the baselines' and the optimizer's speedups, fractions, energy, spend."""
    base = fam.get("baseline") or {}
    large = fam.get("largest")
    mcts = [s for _, r in runs_of(fam) if (s := run_speedup(r)) is not None]
    rep = representative(fam)
    best = speedup(base.get("naive"), base.get("best"))
    opt = spread(mcts)
    meas = (rep or {}).get("measured") or {}
    # no branch: the optimizer's result is the naive kernel itself
    opt_m = (meas.get("optimized") if improved(rep) else base.get("naive")) if rep else None
    compiled = peer_measurements(fam).get("torch_compile")

    def at(m, key):
        return ((m or {}).get(key) or {}).get(large)

    def frac(m):
        """(fraction, "FLOP") of the FP32/FP16 peak where the kernel is compute-bound, else (fraction, "DRAM")."""
        r = (at(m, "roofline") or {}) if usable(m) else {}
        if r.get("bound") == "compute-bound":
            return (r.get("flop_fraction"), "FLOP")
        return (r.get("bw_fraction"), "DRAM") if r.get("bw_fraction") is not None else None

    def energy(m):
        return at(m, "energy_j") if usable(m) else None
    # the search's wall time where it measured everything itself: the family's first run in a call (a later one
    # reuses the shared evaluator's measurements)
    times = [r.get("search_wall_s") for _, r in runs_of(fam) if r.get("search_wall_s") and not r.get("warm")]
    evals = [r.get("evaluations") for _, r in runs_of(fam) if r.get("evaluations") is not None]
    return {
        "family": name, "title": fam.get("title", name), "largest": large,
        "naive_s": at(base.get("naive"), "times_s") if usable(base.get("naive")) else None,
        "optimizer": opt, "optimizer_status": runs_status(fam) if not opt else "", "best": best,
        "torch_eager": speedup(base.get("naive"), base.get("torch_eager")),
        "torch_compile": speedup(base.get("naive"), compiled),
        # the precision PyTorch's op ran under (the matrix products: fp32 strict with TF32 off, or bf16)
        "torch_policy": (base.get("torch_eager") or {}).get("policy") if (base.get("torch_eager") or {}).get("policy")
        not in (None, "-") else None,
        "status": {**{k: "failed" if base.get("error") else status(base.get(k)) for k in ("naive", "best", "torch_eager")},
                   "torch_compile": "failed" if (fam.get("compile") or {}).get("error") else status(compiled)},
        "fraction_of_best": opt["median"] / best if opt and best else None,
        "ceiling": {"naive": frac(base.get("naive")), "optimizer": frac(opt_m), "best": frac(base.get("best"))},
        "energy_j": {"naive": energy(meas.get("naive")) or energy(base.get("naive")), "optimizer": energy(opt_m),
                     "best": energy(base.get("best"))},
        "evaluations": statistics.median(evals) if evals else None,
        "wall_s": statistics.median(times) if times else None,
        "description": (rep or {}).get("best_description") if rep and improved(rep) else None,
        "llm": spread([s for _, r in runs_of(fam, strategy="llm") if (s := run_speedup(r)) is not None]),
    }


PEER_LABELS = {"torch_eager": "PyTorch eager", "torch_compile": "torch.compile", "torch_max_autotune":
               "torch.compile max-autotune (no CUDA graphs)", "liger": "Liger-Kernel", "quack": "QuACK"}


def peer_measurements(fam: dict) -> dict:
    """label -> measurement of every peer the family has: PyTorch eager (the baseline unit), torch.compile
    (the compile unit) and the peers unit's (max-autotune, Liger-Kernel, QuACK)."""
    base = fam.get("baseline") or {}
    out = {"torch_eager": base.get("torch_eager"), "torch_compile": fam.get("compile") or base.get("torch_compile")}
    out.update(((fam.get("peers") or {}).get("peers") or {}))
    return {k: v for k, v in out.items() if v}


def size_rows(fam: dict) -> list[dict]:
    """Per size of the spec: the naive kernel's, KernelPro's (the median seed's best), the hand-written
    kernel's and every peer's time; the fastest peer; KernelPro / best peer and hand-written / best peer (a
    time ratio, above 1 where ours is faster); the DRAM fraction of KernelPro's and the hand-written kernel's.
    A flagged or failed measurement gives no time."""
    base = fam.get("baseline") or {}
    rep = representative(fam)
    meas = (rep or {}).get("measured") or {}
    kp = (meas.get("optimized") if improved(rep) else base.get("naive")) if rep else None
    peers = peer_measurements(fam)

    def t(m, size):
        return (m.get("times_s") or {}).get(size) if usable(m) else None

    def bw(m, size):
        return (((m or {}).get("roofline") or {}).get(size) or {}).get("bw_fraction") if usable(m) else None

    rows = []
    for size in sorted(fam.get("sizes") or {}, key=lambda z: (fam.get("bytes") or {}).get(z) or 0):  # small first
        times = {k: t(m, size) for k, m in peers.items()}
        times = {k: v for k, v in times.items() if v}
        best_peer = min(times, key=times.get) if times else None
        kp_t, hw_t = t(kp, size), t(base.get("best"), size)
        peer_t = times.get(best_peer) if best_peer else None
        rows.append({"size": size, "naive_s": t(base.get("naive"), size), "kernelpro_s": kp_t, "best_s": hw_t,
                     "peers_s": times, "best_peer": best_peer, "best_peer_s": peer_t,
                     "kernelpro_vs_peer": peer_t / kp_t if peer_t and kp_t else None,
                     "best_vs_peer": peer_t / hw_t if peer_t and hw_t else None,
                     "kernelpro_dram": bw(kp, size), "best_dram": bw(base.get("best"), size)})
    return rows


def peer_status(fam: dict) -> dict:
    """peer -> why it gives no time (absent package, wrong output, failure), for the peers that give none."""
    out = {}
    for k, m in peer_measurements(fam).items():
        if usable(m):
            continue
        out[k] = m.get("absent") or m.get("failure") or status(m)
    return out


def roofline_points(fam: dict) -> dict:
    """label -> (arithmetic intensity FLOP/byte, achieved GFLOP/s, GB/s) at the largest size."""
    large = fam.get("largest")
    b, f = (fam.get("bytes") or {}).get(large), (fam.get("flops") or {}).get(large)
    base = fam.get("baseline") or {}
    rep = representative(fam)
    ms = {"naive": base.get("naive"), "best": base.get("best")}
    if rep and improved(rep):
        ms["optimizer"] = (rep.get("measured") or {}).get("optimized")
    out = {}
    for label, m in ms.items():
        t = (m or {}).get("times_s", {}).get(large) if usable(m) else None
        if t and b and f:
            out[label] = (f / b, f / t / 1e9, b / t / 1e9)
    return out


def strategy_table(results: dict, strategies=("mcts", "greedy", "random")) -> dict:
    """family -> strategy -> spread of re-measured speedups over seeds; plus the geomean of medians."""
    out: dict = {}
    for name in sorted(results.get("families", {})):
        fam = results["families"][name]
        out[name] = {s: spread([x for _, r in runs_of(fam, strategy=s) if (x := run_speedup(r)) is not None])
                     for s in strategies}
    out["_geomean"] = {s: geomean([v[s]["median"] for k, v in out.items() if not k.startswith("_") and v[s]])
                       for s in strategies}
    return out


def curves(fam: dict, strategy: str) -> list[list[list]]:
    return [r.get("curve") or [] for _, r in runs_of(fam, strategy=strategy) if r.get("complete")]


def energy_rows(results: dict) -> list[dict]:
    """Energy-objective runs: energy per launch against the time objective's best (same seed) and the naive kernel."""
    rows = []
    for name in sorted(results.get("families", {})):
        fam = results["families"][name]
        large = fam.get("largest")
        for seed, r in runs_of(fam, objective="energy"):
            meas = r.get("measured") or {}
            row = {"family": name, "seed": seed, "status": "", "saved_vs_time_best": None, "time_ratio": None,
                   "equal_speed": None, "saved_vs_naive": None}
            if not r.get("complete"):
                row["status"] = "incomplete"
            elif not improved(r):
                row["status"] = "nothing 2% leaner"
            e = {k: (meas.get(k) or {}).get("energy_j", {}).get(large) if usable(meas.get(k)) else None
                 for k in ("naive", "optimized", "time_best")}
            row["energy_j"] = e
            if e["optimized"] and e["naive"]:
                row["saved_vs_naive"] = 1 - e["optimized"] / e["naive"]
            if e["optimized"] and e["time_best"]:
                row["saved_vs_time_best"] = 1 - e["optimized"] / e["time_best"]
                tr = geomean_ratio(meas["optimized"]["times_s"], meas["time_best"]["times_s"])
                row["time_ratio"] = tr
                row["equal_speed"] = tr is not None and tr <= 1 + EQUAL_SPEED
            elif improved(r) and not meas.get("time_best"):
                row["status"] = "no time-objective run of this seed to compare with"
            rows.append(row)
    return rows


def flagged(results: dict) -> list[tuple[str, str, str]]:
    """(family, what, reason) for every measurement beyond the ceilings."""
    out = []
    for name in sorted(results.get("families", {})):
        fam = results["families"][name]
        for label, m in sorted((fam.get("baseline") or {}).items()):
            if isinstance(m, dict) and m.get("flagged"):
                out.append((name, label, m["flagged"]))
        for key in sorted(fam.get("runs", {})):
            for label, m in sorted(((fam["runs"][key].get("measured")) or {}).items()):
                if m.get("flagged"):
                    out.append((name, f"{key} {label}", m["flagged"]))
    return out
