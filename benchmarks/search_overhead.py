"""The search without `--workers` against the search before batches with virtual loss (issue 15): the same
event stream, and its own cost per evaluation, side by side in one run.

The evaluator and the proposer cost nothing here, so what is timed is the search itself (selection,
widening, backup, pruning, events): the part of `kernelpro optimize` that issue 15 changed. Besides
the median times it prints the ratio of Python function calls (cProfile), which load does not move. The old
search is read from git (`--base`, default 9bde79a, main before this work) and loaded beside the new one.

    python benchmarks/search_overhead.py [--evaluations 1500] [--reps 5] [--base 9bde79a]
"""
from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

from kernelpro.optimizer import search as new_search  # noqa: E402
from kernelpro.optimizer.model import Budget, Candidate, Evaluation, Proposal  # noqa: E402


def old_search(base: str):
    text = subprocess.run(["git", "-C", str(ROOT), "show", f"{base}:optimizer/search.py"], capture_output=True,
                          text=True, check=True).stdout
    spec = importlib.util.spec_from_loader("kernelpro.optimizer._search_before", loader=None)
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = "kernelpro.optimizer"
    sys.modules[spec.name] = mod  # dataclasses look their module up there
    exec(compile(text, f"{base}:optimizer/search.py", "exec"), mod.__dict__)
    return mod


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


class Landscape:
    """A state's speedup: 'a' 1.02x, 'b' 1.01x, 'c' 0.99x each, 'f' fails."""

    def evaluate(self, cands):
        out = []
        for c in cands:
            st = c.source[3:]
            if "f" in st:
                out.append(Evaluation(ok=False, failure="incorrect: stand-in"))
                continue
            v = 1.02 ** st.count("a") * 1.01 ** st.count("b") * 0.99 ** st.count("c")
            out.append(Evaluation(ok=True, times_s={"s": 1.0 / v, "l": 8.0 / v}, resources={"registers": 32}))
        return out


class Moves:
    name = "bench"

    def __init__(self, moves="abcdf", depth=12):
        self.moves, self.depth, self.queues = moves, depth, {}

    def propose(self, node, ctx, k):
        st = node.candidate.source[3:]
        q = self.queues.setdefault(node.id, list(self.moves) if len(st) < self.depth else [])
        if q is self.queues[node.id] and len(q) == len(self.moves):
            ctx.rng.shuffle(q)
        out = []
        while q and len(out) < k:
            out.append(Proposal(Candidate(source="// " + st + q.pop(0), description=st), 0.5))
        return out


def run(mod, strategy: str, n: int):
    events = []
    gc.collect()  # the previous run's garbage is not this run's cost
    t0 = time.perf_counter()
    mod.run_search(Candidate(source="// ", description="root"), Moves(), Landscape(), Budget(evaluations=n),
                   strategy=strategy, seed=1, on_event=events.append, clock=Clock())
    return time.perf_counter() - t0, events


def calls(mod, strategy: str, n: int) -> int:
    """Python function calls of one run: a cost measure that machine load does not disturb."""
    import cProfile
    import pstats

    pr = cProfile.Profile()
    pr.enable()
    run(mod, strategy, n)
    pr.disable()
    return pstats.Stats(pr).total_calls


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--evaluations", type=int, default=1500)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--base", default="9bde79a")
    args = ap.parse_args()
    old = old_search(args.base)
    print(f"search before ({args.base}) vs now, no workers, {args.evaluations} evaluations, {args.reps} runs each, "
          f"the order alternating")
    print(f"{'strategy':8} {'same events':12} {'before us/eval':>15} {'now us/eval':>12} {'now/before':>11} "
          f"{'calls now/before':>17}")
    worst = 0.0
    for strategy in ("mcts", "greedy", "random"):
        _, ev_old = run(old, strategy, args.evaluations)
        _, ev_new = run(new_search, strategy, args.evaluations)
        same = json.dumps(ev_old, default=str) == json.dumps(ev_new, default=str)
        t_old, t_new = [], []
        for i in range(args.reps):  # ABBA: whichever runs second in a pair is not always the same one
            for mod, times in ((old, t_old), (new_search, t_new))[::1 if i % 2 == 0 else -1]:
                times.append(run(mod, strategy, args.evaluations)[0])
        a, b = statistics.median(t_old), statistics.median(t_new)
        worst = max(worst, b / a)
        c = calls(new_search, strategy, args.evaluations) / calls(old, strategy, args.evaluations)
        print(f"{strategy:8} {str(same):12} {a / args.evaluations * 1e6:15.1f} {b / args.evaluations * 1e6:12.1f} "
              f"{b / a:11.3f} {c:17.3f}")
        if not same:
            print("  the event streams differ", file=sys.stderr)
            return 1
    print(f"worst time ratio now/before: {worst:.3f} (medians; a loaded machine moves them; the calls do not move). "
          f"A GPU evaluation takes about 1.5 s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
