"""Scenarios whose full event streams were recorded with the search as it was before batches with
virtual loss (main at 9bde79a, recorded again at a4c59d9 after main's search added fields to its events; `tuning-1` again when tuning went to three variants per node, hill-climbing): `tests/fixtures/search_traces.json`. test_search_parallel.py replays
them and asserts the streams are identical, so the default path (one evaluation at a time) and the
old synchronous batches behave exactly as before.

Write the file again (only when a change of behaviour is intended): python tests/search_traces.py --write
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from test_search import FakeClock, LandscapeEvaluator, MoveProposer, cand, smooth, trap
from test_tuning import Landscape, PlanProposer

from kernelpro.optimizer.model import Budget, Candidate
from kernelpro.optimizer.search import run_search

FILE = Path(__file__).resolve().parent / "fixtures" / "search_traces.json"


def _run(root, proposer, evaluator, budget, **kw):
    events = []
    clock = kw.pop("clock", None) or FakeClock()
    run_search(root, proposer, evaluator, budget, on_event=events.append, clock=clock, **kw)
    return json.loads(json.dumps(events, default=str))


def _widening(st):
    return "compile: bad" if st.endswith("h") else 1.0 + 0.03 * st.count("a") - 0.01 * st.count("e")


def scenarios() -> dict[str, callable]:
    out = {}
    for strategy in ("mcts", "greedy", "random"):
        for batch in (1, 3):
            out[f"smooth-{strategy}-{batch}"] = lambda s=strategy, b=batch: _run(
                cand(""), MoveProposer("abc", max_depth=4), LandscapeEvaluator(smooth), Budget(evaluations=20),
                strategy=s, batch=b, seed=1)
            out[f"trap-{strategy}-{batch}"] = lambda s=strategy, b=batch: _run(
                cand(""), MoveProposer("abcd", max_depth=6), LandscapeEvaluator(trap), Budget(evaluations=25),
                strategy=s, batch=b, seed=3)
    for batch in (1, 3):
        out[f"widening-{batch}"] = lambda b=batch: _run(
            cand(""), MoveProposer("abcdefgh", max_depth=4), LandscapeEvaluator(_widening), Budget(evaluations=40),
            batch=b)
        out[f"tuning-{batch}"] = lambda b=batch: _run(
            Candidate(source="// root", description="root"), PlanProposer(), Landscape(), Budget(evaluations=16),
            batch=b)

    def seconds():
        clock = FakeClock()
        return _run(cand(""), MoveProposer("ab", max_depth=8), LandscapeEvaluator(smooth, clock=clock, tick=1.0),
                    Budget(evaluations=None, seconds=5.5), clock=clock)
    out["seconds"] = seconds
    out["tokens"] = lambda: _run(cand(""), MoveProposer("abdefgh", max_depth=8, tokens_per_call=100),
                                 LandscapeEvaluator(smooth), Budget(evaluations=None, tokens=450))
    out["energy-fallback"] = lambda: _run(cand(""), MoveProposer("ab", max_depth=1), LandscapeEvaluator(smooth),
                                          Budget(evaluations=2), objective="energy")
    return out


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/search_traces.py --write")
    traces = {k: f() for k, f in scenarios().items()}
    FILE.write_text("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v, sort_keys=True, separators=(',', ':'))}"
                                       for k, v in sorted(traces.items())) + "\n}\n")
    print(f"wrote {FILE}")
