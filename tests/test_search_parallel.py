"""Batches with virtual loss in the search (optimizer/search.py): the old streams kept, a parallel
evaluator's results entering the tree in proposal order whatever order they finish in, the caps of
tuning and widening held with evaluations in flight."""
from __future__ import annotations

import json
import math
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from search_traces import FILE, scenarios
from test_search import FakeClock, LandscapeEvaluator, MoveProposer, cand, smooth, state_of, trap
from test_tuning import Landscape, PlanProposer

from kernelpro.optimizer import search
from kernelpro.optimizer.model import Budget, Candidate, Evaluation, Proposal
from kernelpro.optimizer.search import run_search

# MCTS batches changed on purpose (virtual loss now spreads them); every other stream must not
CHANGED = {"smooth-mcts-3", "trap-mcts-3", "widening-3", "tuning-3"}
UNCHANGED = sorted(set(json.loads(FILE.read_text())) - CHANGED)


@pytest.mark.parametrize("name", UNCHANGED)
def test_event_streams_are_exactly_as_before(name):
    want = json.loads(FILE.read_text())[name]
    assert scenarios()[name]() == want


class Threaded:
    """A parallel evaluator: each candidate on a thread of a pool, finishing after a random delay
    (unseeded, so the order they finish in differs between runs)."""

    def __init__(self, inner, workers=4, max_delay=0.004):
        self.inner, self.workers, self.max_delay = inner, workers, max_delay
        self.pool = ThreadPoolExecutor(workers)
        self.lock = threading.Lock()
        self.running = self.most = 0
        self.finished: list[str] = []  # descriptions in the order they finished

    def evaluate(self, cands):
        return self.inner.evaluate(cands)

    def _one(self, c):
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(random.random() * self.max_delay)
        (ev,) = self.inner.evaluate([c])
        with self.lock:
            self.running -= 1
            self.finished.append(c.description)
        return ev

    def submit(self, cands):
        return [self.pool.submit(self._one, c) for c in cands]


def _nodes(res):
    return [(state_of(n.candidate), n.parent.id if n.parent else None, n.reward) for n in res.nodes]


@pytest.mark.parametrize("strategy", ["mcts", "greedy", "random"])
def test_parallel_results_enter_in_proposal_order_so_a_seed_gives_the_same_tree(strategy):
    def go(workers):
        ev = Threaded(LandscapeEvaluator(trap), workers)
        events = []
        res = run_search(cand(""), MoveProposer("abcd", max_depth=6), ev, Budget(evaluations=30), seed=5,
                         strategy=strategy, batch=workers, on_event=events.append, clock=FakeClock())
        evaluated = [e["description"] for e in events if e["type"] == "evaluated"][1:]
        return res, ev, events, evaluated

    a, ev_a, events_a, order_a = go(4)
    b, ev_b, events_b, _ = go(4)
    assert a.evaluations == b.evaluations == 30 and len(a.nodes) == 31
    assert _nodes(a) == _nodes(b) and events_a == events_b
    assert ev_a.most == 4  # four at once
    # the proposal order, not the finishing order, is the order of the events
    assert order_a == [n.candidate.description for n in a.nodes[1:]]
    assert sorted(ev_a.finished) == sorted(order_a)


def test_results_that_finish_out_of_order_wait_for_the_earlier_ones():
    class Reversed(Threaded):
        """The first candidate of every submission finishes last."""
        def submit(self, cands):
            gate = threading.Event()
            out = []
            for i, c in enumerate(cands):
                out.append(self.pool.submit(self._gated, c, gate, i == 0))
            return out

        def _gated(self, c, gate, first):
            if first:
                gate.wait(0.05)
            ev = self._one(c)
            return ev

    ev = Reversed(LandscapeEvaluator(smooth), workers=4, max_delay=0.0)
    res = run_search(cand(""), MoveProposer("ab", max_depth=4), ev, Budget(evaluations=6), batch=4)
    assert res.evaluations == 6
    assert [n.candidate.description for n in res.nodes[1:]] != ev.finished  # they finished in another order
    assert sorted(n.candidate.description for n in res.nodes[1:]) == sorted(ev.finished)


def _tree():
    """root (visits 4, widening full at alpha 0.3) with children A (reward 0.10) and B (0.08), each visited
    twice (room for two children each)."""
    s = search._Search(MoveProposer(), LandscapeEvaluator(smooth), Budget(), objective="time", strategy="mcts",
                       seed=0, batch=4, on_event=None, clock=FakeClock(), c=1.0, k_w=1.0, alpha=0.3,
                       fail_penalty=0.1, prune_after=3, regress_threshold=0.05, tie_band=0.01, max_dup_rounds=3,
                       memory_hints=None)
    ok = lambda t: Evaluation(ok=True, times_s={"s": t})  # noqa: E731
    root = search.Node(0, cand(""), ok(1.0), reward=0.0, visits=4, value_sum=0.36, prior=1.0)
    s.ctx = search.SearchContext("time", s.rng, 0, root, nodes=[root])
    for i, (name, r) in enumerate((("a", 0.10), ("b", 0.08)), 1):
        n = search.Node(i, cand(name), ok(1.0), parent=root, reward=r, visits=2, value_sum=2 * r, depth=1, prior=0.5)
        root.children.append(n)
        s.ctx.nodes.append(n)
    s.nodes = list(s.ctx.nodes)
    return s, root.children[0], root.children[1]


def test_virtual_loss_turns_the_next_selection_to_the_sibling():
    s, a, b = _tree()
    assert s.select_mcts() is a  # the better child, with room for a second child
    s.flight(a, Proposal(cand("aa"), 0.5))
    assert s.virtual == {a.id: (1, 0.0), 0: (1, 0.0)}  # what a failure under A would back up: 0.10 - 0.1
    assert s.select_mcts() is b  # A's pending child counts as a loss until its result is in
    s.flight(b, Proposal(cand("ba"), 0.5))
    s.flight(b, Proposal(cand("bb"), 0.5))  # B's widening is full now, only because of pending proposals
    assert s.select_mcts() is a  # B is passed over
    s.flight(a, Proposal(cand("ab"), 0.5))
    assert s.select_mcts() is None  # everything waits for a result


def test_a_result_takes_its_virtual_loss_back_even_a_zero_one():
    s, a, b = _tree()
    f = s.flight(a, Proposal(cand("aa"), 0.5))  # A's reward 0.10 minus the 0.1 penalty: a loss of 0.0
    f.pending = search._Done(Evaluation(ok=True, times_s={"s": 1.0}))
    s.land(f)
    assert s.virtual == {} and s.pending_children == {a.id: 0}
    assert a.visits == 3 and a.children[0].candidate.description == "go aa"


def test_without_virtual_loss_the_same_child_would_be_chosen_again():
    s, a, b = _tree()
    s.pending_children[a.id] = 1  # a pending child, no virtual loss
    assert s.select_mcts() is a


@pytest.mark.parametrize("parallel", [False, True])
def test_widening_bound_and_virtual_loss_bookkeeping_with_evaluations_in_flight(parallel):
    prop = MoveProposer("abcdefgh", max_depth=4)
    violations, holder = [], {}

    def check(e):
        s = holder.get("s")
        if s is None or s.ctx is None:
            return
        for n in s.ctx.nodes:
            if len(n.children) > math.ceil(max(1, n.visits) ** 0.5):
                violations.append((e["type"], n.id, len(n.children), n.visits))
            v = s.virtual.get(n.id, (0, 0.0))[0]
            if len(n.children) + s.pending_children.get(n.id, 0) > math.ceil(max(1, n.visits + v) ** 0.5):
                violations.append(("pending", e["type"], n.id, len(n.children), n.visits, v))

    land = lambda st: "compile: bad" if st.endswith("h") else 1.0 + 0.03 * st.count("a") - 0.01 * st.count("e")  # noqa
    inner = LandscapeEvaluator(land)
    ev = Threaded(inner, 3) if parallel else inner
    orig = search._Search.run

    def run(self, root):
        holder["s"] = self
        return orig(self, root)
    search._Search.run = run
    try:
        res = run_search(cand(""), prop, ev, Budget(evaluations=40), on_event=check, batch=3)
    finally:
        search._Search.run = orig
    s = holder["s"]
    assert res.evaluations == 40 and len(inner.seen) == 41
    assert not violations
    assert not s.virtual and not any(s.pending_children.values()) and not s.inflight


class OncePlanProposer(PlanProposer):
    """PlanProposer offering the structural child once (PlanProposer looks for landed children, and with
    results in flight the root has none yet)."""

    def propose(self, node, ctx, k):
        if node.parent is None and not getattr(self, "gave", False):
            self.gave = True
            return super().propose(node, ctx, k)
        out = []
        for _ in range(k):
            self.n += 1
            out.append(Proposal(Candidate(source=node.candidate.source + f"\n// edit {self.n}", kind="local",
                                          knobs=node.candidate.knobs, description=f"edit {self.n}"), 0.3))
        return out


@pytest.mark.parametrize("budget", [8, 16, 20])
def test_tuning_in_flight_keeps_the_quarter_and_the_per_node_caps(budget):
    events = []
    ev = Threaded(Landscape(), 4)
    res = run_search(Candidate(source="// root", description="root"), OncePlanProposer(), ev, Budget(evaluations=budget),
                     on_event=events.append, batch=4)
    tuned = [e for e in events if e["type"] == "tuned"]
    assert 1 <= len(tuned) <= budget // 4
    per_node = {}
    for e in tuned:
        per_node[e["node"]] = per_node.get(e["node"], 0) + 1
    assert max(per_node.values()) <= 3  # run_search's tune_per_node
    assert res.evaluations == budget
    assert dict(res.best.candidate.knobs).get("block") == 512
    assert events[-1]["tuning_evaluations"] == len(tuned)


@pytest.mark.parametrize("strategy", ["mcts", "greedy", "random"])
def test_parallel_budget_is_exact_and_nothing_is_evaluated_twice(strategy):
    inner = LandscapeEvaluator(smooth)
    res = run_search(cand(""), MoveProposer("ab", max_depth=8), Threaded(inner, 4), Budget(evaluations=13),
                     strategy=strategy, batch=4)
    assert res.stopped_by == "evaluations"
    assert res.evaluations == 13 and len(inner.seen) == 14 and len(set(inner.seen)) == 14


def test_seconds_budget_lets_the_evaluations_in_flight_finish():
    clock = FakeClock()
    inner = LandscapeEvaluator(smooth, clock=clock, tick=1.0)
    res = run_search(cand(""), MoveProposer("ab", max_depth=8), Threaded(inner, 3), Budget(evaluations=None, seconds=4.5),
                     clock=clock, batch=3)
    assert res.stopped_by == "seconds"
    assert res.evaluations == len(inner.seen) - 1  # every evaluation started entered the tree


def test_a_parallel_evaluator_must_return_one_pending_per_candidate():
    class Short(Threaded):
        def submit(self, cands):
            return super().submit(cands)[:-1]

    with pytest.raises(ValueError, match="pending results"):
        run_search(cand(""), MoveProposer("abc"), Short(LandscapeEvaluator(smooth)), Budget(evaluations=6), batch=3)
