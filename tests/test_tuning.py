"""Tuning inside a node (optimizer/tuning.py, search.tune_step) and `optimize --propose-only`."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest

from kernelpro.optimizer.builtin import BuiltinProposer
from kernelpro.optimizer.model import Budget, Candidate, Evaluation, Proposal
from kernelpro.optimizer.restructure.api import Plan
from kernelpro.optimizer.restructure.text import Refuse
from kernelpro.optimizer.search import run_search
from kernelpro.optimizer.transforms import TransformInput
from kernelpro.optimizer.tuning import Tuner, knob_text

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(HERE, "..", "benchmarks", "suite")


def _plan(name="row-warp", space=None, fail=()):
    space = space or [{"block": b} for b in (256, 128, 512, 1024)]

    def build(knobs):
        if knobs["block"] in fail:
            raise Refuse("not this one")
        return Candidate(source=f"// {name} {knobs['block']}", launch={"block": [knobs["block"]], "grid": ["1"]},
                         description=f"{name} {knobs}", origin=f"builtin:{name}", kind="structural",
                         knobs=tuple(sorted(knobs.items())))
    return Plan(name, name, (), space, build)


def test_tuner_walks_the_space_in_model_order_and_skips_what_fails():
    plan = _plan(fail=(128,))
    t = Tuner()
    first = plan.build(plan.space[0])
    t.register(first, plan)
    ok = lambda c: None  # noqa: E731
    regs = lambda c: 32  # noqa: E731
    got = []
    while (v := t.next_variant(first, ok, regs)) is not None:
        got.append(dict(v.knobs)["block"])
    assert got == [512, 1024]
    assert any("not built" in why for _, _, why in t.pruned)



def _plan2(space):
    def build(knobs):
        return Candidate(source=f"// {knob_text(knobs)}", launch={"block": [knobs["block"]], "grid": ["1"]},
                         description=knob_text(knobs), origin="builtin:row-block", kind="structural",
                         knobs=tuple(sorted(knobs.items())))
    return Plan("row-block", "row-block", (), space, build)


def test_the_tuner_climbs_from_the_setting_that_won():
    space = [{"block": 1024, "unroll": 4}, {"block": 512, "unroll": 4}, {"block": 1024, "unroll": 8},
             {"block": 512, "unroll": 8}, {"block": 1024, "unroll": 1}]
    plan = _plan2(space)
    t = Tuner()
    first = plan.build(space[0])
    t.register(first, plan)
    v = t.next_variant(first, lambda c: None, lambda c: 32)
    assert dict(v.knobs) == {"block": 512, "unroll": 4}  # a neighbour, in the model's order
    # 512 threads won: the node now holds it, and the next step goes on from there
    w = t.next_variant(v, lambda c: None, lambda c: 32)
    assert dict(w.knobs) == {"block": 512, "unroll": 8}
    # had it lost, the node keeps 1024 x 4 and its other neighbour comes next
    t2 = Tuner()
    t2.register(first, plan)
    t2.next_variant(first, lambda c: None, lambda c: 32)
    assert dict(t2.next_variant(first, lambda c: None, lambda c: 32).knobs) == {"block": 1024, "unroll": 8}


def test_each_size_s_own_best_setting_is_tuned_before_the_neighbours():
    """A plan whose first settings are each size's likely best (a product's 128 x 128 tiles for 4096^3, 32 x 32 for
    256 x 384: restructure.api.per_size_order) has them tried first, however far from the node's setting, so the
    per-size dispatch has a candidate for every size; then the hill climb as before."""
    space = [{"block": 1024, "unroll": 4}, {"block": 64, "unroll": 1}, {"block": 512, "unroll": 4},
             {"block": 1024, "unroll": 8}]
    plan = _plan2(space)
    plan.heads = [space[0], space[1]]
    t = Tuner()
    first = plan.build(space[0])
    t.register(first, plan)
    got = []
    while (v := t.next_variant(first, lambda c: None, lambda c: 32)) is not None:
        got.append(dict(v.knobs))
    assert got == [space[1], space[2], space[3]]
    plan.heads = []  # without heads: the nearest first, the far one last
    t = Tuner()
    t.register(first, plan)
    assert dict(t.next_variant(first, lambda c: None, lambda c: 32).knobs) == space[2]


def test_long_rows_offer_fewer_threads_with_more_loads_in_flight():
    from kernelpro.optimizer.restructure import api
    path, _, base, p = _suite_proposer("crossentropy")
    plans, _ = api.plans(open(path).read(), api.Context(
        kernel=p.kernel, path=p.path, launch=dict(base), base_launch=None, size_env=p.size_env,
        arch="sm_90", answers_present=(), flags=(), scalar_params=p.scalar_params))
    block = next(pl for pl in plans if pl.name == "row-block")
    assert block.space[0] == {"block": 1024, "vec": 4, "unroll": 4}
    assert {"block": 512, "vec": 4, "unroll": 8} in block.space and {"block": 1024, "vec": 4, "unroll": 8} in block.space


def test_occupancy_prunes_settings_before_any_gpu_time():
    plan = _plan()
    t = Tuner()
    first = plan.build(plan.space[0])
    t.register(first, plan)
    # 255 registers per thread: 1024 threads cannot even fit one block, 512 fit one (25%)
    regs = lambda c: 32 if dict(c.knobs)["block"] == 256 else 255  # noqa: E731
    v = t.next_variant(first, lambda c: None, regs)
    assert v is None
    assert {k for _, k, _ in t.pruned} == {"block=128", "block=512", "block=1024"}


def test_a_setting_measured_slower_is_not_tried_again_under_another_node():
    plan = _plan()
    t = Tuner()
    a = plan.build(plan.space[0])
    t.register(a, plan)
    v = t.next_variant(a, lambda c: None, lambda c: 32)
    t.measured(a, v, better=False)  # block 128 was slower
    other = Candidate(source="// another node of the same plan kind", launch={"block": [256]}, kind="structural",
                      knobs=(("block", 256),))
    t.register(other, _plan())
    got = []
    while (w := t.next_variant(other, lambda c: None, lambda c: 32)) is not None:
        got.append(knob_text(w.knobs))
    assert "block=128" not in got and got == ["block=512", "block=1024"]


class Landscape:
    """Evaluator: the structural plan is 10x faster; block 512 a little faster still."""

    def evaluate(self, cands):
        out = []
        for c in cands:
            t = 1.0 if c.kind == "root" else 0.1 if c.kind == "structural" else 0.99
            t *= {512: 0.9, 1024: 1.2}.get(dict(c.knobs).get("block"), 1.0)
            out.append(Evaluation(ok=True, times_s={"s": t}))
        return out


class PlanProposer:
    """A structural child and local children under every node; the structural one tunable."""
    name = "test"

    def __init__(self):
        self.tuner = Tuner()
        self.n = 0

    def propose(self, node, ctx, k):
        out = []
        if node.parent is None and not node.children:
            plan = _plan()
            c = plan.build(plan.space[0])
            self.tuner.register(c, plan)
            out.append(Proposal(c, 0.9))
        for _ in range(k - len(out)):
            self.n += 1
            out.append(Proposal(Candidate(source=node.candidate.source + f"\n// edit {self.n}", kind="local",
                                          knobs=node.candidate.knobs, description=f"edit {self.n}"), 0.3))
        return out

    def tune(self, node, ctx, k=1):
        v = self.tuner.next_variant(node.candidate, lambda c: None, lambda c: 32)
        return [Proposal(v, 0.5)] if v is not None else []

    def tuned(self, node, variant, better):
        self.tuner.measured(node.candidate, variant, better)


@pytest.mark.parametrize("budget", [8, 16, 20])
def test_tuning_stays_inside_the_node_and_within_a_quarter_of_the_budget(budget):
    events = []
    res = run_search(Candidate(source="// root", description="root"), PlanProposer(), Landscape(),
                     Budget(evaluations=budget), on_event=events.append)
    tuned = [e for e in events if e["type"] == "tuned"]
    assert 1 <= len(tuned) <= budget // 4
    assert res.evaluations == budget  # tuning counts against the budget
    # a tuned variant never becomes a child: the tree holds only proposals
    assert all(e["type"] != "evaluated" or e.get("knobs", {}).get("block") in (None, 256) or e["parent"] is not None
               for e in events)
    best = res.best
    assert dict(best.candidate.knobs).get("block") == 512  # the faster setting replaced the node's
    assert best.speedup == pytest.approx(1 / (0.1 * 0.9))
    done = events[-1]
    assert done["type"] == "done" and done["tuning_evaluations"] == len(tuned)
    assert done["launch_only_evaluations"] <= budget // 4


class TwoTeams(PlanProposer):
    """Two structural children of about the same speed (a warp and a block per row)."""

    def __init__(self):
        super().__init__()
        self.teams = ["row-warp", "row-block"]

    def propose(self, node, ctx, k):
        out = []
        while node.parent is None and self.teams and len(out) < k:
            plan = _plan(self.teams.pop(0))
            c = plan.build(plan.space[0])
            self.tuner.register(c, plan)
            out.append(Proposal(c, 0.9))
        for _ in range(k - len(out)):
            self.n += 1
            out.append(Proposal(Candidate(source=node.candidate.source + f"\n// edit {self.n}", kind="local",
                                          knobs=node.candidate.knobs, description=f"edit {self.n}"), 0.3))
        return out


class TeamLandscape:
    """The warp team 0.100, the block team 0.105; the block team at 128 threads 0.07 (the best)."""

    def evaluate(self, cands):
        out = []
        for c in cands:
            if c.kind == "root":
                t = 1.0
            elif c.origin == "builtin:row-block":
                t = 0.07 if dict(c.knobs)["block"] == 128 else 0.105
            elif c.origin == "builtin:row-warp":
                t = 0.1 * (1.02 if dict(c.knobs)["block"] != 256 else 1.0)
            else:
                t = 0.99
            out.append(Evaluation(ok=True, times_s={"s": t}))
        return out


def test_a_structural_sibling_within_ten_percent_of_the_best_is_tuned_too():
    events = []
    res = run_search(Candidate(source="// root", description="root"), TwoTeams(), TeamLandscape(),
                     Budget(evaluations=16), on_event=events.append)
    tuned = [e for e in events if e["type"] == "tuned"]
    assert {e["origin"] for e in tuned} == {"builtin:row-warp", "builtin:row-block"}
    assert len(tuned) <= 4
    assert res.best.candidate.origin == "builtin:row-block" and dict(res.best.candidate.knobs)["block"] == 128


class SizeLandscape:
    """Two sizes: the warp team wins the small one and the geometric mean (the best); the block team is 40% faster
    at the large one, and at 128 threads faster still there though slower at the small one."""

    def evaluate(self, cands):
        out = []
        for c in cands:
            if c.kind == "root":
                t = (1.0, 1.0)
            elif c.origin == "builtin:row-warp":
                t = (0.01, 0.5)
            elif c.origin == "builtin:row-block":
                t = (0.08, 0.2) if dict(c.knobs)["block"] == 128 else (0.05, 0.3)
            else:
                t = (0.99, 0.99)
            out.append(Evaluation(ok=True, times_s={"small": t[0], "large": t[1]}))
        return out


def test_a_node_fastest_at_some_size_is_tuned_at_that_size():
    """Far from the best's geometric mean, but the fastest at the large size: the per-size dispatch's other half,
    so its knobs are tuned too, and a setting faster at the large size replaces its own."""
    events = []
    res = run_search(Candidate(source="// root", description="root"), TwoTeams(), SizeLandscape(),
                     Budget(evaluations=16), on_event=events.append)
    block = [e for e in events if e["type"] == "tuned" and e["origin"] == "builtin:row-block"]
    assert block, [e["origin"] for e in events if e["type"] == "tuned"]
    assert any(e["better"] and e["knobs"]["block"] == 128 for e in block)
    assert res.best.candidate.origin == "builtin:row-warp"  # the geometric mean still picks the best
    # the energy objective has no per-size leaders: nothing but the best's band is tuned
    events = []
    for_energy = SizeLandscape()
    run_search(Candidate(source="// root", description="root"), TwoTeams(), for_energy, Budget(evaluations=16),
               on_event=events.append, objective="edp")
    assert not [e for e in events if e["type"] == "tuned" and e["origin"] == "builtin:row-block"]


def _suite_proposer(family="softmax", stem="naive"):
    from kernelpro.optimizer import spec_edit
    from kernelpro.profilers.runtime.spec import load_spec
    path = os.path.join(SUITE, family, f"{stem}.cu")
    spec = load_spec(path[:-3] + ".kernelpro.toml")
    base = spec_edit.base_launch(spec)
    return path, spec, base, BuiltinProposer(spec.kernel, base, [], path=path, spec=spec)


def test_block_size_is_never_a_child_and_structural_plans_come_first():
    path, spec, base, p = _suite_proposer()
    inp = TransformInput(source=open(path).read(), kernel=spec.kernel, launch=dict(base), base_launch=None)
    cands = p.candidates(inp)
    kinds = [c.kind for c, _ in cands]
    assert "launch" not in kinds
    assert kinds[:2] == ["structural", "structural"]
    # the long (50257-wide) rows make the block team the model's first choice
    assert cands[0][0].origin == "builtin:row-block" and dict(cands[0][0].knobs)["block"] == 1024


def _kp(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "kernelpro.profilers.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env={**os.environ, "KERNELPRO_NO_GPU": "1"})


def test_propose_only_lists_compiled_candidates_with_diffs_without_a_gpu():
    r = _kp("optimize", os.path.join(SUITE, "bias_grad", "naive.cu"), "--kernel", "bias_backward",
            "--propose-only", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["kernel"] == "bias_backward" and d["spec"].endswith("naive.kernelpro.toml")
    first = d["candidates"][0]
    assert first["kind"] == "structural" and first["origin"] == "builtin:column"
    assert first["answers"] == ["serial-column-loop"] and first["compiles"] is True
    assert "+__global__ __cluster_dims__" in first["diff"] and first["launch"]["block"] == [8, 32]
    assert all(c["compiles"] for c in d["candidates"])
    assert {a["rule"] for a in d["advice"]} >= {"serial-column-loop"}
    text = _kp("optimize", os.path.join(SUITE, "bias_grad", "naive.cu"), "--kernel", "bias_backward", "--propose-only")
    assert text.returncode == 0 and "split the column reduction" in text.stdout and "compiles" in text.stdout


def test_propose_only_without_a_spec_says_what_it_cannot_propose(tmp_path):
    src = open(os.path.join(SUITE, "gelu", "naive.cu")).read()
    (tmp_path / "g.cu").write_text(src)
    r = _kp("optimize", str(tmp_path / "g.cu"), "--kernel", "gelu_forward", "--propose-only", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert any("no launch spec" in n for n in d["notes"])
    assert any("launch" in w for w in d["not_applied"])
    assert all(c["kind"] != "structural" for c in d["candidates"])


@pytest.mark.parametrize("args, msg", [
    (["--kernel", "nope"], "no __global__ kernel named 'nope'"),
    (["--kernel", "gelu_forward", "--json"], None),
])
def test_propose_only_errors_are_one_line(tmp_path, args, msg):
    p = tmp_path / "g.cu"
    p.write_text(open(os.path.join(SUITE, "gelu", "naive.cu")).read())
    r = _kp("optimize", str(p), *args, "--propose-only")
    if msg:
        assert r.returncode == 2 and msg in r.stderr and len(r.stderr.strip().splitlines()) == 1
    else:
        assert r.returncode == 0


def test_json_without_propose_only_is_refused(tmp_path):
    p = tmp_path / "g.cu"
    p.write_text("__global__ void k(float* x) { x[0] = 1; }\n")
    r = _kp("optimize", str(p), "--kernel", "k", "--json")
    assert r.returncode == 2 and "--json goes with --propose-only" in r.stderr


# ---------------------------------------------------------------- typed contracts


def test_every_event_a_search_emits_parses_into_its_type_without_loss():
    from kernelpro.profilers.contracts import TYPES, Event, parse
    events = []
    run_search(Candidate(source="// root", description="root"), PlanProposer(), Landscape(), Budget(evaluations=8),
               on_event=events.append)
    seen = set()
    for d in events:
        e = parse(d)
        assert type(e) is TYPES.get(d["type"], Event), d["type"]
        assert e.to_dict() == d  # nothing dropped, nothing renamed
        seen.add(d["type"])
    assert {"start", "evaluated", "tuned", "new_best", "done"} <= seen


def test_failure_kinds_are_classified_once_where_the_evaluation_is_made():
    from kernelpro.optimizer.memory import outcome_of
    from kernelpro.profilers.contracts import FailureKind, failure_kind
    cases = {"compile: line 3: expected ;": FailureKind.COMPILE, "wrong result at size small: 3 of 4": FailureKind.INCORRECT,
             "crash: illegal address": FailureKind.CRASH, "timeout: 60 s": FailureKind.TIMEOUT,
             "launch: block of 2048 threads": FailureKind.LAUNCH, "something else": FailureKind.OTHER}
    for text, kind in cases.items():
        assert failure_kind(text) is kind
        ev = Evaluation(ok=False, failure=text)
        assert ev.failure_kind == kind.value
    assert outcome_of(Evaluation(ok=False, failure="compile: x"), None) == "compile_error"
    assert outcome_of(Evaluation(ok=False, failure="wrong result at size s: x"), None) == "incorrect"
    assert Evaluation(ok=True).failure_kind is None
