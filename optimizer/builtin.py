"""BuiltinProposer: the default proposer, built from the expert transforms in transforms.py
and the structural plans of restructure/api.py.

Candidates answering the node's advice come first (prior from the advice's severity and
estimated gain), then speculative ones with the transform's own lower prior; structural
plans (who does what) carry their model's prior. Every candidate is compiled (sm_90 by
default) before it is proposed; those that fail are dropped and recorded in `rejected`.
A structural candidate's numeric knobs are tuned inside its node (`tune`, optimizer/tuning.py).
"""
from __future__ import annotations

import math
import random
from pathlib import Path

from kernelpro.profilers.compile import CompileError, CompileOptions, compile_cuda
from kernelpro.profilers.runtime.roofline import operation_bound
from kernelpro.profilers.source import parse_source

from .model import Candidate, Proposal
from .restructure import api as restructure
from .transforms import TRANSFORMS, Transform, TransformInput
from .tuning import Tuner

_SEVERITY_PRIOR = {"error": 0.9, "warning": 0.8, "info": 0.65, "hint": 0.55}


def advice_prior(advice) -> float:
    """(0, 1]: from the severity, raised by an estimated gain (3x or more gives 0.95)."""
    sev = getattr(advice.severity, "value", advice.severity)
    p = _SEVERITY_PRIOR.get(sev, 0.5)
    g = advice.gain
    if g and g > 1:
        p = max(p, 0.5 + 0.45 * min(1.0, math.log(g) / math.log(3)))
    return min(1.0, p)



def spec_tolerance(spec) -> tuple | None:
    """(rtol, atol, atol_rms) the evaluator checks outputs with at the spec's last size (atol_rms: the part of
    the absolute tolerance that scales with the reference's rms, rtol's where the spec gives no atol)."""
    if spec is None or not hasattr(spec, "rtol"):
        return None
    try:
        t = spec.tolerance(list(spec.sizes)[-1])
        return t.rtol, t.atol, t.atol_rms
    except Exception:  # a spec without sizes or outputs: what it says
        return spec.rtol, spec.atol

class BuiltinProposer:
    name = "builtin"

    def __init__(self, kernel: str, base_launch: dict, size_names: list[str], seed: int = 0, *,
                 arch: str = "sm_90", path: str | None = None, transforms: list[Transform] | None = None,
                 compile_options: CompileOptions | None = None, spec=None, structural: bool = True):
        self.kernel = kernel
        self.scalar_params = scalar_params_of(spec, kernel, path) if spec is not None else {}
        self.size_env = size_env(spec, kernel, self.scalar_params) if spec is not None else {}
        self.structural = structural
        self.tolerance = spec_tolerance(spec)
        self.template = tuple(getattr(spec, "template", ()) or ()) if spec is not None else ()
        self.steps = tuple((s.kernel, tuple(str(a) for a in s.args)) for s in spec.launches
                           if not s.memset and not s.host) if spec is not None else ()
        self.bound = operation_bound_of(spec)  # "compute-bound": the matrix-product rewrites go first
        # and their tile knobs get more of the budget: on a GPU, a product's first tile setting was 0.46x of
        # cuBLAS while the local children of the tiled kernel (unroll, launch bounds) only lost speed
        self.tune_fraction, self.tune_per_node = (0.5, 4) if self.bound == "compute-bound" else (0.25, 3)
        self.tuner = Tuner(arch=arch)
        self.plans_refused: dict[str, list[str]] = {}  # node candidate key -> why plans did not apply
        self._registers: dict[str, int | None] = {}
        self.base_launch = dict(base_launch or {})
        self.size_names = list(size_names or [])
        self.seed = seed
        self.arch = arch
        self.path = str(Path(path or "kernelpro_candidate.cu").resolve())
        self.transforms = list(TRANSFORMS if transforms is None else transforms)
        self.options = compile_options or CompileOptions(arch=arch)
        self.rejected: list[tuple[str, str]] = []  # (description, reason)
        self._proposed: dict[str, set[str]] = {}  # node candidate key -> keys proposed for it
        self._compiled: dict[str, str | None] = {}  # candidate key -> None (ok) or the reason

    # ------------------------------------------------------------ inputs
    def input_for(self, node) -> TransformInput:
        cand: Candidate = node.candidate
        launch = dict(self.base_launch)
        launch.update(cand.launch or {})
        ev = node.evaluation
        advice = [a for a in (ev.advice if ev is not None else []) if getattr(a, "kernel", None) in (None, self.kernel)]
        return TransformInput(source=cand.source, kernel=self.kernel, advice=advice, launch=launch,
                              flags=tuple(cand.flags), size_names=self.size_names,
                              resources=dict(ev.resources) if ev is not None else {},
                              base_launch=cand.launch)

    def candidates(self, inp: TransformInput) -> list[tuple[Candidate, float]]:
        """Every transform's candidates with their priors, best first; deterministic."""
        out = []
        for order, t in enumerate(self.transforms):
            try:
                cands = t.apply(inp)
            except Exception as e:  # a transform bug must not stop the search
                self.rejected.append((t.name, f"transform raised {type(e).__name__}: {e}"))
                continue
            for j, c in enumerate(cands):
                priors = [advice_prior(a) for a in inp.advice if a.rule in c.answers]
                prior = max(priors) if priors else t.prior
                out.append((c, prior, order, j))
        rng = random.Random(f"{self.seed}:{Candidate(inp.source, inp.base_launch, inp.flags).key()}")
        jitter = {id(c): rng.random() for c, *_ in out}
        # answered advice first, then the transform order; the seed breaks ties among speculative ones
        if self.structural:
            for j, (c, prior) in enumerate(self.structural_candidates(inp)):
                out.append((c, prior, -1, j))
                jitter[id(c)] = -1.0
        out.sort(key=lambda x: (-x[1], x[2] if x[0].answers else jitter[id(x[0])], x[3]))
        return [(c, p) for c, p, *_ in out]

    def structural_candidates(self, inp: TransformInput) -> list[tuple[Candidate, float]]:
        """Each applicable plan's candidate at its model's first knob setting that builds."""
        ctx = restructure.Context(kernel=self.kernel, path=self.path, launch=inp.launch, base_launch=inp.base_launch,
                                  size_env=self.size_env, arch=self.arch,
                                  answers_present=tuple(a.rule for a in inp.advice), flags=inp.flags,
                                  scalar_params=self.scalar_params, tolerance=self.tolerance, steps=self.steps,
                                  template=self.template)
        plans, why = restructure.plans(inp.source, ctx)
        out = []
        for plan in plans:
            for knobs in plan.space:
                try:
                    c = plan.build(knobs)
                except restructure.Refuse as e:
                    why.append(f"{plan.name} {knobs}: {e}")
                    continue
                self.tuner.register(c, plan)
                for t in plan.space:  # the settings tried before this one failed to build
                    if t is knobs:
                        break
                    self.tuner.states[c.key()].tried.add(_knobs(t))
                priors = [advice_prior(a) for a in inp.advice if a.rule in c.answers]
                prior = max([plan.prior] + priors)
                if self.bound == "compute-bound" and plan.name in COMPUTE_PLANS:
                    prior = 1.0  # the roofline says the FLOPs bound it: the budget goes to these first
                out.append((c, prior))
                break
        self.plans_refused[Candidate(inp.source, inp.base_launch, inp.flags).key()] = why
        return out

    # ------------------------------------------------------------ tuning inside a node
    def tune(self, node, ctx, k: int = 1) -> list[Proposal]:
        """Up to k untried knob settings of the node's structural candidate (never children)."""
        out = []
        while len(out) < k:
            v = self.tuner.next_variant(node.candidate, self.compile_error, self.registers_of)
            if v is None:
                break
            if ctx is not None and ctx.is_known(v):
                continue
            out.append(Proposal(v, 0.5))
        return out

    def tuned(self, node, variant: Candidate, better: bool) -> None:
        self.tuner.measured(node.candidate, variant, better)

    def registers_of(self, c: Candidate) -> int | None:
        if c.key() not in self._registers:
            self.compile_error(c)
        return self._registers.get(c.key())

    # ------------------------------------------------------------ checks
    def compile_error(self, c: Candidate) -> str | None:
        key = c.key()
        if key not in self._compiled:
            opts = CompileOptions(arch=self.options.arch, include_paths=self.options.include_paths,
                                  defines=self.options.defines,
                                  extra_flags=tuple(self.options.extra_flags) + tuple(c.flags),
                                  timeout_s=self.options.timeout_s)
            try:
                art = compile_cuda(self.path, opts, text=c.source)
            except CompileError as e:
                self._compiled[key] = f"compile: {e}"
            else:
                if not art.ok:
                    errs = "; ".join(d.message for d in art.errors[:3]) or "nvcc failed"
                    self._compiled[key] = f"compile: {errs}"
                elif self.kernel and not art.builds(self.kernel):
                    self._compiled[key] = f"compile: kernel {self.kernel!r} is missing from the build"
                else:
                    self._compiled[key] = None
                    b = art.builds(self.kernel) if self.kernel else art.kernels
                    self._registers[key] = b[0].resources.registers if b else None
        return self._compiled[key]

    # ------------------------------------------------------------ protocol
    def propose(self, node, ctx, k: int) -> list[Proposal]:
        if node.candidate.runs_host_launcher:
            return []  # a library launcher runs the operation: nothing of the kernel is left to change
        inp = self.input_for(node)
        own = node.candidate.key()
        done = self._proposed.setdefault(own, set())
        out: list[Proposal] = []
        for c, prior in self.candidates(inp):
            if len(out) >= k:
                break
            key = c.key()
            if key == own or key in done or (ctx is not None and ctx.is_known(c)):
                continue
            done.add(key)
            err = self.compile_error(c)
            if err:
                self.rejected.append((c.description, err))
                continue
            out.append(Proposal(c, round(min(1.0, max(0.01, prior)), 4)))
        return out


def _knobs(knobs: dict) -> str:
    from .tuning import knob_text
    return knob_text(knobs)


COMPUTE_PLANS = ("matmul-library", "matmul-wmma", "matmul-3xtf32", "matmul-tiles", "matmul-coalesce")


def operation_bound_of(spec) -> str | None:
    """The roofline's verdict on the operation at the spec's largest size ([cost] flops over the bytes
    moved), None without a [cost] flops."""
    if spec is None or not getattr(spec, "cost", None) or spec.cost.get("flops") is None:
        return None
    verdicts = []
    for size in getattr(spec, "sizes", {}) or {}:
        try:
            verdicts.append((spec.bytes_moved(size), operation_bound(spec.flops(size), spec.bytes_moved(size))))
        except Exception:  # a size the expressions cannot evaluate: no verdict from it
            continue
    return max(verdicts, key=lambda v: v[0] or 0)[1] if verdicts else None


def scalar_params_of(spec, kernel: str, path=None) -> dict[str, str]:
    """kernel scalar parameter -> the spec's expression for it, as the kernel's first launch passes it: by position
    through that step's arguments (a [[launches]] step may pass `P` to a parameter named N), else by name (the
    [launch] form passes the spec's args, named as the parameters)."""
    values = {a.name: str(a.value) for a in getattr(spec, "args", []) if a.value is not None}
    step = next((s for s in getattr(spec, "launches", []) if s.kernel == kernel and not s.memset), None)
    k = None
    if step is not None and step.args and path is not None and Path(path).is_file():
        try:
            k = parse_source(Path(path).read_text(), str(path)).kernel(kernel)
        except Exception:  # unreadable source: the names it is
            k = None
    if k is None or len(k.params) != len(step.args):
        return values
    return {p.name: values.get(str(a), str(a)) for p, a in zip(k.params, step.args) if not p.is_pointer}


def size_env(spec, kernel: str, scalars: dict[str, str] | None = None) -> dict[str, dict[str, int]]:
    """size name -> values of the spec's size variables and of the kernel's scalar parameters."""
    if scalars is None:
        scalars = {a.name: a.value for a in getattr(spec, "args", []) if a.value is not None}
    out = {}
    for size in getattr(spec, "sizes", {}) or {}:
        env = dict(spec.sizes[size])
        for name, expr in scalars.items():
            try:
                v = spec.eval(expr, size)
            except Exception:
                continue
            if isinstance(v, (int, float)):
                env[name] = v
        out[size] = env
    return out
