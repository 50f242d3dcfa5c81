"""BuiltinProposer: the default proposer, built from the expert transforms in transforms.py.

Candidates answering the node's advice come first (prior from the advice's severity and
estimated gain), then speculative ones with the transform's own lower prior. Every
candidate is compiled (sm_90 by default) before it is proposed; those that fail are
dropped and recorded in `rejected`.
"""
from __future__ import annotations

import math
import random
from pathlib import Path

from kernelpro.profilers.compile import CompileError, CompileOptions, compile_cuda

from .model import Candidate, Proposal
from .transforms import TRANSFORMS, Transform, TransformInput

_SEVERITY_PRIOR = {"error": 0.9, "warning": 0.8, "info": 0.65, "hint": 0.55}


def advice_prior(advice) -> float:
    """(0, 1]: from the severity, raised by an estimated gain (3x or more gives 0.95)."""
    sev = getattr(advice.severity, "value", advice.severity)
    p = _SEVERITY_PRIOR.get(sev, 0.5)
    g = advice.gain
    if g and g > 1:
        p = max(p, 0.5 + 0.45 * min(1.0, math.log(g) / math.log(3)))
    return min(1.0, p)


class BuiltinProposer:
    name = "builtin"

    def __init__(self, kernel: str, base_launch: dict, size_names: list[str], seed: int = 0, *,
                 arch: str = "sm_90", path: str | None = None, transforms: list[Transform] | None = None,
                 compile_options: CompileOptions | None = None):
        self.kernel = kernel
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
        out.sort(key=lambda x: (-x[1], x[2] if x[0].answers else jitter[id(x[0])], x[3]))
        return [(c, p) for c, p, *_ in out]

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
        return self._compiled[key]

    # ------------------------------------------------------------ protocol
    def propose(self, node, ctx, k: int) -> list[Proposal]:
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
