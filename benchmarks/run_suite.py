"""The benchmark report's runner: the suite on a GPU, resumable, one JSON for docs/benchmarks/.

Work comes in units, each written to the JSON as soon as it ends (an interrupted call keeps
every finished unit; a unit cut short is run again next time):
- `baseline` of a family: the naive kernel and the hand-written best side by side (alternating
  rounds, fresh inputs), PyTorch eager, energy per launch, roofline fractions;
- `run` of a family, objective, strategy and seed: a search (`kernelpro.optimizer.run.optimize`, the
  built-in proposer) on the naive kernel in a fresh git repository, through the family's evaluator
  shared by its runs in the call (suite_lab.SharedEvaluator: a candidate is measured once), no branch
  written; its best candidate re-measured beside the naive kernel in the lab's own worker process,
  the search memory's attempts (for the rules' hit rates) and the best-so-far curve from its events;
- `compile` of a family: PyTorch's op through torch.compile (after every run: the least needed);
- `peers` of a family: torch.compile with mode="max-autotune-no-cudagraphs", Liger-Kernel and QuACK wherever they
  implement the operation (suite_peers.py), each checked against PyTorch eager and timed at every size.

    python benchmarks/run_suite.py --out results.json [--families F ...] [--strategies mcts greedy random]
        [--seeds 0 1 2] [--budget 8] [--repeats 2] [--objective time|energy] [--energy-families F ...]
        [--deadline S] [--no-torch-compile]
    python benchmarks/run_suite.py --plan [--out results.json] [same selection]   # units left, device time
    python benchmarks/run_suite.py --check                                       # CI, no GPU

`--deadline S` starts only units whose estimated cost fits in the S seconds left (first fit, in
order); `--plan` packs the units left into device calls by the same rule. The estimates come
from the costs below, or from the units already in the JSON once a call has run.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Protocol

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from suite_run import families as suite_families  # noqa: E402

FORMAT = 1
STRATEGIES = ("mcts", "greedy", "random")
LLM = "llm"  # the strategy name of MCTS with the LLM proposer
OBJECTIVES = ("time", "energy")

# Device seconds, from docs/gpu-validation.md (H200, 2026-12-03): `kernelpro optimize` at budget 16 took 31 to
# 84 s per family, 1.8 to 3.1 s per evaluation with its branches (one candidate alone: 1.4 s end to end), and
# the root's evaluation 2.4 to 50 s (the slow naive kernels, CuPy's first references); a kernel at every size
# 1.5 s per round of the side-by-side re-measurement. Energy per launch needs >= 1.5 s of launches per size.
# A family's runs share one evaluator (suite_lab.SharedEvaluator): a run after the family's first in a call
# ("warm") measures only the candidates no earlier run asked for, `new` of its evaluations, and re-measures its
# best only when no earlier run had the same one (`new_best`). Both are guesses until a call has measured them:
# nine runs (three strategies, three seeds) of GELU at budget 8 with a stand-in evaluator on the CPU asked for
# 81 evaluations of 13 distinct candidates, the eight warm runs 4 new ones of 64.
COST = {
    "call_setup": 60.0,  # installing the wheels and the package, workers, ceilings (cached per device)
    "run_start": 15.0,  # the root's evaluation, once per family (and objective) in a call
    "eval": 1.7,  # one candidate evaluation with its static profile, time objective, no branch written
    "eval_energy": 6.5,  # with energy at both sizes (energy objective)
    "new": 0.15,  # share of a warm run's evaluations that nobody measured before in the call
    "new_best": 0.25,  # share of warm runs whose best is a kernel not yet re-measured
    "measure": 1.5,  # one kernel at every size, one round of the side-by-side measurement
    "energy": 2.5,  # energy per launch of one kernel at the largest size
    "torch": 5.0,  # PyTorch eager, every size
    "torch_compile": 40.0,  # the first torch.compile unit of a call: inductor's start and two compiles (a guess)
    "torch_compile_warm": 10.0,  # each later one: two compiles (a guess)
    "peers": 60.0,  # max-autotune's benchmarking at every size, Liger's and QuACK's first compiles (a guess)
}
CALL_SECONDS = 525  # the lead's device calls are given 540 s: room for a last unit past its estimate and the tar


@dataclass(frozen=True)
class Unit:
    family: str
    kind: str  # "baseline" | "compile" (torch.compile's times) | "peers" | "run"
    objective: str = "time"
    strategy: str = ""
    seed: int = 0

    @property
    def key(self) -> str:
        return self.kind if self.kind != "run" else f"{self.objective}/{self.strategy}/{self.seed}"

    @property
    def shares(self) -> tuple[str, str]:
        """Units with the same `shares` in a row share their start-up: a family's evaluator, or inductor."""
        return ("*", self.kind) if self.kind in ("compile", "peers") else (self.family, self.kind + self.objective)

    def __str__(self) -> str:
        return f"{self.family}:{self.key}"


@dataclass
class Config:
    budget: int = 8
    repeats: int = 2
    arch: str = "sm_90"
    torch: bool = True
    torch_compile: bool = True
    timeout: float = 420.0  # one optimize process at most
    llm_base_url: str | None = None
    llm_model: str | None = None

    def key(self) -> dict:
        """What must match for units to be merged into one JSON."""
        return {"budget": self.budget, "arch": self.arch}


class Lab(Protocol):
    """What the driver needs from the machine (GpuLab in suite_lab.py; a synthetic one in the tests)."""

    def environment(self) -> dict:
        """Device, driver, toolkit, ceilings, versions: recorded once per JSON, updated per call."""
        ...

    def clocks(self) -> dict:
        """The clocks seen since the lab started (min, median, max)."""
        ...

    def family_info(self, family: str) -> dict:
        """Title, kernel, sizes, bytes and flops per size, the rules that fire on the naive kernel."""
        ...

    def baseline(self, family: str) -> dict:
        ...

    def torch_compile(self, family: str) -> dict:
        ...

    def peers(self, family: str) -> dict:
        ...

    def run(self, family: str, unit: Unit, time_left: float, results: dict) -> dict:
        ...

    def close(self) -> None:
        ...


# --- units, estimates, packing (pure) ----------------------------------------------------------------------------
def llm_configured(cfg: Config) -> bool:
    return bool(cfg.llm_base_url and cfg.llm_model)


def units_for(families: list[str], strategies: list[str], seeds: list[int], objective: str,
              baseline: bool = True, compile_: bool = False, energy_families: tuple[str, ...] = ()) -> list[Unit]:
    """Family by family: the baseline, then the runs seed by seed, strategy by strategy; then torch.compile
    and the peers of every family (`compile_`), then MCTS seed 0 with the energy objective on `energy_families` (the two
    left for last: what a call has no time for is what the report can best do without)."""
    out = []
    for f in families:
        if baseline:
            out.append(Unit(f, "baseline"))
        out += [Unit(f, "run", objective, s, seed) for seed in seeds for s in strategies]
    if compile_:
        out += [Unit(f, "compile") for f in families] + [Unit(f, "peers") for f in families]
    out += [Unit(f, "run", "energy", "mcts", 0) for f in energy_families if objective != "energy"]
    return out


def record_of(results: dict, u: Unit) -> dict | None:
    fam = results.get("families", {}).get(u.family, {})
    return fam.get(u.kind) if u.kind != "run" else fam.get("runs", {}).get(u.key)


def is_done(results: dict, u: Unit) -> bool:
    r = record_of(results, u)
    return bool(r and r.get("complete"))


def estimate(u: Unit, cfg: Config, results: dict | None = None, warm: bool = False) -> float:
    """Device seconds for a unit: the mean of the same kind of unit already measured (runs: of the same
    objective and warmth), else the model. `warm`: a unit it shares its start-up with ran before it in the call."""
    seen = []
    for fam in (results or {}).get("families", {}).values():
        if u.kind != "run":
            recs = [fam.get(u.kind)]
            recs = [r for r in recs if r and (u.kind != "compile" or bool(r.get("warm")) == warm)]
        else:
            recs = [r for r in fam.get("runs", {}).values()
                    if r.get("objective") == u.objective and bool(r.get("warm")) == warm]
        seen += [r["wall_s"] for r in recs if r and r.get("complete") and r.get("wall_s")]
    if seen:
        return sum(seen) / len(seen)
    c = COST
    if u.kind == "baseline":
        return cfg.repeats * 2 * c["measure"] + 2 * c["energy"] + (c["torch"] if cfg.torch else 0)
    if u.kind == "compile":
        return c["torch_compile_warm"] if warm else c["torch_compile"]
    if u.kind == "peers":
        return c["peers"]
    per_eval = c["eval_energy"] if u.objective == "energy" else c["eval"]
    remeasure = cfg.repeats * 2 * c["measure"] + c["energy"]
    if u.objective == "energy":  # the time objective's best beside it, energy of all three
        remeasure += cfg.repeats * c["measure"] + 2 * c["energy"]
    if warm:
        return cfg.budget * per_eval * c["new"] + c["new_best"] * remeasure
    return c["run_start"] + cfg.budget * per_eval + remeasure + c["energy"]  # (+ the naive kernel's energy)


def first_fit(units: list[Unit], cost: Callable[[Unit, bool], float], seconds: float) -> list[Unit]:
    """The units one call runs: in order, each that still fits in what is left (the runner's rule);
    cost(unit, warm)."""
    out, left, started = [], seconds, set()
    for u in units:
        c = cost(u, u.shares in started)
        if c <= left:
            out.append(u)
            left -= c
            started.add(u.shares)
    return out


def call_seconds_of(units: list[Unit], cfg: Config, results: dict | None) -> float:
    """The estimated device seconds of units run in this order in one call (setup included)."""
    started, total = set(), COST["call_setup"]
    for u in units:
        total += estimate(u, cfg, results, u.shares in started)
        started.add(u.shares)
    return total


def plan_calls(units: list[Unit], cfg: Config, results: dict | None, call_seconds: float = CALL_SECONDS) -> list[list[Unit]]:
    """The units left packed into device calls of call_seconds each (setup included)."""
    left = [u for u in units if not is_done(results or {}, u)]
    room = call_seconds - COST["call_setup"]
    calls = []
    while left:
        take = first_fit(left, lambda u, w: estimate(u, cfg, results, w), room)
        if not take:  # a unit longer than a call: alone, with a longer optimize cut by the deadline
            take = left[:1]
        calls.append(take)
        left = [u for u in left if u not in take]
    return calls


# --- the JSON ----------------------------------------------------------------------------------------------------
class ResultsError(Exception):
    pass


def load_results(path: Path, cfg: Config) -> dict:
    """The JSON to continue (or a new one); refuses one made with another budget or architecture."""
    if not path.exists():
        return {"format": FORMAT, "synthetic": False, "config": cfg.key(), "families": {}}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise ResultsError(f"{path}: not a results JSON ({e})") from None
    if data.get("format") != FORMAT:
        raise ResultsError(f"{path}: format {data.get('format')!r}, this runner writes {FORMAT}")
    if data.get("synthetic"):
        raise ResultsError(f"{path}: synthetic test data; measurements are never merged into it")
    old = data.get("config", {})
    for k, v in cfg.key().items():
        if old.get(k) is not None and old[k] != v:
            raise ResultsError(f"{path} was made with --{k} {old[k]}, not {v}: use --{k} {old[k]} or another --out")
    return data


def write_results(path: Path, data: dict, compact: bool = False) -> None:
    """Atomically; `compact` (one line, through json's C encoder: indenting takes the pure-Python one, about
    half a second per write of a whole run's JSON) after each unit, indented at the end of a call."""
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    text = json.dumps(data, sort_keys=True, default=str) if compact else json.dumps(data, indent=1, sort_keys=True,
                                                                                    default=str)
    tmp.write_text(text + "\n")
    os.replace(tmp, path)


def _llm_status(cfg: Config) -> dict:
    if llm_configured(cfg):
        return {"configured": True, "model": cfg.llm_model, "status": "configured"}
    return {"configured": False, "model": None,
            "status": "not run: no endpoint configured (--llm-base-url and --llm-model, or "
                      "KERNELPRO_LLM_BASE_URL and KERNELPRO_LLM_MODEL)"}


def drive(lab: Lab, units: list[Unit], results: dict, out: Path, cfg: Config, deadline_s: float | None,
          clock: Callable[[], float] = time.monotonic, log=print) -> str:
    """Run the units not yet complete, writing the JSON after each; returns why it stopped."""
    t0 = clock()
    env = lab.environment()
    results.setdefault("environment", env)
    results.setdefault("calls", []).append({"date": env.get("date"), "device": (env.get("device") or {}).get("name"),
                                            "driver": (env.get("nvml") or {}).get("driver"), "units": []})
    results["llm"] = _llm_status(cfg) if not results.get("llm", {}).get("configured") else results["llm"]
    results["config"] = {**results.get("config", {}), **cfg.key(), "repeats": cfg.repeats}
    call = results["calls"][-1]
    stopped = "done"
    skipped = []
    started: set = set()
    for u in units:
        if is_done(results, u):
            continue
        left = math.inf if deadline_s is None else deadline_s - (clock() - t0)
        warm = u.shares in started
        need = estimate(u, cfg, results, warm)
        if need > left:
            skipped.append(f"{u} (~{need:.0f} s)")
            continue
        log(f"== {u}: starting (estimated {need:.0f} s, {left:.0f} s left)", flush=True)
        started.add(u.shares)
        fam = results["families"].setdefault(u.family, {"runs": {}})
        t = clock()
        try:
            if "kernel" not in fam:
                fam.update(lab.family_info(u.family))
            if u.kind == "baseline":
                rec = lab.baseline(u.family)
            elif u.kind == "compile":
                rec = lab.torch_compile(u.family)
            elif u.kind == "peers":
                rec = lab.peers(u.family)
            else:
                rec = lab.run(u.family, u, left, results)
        except Exception as e:  # a bug or a broken machine: said in the JSON, the next units still run
            import traceback

            log(traceback.format_exc(), flush=True)
            rec = {"complete": False, "error": f"{type(e).__name__}: {e}"[:300]}
            if u.kind == "run":
                rec.update(objective=u.objective, strategy=u.strategy, seed=u.seed)
        rec["wall_s"] = round(clock() - t, 1)
        rec["warm"] = warm
        if u.kind != "run":
            fam[u.kind] = rec
        else:
            fam["runs"][u.key] = rec
        call["units"].append(str(u))
        call["clocks"] = lab.clocks()
        write_results(out, results, compact=True)
        log(f"== {u}: {'complete' if rec.get('complete') else 'incomplete'} in {rec['wall_s']} s", flush=True)
    if skipped:
        stopped = "deadline: not started " + ", ".join(skipped)
    call["stopped"] = stopped
    call["clocks"] = lab.clocks()
    write_results(out, results)
    return stopped


# --- command line ------------------------------------------------------------------------------------------------
def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None, help="the results JSON (created, or continued)")
    ap.add_argument("--families", nargs="*", default=None)
    ap.add_argument("--strategies", nargs="*", default=None,
                    help=f"of {', '.join(STRATEGIES + (LLM,))} (default: the three, and llm with an endpoint)")
    ap.add_argument("--seeds", nargs="*", type=int, default=[0, 1, 2])
    ap.add_argument("--objective", choices=OBJECTIVES, default="time")
    ap.add_argument("--budget", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--timeout", type=float, default=420.0, help="one optimize process at most, seconds")
    ap.add_argument("--deadline", type=float, default=None, help="start no unit that would end after S seconds")
    ap.add_argument("--no-baseline", action="store_true", help="runs only")
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--no-torch-compile", action="store_true")
    ap.add_argument("--energy-families", nargs="*", default=[],
                    help="after the rest: MCTS seed 0 with --objective energy on these families")
    ap.add_argument("--llm-base-url", default=os.environ.get("KERNELPRO_LLM_BASE_URL"))
    ap.add_argument("--llm-model", default=os.environ.get("KERNELPRO_LLM_MODEL"))
    ap.add_argument("--logs", default=None, help="folder for the optimize event logs (default: beside --out)")
    ap.add_argument("--plan", action="store_true", help="print the units left and the device calls they need")
    ap.add_argument("--call-seconds", type=float, default=CALL_SECONDS)
    ap.add_argument("--check", action="store_true", help="CI mode (no GPU): kernels, specs, references, report")
    return ap.parse_args(argv)


def selection(args, cfg: Config) -> list[Unit]:
    fams = args.families or suite_families()
    unknown = sorted(set(fams) - set(suite_families()))
    if unknown:
        raise ResultsError(f"unknown famil{'ies' if len(unknown) > 1 else 'y'} {', '.join(unknown)} "
                           f"(the suite has {', '.join(suite_families())})")
    strategies = args.strategies or list(STRATEGIES) + ([LLM] if llm_configured(cfg) else [])
    bad = [s for s in strategies if s not in STRATEGIES + (LLM,)]
    if bad:
        raise ResultsError(f"unknown strateg{'ies' if len(bad) > 1 else 'y'} {', '.join(bad)} "
                           f"(choose from {', '.join(STRATEGIES + (LLM,))})")
    if LLM in strategies and not llm_configured(cfg):
        raise ResultsError("--strategies llm needs an endpoint: --llm-base-url and --llm-model")
    unknown = sorted(set(args.energy_families) - set(suite_families()))
    if unknown:
        raise ResultsError(f"--energy-families: unknown family {', '.join(unknown)}")
    return units_for(fams, strategies, args.seeds, args.objective, baseline=not args.no_baseline,
                     compile_=cfg.torch and cfg.torch_compile and not args.no_baseline,
                     energy_families=tuple(args.energy_families))


def plan_text(units: list[Unit], cfg: Config, results: dict | None, call_seconds: float = CALL_SECONDS) -> str:
    calls = plan_calls(units, cfg, results, call_seconds)
    total = sum(call_seconds_of(c, cfg, results) for c in calls)
    lines = [f"{sum(len(c) for c in calls)} units left, about {total / 60:.0f} device minutes in {len(calls)} "
             f"call{'s' if len(calls) != 1 else ''} of at most {call_seconds:.0f} s"]
    for i, c in enumerate(calls, 1):
        secs = call_seconds_of(c, cfg, results)
        lines.append(f"  call {i} (~{secs:.0f} s): " + ", ".join(str(u) for u in c))
    return "\n".join(lines)


def main(argv=None) -> int:
    args = parse(argv)
    if args.check:
        from suite_check import main as check_main

        return check_main()
    cfg = Config(budget=args.budget, repeats=args.repeats, arch=args.arch, torch=not args.no_torch,
                 torch_compile=not args.no_torch_compile, timeout=args.timeout, llm_base_url=args.llm_base_url,
                 llm_model=args.llm_model)
    try:
        units = selection(args, cfg)
        results = load_results(Path(args.out), cfg) if args.out else None
    except ResultsError as e:
        print(f"run_suite: {e}", file=sys.stderr)
        return 2
    if args.plan:
        print(plan_text(units, cfg, results, args.call_seconds))
        return 0
    if not args.out:
        print("run_suite: --out RESULTS.json is needed (or --plan, or --check)", file=sys.stderr)
        return 2
    from suite_lab import GpuLab, NoGpu

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    try:
        lab = GpuLab(cfg, Path(args.logs) if args.logs else out.parent / "logs")
    except NoGpu as e:
        print(f"run_suite: no GPU: {e}", file=sys.stderr)
        return 2
    # the deadline counts the lab's start (workers, the ceilings) too
    deadline = None if args.deadline is None else args.deadline - (time.monotonic() - t0)
    try:
        stopped = drive(lab, units, results, out, cfg, deadline)
    finally:
        lab.close()
    print(f"stopped: {stopped}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
