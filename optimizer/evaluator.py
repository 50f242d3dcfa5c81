"""The GPU evaluator: compile candidates in parallel on the CPU cores, time them one at a time.

Each candidate is profiled statically (its advice feeds the proposers), then run by the GPU
runtime on fresh random inputs at every size of the launch spec and timed; failures come
back as data (Evaluation.ok = False with a reason), never as exceptions.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from kernelpro.profilers.compile import CompileOptions
from kernelpro.profilers.profile import profile_file

from .model import Candidate, Evaluation


def spec_options(options: CompileOptions, spec) -> CompileOptions:
    """The spec's own [compile] flags apply to every candidate."""
    if getattr(spec, "flags", ()):
        options = replace(options, extra_flags=tuple(options.extra_flags) + tuple(spec.flags))
    return options


def compile_options(base: CompileOptions, cand: Candidate) -> CompileOptions:
    return replace(base, extra_flags=tuple(base.extra_flags) + tuple(cand.flags))


def static_evaluation(path: Path, kernel: str, cand: Candidate, options: CompileOptions):
    """(ProfileReport, failed Evaluation or None) for one candidate."""
    rep = profile_file(path, compile_options(options, cand), text=cand.source, kernel=kernel)
    if not rep.ok:
        errs = "; ".join(f"line {d.line}: {d.message}" for d in rep.errors[:3]) or "nvcc failed"
        return rep, Evaluation(ok=False, failure=f"compile: {errs}")
    if not rep.kernels or rep.kernels[0].registers is None:
        return rep, Evaluation(ok=False, failure=f"compile: kernel '{kernel}' not found in the candidate")
    return rep, None


@dataclass
class Static:
    """The CPU half of an evaluation, as plain data (it crosses processes under Ray): the advice and
    resources of the static profile, or the failed Evaluation when the candidate did not compile."""

    failed: Evaluation | None
    advice: list = field(default_factory=list)
    resources: dict = field(default_factory=dict)


def static_of(path: Path, kernel: str, cand: Candidate, options: CompileOptions) -> Static:
    rep, failed = static_evaluation(path, kernel, cand, options)
    return Static(failed) if failed is not None else Static(None, list(rep.advice), resources_of(rep))


def resources_of(rep) -> dict:
    k = rep.kernels[0]
    return {"registers": k.registers, "spill_stores": k.spill_stores, "spill_loads": k.spill_loads,
            "stack_bytes": k.stack_bytes, "shared_bytes": k.shared_bytes, "occupancy": k.occupancy}


class GpuEvaluator:
    """Evaluator over the GPU runtime (kernelpro.profilers.runtime)."""

    def __init__(self, path: Path, kernel: str, spec, options: CompileOptions = CompileOptions(),
                 energy: bool = False, timeout_s: float = 60.0, env: dict[str, str] | None = None,
                 command: list[str] | None = None, pool=None):
        from kernelpro.profilers.runtime.worker import WorkerPool

        options = spec_options(options, spec)
        self.path, self.kernel, self.spec, self.options, self.energy = Path(path), kernel, spec, options, energy
        self.env, self.command = env, command  # the GPU worker's environment and command (None: the defaults)
        self.owns_pool = pool is None  # a pool given (shared by several kernels on one GPU) stays open
        self.pool = WorkerPool(timeout_s=timeout_s, env=env, command=command) if pool is None else pool
        self.reports: dict[str, object] = {}  # candidate key -> ProfileReport
        self._ceilings: dict | None = None

    def evaluate(self, candidates: list[Candidate]) -> list[Evaluation]:
        workers = max(1, min(len(candidates), os.cpu_count() or 1))
        with ThreadPoolExecutor(max_workers=workers) as ex:
            static = list(ex.map(lambda c: static_evaluation(self.path, self.kernel, c, self.options), candidates))
        out = []
        for cand, (rep, failed) in zip(candidates, static):
            self.reports[cand.key()] = rep
            if failed is not None:
                out.append(failed)
                continue
            out.append(self._run(cand, rep.advice, resources_of(rep)))
        return out

    def spec_for(self, cand: Candidate):
        """The spec with the candidate's launch, its kernels and arguments checked against the candidate's own
        source (a dispatch launches a kernel that only the candidate has)."""
        if not cand.launch:
            return self.spec
        from kernelpro.profilers.source import parse_source

        return self.spec.with_launch(cand.full_launch, parse_source(cand.source, str(self.path)))

    def static(self, cand: Candidate) -> Static:
        """The CPU half of evaluate (compile and static profile); Ray runs it as a CPU task."""
        return static_of(self.path, self.kernel, cand, self.options)

    def measure(self, cand: Candidate, static: Static) -> Evaluation:
        """The GPU half of evaluate, given the CPU half; a Ray actor runs it on its GPU."""
        return static.failed or self._run(cand, static.advice, dict(static.resources))

    def _run(self, cand: Candidate, advice: list, resources: dict) -> Evaluation:
        from kernelpro.profilers.runtime.measure import evaluate

        try:
            spec = self.spec_for(cand)
        except Exception as e:  # SpecError: e.g. a block of more than 1024 threads from the model
            return Evaluation(ok=False, failure=f"launch: {e}", advice=advice, resources=resources)
        try:
            res = evaluate(self.path, spec, compile_options(self.options, cand), source_text=cand.source,
                           timing=True, energy=self.energy, pool=self.pool, ref_options=self.options)
            self.judge(spec, res, cand, pool=self.pool)
        except Exception as e:  # the runtime reports failures as data; anything else is a bug, kept as data too
            return Evaluation(ok=False, failure=f"crash: evaluator error {e!r}", advice=advice, resources=resources)
        return to_evaluation(res, advice, resources)

    def judge(self, spec, res, cand: Candidate, pool) -> None:
        """A time beyond the device's measured ceilings fails the evaluation (measure.judge_ceilings)."""
        from kernelpro.profilers.compile import compile_cuda
        from kernelpro.profilers.runtime.ceilings import get_ceilings
        from kernelpro.profilers.runtime.measure import judge_ceilings

        if not res.ok:
            return
        if self._ceilings is None:
            try:
                self._ceilings = get_ceilings(pool)
            except Exception:  # without ceilings nothing is judged; the run says so in its notes
                self._ceilings = {}
        art = compile_cuda(self.path, compile_options(self.options, cand), text=cand.source)
        judge_ceilings(spec, res, self._ceilings, art)

    def remeasure(self, candidates: list[Candidate]) -> list[Evaluation]:
        """The candidates evaluated again in a fresh worker process (a new best, before its branch)."""
        from kernelpro.profilers.runtime.worker import WorkerPool

        fresh = WorkerPool(timeout_s=self.pool.timeout_s, env=self.env, command=self.command)
        old, self.pool = self.pool, fresh
        try:
            return self.evaluate(candidates)
        finally:
            self.pool = old
            fresh.close()

    def sanitize(self, cand: Candidate) -> dict:
        """Compute Sanitizer (memcheck, racecheck, initcheck) on one launch of the candidate, where present."""
        from kernelpro.profilers.runtime.sanitizer import sanitize_spec

        spec = self.spec_for(cand)
        return sanitize_spec(self.path, spec, compile_options(self.options, cand), source_text=cand.source,
                             pool_timeout_s=self.pool.timeout_s)

    def energy_of(self, cand: Candidate) -> dict[str, float]:
        """Energy per launch at the largest size (NVML over >= 1.5 s of launches), for a branch's note."""
        from kernelpro.profilers.runtime.measure import evaluate

        spec = self.spec_for(cand)
        largest = list(spec.sizes)[-1]
        res = evaluate(self.path, spec, compile_options(self.options, cand), source_text=cand.source,
                       timing=False, energy=True, pool=self.pool, sizes=[largest], ref_options=self.options)
        out = {}
        for size, e in (res.energy or {}).items():
            if isinstance(e, dict) and e.get("energy_j") is not None:
                out[size] = e["energy_j"]
        return out

    def close(self):
        if self.owns_pool:
            self.pool.close()


def to_evaluation(res, advice: list, resources: dict) -> Evaluation:
    """RunResult (runtime) -> Evaluation (search), with the static profile's advice and resources."""
    if not res.ok:
        return Evaluation(ok=False, failure=res.failure or "failed", advice=advice, resources=resources)
    times = {s.size: s.time_s for s in res.sizes}
    energy = {}
    if res.energy:
        for size, e in res.energy.items():
            j = e.get("energy_j") if isinstance(e, dict) else e
            if j is not None:
                energy[size] = j
    err = {"max_abs": max((s.check.get("max_abs", 0.0) for s in res.sizes), default=0.0),
           "max_rel": max((s.check.get("max_rel", 0.0) for s in res.sizes), default=0.0),
           "rel_l2": max((s.check.get("rel_l2", 0.0) for s in res.sizes), default=0.0)}
    spreads = {s.size: s.spread for s in res.sizes}
    ev = Evaluation(ok=True, times_s=times, energy_j=energy, error=err, advice=advice, resources=resources)
    ev.resources["spread"] = spreads
    state = sorted({n for s in res.sizes for n in s.device_state})
    if state:  # device state is a risk the runner answers by resetting it before every launch
        ev.resources["device_state"] = state
    return ev
