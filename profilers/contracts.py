"""Typed contracts at the seams: the optimizer's JSON-lines events and its failure kinds.

The optimizer writes events as JSON objects (one per line with --json-events); the editor's
server, the terminal progress, the run's recorder and the benchmarks read them. `parse(d)`
turns one into its typed event (unknown keys are kept in `extra`, unknown types become a
plain `Event`), so every reader uses the same field names and defaults. This module lives
in the lowest layer because the language server may not import the optimizer.

`FailureKind` names why an evaluation failed; `failure_kind(text)` classifies a failure
message once, where an evaluation is made, so nobody else parses message prefixes.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class FailureKind(str, Enum):
    COMPILE = "compile"  # nvcc or ptxas failed, or the kernel is missing from the build
    LAUNCH = "launch"  # the launch configuration or the spec does not fit the kernel
    INCORRECT = "incorrect"  # ran, wrong result (or unwritten outputs, NaN)
    CRASH = "crash"  # illegal address, a CUDA error, the worker died
    TIMEOUT = "timeout"  # did not finish in time
    IMPOSSIBLE = "impossible"  # faster than the device's measured ceilings
    SANITIZER = "sanitizer"  # Compute Sanitizer found an error
    OTHER = "other"


_PREFIXES = (
    ("compile", FailureKind.COMPILE), ("launch", FailureKind.LAUNCH), ("spec", FailureKind.LAUNCH),
    ("wrong result", FailureKind.INCORRECT), ("incorrect", FailureKind.INCORRECT), ("crash", FailureKind.CRASH),
    ("cuda error", FailureKind.CRASH), ("illegal", FailureKind.CRASH), ("timeout", FailureKind.TIMEOUT),
    ("timed out", FailureKind.TIMEOUT), ("impossible", FailureKind.IMPOSSIBLE), ("faster than", FailureKind.IMPOSSIBLE),
    ("compute-sanitizer", FailureKind.SANITIZER), ("sanitizer", FailureKind.SANITIZER),
)


def failure_kind(text: str | None) -> FailureKind | None:
    """The kind of a failure message (None for no failure)."""
    if not text:
        return None
    t = text.strip().lower()
    for prefix, kind in _PREFIXES:
        if t.startswith(prefix):
            return kind
    return FailureKind.OTHER


# ---------------------------------------------------------------- events


@dataclass(frozen=True)
class Event:
    """Every event: its type, the evaluations spent so far, the budget's state."""
    type: str
    evaluations: int = 0
    budget: dict = field(default_factory=dict)
    run: str | None = None
    kernel: str | None = None
    extra: dict = field(default_factory=dict)  # keys this version does not know
    given: tuple = field(default=(), compare=False, repr=False)  # the keys the JSON object had

    def to_dict(self) -> dict:
        """The JSON object again: the keys it had (all fields when built in code)."""
        d = {k: v for k, v in dataclasses.asdict(self).items() if k not in ("extra", "given")
             and (not self.given or k in self.given)}
        d.update(self.extra)
        return d

    @property
    def budget_fraction(self) -> float | None:
        total = (self.budget or {}).get("evaluations")
        return self.evaluations / total if isinstance(total, (int, float)) and total > 0 else None


@dataclass(frozen=True)
class Start(Event):
    objective: str = "time"
    strategy: str = "mcts"
    seed: int = 0
    batch: int = 1
    description: str = ""


@dataclass(frozen=True)
class Evaluated(Event):
    """A candidate evaluated as a node of the tree (the root has parent None)."""
    node: int = 0
    parent: int | None = None
    description: str = ""
    origin: str = ""
    kind: str = ""  # Candidate.kind: root, structural, local, flags, launch, llm
    knobs: dict = field(default_factory=dict)
    answers: list = field(default_factory=list)
    depth: int = 0
    ok: bool = True
    failure: str | None = None
    failure_kind: str | None = None
    reward: float | None = None
    speedup: float | None = None
    time_speedup: float | None = None
    times_s: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Tuned(Event):
    """A knob setting tried inside a node (not a child); `better` when it replaced the node's."""
    node: int = 0
    parent: int | None = None
    description: str = ""
    origin: str = ""
    kind: str = ""
    knobs: dict = field(default_factory=dict)
    was: dict = field(default_factory=dict)
    ok: bool = True
    failure: str | None = None
    reward: float | None = None
    speedup: float | None = None
    better: bool = False
    times_s: dict = field(default_factory=dict)


@dataclass(frozen=True)
class NewBest(Event):
    node: int = 0
    description: str = ""
    speedup: float | None = None
    reward: float | None = None
    path: list = field(default_factory=list)


@dataclass(frozen=True)
class Done(Event):
    best: int = 0
    speedup: float | None = None
    time_speedup: float | None = None
    failures: int = 0
    stopped_by: str = ""
    path: list = field(default_factory=list)
    error: str | None = None
    tuning_evaluations: int = 0
    launch_only_evaluations: int = 0
    best_branch: str | None = None
    branches: list = field(default_factory=list)


@dataclass(frozen=True)
class Branch(Event):
    branch: str = ""
    speedup: float | None = None
    title: str = ""


@dataclass(frozen=True)
class Message(Event):
    """note, error, branch_removed, pruned, exhausted, duplicate, objective_fallback, cancelled."""
    message: str = ""
    node: int | None = None
    description: str = ""
    reason: str = ""
    branch: str = ""


TYPES: dict[str, type[Event]] = {
    "start": Start, "evaluated": Evaluated, "tuned": Tuned, "new_best": NewBest, "done": Done, "branch": Branch,
    **{t: Message for t in ("note", "error", "branch_removed", "pruned", "exhausted", "duplicate",
                            "objective_fallback", "cancelled")},
}


def parse(d: dict[str, Any]) -> Event:
    """The typed event of one JSON object; never raises on unknown or missing keys."""
    cls = TYPES.get(str(d.get("type")), Event)
    names = {f.name for f in dataclasses.fields(cls)} - {"extra", "given"}
    known = {k: v for k, v in d.items() if k in names}
    known.setdefault("type", str(d.get("type")))
    if not isinstance(known.get("evaluations", 0), int):
        known["evaluations"] = 0
    return cls(**known, extra={k: v for k, v in d.items() if k not in names}, given=tuple(d))
