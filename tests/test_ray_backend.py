"""The Ray backend (optimizer/parallel) without a GPU: a local Ray instance with CPU-only actors, each
running the real GpuEvaluator and its worker process over the stand-in GPU of tests/ray_standin.py.

Needs Ray (`pip install -e '.[dev]'` brings it); skipped cleanly without it.
"""
from __future__ import annotations

import logging
import os
import signal
import threading
import time

import git
import pytest
from ray_standin import standin_env, standin_project

ray = pytest.importorskip("ray")

from kernelpro.optimizer.model import Budget, Candidate, Proposal  # noqa: E402
from kernelpro.optimizer.parallel.backend import CONTROL, RayBackend  # noqa: E402
from kernelpro.optimizer.parallel.workers import Workers, WorkersError  # noqa: E402
from kernelpro.optimizer.run import RunConfig, optimize  # noqa: E402
from kernelpro.optimizer.search import run_search  # noqa: E402
from kernelpro.profilers.compile import CompileOptions  # noqa: E402
from kernelpro.profilers.runtime.spec import load_spec  # noqa: E402

pytestmark = pytest.mark.slow


REAPER = "RAY_kill_child_processes_on_worker_exit_with_raylet_subreaper"


@pytest.fixture(scope="module")
def local_ray():
    """One local instance for the module (a backend joins it and leaves it running). Ray's own reaping of
    a dead worker's child processes is off, so the tests see KernelPro's (older Rays and other setups
    lack it)."""
    old = os.environ.get(REAPER)
    os.environ[REAPER] = "false"
    # two GPUs declared (Ray does not look for them when told) with a model label, for the GPU-path test
    ray.init(num_cpus=4, num_gpus=2, resources={"accelerator_type:FAKE200": 1}, include_dashboard=False,
             log_to_driver=False, namespace="kernelpro-tests", logging_level=logging.WARNING)
    yield
    ray.shutdown()
    if old is None:
        os.environ.pop(REAPER, None)
    else:
        os.environ[REAPER] = old


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    return standin_env(tmp_path_factory.mktemp("standin"))


@pytest.fixture(scope="module")
def shared(local_ray, env):
    """Four CPU-only workers shared by the tests that need no backend of their own (starting actors is
    the slow part). Each test points `emit` at its own events."""
    with backend(env) as b:
        yield b


@pytest.fixture
def repo(tmp_path):
    r = git.Repo.init(tmp_path)
    r.git.config("user.name", "Test")
    r.git.config("user.email", "t@example.com")
    standin_project(tmp_path)
    r.git.add(".")
    r.git.commit("-m", "kernel")
    return tmp_path


def backend(env, n=4, **kw) -> RayBackend:
    return RayBackend(Workers(count=n), per_worker=0, env=env, **kw)


def _run(repo, b, events, seed=0, budget=8):
    cfg = RunConfig(file=repo / "standin.cu", kernel="standin_add", budget=Budget(evaluations=budget), seed=seed,
                    energy=False, max_branches=1)
    return optimize(cfg, on_event=events.append, backend=b)


def _trace(events):
    """The search's decisions; rewards to 6 places (the stand-in's fake clock adds float noise near 1e-13)."""
    return [(e["type"], e.get("node"), e.get("description"), e.get("ok"),
             None if e.get("reward") is None else round(e["reward"], 6))
            for e in events if e["type"] in ("evaluated", "tuned", "new_best", "pruned", "exhausted")]


def test_a_full_search_with_four_workers_and_the_same_result_for_a_seed(shared, repo):
    b = shared
    runs = []
    for _ in range(2):
        events = []
        b.emit = events.append
        before = list(b.per_actor)
        out = _run(repo, b, events)
        runs.append((out, events, [x - y for x, y in zip(b.per_actor, before)]))
    (out, events, per_actor), (out2, events2, _) = runs
    assert out.evaluations == 8 and out.stopped_by == "evaluations"
    evaluated = [e for e in events if e["type"] in ("evaluated", "tuned")]
    assert len(evaluated) == 9 and all(e["ok"] for e in evaluated)
    assert len(per_actor) == 4 and all(per_actor) and sum(per_actor) >= 8  # every worker measured
    assert b.most_running >= 2  # measurements overlapped (the second run's compiles all come from the cache)
    assert out.branches and all(x.startswith("kernelpro/standin_add/") for x in out.branches)
    heads = {h.name for h in git.Repo(repo).heads}
    assert set(out.branches) <= heads
    # the same seed and worker count: the same search, whatever order the results finished in
    assert _trace(events) and _trace(events) == _trace(events2)
    assert out.speedup == pytest.approx(out2.speedup)


class StandinProposer:
    """Children of state s are s+m; the source declares one device variable per step, which the stand-in
    kernel reads: `kp_speed_N` scales its time, `kp_hang` makes it hang, `kp_crash` poisons the context."""

    name = "standin"
    SPEED = {"a": 90, "b": 95, "c": 99, "d": 97}

    def __init__(self, base: str, moves: str):
        self.base, self.moves = base, moves
        self.queues: dict[int, list[str]] = {}

    def source(self, state: str) -> str:
        lines = []
        for i, m in enumerate(state):
            if m == "h":
                lines.append("__device__ int kp_hang;")
            elif m == "x":
                lines.append("__device__ int kp_crash;")
            else:
                lines.append(f"__device__ int kp_speed_{self.SPEED[m]}_{i};")
        return self.base + "\n" + "\n".join(lines) + "\n"

    def propose(self, node, ctx, k):
        st = node.candidate.description if node.parent else ""
        q = self.queues.setdefault(node.id, [m for m in self.moves if len(st) < 3])
        out = []
        while q and len(out) < k:
            s = st + q.pop(0)
            out.append(Proposal(Candidate(source=self.source(s), description=s, origin="standin"), 0.5))
        return out


def _hanging(env, pid) -> bool:
    """The GPU worker process `pid` is inside a hanging stand-in kernel."""
    return os.path.exists(os.path.join(env["KERNELPRO_STANDIN_HANGS"], str(pid)))


def _child_of(b, actor: int, job: str) -> int | None:
    return ray.get(b.actors[actor].child_pids.options(concurrency_group=CONTROL).remote(), timeout=60).get(job)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not open(f"/proc/{pid}/stat").read().split(")")[-1].split()[0] == "Z"


def _ends(pid: int, within_s: float = 10.0) -> bool:
    deadline = time.monotonic() + within_s
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not _alive(pid)


def test_a_hanging_worker_killed_mid_run_loses_only_its_candidate(shared, env, repo):
    b = shared
    cu = repo / "standin.cu"
    spec = load_spec(repo / "standin.kernelpro.toml")
    killed: dict = {}  # description -> the worker it ran on
    victim: dict = {}  # the actor killed: its index, its pid, its GPU worker process
    done = threading.Event()

    def killer():
        """Once a candidate with an 'h' step hangs in its GPU worker process: for 'h' kill the actor, for
        the others the worker process, so none waits for the timeout."""
        while not done.is_set():
            for r in b.running():
                d = r["description"]
                if "h" not in d or d in killed:
                    continue
                try:
                    child = _child_of(b, r["actor"], r["job"])
                except ray.exceptions.RayError:  # its actor is restarting (the one killed for 'h'): ask again
                    continue
                if not child or not _hanging(env, child):
                    continue
                killed[d] = b.where(r["actor"])
                if d == "h":
                    victim.update(actor=r["actor"], pid=r["pid"], child=child)
                    os.kill(r["pid"], signal.SIGKILL)
                else:
                    os.kill(child, signal.SIGKILL)
            time.sleep(0.1)

    events = []
    b.emit = events.append
    ev = b.evaluator(cu, "standin_add", spec, CompileOptions(), timeout_s=120)
    t = threading.Thread(target=killer, daemon=True)
    t.start()
    try:
        res = run_search(Candidate(source=cu.read_text(), description="root"),
                         StandinProposer(cu.read_text(), "ahxb"), ev, Budget(evaluations=10), batch=b.window,
                         on_event=events.append)
    finally:
        done.set()
        t.join(5)
        ev.close()
    assert victim, "the actor measuring 'h' was never killed"
    assert _ends(victim["child"])  # its GPU worker, hanging, saw its actor go
    restarted = ray.get(b.actors[victim["actor"]].info.options(concurrency_group=CONTROL).remote(), timeout=120)
    assert restarted["pid"] != victim["pid"] and restarted["problem"] is None  # Ray restarted the killed actor
    assert res.evaluations == 10
    by = {n.candidate.description: n for n in res.nodes}
    assert {"h", "ah"} <= set(killed) and set(killed) == {d for d in by if "h" in d}
    assert "died while measuring" in by["h"].evaluation.failure  # the actor's death: that candidate only
    assert by["ah"].failed and "worker" in by["ah"].evaluation.failure  # its worker process's death
    assert "CUDA_ERROR_ILLEGAL_ADDRESS" in by["x"].evaluation.failure
    failed = {n.candidate.description for n in res.nodes if n.failed}
    assert failed == {d for d in by if "h" in d or "x" in d}  # the hanging and crashing ones, nothing else
    assert len(by) - len(failed) >= 5
    assert res.best.candidate.description.startswith("a")  # kp_speed_90 steps won
    assert any("died while measuring 'h'" in e.get("message", "") for e in events if e["type"] == "note")


def test_a_project_the_workers_cannot_read_is_one_line(shared, repo):
    with pytest.raises(WorkersError, match=r"^the worker on .* cannot read .*/nope.cu: the project must be at "
                                           r"the same path on every machine"):
        shared.evaluator(repo / "nope.cu", "standin_add", load_spec(repo / "standin.kernelpro.toml"),
                         CompileOptions())


def test_several_kernels_share_the_workers(shared, repo):
    standin_project(repo, "other", "standin_other")
    events = []
    from kernelpro.optimizer.many import check_all, find_jobs, run_all

    jobs = find_jobs([str(repo)])
    assert [(j.file.name, j.kernel) for j in jobs] == [("other.cu", "standin_other"), ("standin.cu", "standin_add")]
    cfgs = [RunConfig(file=j.file, kernel=j.kernel, budget=Budget(evaluations=4), energy=False, max_branches=0)
            for j in jobs]
    checked, problems = check_all(cfgs)
    assert not problems
    lock = threading.Lock()

    def emit(e):
        with lock:
            events.append(e)
    shared.emit = emit
    outs = run_all(cfgs, emit, backend=shared, checked=checked)
    assert [o.evaluations for o in outs] == [4, 4]
    done = [e for e in events if e["type"] == "done"]
    assert sorted(e["kernel"] for e in done) == ["standin_add", "standin_other"]
    # both searches had candidates in flight at the same time
    kernels_seen = [e["kernel"] for e in events if e["type"] in ("evaluated", "tuned")]
    first_done = min(i for i, e in enumerate(events) if e["type"] == "done")
    assert {"standin_add", "standin_other"} <= {e["kernel"] for e in events[:first_done] if e["type"] == "evaluated"}
    assert len(kernels_seen) == 10


def test_auto_gives_one_worker_per_gpu_pinned_to_the_model_and_closing_stops_a_hanging_worker(local_ray, env, repo):
    """The timing path (one whole GPU per worker) over two declared GPUs labelled FAKE200: Ray gives each
    actor its own GPU, the model is pinned by its accelerator-type label, and a model the cluster lacks
    is refused in one line. Closing the backend while a kernel hangs leaves no GPU worker process."""
    from kernelpro.optimizer.parallel.backend import Cancelled

    with pytest.raises(WorkersError, match=r"--gpu-model H100: the cluster has no GPU of that model \(it has: 2 x FAKE200\)"):
        RayBackend(Workers(), per_worker=1.0, env=env, gpu_model="H100")
    notes = []
    src = (repo / "standin.cu").read_text()
    with RayBackend(Workers(), per_worker=1.0, env=env, emit=notes.append) as b:
        assert sorted(tuple(i["gpus"]) for i in b.infos) == [("0",), ("1",)]
        assert b.window == 4
        ev = b.evaluator(repo / "standin.cu", "standin_add", load_spec(repo / "standin.kernelpro.toml"), CompileOptions())
        out = ev.evaluate([Candidate(source=src, description="root"),
                           Candidate(source=src + "__device__ int kp_speed_50;\n", description="half")])
        (hang,) = ev.submit([Candidate(source=src + "__device__ int kp_hang;\n", description="hangs")])
        deadline = time.monotonic() + 120
        child = None
        while not (child and _hanging(env, child)) and time.monotonic() < deadline:
            busy = b.running()
            child = busy and _child_of(b, busy[0]["actor"], ev.job.id)
            time.sleep(0.1)
        assert child and _hanging(env, child), "the hanging candidate never ran"
    with pytest.raises(Cancelled):
        hang.result(timeout=1)
    assert _ends(child)  # closing stopped the workers, a hanging one too
    assert all(e.ok for e in out)
    assert out[1].times_s["large"] == pytest.approx(out[0].times_s["large"] * 0.5, rel=1e-6)
    assert {e.resources["worker"].split()[-1] for e in out} <= {"0", "1"}
    assert notes[0]["message"].endswith("GPUs: 2 x FAKE200") and len(notes) == 1  # no plumbing warning
