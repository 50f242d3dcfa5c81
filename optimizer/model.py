"""The optimizer's data: a candidate kernel, its evaluation, a proposal and a budget."""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field


# a declaration of dynamic shared memory (`extern __shared__ float s[];`, any order, aligned or not)
DYNAMIC_SHARED = re.compile(r"\bextern\s+(?:__align__\s*\(\s*\d+\s*\)\s+)?__shared__\b|\b__shared__\s+extern\b")
KINDS = ("root", "structural", "local", "flags", "launch", "llm")


@dataclass(frozen=True)
class Candidate:
    """One variant of the kernel: its source, launch overrides and extra compile flags."""

    source: str  # full .cu text
    launch: dict | None = None  # launch-part overrides (JSON-able: block, grid, shared, extra launches)
    flags: tuple[str, ...] = ()  # extra nvcc flags
    description: str = ""  # what it tried, one line
    answers: tuple[str, ...] = ()  # rule ids of the advice it answers
    origin: str = "root"  # proposer name ("builtin:restrict", "llm", ...)
    kind: str = "root"  # structural (who does what), local (an edit in place), flags, launch (grid/block only), llm
    knobs: tuple = ()  # ((name, value), ...) numeric parameters it was built with (tuned inside its node)
    notes: tuple[str, ...] = ()  # what the user must know: caller changes, assumptions (branch note)

    @property
    def runs_host_launcher(self) -> bool:
        """Whether a host launcher of the source runs the operation (a `host` launch, or a step of its own
        `launches` that is one): nothing of the kernel is left to tune, and it covers every size itself."""
        launch = self.launch or {}
        return bool(launch.get("host")) or any(isinstance(s, dict) and s.get("host")
                                                for s in launch.get("launches") or [])

    @property
    def full_launch(self) -> dict | None:
        """The launch as the spec takes it: a new grid and block that say no `shared_bytes`, for a source that
        declares no dynamic shared memory, with none (the spec's own would stay: a hand-written kernel's 78 KB a
        block, two blocks an SM, on a candidate that needs none)."""
        launch = self.launch
        if not launch or "grid" not in launch or "shared_bytes" in launch or DYNAMIC_SHARED.search(self.source) \
                or re.search(r'#\s*include\s*"', self.source):  # (a project header may declare it in a macro)
            return launch
        return {**launch, "shared_bytes": 0}

    def __post_init__(self):
        if not isinstance(self.source, str):
            raise TypeError(f"Candidate.source must be str, got {type(self.source).__name__}")
        # Lists are accepted for convenience but stored as tuples (the dataclass is frozen).
        object.__setattr__(self, "flags", tuple(self.flags))
        object.__setattr__(self, "answers", tuple(self.answers))
        object.__setattr__(self, "knobs", tuple(tuple(k) for k in self.knobs))
        object.__setattr__(self, "notes", tuple(self.notes))
        if self.kind not in KINDS:
            raise ValueError(f"Candidate.kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.launch is not None:
            try:
                json.dumps(self.launch, sort_keys=True)
            except (TypeError, ValueError) as e:
                raise ValueError(f"Candidate.launch must be JSON-able: {e}") from None

    def __hash__(self):  # launch is a dict, so the generated hash would fail
        return hash(self.key())

    def key(self) -> str:
        """sha256 hex over source, launch (canonical JSON) and flags; the description is not part of it."""
        h = hashlib.sha256()
        h.update(self.source.encode())
        h.update(b"\0")
        h.update(json.dumps(self.launch, sort_keys=True, separators=(",", ":")).encode())
        h.update(b"\0")
        h.update(json.dumps(list(self.flags)).encode())
        return h.hexdigest()


@dataclass
class Evaluation:
    """What the evaluator found: correct or not, and the numbers."""

    ok: bool  # compiled, ran and correct
    failure: str | None = None  # "compile: ...", "incorrect: ...", "crash: ...", "timeout: ..."
    times_s: dict[str, float] = field(default_factory=dict)  # size label -> median seconds
    energy_j: dict[str, float] = field(default_factory=dict)  # size label -> joules per launch
    error: dict = field(default_factory=dict)  # e.g. {"max_abs": .., "max_rel": ..}
    advice: list = field(default_factory=list)  # kernelpro.profilers.advice.Advice objects
    resources: dict = field(default_factory=dict)  # {"registers": .., "spill_stores": .., ...}
    failure_kind: str | None = None  # a contracts.FailureKind value; classified from `failure` once, here

    def __post_init__(self):
        if self.failure and self.failure_kind is None:
            from kernelpro.profilers.contracts import failure_kind
            self.failure_kind = failure_kind(self.failure).value
        elif not self.failure:
            self.failure_kind = None

    def mean_energy(self) -> float | None:
        vals = [v for v in self.energy_j.values() if v is not None]
        return sum(vals) / len(vals) if vals else None


@dataclass
class Proposal:
    candidate: Candidate
    prior: float = 0.5  # (0, 1]; from the advice's estimated gain

    def __post_init__(self):
        if not (0.0 < self.prior <= 1.0):
            raise ValueError(f"Proposal.prior must be in (0, 1], got {self.prior!r} "
                             f"for {self.candidate.description!r}")


@dataclass
class Budget:
    """When to stop; None means no limit of that kind. Evaluations do not count the root."""

    evaluations: int | None = 20
    seconds: float | None = None
    tokens: int | None = None

    def __post_init__(self):
        for name in ("evaluations", "seconds", "tokens"):
            v = getattr(self, name)
            if v is not None and v < 0:
                raise ValueError(f"Budget.{name} must be >= 0 or None, got {v!r}")

    def to_json(self) -> dict:
        return {"evaluations": self.evaluations, "seconds": self.seconds, "tokens": self.tokens}
