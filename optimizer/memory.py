"""The search memory: every attempt, good or bad, and the lesson it taught.

SQLite at <workspace>/.kernelpro/memory.sqlite, in WAL mode with a busy timeout, and every
write in a BEGIN IMMEDIATE transaction, so several processes can record at once.
"""
from __future__ import annotations

import json
import math
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from .model import Candidate, Evaluation

OUTCOMES = ("improved", "regressed", "neutral", "incorrect", "compile_error", "crash", "timeout", "failed")
FAILURE_OUTCOMES = {"compile": "compile_error", "incorrect": "incorrect", "crash": "crash", "timeout": "timeout"}
BUSY_TIMEOUT_MS = 30_000

SCHEMA = """
CREATE TABLE IF NOT EXISTS attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL, kernel TEXT NOT NULL, file TEXT NOT NULL, candidate_key TEXT NOT NULL,
  description TEXT NOT NULL, answers TEXT NOT NULL, origin TEXT NOT NULL, outcome TEXT NOT NULL,
  speedup REAL, failure TEXT, numbers TEXT NOT NULL, created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS lessons (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  attempt_id INTEGER NOT NULL REFERENCES attempts(id),
  kernel TEXT NOT NULL, rules TEXT NOT NULL, text TEXT NOT NULL, outcome TEXT NOT NULL,
  weight REAL NOT NULL, created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS attempts_kernel ON attempts(kernel);
CREATE INDEX IF NOT EXISTS attempts_run ON attempts(run_id);
CREATE INDEX IF NOT EXISTS lessons_kernel ON lessons(kernel);
"""


class MemoryStoreError(RuntimeError):
    """The memory database cannot be opened or used."""


@dataclass
class Attempt:
    run_id: str
    kernel: str
    file: str
    candidate_key: str
    description: str
    answers: list[str]
    origin: str
    outcome: str  # one of OUTCOMES
    speedup: float | None
    failure: str | None
    numbers: dict
    created: float = field(default_factory=time.time)

    def __post_init__(self):
        if self.outcome not in OUTCOMES:
            raise ValueError(f"Attempt.outcome must be one of {', '.join(OUTCOMES)}, got {self.outcome!r}")
        self.answers = list(self.answers)


@dataclass
class Lesson:
    kernel: str
    rules: list[str]
    text: str
    outcome: str
    weight: float
    created: float


def outcome_of(ev: Evaluation, speedup: float | None, neutral_band: float = 0.02) -> str:
    """Classify an evaluation: its failure kind (contracts.FailureKind), else by the speedup."""
    if not ev.ok:
        return FAILURE_OUTCOMES.get(ev.failure_kind or "", "failed")
    if speedup is None:
        return "neutral"
    if speedup > 1.0 + neutral_band:
        return "improved"
    if speedup < 1.0 - neutral_band:
        return "regressed"
    return "neutral"


def make_attempt(run_id: str, kernel: str, file: str, candidate: Candidate, ev: Evaluation,
                 speedup: float | None, neutral_band: float = 0.02) -> Attempt:
    """An Attempt from a candidate and its evaluation (numbers: times, energy, error, resources)."""
    numbers = {"times_s": dict(ev.times_s), "energy_j": dict(ev.energy_j), **dict(ev.error)}
    if ev.resources:
        numbers["resources"] = dict(ev.resources)
    return Attempt(run_id=run_id, kernel=kernel, file=file, candidate_key=candidate.key(),
                   description=candidate.description, answers=list(candidate.answers), origin=candidate.origin,
                   outcome=outcome_of(ev, speedup, neutral_band), speedup=speedup, failure=ev.failure,
                   numbers=numbers)


def lesson_weight(a: Attempt) -> float:
    """How strong a lesson is, in [0, 1]: big gains and losses and clear failures teach most."""
    s = a.speedup
    if a.outcome == "improved":
        return min(1.0, 0.5 + 2.0 * math.log(s)) if s else 0.5
    if a.outcome == "regressed":
        return min(1.0, 0.3 + 2.0 * abs(math.log(s))) if s else 0.3
    if a.outcome == "neutral":
        return 0.1
    if a.outcome in ("incorrect", "compile_error", "crash", "timeout"):
        return 0.7
    return 0.4


# Why a change of this kind usually breaks correctness, keyed by words in its description.
_FAILURE_HINTS = [
    (("unroll",), "keep the loop bounds check for the tail iterations"),
    (("float4", "float2", "vector", "vectoriz", "int4"),
     "handle sizes that are not a multiple of the vector width, and alignment"),
    (("shared", "tile", "tiling"), "check the tile bounds and the __syncthreads() between load and use"),
    (("restrict",), "the pointers may alias; __restrict__ is only safe when they never overlap"),
    (("fast-math", "fast_math", "__expf", "intrinsic", "half", "fp16", "bf16"),
     "the precision loss exceeds the tolerance; keep full precision where error accumulates"),
    (("warp", "shuffle", "shfl"), "check the shuffle mask and lanes beyond the data"),
    (("grid", "block", "launch"), "check that the new launch shape still covers every element"),
]


def _failure_hint(description: str) -> str:
    d = description.lower()
    for words, hint in _FAILURE_HINTS:
        if any(w in d for w in words):
            return hint
    return ""


def _failure_detail(a: Attempt, limit: int = 160) -> str:
    text = (a.failure or "").split(":", 1)[-1].strip() if a.failure else ""
    text = text.splitlines()[0] if text else ""
    return text[:limit]


def derive_lesson(a: Attempt) -> str:
    """One sentence: what was tried, what happened, and for failures what to watch."""
    what = f"'{a.description or a.candidate_key[:12]}'"
    if a.answers:
        what += f" (answers {', '.join(a.answers)})"
    s = a.speedup
    if a.outcome == "improved":
        return f"{what} made {a.kernel} {s:.2f}x faster" if s else f"{what} improved {a.kernel}"
    if a.outcome == "regressed":
        return (f"{what} made {a.kernel} slower ({s:.2f}x of the baseline speed) — avoid it or rethink it"
                if s else f"{what} made {a.kernel} slower")
    if a.outcome == "neutral":
        return f"{what} made no measurable difference on {a.kernel}" + (f" ({s:.2f}x)" if s else "")
    detail = _failure_detail(a)
    if a.outcome == "incorrect":
        rel = a.numbers.get("max_rel", (a.numbers.get("error") or {}).get("max_rel"))
        err = f"max rel err {rel:.2g}" if isinstance(rel, (int, float)) else (detail or "wrong results")
        hint = _failure_hint(a.description)
        return f"{what} broke correctness on {a.kernel}: {err}" + (f" — {hint}" if hint else "")
    verb = {"compile_error": "did not compile", "crash": "crashed", "timeout": "timed out"}.get(a.outcome, "failed")
    return f"{what} {verb} on {a.kernel}" + (f": {detail}" if detail else "")


def format_lessons(lessons) -> str:
    """A text block for an LLM prompt; empty when there is nothing to say."""
    lessons = list(lessons)
    if not lessons:
        return ""
    lines = ["Lessons from earlier attempts (most relevant first):"]
    for les in lessons:
        rules = f" [{', '.join(les.rules)}]" if les.rules else ""
        lines.append(f"- ({les.outcome}){rules} {les.text}")
    return "\n".join(lines)


def _jsonable(o):
    # numpy scalars and arrays become numbers and lists; anything else its text
    if hasattr(o, "tolist"):
        return o.tolist()
    return str(o)


def _resolve(path: str | Path) -> Path:
    p = Path(path)
    if p.is_dir() or p.suffix.lower() not in (".sqlite", ".sqlite3", ".db"):
        return p / ".kernelpro" / "memory.sqlite"
    return p


# Reading back: the database lives in the workspace, which may be anyone's (a cloned repository
# can carry a .kernelpro/memory.sqlite), so every stored value is taken as it comes: NULLs, wrong
# types, text that is not JSON, bytes that are not UTF-8 become plain values of the right type.
_COLUMNS = {
    "attempts": {"id", "run_id", "kernel", "file", "candidate_key", "description", "answers", "origin", "outcome",
                 "speedup", "failure", "numbers", "created"},
    "lessons": {"id", "attempt_id", "kernel", "rules", "text", "outcome", "weight", "created"},
}


def _as_text(v) -> str:
    if v is None:
        return ""
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    return str(v)


def _as_float(v, default: float | None = None) -> float | None:
    if isinstance(v, bytes):
        v = _as_text(v)
    try:
        f = float(v)
    except (TypeError, ValueError, OverflowError):
        return default
    return f if math.isfinite(f) else default


def _finite_json(o):
    """JSON data with NaN and infinities as None (so it can be written back as strict JSON)."""
    if isinstance(o, float):
        return o if math.isfinite(o) else None
    if isinstance(o, dict):
        return {str(k): _finite_json(v) for k, v in o.items()}
    if isinstance(o, list):
        return [_finite_json(v) for v in o]
    return o


def _loads(v):
    try:
        return json.loads(_as_text(v))
    except (ValueError, RecursionError):
        return None


def _as_list(v) -> list[str]:
    """A stored JSON list of names; anything else is an empty list."""
    data = _loads(v)
    return [_as_text(x) for x in data if isinstance(x, (str, int, float))] if isinstance(data, list) else []


def _as_dict(v) -> dict:
    data = _loads(v)
    return _finite_json(data) if isinstance(data, dict) else {}


def _attempt_from_row(r) -> Attempt:
    outcome, failure = _as_text(r[7]), (None if r[9] is None else _as_text(r[9]))
    if outcome not in OUTCOMES:  # kept readable, as the failure text
        failure = failure or f"unknown outcome {outcome!r}"
        outcome = "failed"
    return Attempt(_as_text(r[0]), _as_text(r[1]), _as_text(r[2]), _as_text(r[3]), _as_text(r[4]), _as_list(r[5]),
                   _as_text(r[6]), outcome, _as_float(r[8]), failure, _as_dict(r[10]), _as_float(r[11], 0.0))


class Memory:
    """Attempts and lessons in SQLite; give a file path or a workspace directory."""

    def __init__(self, path: str | Path):
        self.path = _resolve(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            ignore = self.path.parent / ".gitignore"
            if self.path.parent.name == ".kernelpro" and not ignore.exists():
                ignore.write_text("# KernelPro's search memory: local to this workspace\n*\n")
            self.conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
            self.conn.text_factory = lambda b: b.decode("utf-8", "replace")  # text that is not UTF-8 reads
            self.conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            # a workspace's database may be anyone's: its views and triggers call no function with side effects
            self.conn.execute("PRAGMA trusted_schema = OFF")
            self._setup()
        except (sqlite3.DatabaseError, OSError) as e:
            if getattr(self, "conn", None) is not None:
                self.conn.close()
            raise MemoryStoreError(f"cannot open the search memory at {self.path}: {e}") from None

    def _setup(self, tries: int = 100) -> None:
        """WAL mode and the schema. Switching to WAL needs the database to itself and SQLite
        does not always wait for that (two runs that open a new memory at once), so retry."""
        for i in range(tries):
            try:
                self.conn.execute("PRAGMA journal_mode = WAL")
                self._check_shape()
                with self._write():
                    for stmt in filter(str.strip, SCHEMA.split(";")):
                        self.conn.execute(stmt)
                return
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) or i == tries - 1:
                    raise
                time.sleep(0.05)

    def _check_shape(self) -> None:
        """Tables made elsewhere with other columns (or views) are refused at open, with their name."""
        for table, columns in _COLUMNS.items():
            kind = self.conn.execute("SELECT type FROM sqlite_master WHERE name = ?", (table,)).fetchone()
            if kind is None:
                continue  # made below
            have = {row[1] for row in self.conn.execute(f"PRAGMA table_info({table})")}
            missing = sorted(columns - have)
            if kind[0] != "table" or missing:
                what = f"is a {kind[0]}" if kind[0] != "table" else f"lacks the column(s) {', '.join(missing)}"
                raise sqlite3.DatabaseError(f"its {table} {what}; it is not a memory KernelPro wrote")

    # a write transaction that takes the write lock at once (no deadlocking lock upgrades)
    class _Tx:
        def __init__(self, conn):
            self.conn = conn

        def __enter__(self):
            self.conn.execute("BEGIN IMMEDIATE")

        def __exit__(self, exc_type, *_):
            self.conn.execute("ROLLBACK" if exc_type else "COMMIT")
            return False

    def _write(self):
        return Memory._Tx(self.conn)

    def record(self, attempt: Attempt) -> Lesson:
        """Store the attempt and the lesson derived from it; return the lesson."""
        a = attempt
        lesson = Lesson(kernel=a.kernel, rules=list(a.answers), text=derive_lesson(a), outcome=a.outcome,
                        weight=lesson_weight(a), created=a.created)
        try:
            numbers = json.dumps(a.numbers, sort_keys=True, default=_jsonable)
        except (TypeError, ValueError) as e:
            raise ValueError(f"Attempt.numbers for {a.description!r} is not JSON-able: {e}") from None
        with self._write():
            cur = self.conn.execute(
                "INSERT INTO attempts (run_id, kernel, file, candidate_key, description, answers, origin,"
                " outcome, speedup, failure, numbers, created) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (a.run_id, a.kernel, a.file, a.candidate_key, a.description, json.dumps(a.answers), a.origin,
                 a.outcome, a.speedup, a.failure, numbers, a.created))
            self.conn.execute(
                "INSERT INTO lessons (attempt_id, kernel, rules, text, outcome, weight, created)"
                " VALUES (?,?,?,?,?,?,?)",
                (cur.lastrowid, lesson.kernel, json.dumps(lesson.rules), lesson.text, lesson.outcome,
                 lesson.weight, lesson.created))
        return lesson

    def lessons_for(self, kernel: str, rules: list[str] = (), limit: int = 8) -> list[Lesson]:
        """Most relevant first: same kernel with overlapping rules, then overlapping rules on other
        kernels, then the same kernel, then the rest; within a tier stronger, then newer, first."""
        want = set(rules)
        rows = self._rows("SELECT kernel, rules, text, outcome, weight, created FROM lessons ORDER BY id DESC"
                          " LIMIT 20000")
        ranked = []
        for k, r, text, outcome, weight, created in rows:
            les = Lesson(_as_text(k), _as_list(r), _as_text(text), _as_text(outcome), _as_float(weight, 0.0),
                         _as_float(created, 0.0))
            if not les.text:
                continue
            k = les.kernel
            weight, created = les.weight, les.created
            overlap = bool(want & set(les.rules))
            tier = 0 if (k == kernel and overlap) else 1 if overlap else 2 if k == kernel else 3
            ranked.append((tier, -weight, -created, les))
        ranked.sort(key=lambda t: t[:3])
        out, seen = [], set()
        for *_, les in ranked:
            if les.text in seen:
                continue
            seen.add(les.text)
            out.append(les)
            if len(out) >= limit:
                break
        return out

    def attempts(self, kernel: str | None = None, run_id: str | None = None) -> list[Attempt]:
        """Attempts in the order they were recorded, optionally for one kernel and/or run."""
        where, args = [], []
        if kernel is not None:
            where.append("kernel = ?")
            args.append(kernel)
        if run_id is not None:
            where.append("run_id = ?")
            args.append(run_id)
        sql = ("SELECT run_id, kernel, file, candidate_key, description, answers, origin, outcome, speedup,"
               " failure, numbers, created FROM attempts")
        if where:
            sql += " WHERE " + " AND ".join(where)
        rows = self._rows(sql + " ORDER BY id", args)
        return [_attempt_from_row(r) for r in rows]

    def _rows(self, sql: str, args=()) -> list:
        try:
            return self.conn.execute(sql, args).fetchall()
        except sqlite3.DatabaseError as e:
            raise MemoryStoreError(f"cannot read the search memory at {self.path}: {e}") from None

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
