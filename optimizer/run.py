"""One optimization run: checks, search, memory, and candidates saved as git branches.

Order of checks (each fails with one clear line before anything is touched): the file and
kernel exist, the file is inside a git work tree, a launch spec exists and matches, a GPU is
usable. Then the root is measured like every candidate, the search runs, and each candidate
that beats the best so far by more than the noise is saved as a branch while the run goes,
so an interrupted run keeps what it found.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from kernelpro.profilers.compile import CompileOptions, read_source
from kernelpro.profilers.contracts import parse as parse_event
from kernelpro.profilers.source import parse_source

from . import dispatch, guard, spec_edit
from .candidates import CandidateStore, check_repository, delete_candidate, format_message, make_note
from .memory import Memory, MemoryStoreError, format_lessons, make_attempt
from .model import Budget, Candidate, Evaluation
from .search import reward, run_search

SAVE_MARGIN = 0.02  # a candidate must beat the best saved one by 2% to become a branch


class OptimizeError(Exception):
    """A problem found before the search starts; the message is one line."""


@dataclass
class RunConfig:
    file: Path
    kernel: str
    budget: Budget = field(default_factory=Budget)
    objective: str = "time"
    strategy: str = "mcts"
    seed: int = 0
    options: CompileOptions = field(default_factory=CompileOptions)
    llm_base_url: str | None = None
    llm_model: str | None = None
    feedback: str = "advice"
    llm_backoff_s: float = 1.0  # first retry wait after a 429/5xx/timeout; doubles
    energy: bool | None = None  # default: measured when the objective needs it
    max_branches: int = 5
    infer_spec: bool = False  # no launch spec: write the inferred one and run with it (said on stderr)


@dataclass
class RunOutcome:
    run_id: str
    best_branch: str | None
    speedup: float
    evaluations: int
    failures: int
    stopped_by: str
    branches: list[str]


def preflight(cfg: RunConfig):
    """Everything that can fail before work starts. Returns (source text, repo, spec)."""
    path = Path(cfg.file)
    try:
        text = read_source(path.resolve())
    except Exception as e:
        raise OptimizeError(str(e)) from None
    src = parse_source(text, str(path.resolve()))
    if src.kernel(cfg.kernel) is None:
        names = ", ".join(k.name for k in src.kernels) or "none"
        raise OptimizeError(f"{path}: no __global__ kernel named '{cfg.kernel}' (kernels: {names})")
    try:
        repo = check_repository(path.resolve().parent)
    except Exception as e:
        raise OptimizeError(str(e)) from None
    from kernelpro.profilers.runtime.spec import SpecError, find_spec, load_spec

    spec_path = find_spec(path, cfg.kernel)
    if spec_path is None:
        spec_path = inferred_spec(cfg, path, text)
    try:
        spec = load_spec(spec_path, src)
    except SpecError as e:
        raise OptimizeError(str(e)) from None
    if spec.kernel != cfg.kernel:
        raise OptimizeError(f"{spec_path}: the launch spec runs kernel '{spec.kernel}', not '{cfg.kernel}'; "
                            f"write one for '{cfg.kernel}' as {path.stem}.{cfg.kernel}.kernelpro.toml")
    return text, repo, spec


def inferred_spec(cfg: RunConfig, path: Path, text: str) -> Path:
    """No launch spec: with cfg.infer_spec, the inferred one written (and said on stderr); otherwise an
    OptimizeError that says what would be inferred (its `details`) and how to use it. Never silent."""
    import sys

    from kernelpro.profilers.runtime.infer import InferError, infer_spec, summary, write_spec

    hint = f"`kernelpro spec init {path} --kernel {cfg.kernel}`"
    try:
        plan = infer_spec(path, cfg.kernel, text)
    except InferError as e:
        raise OptimizeError(f"no launch spec beside {path}, and none can be inferred ({e}): write one") from None
    if not cfg.infer_spec:
        err = OptimizeError(f"no launch spec beside {path}: pass --infer-spec to write the one inferred below and "
                            f"optimize with it, or write it with {hint} and check it first")
        err.details = summary(plan)
        raise err
    try:
        write_spec(plan)
    except OSError as e:
        raise OptimizeError(f"cannot write the inferred launch spec {plan.spec_path}: {e}") from None
    print(f"kernelpro: inferred a launch spec (--infer-spec); check its GUESS values:\n{summary(plan)}",
          file=sys.stderr, flush=True)
    return plan.spec_path


def gpu_check() -> None:
    try:
        from kernelpro.profilers.runtime.measure import gpu_problem
    except ImportError as e:
        raise OptimizeError(f"no GPU: the GPU runtime is not available ({e})") from None
    problem = gpu_problem()
    if problem:
        raise OptimizeError(f"no GPU: {problem}; kernelpro optimize measures every candidate on the GPU")


def measure_text(evaluator, cand_launch_flags):
    """The GPU measurement of a draft as text for the LLM (the measure_on_gpu tool)."""
    def measure(source: str) -> str:
        launch, flags = cand_launch_flags()
        (ev,) = evaluator.evaluate([Candidate(source=source, launch=launch, flags=flags, description="draft")])
        if not ev.ok:
            return f"failed: {ev.failure}"
        times = ", ".join(f"{k}: {v * 1e6:.1f} us" for k, v in ev.times_s.items())
        return f"correct (max rel err {ev.error.get('max_rel', 0):.1e}); median time {times}"
    return measure


def make_proposer(cfg: RunConfig, spec, memory: Memory, on_event, evaluator=None):
    base_launch = spec_edit.base_launch(spec)
    size_names = sorted({v for s in spec.sizes.values() for v in s})
    if cfg.llm_base_url and cfg.llm_model:
        from .llm import ChatClient, LLMConfig, LLMProposer
        from .llm.client import LLMError
        from .llm_tools import make_tools

        measure = measure_text(evaluator, lambda: (None, ())) if evaluator is not None else None
        tools = make_tools(Path(cfg.file).resolve(), cfg.kernel, cfg.options, cfg.feedback, measure=measure)
        try:  # an endpoint refused before any request (plain http off loopback, credentials in the URL)
            client = ChatClient(LLMConfig(cfg.llm_base_url, cfg.llm_model, backoff_s=cfg.llm_backoff_s))
        except LLMError as e:
            raise OptimizeError(str(e)) from None
        return LLMProposer(client, tools, cfg.kernel,
                           feedback=cfg.feedback, project_dir=str(Path(cfg.file).resolve().parent),
                           memory_text=lambda rules: format_lessons(memory.lessons_for(cfg.kernel, rules)),
                           on_event=on_event)
    from .builtin import BuiltinProposer

    return BuiltinProposer(cfg.kernel, base_launch, size_names, seed=cfg.seed, arch=cfg.options.arch,
                           path=Path(cfg.file).resolve(), compile_options=cfg.options, spec=spec)


class Recorder:
    """Wraps the evaluator: records every attempt in the memory, saves improving candidates."""

    def __init__(self, inner, cfg: RunConfig, store: CandidateStore, memory: Memory, spec, emit):
        self.inner, self.cfg, self.store, self.memory, self.spec, self.emit = inner, cfg, store, memory, spec, emit
        self.root: tuple[Candidate, Evaluation] | None = None
        self.best_saved = 0.0  # log-reward of the best branch so far
        self.branches: list[str] = []
        self.branch_speedup: float | None = None  # the speedup of branches[-1]
        self.pending: list[tuple[Candidate, Evaluation]] = []  # evaluated, waiting for their node event
        self.paths: dict[int, list[str]] = {}  # node id -> descriptions from the root
        self.seen: list[tuple[Candidate, Evaluation, float]] = []  # every correct candidate and its log-reward
        if callable(getattr(inner, "submit", None)):  # a parallel evaluator stays one for the search
            self.submit = self._submit

    def evaluate(self, candidates: list[Candidate]) -> list[Evaluation]:
        evs = self.inner.evaluate(candidates)
        for c, ev in zip(candidates, evs):
            self.record(c, ev)
        return evs

    def _submit(self, candidates: list[Candidate]) -> list["_Recorded"]:
        return [_Recorded(self, c, p) for c, p in zip(candidates, self.inner.submit(candidates))]

    def record(self, c: Candidate, ev: Evaluation) -> None:
        """Into the memory, in the order the search reads the results (the order of its node events)."""
        if self.root is None:
            self.root = (c, ev)
            return
        try:
            r = reward(ev, self.root[1], self.cfg.objective)
        except ValueError:  # e.g. a size missing: the search marks the node failed too
            r = None
        speedup = math.exp(r) if r is not None else None
        if r is not None and ev.ok:
            self.seen.append((c, ev, r))
        self.memory.record(make_attempt(self.store.run_id, self.cfg.kernel, str(self.cfg.file), c, ev, speedup))
        self.pending.append((c, ev))

    def on_node(self, event: dict) -> None:
        """The search added a node (events come in evaluation order): save it if it improves."""
        parent = event.get("parent")
        self.paths[event["node"]] = ([] if parent is None else self.paths.get(parent, [])) + (
            [event.get("description") or "?"] if parent is not None else [])
        if parent is None or not self.pending:
            return
        c, ev = self.pending.pop(0)
        r = event.get("reward")
        if r is not None and r > self.best_saved + math.log1p(SAVE_MARGIN) and self.cfg.max_branches > 0:
            if self.save(c, ev, math.exp(r), self.paths[event["node"]]):
                self.best_saved = r
                self.trim()

    def specialise(self) -> None:
        """After the search: where another candidate beats the best at some sizes (optimizer/dispatch.py), one
        that picks per size, evaluated like the rest and saved as a branch if it is the best."""
        if not self.seen or self.cfg.max_branches <= 0 or self.root is None:
            return
        if self.cfg.objective != "time":  # the split reads times per size; energy has no per-size winner here
            self.emit({"type": "note", "message": f"no per-size dispatch for the {self.cfg.objective} objective"})
            return
        bc, be, br = max(self.seen, key=lambda t: t[2])
        split = dispatch.plan(self.spec, (bc, be), [(c, e) for c, e, _ in self.seen])
        if isinstance(split, str):
            self.emit({"type": "note", "message": f"no per-size dispatch: {split}"})
            return
        try:
            cand = dispatch.build(self.spec, split, self.cfg.kernel)
            ev = self.inner.evaluate([cand])[0]
        except Exception as e:  # a dispatch that cannot be built or run loses nothing: the best stays
            self.emit({"type": "note", "message": f"per-size dispatch not evaluated: {type(e).__name__}: {e}"})
            return
        try:
            r = reward(ev, self.root[1], self.cfg.objective) if ev.ok else None
        except ValueError:
            r = None
        self.memory.record(make_attempt(self.store.run_id, self.cfg.kernel, str(self.cfg.file), cand, ev,
                                        math.exp(r) if r is not None else None))
        self.emit({"type": "note", "message": f"per-size dispatch ({split.describe()}): "
                   + (f"{math.exp(r):.2f}x against {math.exp(br):.2f}x for the best single kernel" if r is not None
                      else f"failed: {ev.failure or ev.error}")})
        if r is not None and r > max(br, self.best_saved) + math.log1p(SAVE_MARGIN):
            if self.save(cand, ev, math.exp(r), [f"per-size dispatch of {len(split.runs)} candidates"]):
                self.best_saved = r
                self.trim()

    def trim(self) -> None:
        """Keep at most max_branches: a new best is always kept; the oldest (slowest) of this
        run's branches makes room for it."""
        while len(self.branches) > self.cfg.max_branches:
            old = self.branches.pop(0)
            try:
                delete_candidate(self.store.repo.working_tree_dir, old)
                self.emit({"type": "branch_removed", "branch": old, "reason": "superseded by a faster candidate"})
            except Exception as e:  # keeping a branch too many is better than losing one
                self.emit({"type": "note", "message": f"could not remove superseded branch {old}: {e}"})

    def energy(self, c: Candidate, ev: Evaluation) -> None:
        """Energy before and after belongs in every branch's note: measure it if the search did not."""
        if self.cfg.energy is False:
            return
        if not ev.energy_j and hasattr(self.inner, "energy_of"):
            try:
                ev.energy_j = self.inner.energy_of(c)
            except Exception as e:  # energy is evidence, not a reason to lose the branch
                self.emit({"type": "note", "message": f"energy not measured: {e}"})

    def save(self, c: Candidate, ev: Evaluation, speedup: float, path: list[str]) -> bool:
        spec_text = None
        if c.launch or c.flags:
            try:
                spec_text = spec_edit.render_spec(Path(self.spec.path).read_text(), c.full_launch, tuple(c.flags),
                                                  kernel=self.cfg.kernel)
            except (OSError, ValueError) as e:  # no branch whose spec would not be what was measured
                self.emit({"type": "note", "message": f"not saved as a branch: its launch spec: {e}"})
                return False
        checks = guard.confirm(self.inner, self.root, c, self.cfg.objective,
                               self.best_saved + math.log1p(SAVE_MARGIN), self.emit)
        if checks is None:
            return False
        if getattr(self.inner, "mixed_models", False) and "remeasured" in checks:
            speedup = checks["remeasured"]["speedup"]  # timings of several GPU models: report one GPU's
        root_ev = self.root[1]
        self.energy(self.root[0], root_ev)
        self.energy(c, ev)
        e_before = _mean(root_ev.energy_j) if root_ev.energy_j else None
        e_after = _mean(ev.energy_j) if ev.energy_j else None
        args = (self.cfg.objective, speedup, root_ev.times_s, ev.times_s, e_before, e_after, ev.error,
                list(c.answers), path)
        title, body = format_message(self.cfg.kernel, *args)
        body = "\n".join([body.rstrip("\n")] + guard.note_lines(checks)) + "\n" if checks else body
        if c.notes:
            body += "\nBefore you merge (assumptions, and launches to change by hand):\n" + "\n".join(
                f"- {n}" for n in c.notes) + "\n"
        note = make_note(*args)
        note.update({"description": c.description, "flags": list(c.flags), "launch": c.launch,
                     "origin": c.origin, "kind": c.kind, "knobs": dict(c.knobs), "notes": list(c.notes),
                     "resources": {k: v for k, v in ev.resources.items() if k != "spread"}, **(checks or {})})
        rec = self.store.save(self.cfg.kernel, c.source, spec_text, note, title, body)
        self.branches.append(rec.branch)
        self.branch_speedup = speedup
        self.emit({"type": "branch", "branch": rec.branch, "speedup": speedup, "title": title})
        return True


class _Recorded:
    """A parallel evaluator's pending result, recorded when the search reads it."""

    def __init__(self, recorder: Recorder, cand: Candidate, pending):
        self.recorder, self.cand, self.pending = recorder, cand, pending
        self.ev: Evaluation | None = None

    def result(self) -> Evaluation:
        if self.ev is None:
            self.ev = self.pending.result()
            self.recorder.record(self.cand, self.ev)
        return self.ev


def _mean(d: dict) -> float:
    return sum(d.values()) / len(d)


def optimize(cfg: RunConfig, on_event: Callable[[dict], None] | None = None, evaluator=None,
             clock=time.monotonic, backend=None, checked=None) -> RunOutcome:
    """Run the search. `evaluator` is injectable (tests); by default the GPU evaluator, or with `backend`
    (parallel.backend.RayBackend, shared by several runs) its workers, several candidates in flight.
    `checked`: preflight's result when the caller has it already."""
    emit = on_event or (lambda e: None)
    text, repo, spec = checked or preflight(cfg)
    if evaluator is None and backend is None:
        gpu_check()
    try:
        memory = Memory(repo.working_tree_dir)
    except MemoryStoreError as e:
        raise OptimizeError(str(e)) from None
    if evaluator is None:
        energy = cfg.energy if cfg.energy is not None else cfg.objective in ("energy", "edp")
        if backend is not None:
            from .parallel.workers import WorkersError

            try:
                evaluator = backend.evaluator(Path(cfg.file).resolve(), cfg.kernel, spec, cfg.options, energy=energy)
            except WorkersError as e:
                memory.close()
                raise OptimizeError(str(e)) from None
        else:
            from .evaluator import GpuEvaluator

            evaluator = GpuEvaluator(Path(cfg.file).resolve(), cfg.kernel, spec, cfg.options, energy=energy)
    spec_file = getattr(spec, "path", None)
    store = CandidateStore(repo.working_tree_dir, str(Path(cfg.file).resolve()),
                           spec_file=str(spec_file) if spec_file else None)
    recorder = Recorder(evaluator, cfg, store, memory, spec, emit)
    proposer = make_proposer(cfg, spec, memory, emit, evaluator)

    def relay(ev: dict) -> None:
        ev = {**ev, "run": store.run_id, "kernel": cfg.kernel}
        if parse_event(ev).type in ("evaluated", "tuned"):
            recorder.on_node(ev)
        if ev.get("type") == "done":
            recorder.specialise()  # before `done` is told: the evaluator is still open
            ev["best_branch"] = recorder.branches[-1] if recorder.branches else None
            ev["branches"] = list(recorder.branches)
            if recorder.branches:  # the speedup shown with best_branch is that branch's
                ev["speedup"] = recorder.branch_speedup
        emit(ev)

    lessons = memory.lessons_for(cfg.kernel, [], limit=8)
    try:
        result = run_search(Candidate(source=text, description="the kernel as written"), proposer, recorder,
                            cfg.budget, objective=cfg.objective, strategy=cfg.strategy, seed=cfg.seed,
                            on_event=relay, clock=clock, memory_hints=[l.text for l in lessons],
                            batch=getattr(evaluator, "batch", 1),
                            tune_fraction=getattr(proposer, "tune_fraction", 0.25),
                            tune_per_node=getattr(proposer, "tune_per_node", 3))
    finally:
        memory.close()
        close = getattr(evaluator, "close", None)
        if close:
            close()
    if result.stopped_by == "root_failed":
        raise OptimizeError(f"the kernel as written fails its own check: {result.root.evaluation.failure}")
    speedup = recorder.branch_speedup if recorder.branches else result.speedup
    return RunOutcome(store.run_id, recorder.branches[-1] if recorder.branches else None, speedup,
                      result.evaluations, result.failures, result.stopped_by, recorder.branches)
