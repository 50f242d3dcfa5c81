"""The last gate before a candidate becomes a branch: Compute Sanitizer, then a fresh re-measurement.

A result can pass every numeric check and still read past a buffer or race in shared memory (the
sanitizer sees it), and a speedup can come from the worker process itself or from one lucky
measurement (a fresh process measuring the root and the candidate again sees it). Both run only
for a candidate about to be saved, so they cost nothing on the others. An evaluator without
`sanitize` / `remeasure` (a test double) skips that step.
"""
from __future__ import annotations

import math
from typing import Callable

from .model import Candidate, Evaluation
from .search import reward, scored_sizes


def confirm(evaluator, root: tuple[Candidate, Evaluation], cand: Candidate, objective: str, min_reward: float,
            emit: Callable[[dict], None]) -> dict | None:
    """What the branch note says about the checks ({"sanitizer": ..., "remeasured": ...}), or None (with a
    note event) when the candidate must not become a branch."""
    info: dict = {}
    if hasattr(evaluator, "sanitize"):
        san = evaluator.sanitize(cand)
        if san.get("failure"):
            emit({"type": "note", "message": f"not saved as a branch: {san['failure']}"})
            return None
        ran = [r["tool"] for r in san.get("reports", []) if r.get("ran")]
        info["sanitizer"] = {"clean": ran, "notes": san.get("notes", [])}
    if hasattr(evaluator, "remeasure"):
        root_ev, ev = evaluator.remeasure([root[0], cand])
        if not root_ev.ok or not ev.ok:
            why = ev.failure if not ev.ok else f"the root failed: {root_ev.failure}"
            emit({"type": "note", "message": f"not saved as a branch: re-measured in a fresh process, {why}"})
            return None
        try:
            # (scored at the sizes the search scored, from its own measurement of the root: a root near the
            # launch-bound line measured again must not move a size in or out)
            r = reward(ev, root_ev, objective, sizes=scored_sizes(root[1].times_s) if root[1].times_s else None)
        except ValueError as e:
            emit({"type": "note", "message": f"not saved as a branch: re-measured in a fresh process, {e}"})
            return None
        if r <= min_reward:
            emit({"type": "note", "message": f"not saved as a branch: re-measured in a fresh process it is "
                                             f"{math.exp(r):.3f}x, not faster than the best branch by the margin"})
            return None
        info["remeasured"] = {"process": "fresh", "speedup": math.exp(r), "times_s": ev.times_s,
                              "root_times_s": root_ev.times_s}
    return info


def note_lines(info: dict) -> list[str]:
    """The commit body's lines for the checks."""
    out = []
    if "remeasured" in info:
        out.append(f"Re-measured in a fresh process before this branch was written: {info['remeasured']['speedup']:.3f}x.")
    san = info.get("sanitizer")
    if san is not None:
        out.append(f"Compute Sanitizer: {', '.join(san['clean'])} clean." if san["clean"] else
                   "Compute Sanitizer: not run (" + "; ".join(san["notes"]) + ").")
    return out
