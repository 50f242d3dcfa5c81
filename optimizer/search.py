"""Domain-adapted Monte Carlo tree search over kernel candidates.

A node is a candidate with its evaluation; the root is the user's kernel, measured by the
same evaluator. Reward is the log of the geometric-mean gain over the root across sizes (those
where the root runs 5 us or longer: a launch-bound size is checked, not scored); a failed or incorrect candidate hits the correctness wall (no reward, never expanded).

Choices (all configurable through run_search's keywords):
- Selection: PUCT, score = Q(child) + c * prior * sqrt(N(parent)) / (1 + N(child)), where Q is
  the child's mean backed-up reward (log-speedup units) and prior is Proposal.prior.
- Progressive widening: a node may have at most ceil(k_w * visits ** alpha) children. A node
  counts its own evaluation as its first visit, and every evaluation below it as one more.
- Failure penalty: a failed child backs up parent.reward - fail_penalty (default 0.1, about a
  10% slowdown relative to its parent), so parents that breed failures look worse.
- Stall visit: when selection reaches a node whose widening is full but none of whose
  children can be descended into (all failed, pruned or dead), that penalty is backed up
  through it again without an evaluation (as MCTS revisits a terminal leaf); its visit count
  grows until it may widen. No budget is spent.
- Pruning: a non-root node with at least prune_after children, every one of which failed
  or whose best subtree reward is below the node's reward by more than regress_threshold
  (default 0.05), is pruned: it and its subtree are never selected again.
- Ties: rewards within tie_band (0.01) of the best go to the leaner candidate: lower mean
  energy if known, else fewer registers, else shorter source.
- Duplicates (same Candidate.key()) are skipped; a node whose proposer returns nothing new
  max_dup_rounds times in a row is treated as exhausted.
- Budget.evaluations counts candidate evaluations, not the root's. An evaluator that
  raises propagates: evaluators must return failures as Evaluation(ok=False, ...).
- Tuning inside a node: when the proposer can tune (BuiltinProposer.tune), the best node's
  (and any node's within 10% of its reward, fewest variants tried first)
  numeric knobs (block size, elements per access, ...) are tried as variants of that node,
  not as children: a faster variant replaces the node's candidate and evaluation. At most
  tune_fraction (a quarter) of the evaluation budget goes to tuning, at most tune_per_node
  variants per node, and not before the root has tune_after_children children (structure
  first). Each variant is one `tuned` event.
- Batches: up to `batch` evaluations are in flight at once. Each pending proposal puts a virtual
  loss on its parent and the parent's ancestors (one visit that backed up what a failure would:
  parent.reward - fail_penalty), so the next selection in the batch turns elsewhere; the virtual
  visits count for widening too (as the real ones will once the results are in), and a node whose
  widening is full only because of pending proposals is passed over for that selection. The virtual
  loss is taken back when the result enters the tree. Results enter the tree in the order they were
  proposed, whatever order they finish in, so a seed and a batch size give the same tree. An
  evaluator with `submit` (a parallel one: optimizer/parallel) gets a new proposal as soon as the
  oldest in flight has entered the tree; one with only `evaluate` gets a whole batch per call, the
  next when it is done. Tuning evaluations can be in flight too; the caps count them when they
  start. Greedy and random fill their batches the same way (without virtual loss).
"""
from __future__ import annotations

import math
import random
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Protocol

from .model import Budget, Candidate, Evaluation, Proposal
from .dispatch import MARGIN as SIZE_MARGIN  # faster than the best by more than this at a size: tuned there too

OBJECTIVES = ("time", "energy", "edp")
STRATEGIES = ("mcts", "greedy", "random")


class Proposer(Protocol):
    name: str

    def propose(self, node: "Node", ctx: "SearchContext", k: int) -> list[Proposal]:
        """Up to k new children for node; [] means the node is exhausted. May add to ctx.tokens_used."""
        ...


class Evaluator(Protocol):
    def evaluate(self, candidates: list[Candidate]) -> list[Evaluation]:
        """One Evaluation per candidate, in order; failures are data, not exceptions."""
        ...


class Pending(Protocol):
    def result(self) -> Evaluation:
        """The evaluation, waiting for it if need be (concurrent.futures.Future fits)."""
        ...


class ParallelEvaluator(Evaluator, Protocol):
    def submit(self, candidates: list[Candidate]) -> list[Pending]:
        """Start the evaluations and return at once; one Pending per candidate, in order."""
        ...


@dataclass(eq=False)
class Node:
    id: int
    candidate: Candidate
    evaluation: Evaluation
    parent: "Node | None" = None
    children: list["Node"] = field(default_factory=list)
    visits: int = 0
    value_sum: float = 0.0
    reward: float | None = None
    depth: int = 0
    exhausted: bool = False
    pruned: bool = False
    prior: float = 1.0
    note: str | None = None  # why a correct-looking evaluation still got no reward
    dup_rounds: int = 0  # consecutive proposer rounds that yielded nothing new
    tunes: int = 0  # variants of its knobs evaluated inside this node

    @property
    def failed(self) -> bool:
        return self.reward is None

    def structure(self) -> tuple:
        """The steps from the root to here that change more than local details (`structural_step` of each). Two
        nodes with the same structure differ only by local changes (restrict, unroll, launch bounds, flags)."""
        steps = [structural_step(m.candidate) or ("node", m.candidate.key()) for m in [self, *self.ancestors()]
                 if m.parent is not None and m.candidate.kind not in ("local", "flags")]
        return tuple(reversed(steps))

    @property
    def failure(self) -> str | None:
        return self.evaluation.failure or self.note if self.failed else None

    @property
    def mean(self) -> float:
        return self.value_sum / self.visits if self.visits else 0.0

    @property
    def speedup(self) -> float | None:
        """exp(reward): the geometric-mean gain over the root in the search's objective."""
        return math.exp(self.reward) if self.reward is not None else None

    def path(self) -> list[str]:
        """Descriptions of the steps from the root to this node (the root itself excluded)."""
        out, n = [], self
        while n.parent is not None:
            out.append(n.candidate.description)
            n = n.parent
        return out[::-1]

    def ancestors(self):
        n = self.parent
        while n is not None:
            yield n
            n = n.parent

    def __repr__(self):
        return (f"Node(id={self.id}, depth={self.depth}, reward={self.reward}, visits={self.visits}, "
                f"children={len(self.children)}, desc={self.candidate.description!r})")


def structural_step(c: Candidate) -> tuple | None:
    """A built-in structural step as (origin, knobs): the same under any parent with the same structure; None for
    any other candidate (an LLM's rewrite, a launch change: known by its key)."""
    return (c.origin, tuple(c.knobs)) if c.kind == "structural" and c.origin.startswith("builtin:") else None


@dataclass
class SearchContext:
    objective: str
    rng: random.Random
    tokens_used: int
    root: Node
    memory_hints: list[str] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)  # candidate keys evaluated or pending
    # built-in structural steps applied (Node.structure of the child): the same step under a parent that differs
    # only by local changes is not measured again (on an H100 a search of 16 measured one library scan 4 times
    # and one stencil tile 6 times, under restrict, launch-bounds and fast-math parents)
    structures: set[tuple] = field(default_factory=set)

    def is_known(self, candidate: Candidate) -> bool:
        return candidate.key() in self.seen


class _Done:
    """A Pending whose evaluation is already there (an evaluator with only `evaluate`)."""

    def __init__(self, ev: Evaluation):
        self.ev = ev

    def result(self) -> Evaluation:
        return self.ev


@dataclass(eq=False)
class _Flight:
    """An evaluation in flight: a proposal under `node`, or (tune=True) a variant of `node` itself."""

    node: Node
    candidate: Candidate
    pending: Pending | None = None
    proposal: Proposal | None = None
    tune: bool = False
    loss: float | None = None  # the virtual loss put on node and its ancestors (proposals under MCTS)


@dataclass
class SearchResult:
    root: Node
    best: Node
    nodes: list[Node]
    evaluations: int
    failures: int
    stopped_by: str  # "evaluations" | "seconds" | "tokens" | "exhausted" | "root_failed"
    objective: str = "time"
    error: str | None = None  # set when stopped_by == "root_failed"

    @property
    def speedup(self) -> float:
        return self.best.speedup or 1.0


# ---------------------------------------------------------------- reward


def _log_ratio_mean(root: dict, cand: dict, what: str) -> float:
    sizes = sorted(root)
    if not sizes:
        raise ValueError(f"root evaluation has no {what} to compare against")
    missing = [s for s in sizes if s not in cand]
    if missing:
        raise ValueError(f"evaluation lacks {what} for size(s) {missing} that the root has")
    total = 0.0
    for s in sizes:
        r, c = root[s], cand[s]
        if not (r > 0 and c > 0):
            raise ValueError(f"{what} for size {s!r} must be positive (root {r!r}, candidate {c!r})")
        total += math.log(r / c)
    return total / len(sizes)


def objective_used(ev: Evaluation, root_ev: Evaluation, objective: str = "time") -> str:
    """The objective reward() really uses: energy and edp fall back to time without energy."""
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {objective!r}; choose one of {', '.join(OBJECTIVES)}")
    if objective == "time":
        return "time"
    sizes = root_ev.energy_j.keys()
    if sizes and all(ev.energy_j.get(s) for s in sizes) and all(root_ev.energy_j[s] for s in sizes):
        return objective
    return "time"


LAUNCH_BOUND_S = 5e-6  # a size the kernel as written runs in less than this is launch-bound: checked, not scored


def scored_sizes(root_times: dict) -> list:
    """The sizes a reward averages over: those where the kernel as written runs LAUNCH_BOUND_S or longer (at a
    few microseconds the launch dominates and the ratio is noise: an inferred spec's small size, made for the
    checks), or every size where none does."""
    long_ = [s for s, t in root_times.items() if t >= LAUNCH_BOUND_S]
    return long_ or list(root_times)


def reward(ev: Evaluation, root_ev: Evaluation, objective: str = "time", sizes=None) -> float | None:
    """Log of the geometric-mean gain of ev over root_ev; None behind the correctness wall.

    time: mean over the scored sizes (`sizes`, else scored_sizes of root_ev) of log(t_root / t); energy: the
    same with energy_j (time when energy is missing); edp: mean of log((E_root * t_root) / (E * t)).
    """
    used = objective_used(ev, root_ev, objective)
    if not ev.ok:
        return None
    scored = set(sizes if sizes is not None else scored_sizes(root_ev.times_s)) & set(root_ev.times_s) \
        or set(root_ev.times_s)
    t = _log_ratio_mean({s: v for s, v in root_ev.times_s.items() if s in scored}, ev.times_s, "times_s")
    if used == "time":
        return t
    e = _log_ratio_mean({s: v for s, v in root_ev.energy_j.items() if s in scored} or root_ev.energy_j,
                        ev.energy_j, "energy_j")
    if used == "energy":
        return e
    # edp: the time factor over the sizes that have energy, so both cover the same sizes
    both = [s for s in root_ev.energy_j if s in scored] or list(root_ev.energy_j)
    return e + _log_ratio_mean({s: root_ev.times_s[s] for s in both if s in root_ev.times_s}
                               or root_ev.times_s, ev.times_s, "times_s")


# ---------------------------------------------------------------- search


class _Search:
    def __init__(self, proposer, evaluator, budget: Budget, *, objective, strategy, seed, batch,
                 on_event, clock, c, k_w, alpha, fail_penalty, prune_after, regress_threshold,
                 tie_band, max_dup_rounds, memory_hints, tune_fraction=0.25, tune_per_node=3,
                 tune_after_children=2, tune_band=math.log(1.1)):
        if objective not in OBJECTIVES:
            raise ValueError(f"unknown objective {objective!r}; choose one of {', '.join(OBJECTIVES)}")
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}")
        if batch < 1:
            raise ValueError(f"batch must be >= 1, got {batch}")
        if k_w <= 0 or not (0 < alpha <= 1):
            raise ValueError(f"progressive widening needs k_w > 0 and 0 < alpha <= 1 (got {k_w}, {alpha})")
        self.proposer, self.evaluator, self.budget = proposer, evaluator, budget
        self.objective, self.strategy, self.seed, self.batch = objective, strategy, seed, batch
        self.on_event, self.clock = on_event, clock
        self.c, self.k_w, self.alpha = c, k_w, alpha
        self.fail_penalty, self.prune_after = fail_penalty, prune_after
        self.regress_threshold, self.tie_band = regress_threshold, tie_band
        self.max_dup_rounds = max_dup_rounds
        self.memory_hints = list(memory_hints or [])
        self.rng = random.Random(seed)
        self.nodes: list[Node] = []
        self.evaluations = 0
        self.failures = 0
        self.best: Node | None = None
        self.ctx: SearchContext | None = None
        self.t0 = 0.0
        self.fallback_said = False
        self.tune_fraction, self.tune_per_node = tune_fraction, tune_per_node
        self.tune_after_children = tune_after_children
        self.tune_band = tune_band  # log reward: nodes within 10% of the best are tuned too
        self.tune_evals = 0
        self.parallel = callable(getattr(evaluator, "submit", None))
        self.inflight: deque[_Flight] = deque()  # in the order proposed, the order results enter the tree
        self.pending_children: dict[int, int] = {}  # node id -> proposals under it in flight
        self.virtual: dict[int, tuple[int, float]] = {}  # node id -> (virtual visits, virtual value)

    # ------------------------------------------------------------ events
    def budget_status(self) -> dict:
        b = self.budget
        used = {"evaluations": self.evaluations, "seconds": round(self.clock() - self.t0, 3),
                "tokens": self.ctx.tokens_used if self.ctx else 0}
        fracs = [used[k] / lim if lim else 1.0 for k, lim in b.to_json().items() if lim is not None]
        return {**b.to_json(), "used": used, "fraction": min(1.0, max(fracs)) if fracs else None}

    def emit(self, type_: str, **data):
        if self.on_event is None:
            return
        self.on_event({"type": type_, **data, "evaluations": self.evaluations, "budget": self.budget_status()})

    # ------------------------------------------------------------ tree helpers
    def width(self, n: Node) -> int:
        """Children allowed: ceil(k_w * visits ** alpha), the visits of evaluations in flight below n counted."""
        return math.ceil(self.k_w * max(1, n.visits + self.virtual.get(n.id, (0, 0.0))[0]) ** self.alpha)

    def blocked(self, n: Node) -> bool:
        """Failed, pruned, or under a pruned ancestor: never selected or expanded."""
        return n.failed or n.pruned or any(a.pruned for a in n.ancestors())

    def live(self, n: Node) -> bool:
        """Something can still be expanded at or below n."""
        if n.failed or n.pruned:
            return False
        return not n.exhausted or any(self.live(ch) for ch in n.children)

    def lean_key(self, n: Node):
        e = n.evaluation.mean_energy()
        regs = n.evaluation.resources.get("registers")
        return (e if e is not None else math.inf, regs if regs is not None else math.inf,
                len(n.candidate.source), n.id)

    def pick_best(self, nodes) -> Node | None:
        ok = [n for n in nodes if not n.failed]
        if not ok:
            return None
        top = max(n.reward for n in ok)
        tied = [n for n in ok if n.reward >= top - self.tie_band]
        return min(tied, key=self.lean_key)

    def backup(self, n: Node, value: float):
        for m in [n, *n.ancestors()]:
            m.visits += 1
            m.value_sum += value

    def prune_check(self, n: Node):
        for m in [n, *n.ancestors()]:
            if m.parent is None or m.pruned or m.failed or len(m.children) < self.prune_after:
                continue
            if all(ch.failed or self.subtree_best(ch) < m.reward - self.regress_threshold
                   for ch in m.children):
                m.pruned = True
                self.emit("pruned", node=m.id, description=m.candidate.description,
                          reason=f"all {len(m.children)} children failed or regressed "
                                 f"by more than {self.regress_threshold:g} (log)")

    def subtree_best(self, n: Node) -> float:
        vals = [n.reward if n.reward is not None else -math.inf]
        vals += [self.subtree_best(ch) for ch in n.children]
        return max(vals)

    # ------------------------------------------------------------ selection
    def q(self, n: Node) -> float:
        """Mean backed-up reward, counting the virtual losses of proposals pending below n."""
        vn, vv = self.virtual.get(n.id, (0, 0.0))
        visits = n.visits + vn
        return (n.value_sum + vv) / visits if visits else 0.0

    def select_mcts(self) -> Node | None:
        pending = self.pending_children
        passed: set[int] = set()  # full only because of pending proposals: not for this selection
        for _ in range(10_000):  # stall visits raise widths, so this ends quickly
            if not self.live(self.ctx.root):
                return None
            n = self.ctx.root
            while True:
                if not n.exhausted and len(n.children) + pending.get(n.id, 0) < self.width(n):
                    return n
                alive = [ch for ch in n.children if self.live(ch)]
                kids = [ch for ch in alive if ch.id not in passed]
                if kids and not self.virtual:  # nothing in flight: plain PUCT
                    sq = math.sqrt(max(1, n.visits))
                    n = max(kids, key=lambda ch: (ch.mean + self.c * ch.prior * sq / (1 + ch.visits), -ch.id))
                    continue
                if kids:
                    sq = math.sqrt(max(1, n.visits + self.virtual.get(n.id, (0, 0.0))[0]))
                    n = max(kids, key=lambda ch: (self.q(ch) + self.c * ch.prior * sq / (
                        1 + ch.visits + self.virtual.get(ch.id, (0, 0.0))[0]), -ch.id))
                    continue
                if alive or pending.get(n.id, 0):
                    if n is self.ctx.root:
                        return None  # everything selectable waits for results in flight
                    passed.add(n.id)
                    break
                # widening full, no child to descend into: stall visit, then select again
                self.backup(n, n.reward - self.fail_penalty)
                break
        raise RuntimeError("MCTS selection did not settle (bug)")

    def select_other(self) -> Node | None:
        pool = [n for n in self.nodes if not n.exhausted and not self.blocked(n)]
        if not pool:
            return None
        if self.strategy == "random":
            return self.rng.choice(pool)
        return self.pick_best(pool)

    # ------------------------------------------------------------ main loop
    def out_of_budget(self) -> str | None:
        b = self.budget
        if b.evaluations is not None and self.evaluations >= b.evaluations:
            return "evaluations"
        if b.seconds is not None and self.clock() - self.t0 >= b.seconds:
            return "seconds"
        if b.tokens is not None and self.ctx.tokens_used >= b.tokens:
            return "tokens"
        return None

    def add_node(self, cand: Candidate, ev: Evaluation, parent: Node | None, prior: float) -> Node:
        n = Node(id=len(self.nodes), candidate=cand, evaluation=ev, parent=parent,
                 depth=0 if parent is None else parent.depth + 1, prior=prior)
        root_ev = ev if parent is None else self.ctx.root.evaluation
        try:
            n.reward = reward(ev, root_ev, self.objective)
        except ValueError as e:
            n.reward, n.note = None, f"failed: {e}"
        if (n.reward is not None and self.objective != "time" and not self.fallback_said
                and objective_used(ev, root_ev, self.objective) == "time"):
            self.fallback_said = True
            self.emit("objective_fallback", node=n.id, objective=self.objective, used="time",
                      reason="energy per launch is missing; ranking by time instead")
        self.nodes.append(n)
        if self.ctx is not None:
            self.ctx.nodes.append(n)
        if parent is not None:
            parent.children.append(n)
        return n

    def evaluated_event(self, n: Node):
        self.emit("evaluated", node=n.id, parent=n.parent.id if n.parent else None,
                  description=n.candidate.description, origin=n.candidate.origin, kind=n.candidate.kind,
                  knobs=dict(n.candidate.knobs),
                  answers=list(n.candidate.answers), depth=n.depth, ok=not n.failed,
                  failure=n.failure, failure_kind=n.evaluation.failure_kind if n.failed else None, reward=n.reward, speedup=n.speedup,
                  time_speedup=self.time_speedup(n), times_s=dict(n.evaluation.times_s))

    def time_speedup(self, n: Node) -> float | None:
        """Geometric-mean time gain over the root, whatever the objective."""
        if n.failed:
            return None
        if self.objective == "time":
            return n.speedup
        return math.exp(reward(n.evaluation, self.ctx.root.evaluation, "time"))

    def run(self, root: Candidate) -> SearchResult:
        self.t0 = self.clock()
        self.emit("start", objective=self.objective, strategy=self.strategy, seed=self.seed,
                  batch=self.batch, description=root.description)
        (root_ev,) = self.evaluate([root])
        # the context exists before the root node so the root's events can report tokens
        self.ctx = SearchContext(objective=self.objective, rng=self.rng, tokens_used=0, root=None,
                                 memory_hints=self.memory_hints)
        rn = self.add_node(root, root_ev, None, 1.0)
        self.ctx.root = rn
        self.ctx.seen.add(root.key())
        rn.visits, rn.value_sum = 1, 0.0
        self.evaluated_event(rn)
        if rn.failed:
            err = f"the root kernel failed: {rn.failure or 'no reason given'}"
            self.emit("done", best=rn.id, speedup=None, failures=1, stopped_by="root_failed", error=err)
            return SearchResult(rn, rn, self.nodes, 0, 1, "root_failed", self.objective, err)
        self.best = rn
        stopped = self.loop()
        self.emit("done", best=self.best.id, speedup=self.best.speedup,
                  time_speedup=self.time_speedup(self.best), failures=self.failures,
                  stopped_by=stopped, path=self.best.path(), tuning_evaluations=self.tune_evals,
                  launch_only_evaluations=self.tune_evals + sum(1 for n in self.nodes[1:] if n.candidate.kind == "launch"))
        return SearchResult(rn, self.best, self.nodes, self.evaluations, self.failures, stopped, self.objective)

    def evaluate(self, cands: list[Candidate]) -> list[Evaluation]:
        evs = list(self.evaluator.evaluate(cands))
        if len(evs) != len(cands):
            raise ValueError(f"evaluator returned {len(evs)} evaluations for {len(cands)} candidates")
        return evs

    def tune_cap(self) -> int:
        if self.budget.evaluations is None:
            return 4
        return int(self.budget.evaluations * self.tune_fraction)

    def tune_targets(self) -> list["Node"]:
        """Nodes whose knobs may be tuned now: the best, and any other within tune_band of its reward
        (two teams of about the same speed, say a warp and a block per row, each better at one
        size), fewest variants tried first, then the faster."""
        best = self.best
        if best is None or best.reward is None:
            return []
        leaders = self.size_leaders()
        pool = [n for n in self.nodes[1:] if not n.failed and n.reward is not None and n.tunes < self.tune_per_node
                and (n is best or n.reward >= best.reward - self.tune_band or n.id in leaders)]
        return sorted(pool, key=lambda n: (n.tunes, -n.reward, n.id))

    def size_leaders(self) -> dict[int, list[str]]:
        """node id -> the sizes where that node (not the best) is the fastest by more than SIZE_MARGIN over the
        best: the other half of a per-size dispatch (optimizer/dispatch.py), tuned at those sizes like the best
        is tuned over all (the SIMT tiles that win at 4096^3 while tensor cores win the small sizes). Time only."""
        best = self.best
        if self.objective != "time" or best is None or best.failed:
            return {}
        bt = best.evaluation.times_s
        ok = [n for n in self.nodes[1:] if not n.failed and n is not best]
        out: dict[int, list[str]] = {}
        for size, t in bt.items():
            timed = [n for n in ok if n.evaluation.times_s.get(size)]
            if not t or not timed:
                continue
            lead = min(timed, key=lambda n: n.evaluation.times_s[size])
            if lead.evaluation.times_s[size] < (1 - SIZE_MARGIN) * t:
                out.setdefault(lead.id, []).append(size)
        return out

    def tune_step(self) -> _Flight | None:
        """The next knob setting to evaluate (tune_targets), when tuning is allowed (the caps count it now)."""
        tune = getattr(self.proposer, "tune", None)
        if tune is None or self.tune_evals >= self.tune_cap() or len(self.ctx.root.children) < self.tune_after_children:
            return None
        for n in self.tune_targets():
            props = [p for p in (tune(n, self.ctx, 1) or []) if p.candidate.key() not in self.ctx.seen]
            if not props:
                n.tunes = self.tune_per_node
                continue
            cand = props[0].candidate
            self.ctx.seen.add(cand.key())
            self.tune_evals += 1
            n.tunes += 1
            return _Flight(n, cand, tune=True)
        return None

    def land_tune(self, f: _Flight, ev: Evaluation) -> None:
        """A tuned variant's result: a faster one replaces its node's candidate and evaluation."""
        n, cand = f.node, f.candidate
        self.evaluations += 1
        try:
            r = reward(ev, self.ctx.root.evaluation, self.objective)
        except ValueError:
            r = None
        better = r is not None and n.reward is not None and r > n.reward
        lead = self.size_leaders().get(n.id) if n is not self.best else None
        if lead and r is not None and not better:  # a size leader: faster where it leads is better
            better = all(ev.times_s.get(s) and ev.times_s[s] < n.evaluation.times_s[s] for s in lead)
        told = getattr(self.proposer, "tuned", None)
        if told is not None:
            told(n, cand, better)
        if not ev.ok:
            self.failures += 1
        old = n.candidate
        if better:
            n.candidate, n.evaluation, n.reward = cand, ev, r
        self.emit("tuned", node=n.id, parent=n.parent.id if n.parent else None, description=cand.description,
                  origin=cand.origin, kind=cand.kind, knobs=dict(cand.knobs), was=dict(old.knobs), ok=ev.ok,
                  failure=ev.failure, reward=r, speedup=math.exp(r) if r is not None else None,
                  better=better, times_s=dict(ev.times_s))
        if better and self.pick_best(self.nodes) is n:  # a sibling of the best may overtake it
            self.best = n
            self.emit("new_best", node=n.id, description=cand.description, speedup=n.speedup, reward=n.reward,
                      path=n.path())

    def land(self, f: _Flight) -> None:
        """Enter one result into the tree (results enter in the order they were proposed)."""
        ev = f.pending.result()
        if f.tune:
            self.land_tune(f, ev)
            return
        parent = f.node
        self.pending_children[parent.id] -= 1
        if f.loss is not None:
            for m in [parent, *parent.ancestors()]:
                vn, vv = self.virtual[m.id]
                self.virtual[m.id] = (vn - 1, vv - f.loss)
                if vn == 1:
                    del self.virtual[m.id]
        self.evaluations += 1
        n = self.add_node(f.candidate, ev, parent, f.proposal.prior)
        if n.failed:
            self.failures += 1
            self.backup(n, parent.reward - self.fail_penalty)
        else:
            self.backup(n, n.reward)
        self.evaluated_event(n)
        self.prune_check(n)
        best = self.pick_best(self.nodes)
        if best is not self.best:
            self.best = best
            self.emit("new_best", node=best.id, description=best.candidate.description,
                      speedup=best.speedup, reward=best.reward, path=best.path())

    def start(self, flights: list[_Flight]) -> None:
        """Hand the flights' candidates to the evaluator: submitted (parallel) or evaluated now."""
        cands = [f.candidate for f in flights]
        if self.parallel:
            pend = list(self.evaluator.submit(cands))
            if len(pend) != len(cands):
                raise ValueError(f"evaluator returned {len(pend)} pending results for {len(cands)} candidates")
        else:
            pend = [_Done(ev) for ev in self.evaluate(cands)]
        for f, p in zip(flights, pend):
            f.pending = p
            self.inflight.append(f)

    def fill(self) -> int | None:
        """Start evaluations up to the batch size: a tuning variant when allowed, else proposals.
        An evaluator with only `evaluate` gets one group per call. None: nothing can be expanded."""
        added = 0
        while len(self.inflight) < self.batch and self.out_of_budget() is None:
            left = self.batch - len(self.inflight)
            if self.budget.evaluations is not None:
                left = min(left, self.budget.evaluations - self.evaluations - len(self.inflight))
            if left <= 0:
                break
            t = self.tune_step()
            if t is not None:
                self.start([t])
                added += 1
                if not self.parallel:
                    break
                continue
            flights = self.collect(left)
            if flights is None:
                return added or None
            self.start(flights)
            added += len(flights)
            if not self.parallel:
                break
        return added

    def loop(self) -> str:
        while True:
            stop = self.out_of_budget()
            if stop is None and (self.parallel or not self.inflight):
                if self.fill() is None and not self.inflight:
                    return self.out_of_budget() or "exhausted"
            if not self.inflight:
                if stop:
                    return stop
                continue  # only duplicates or newly exhausted nodes this round
            self.land(self.inflight.popleft())

    def collect(self, room: int) -> list[_Flight] | None:
        """Up to room proposals, each put in flight at once (pending child, virtual loss);
        None when nothing at all can be expanded now."""
        work: list[_Flight] = []
        pending = self.pending_children
        asked = False
        while len(work) < room:
            if self.out_of_budget() == "tokens":
                break
            n = self.select_mcts() if self.strategy == "mcts" else self.select_other()
            if n is None:
                break
            want = room - len(work)
            if self.strategy == "mcts":
                want = min(want, self.width(n) - len(n.children) - pending.get(n.id, 0))
            props = list(self.proposer.propose(n, self.ctx, want) or [])[:want]
            asked = True
            if not props:
                n.exhausted = True
                self.emit("exhausted", node=n.id, description=n.candidate.description)
                continue
            fresh, here = 0, None  # (n's structure, once a structural step asks for it)
            for p in props:
                if not isinstance(p, Proposal):
                    raise TypeError(f"proposer {getattr(self.proposer, 'name', '?')!r} returned "
                                    f"{type(p).__name__}, expected Proposal")
                k = p.candidate.key()
                step = structural_step(p.candidate)
                if step is not None:
                    here = n.structure() if here is None else here
                    step = here + (step,)
                if k in self.ctx.seen or step in self.ctx.structures:
                    self.emit("duplicate", node=n.id, description=p.candidate.description,
                              origin=p.candidate.origin)
                    continue
                self.ctx.seen.add(k)
                if step is not None:
                    self.ctx.structures.add(step)
                work.append(self.flight(n, p))
                fresh += 1
            if fresh:
                n.dup_rounds = 0
            else:
                n.dup_rounds += 1
                if n.dup_rounds >= self.max_dup_rounds:
                    n.exhausted = True
                    self.emit("exhausted", node=n.id, description=n.candidate.description,
                              reason="proposer offered only duplicates")
                break  # give other nodes a turn before asking this one again
        if not work and not asked:
            return None
        return work

    def flight(self, n: Node, p: Proposal) -> _Flight:
        """A proposal under n, pending: it counts against n's widening and (MCTS) puts a virtual
        loss, what a failure would back up, on n and its ancestors until its result is in."""
        self.pending_children[n.id] = self.pending_children.get(n.id, 0) + 1
        f = _Flight(n, p.candidate, proposal=p)
        if self.strategy == "mcts":
            f.loss = n.reward - self.fail_penalty
            for m in [n, *n.ancestors()]:
                vn, vv = self.virtual.get(m.id, (0, 0.0))
                self.virtual[m.id] = (vn + 1, vv + f.loss)
        return f


def run_search(root: Candidate, proposer: Proposer, evaluator: Evaluator, budget: Budget, *,
               objective: str = "time", strategy: str = "mcts", seed: int = 0, batch: int = 1,
               on_event: Callable[[dict], None] | None = None, clock: Callable[[], float] = time.monotonic,
               c: float = 1.0, k_w: float = 1.0, alpha: float = 0.5, fail_penalty: float = 0.1,
               prune_after: int = 3, regress_threshold: float = 0.05, tie_band: float = 0.01,
               max_dup_rounds: int = 3, memory_hints: list[str] | None = None,
               tune_fraction: float = 0.25, tune_per_node: int = 3) -> SearchResult:
    """Search for faster (or leaner) variants of root; see the module docstring for the rules."""
    s = _Search(proposer, evaluator, budget, objective=objective, strategy=strategy, seed=seed,
                batch=batch, on_event=on_event, clock=clock, c=c, k_w=k_w, alpha=alpha,
                fail_penalty=fail_penalty, prune_after=prune_after, regress_threshold=regress_threshold,
                tie_band=tie_band, max_dup_rounds=max_dup_rounds, memory_hints=memory_hints,
                tune_fraction=tune_fraction, tune_per_node=tune_per_node)
    return s.run(root)
