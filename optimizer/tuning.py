"""Tuning inside a node: the numeric knobs of a structural candidate (block size, elements per
access or per thread, rows per block, cluster size) are tried by the search as variants of
that node, never as tree children.

A plan's knob settings come ordered by its performance model (restructure/api.py). Where the plan's
first settings are each size's own likely best (a matrix product's tiles for 4096^3 and for 256 x 384),
those are tried first, so that the per-size dispatch has one for every size. Then the next
setting tried is the untried one nearest the node's current one (a hill climb: after 512
threads beat 1024, 256 and 512 with more loads in flight come before 1024 with fewer), the
model's order breaking ties. Before a
setting costs GPU time it must compile, and the occupancy calculator must give it at least
half the occupancy of the setting in place (a block size the registers cannot fill is
dropped). A setting measured slower is remembered per plan kind, and not tried again under
another node of the same kind.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from kernelpro.profilers.occupancy import occupancy

from .model import Candidate
from .restructure.text import Refuse


def knob_text(knobs) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(dict(knobs).items()))


def knob_distance(a: dict, b: dict) -> float:
    """Steps between two settings: octaves for numbers (block 256 -> 1024 is 2), 1 for a switch."""
    d = 0.0
    for k in set(a) | set(b):
        x, y = a.get(k), b.get(k)
        if x == y:
            continue
        if isinstance(x, (int, float)) and isinstance(y, (int, float)) and x > 0 and y > 0:
            d += abs(math.log2(x / y))
        else:
            d += 1.0
    return d


@dataclass
class PlanState:
    plan: object  # restructure.api.Plan
    tried: set = field(default_factory=set)  # knob texts built (evaluated or refused)


@dataclass
class Tuner:
    arch: str = "sm_90"
    states: dict = field(default_factory=dict)  # candidate key -> PlanState
    slower: dict = field(default_factory=dict)  # plan name -> set of knob texts measured slower
    pruned: list = field(default_factory=list)  # (plan, knobs, why) settings dropped before the GPU

    def register(self, cand: Candidate, plan) -> None:
        st = self.states.get(cand.key())
        if st is None:
            st = PlanState(plan)
        st.tried.add(knob_text(cand.knobs))
        self.states[cand.key()] = st

    def tunable(self, cand: Candidate) -> bool:
        return cand.key() in self.states

    def next_variant(self, cand: Candidate, compile_check, registers_of) -> Candidate | None:
        """The next untried knob setting of cand's plan that compiles and fills the SMs
        about as well; None when the plan's space is used up."""
        st = self.states.get(cand.key())
        if st is None:
            return None
        plan = st.plan
        base_occ = self._occupancy(cand, registers_of)
        here = dict(cand.knobs)
        heads = {knob_text(h) for h in getattr(plan, "heads", ())}  # each size's own likely best first (the per-size
        # dispatch takes them)
        order = sorted(range(len(plan.space)),
                       key=lambda i: (knob_text(plan.space[i]) not in heads, knob_distance(here, plan.space[i]), i))
        for knobs in (plan.space[i] for i in order):
            t = knob_text(knobs)
            if t in st.tried or t in self.slower.get(plan.name, set()):
                continue
            st.tried.add(t)
            try:
                variant = plan.build(knobs)
            except Refuse as e:
                self.pruned.append((plan.name, t, f"not built: {e}"))
                continue
            err = compile_check(variant)
            if err:
                self.pruned.append((plan.name, t, err))
                continue
            occ = self._occupancy(variant, registers_of)
            if base_occ and occ is not None and occ < 0.5 * base_occ:
                self.pruned.append((plan.name, t, f"occupancy {occ:.0%} against {base_occ:.0%}"))
                continue
            self.states[variant.key()] = st
            return variant
        return None

    def measured(self, cand: Candidate, variant: Candidate, better: bool) -> None:
        st = self.states.get(cand.key())
        if st is not None and not better:
            self.slower.setdefault(st.plan.name, set()).add(knob_text(variant.knobs))

    def _occupancy(self, cand: Candidate, registers_of) -> float | None:
        block = (cand.launch or {}).get("block")
        regs = registers_of(cand)
        if not block or regs is None:
            return None
        try:
            threads = 1
            for b in block:
                threads *= int(b)
            return occupancy(self.arch, threads, regs).occupancy
        except (TypeError, ValueError):
            return None
