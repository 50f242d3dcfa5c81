"""The driver side of the Ray backend: start or join Ray, one actor per GPU, the queue, results as futures.

Each candidate goes through two steps: its static profile (compile, resources, advice) as a Ray CPU
task, then, once a GPU actor is free, its measurement on that actor. The search gets a Future per
candidate at once (RayEvaluator.submit) and reads the results in the order it proposed them;
they come back here as they finish. Candidates waiting for an actor go in the order they were
submitted, from every kernel job that shares the backend.

A crash of the actor itself (its process killed, its node lost) costs the candidate it was measuring:
that one comes back as a failed Evaluation, Ray restarts the actor (up to MAX_RESTARTS times), it takes
work again once it answers a ping, and the others go on. Closing the backend kills the actors (each GPU worker process ends with its actor)
and, when this backend started the local Ray instance, shuts it down, so no process outlives the command.

A local instance (`--workers auto|N`) listens on 127.0.0.1 only and wants a token of its own (local.py);
a cluster given by address is joined as it is (its authentication is the cluster's).
"""
from __future__ import annotations

import heapq
import itertools
import logging
import threading
import uuid
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

from ..evaluator import Static, spec_options, static_of
from ..model import Candidate, Evaluation
from .actor import GpuWorker, Job
from .local import LocalInstance
from .workers import Pick, Workers, WorkersError, gpus_per_worker, import_ray, pick_gpus, ray_address_problem, worker_count

MAX_RESTARTS = 2  # an actor that died more often is not used again
START_TIMEOUT_S = 300.0  # for every actor to start and probe its GPU
CONTROL = "control"  # the actors' concurrency group for info and child_pids, beside a running measurement


class Cancelled(Exception):
    """The backend was closed before this candidate's result came back."""


def one_line(e: BaseException) -> str:
    lines = [x.strip() for x in str(e).strip().splitlines() if x.strip()]
    return (lines[-1] if lines else type(e).__name__)[:300]


@dataclass(eq=False)
class _Task:
    seq: int
    job: Job
    options: object  # CompileOptions for the static step (the spec's flags included)
    cand: Candidate
    future: Future
    static: Static | None = None
    actor: int | None = None


class RayBackend:
    """One actor per GPU (or `count` actors), shared by every kernel job of a run."""

    def __init__(self, workers: Workers, *, gpu_model: str | None = None, emit=None,
                 env: dict[str, str] | None = None, per_worker: float | None = None):
        self.ray = ray = import_ray()
        self.emit = emit or (lambda e: None)
        self.per_worker = gpus_per_worker() if per_worker is None else per_worker
        self.owns = False
        self.local: LocalInstance | None = None  # the instance this backend started (local.py)
        self.actors: list = []
        self.infos: list[dict] = []
        self.deaths: list[int] = []
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._new: list[_Task] = []
        self._compiling: dict = {}  # ObjectRef -> _Task
        self._running: dict = {}  # ObjectRef -> _Task
        self._reviving: dict = {}  # ObjectRef of a ping -> the actor that died: free again once it answers
        self._ready: list = []  # heap of (seq, _Task): compiled, waiting for an actor
        self._free: list[int] = []  # idle actors, the longest idle first (work goes round the GPUs)
        self._seq = itertools.count()
        self._stop = False
        self._thread: threading.Thread | None = None
        self.most_running = 0  # the most measurements at once (tests, benchmarks)
        self.per_actor: list[int] = []  # measurements per actor
        if workers.address and (problem := ray_address_problem(workers.address)):
            raise WorkersError(problem)
        if not ray.is_initialized():
            kw = dict(include_dashboard=False, log_to_driver=False, namespace="kernelpro",
                      logging_level=logging.WARNING)
            try:
                if workers.address:  # the user's cluster: its listeners and its authentication are its own
                    ray.init(address=workers.address, **kw)
                else:  # a new instance for this run, on loopback with a token of its own (local.py)
                    self.local = LocalInstance(ray)
                    self.local.start(**kw)
            except WorkersError:
                raise
            except Exception as e:
                raise WorkersError(f"--workers {workers}: Ray did not start: {one_line(e)}") from None
            self.owns = True
        try:
            self._start(workers, gpu_model, env)
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------ start
    def _start(self, workers: Workers, gpu_model: str | None, env) -> None:
        ray = self.ray
        if self.per_worker > 0:
            self.pick = pick_gpus(ray.nodes(), gpu_model)
        else:
            self.pick = Pick(None, 0.0, False, "CPU-only actors (KERNELPRO_RAY_GPUS_PER_WORKER=0)")
        n = worker_count(workers, self.pick.gpus, self.per_worker)
        opts = dict(num_gpus=self.per_worker, num_cpus=0, max_restarts=MAX_RESTARTS, max_task_retries=0)
        if self.pick.model:
            opts["accelerator_type"] = self.pick.model
        cls = ray.remote(concurrency_groups={CONTROL: 1})(GpuWorker)
        self.actors = [cls.options(**opts).remote(env) for _ in range(n)]
        self.deaths = [0] * n
        self.per_actor = [0] * n
        self._free = list(range(n))
        try:
            self.infos = ray.get([a.info.options(concurrency_group=CONTROL).remote() for a in self.actors],
                                 timeout=START_TIMEOUT_S)
        except ray.exceptions.GetTimeoutError:
            raise WorkersError(f"--workers {workers}: Ray did not place {n} worker(s) within {START_TIMEOUT_S:g} s "
                               f"(cluster resources: {ray.cluster_resources()})") from None
        for i, info in enumerate(self.infos):
            if info.get("problem"):
                raise WorkersError(f"worker {i} on {info['host']} (GPU {','.join(info['gpus']) or '-'}): "
                                   f"no GPU: {info['problem']}")
        self._static = ray.remote(num_cpus=1, max_retries=0)(static_of)
        self.window = 2 * n  # evaluations a search keeps in flight: n measuring, n compiling
        self.mixed = self.pick.mixed
        where = "a local Ray instance" if self.owns and not workers.address else f"Ray at {ray.get_runtime_context().gcs_address}"
        nodes = len({i["node"] for i in self.infos})
        self.note(f"{n} worker(s) on {nodes} node(s) of {where}; {self.pick.note}")
        if self.per_worker != 1:
            self.note(f"workers hold {self.per_worker:g} GPU each: timings from shared or absent GPUs check the "
                      f"plumbing and must not be compared")
        self._thread = threading.Thread(target=self._pump, name="kernelpro-ray", daemon=True)
        self._thread.start()

    def note(self, message: str) -> None:
        self.emit({"type": "note", "message": message})

    @property
    def workers(self) -> int:
        return len(self.actors)

    def where(self, i: int) -> str:
        info = self.infos[i]
        gpu = f"GPU {','.join(info['gpus'])}" if info["gpus"] else f"worker {i}"
        return f"{info['host']} {gpu}"

    # ------------------------------------------------------------ jobs
    def evaluator(self, path, kernel: str, spec, options, energy: bool = False,
                  timeout_s: float = 60.0) -> "RayEvaluator":
        job = Job(id=f"{kernel}-{uuid.uuid4().hex[:8]}", path=str(Path(path).resolve()), kernel=kernel, spec=spec,
                  options=options, energy=energy, timeout_s=timeout_s)
        paths = [job.path] + ([str(spec.path)] if getattr(spec, "path", None) else [])
        answers = self.ray.get([a.missing.options(concurrency_group=CONTROL).remote(paths) for a in self.actors])
        for i, gone in enumerate(answers):
            if gone:
                raise WorkersError(f"the worker on {self.where(i)} cannot read {gone[0]}: the project must be at "
                                   f"the same path on every machine of the cluster (a shared file system)")
        return RayEvaluator(self, job, spec_options(options, spec))

    def submit(self, job: Job, options, cands: list[Candidate]) -> list[Future]:
        out = []
        with self._lock:
            if self._stop:
                raise Cancelled("the Ray backend is closed")
            for c in cands:
                t = _Task(next(self._seq), job, options, c, Future())
                self._new.append(t)
                out.append(t.future)
        self._wake.set()
        return out

    def call(self, method: str, job: Job, *args, timeout: float | None = None):
        """A call on the first live actor (the same GPU every time): re-measurements, the sanitizer, energy."""
        for i, a in enumerate(self.actors):
            if self.deaths[i] > MAX_RESTARTS:
                continue
            return self.ray.get(getattr(a, method).remote(job, *args), timeout=timeout)
        raise WorkersError("no GPU worker left: every worker died more than "
                           f"{MAX_RESTARTS + 1} times")

    def release(self, job_id: str) -> None:
        for a in self.actors:
            try:
                a.release.remote(job_id)
            except Exception:  # an actor that is gone holds nothing
                pass

    def running(self) -> list[dict]:
        """What each busy actor is measuring (tests, progress)."""
        with self._lock:
            return [{"actor": t.actor, "pid": self.infos[t.actor]["pid"], "job": t.job.id,
                     "description": t.cand.description} for t in self._running.values()]

    # ------------------------------------------------------------ the queue (one thread)
    def _pump(self) -> None:
        try:
            self._loop()
        except Exception as e:  # Ray itself failed (a lost head node, say): every waiting search hears it
            self.note(f"the Ray backend stopped: {one_line(e)}")
            self._fail_all(Evaluation(ok=False, failure=f"crash: the Ray backend stopped: {one_line(e)}"))

    def _fail_all(self, why) -> None:
        with self._lock:
            left = self._new + list(self._compiling.values()) + list(self._running.values()) + [t for _, t in self._ready]
            self._new, self._ready = [], []
            self._compiling, self._running = {}, {}
            if isinstance(why, Evaluation):
                self._stop = True
        for t in left:
            if t.future.done():
                continue
            if isinstance(why, Evaluation):
                t.future.set_result(why)
            else:
                t.future.set_exception(why)

    def _loop(self) -> None:
        ray = self.ray
        while not self._stop:
            with self._lock:
                new, self._new = self._new, []
            for t in new:
                try:
                    ref = self._static.remote(Path(t.job.path), t.job.kernel, t.cand, t.options)
                except Exception as e:
                    self._finish(t, Evaluation(ok=False, failure=f"crash: the compile task did not start: {one_line(e)}"))
                    continue
                self._compiling[ref] = t
            self._assign()
            refs = list(self._compiling) + list(self._running) + list(self._reviving)
            if not refs:
                self._wake.wait(0.05)
                self._wake.clear()
                continue
            done, _ = ray.wait(refs, num_returns=len(refs), timeout=0.05)
            for ref in done:
                if ref in self._compiling:
                    self._compiled(self._compiling.pop(ref), ref)
                elif ref in self._reviving:
                    self._revived(self._reviving.pop(ref), ref)
                else:
                    with self._lock:
                        t = self._running.pop(ref)
                    if self._measured(t, ref):
                        self._free.append(t.actor)
            self._assign()

    def _compiled(self, t: _Task, ref) -> None:
        try:
            st = self.ray.get(ref)
        except Exception as e:
            self._finish(t, Evaluation(ok=False, failure=f"crash: the compile task failed: {one_line(e)}"))
            return
        if st.failed is not None:
            self._finish(t, st.failed)
            return
        t.static = st
        heapq.heappush(self._ready, (t.seq, t))

    def _ping(self, i: int) -> None:
        """Ask a restarting actor for its info: it takes work again only once it answers, so no candidate
        goes to it while Ray has not yet seen it die (that one would be lost with it)."""
        self._reviving[self.actors[i].info.options(concurrency_group=CONTROL).remote()] = i

    def _revived(self, i: int, ref) -> None:
        try:
            self.infos[i] = self.ray.get(ref)
        except self.ray.exceptions.RayActorError:
            self.deaths[i] += 1
            if self.deaths[i] <= MAX_RESTARTS:
                self._ping(i)
            else:
                self.note(f"the GPU worker on {self.where(i)} did not come back; it is not used again")
            return
        self._free.append(i)

    def _measured(self, t: _Task, ref) -> bool:
        """Finish the task; True when its actor can take the next one at once."""
        ray, i, died = self.ray, t.actor, False
        try:
            ev = ray.get(ref)
        except ray.exceptions.RayActorError as e:
            died = True
            self.deaths[i] += 1
            gone = self.deaths[i] > MAX_RESTARTS
            if not gone:
                self._ping(i)
            ev = Evaluation(ok=False, failure=f"crash: the GPU worker on {self.where(i)} died while measuring it "
                                              f"({one_line(e)})", advice=t.static.advice,
                            resources=dict(t.static.resources))
            self.note(f"the GPU worker on {self.where(i)} died while measuring '{t.cand.description}'; "
                      + ("it is not used again" if gone else "Ray restarts it and the others go on"))
        except Exception as e:  # the actor method raised: a bug, kept as data like GpuEvaluator does
            ev = Evaluation(ok=False, failure=f"crash: evaluator error {one_line(e)}", advice=t.static.advice,
                            resources=dict(t.static.resources))
        ev.resources["worker"] = self.where(i)
        self.per_actor[i] += 1
        self._finish(t, ev)
        return not died

    def _assign(self) -> None:
        self._free = [i for i in self._free if self.deaths[i] <= MAX_RESTARTS]
        if not any(d <= MAX_RESTARTS for d in self.deaths):
            while self._ready:
                _, t = heapq.heappop(self._ready)
                self._finish(t, Evaluation(ok=False, failure="crash: no GPU worker left (every one died "
                                                             f"more than {MAX_RESTARTS + 1} times)"))
            return
        while self._ready and self._free:
            i = self._free.pop(0)
            _, t = heapq.heappop(self._ready)
            t.actor = i
            ref = self.actors[i].measure.remote(t.job, t.cand, t.static)
            with self._lock:
                self._running[ref] = t
                self.most_running = max(self.most_running, len(self._running))

    @staticmethod
    def _finish(t: _Task, ev: Evaluation) -> None:
        if not t.future.done():
            t.future.set_result(ev)

    # ------------------------------------------------------------ close
    def close(self) -> None:
        """Stop the queue, fail what is unfinished, kill the actors (their GPU workers end with them), and
        shut down the local Ray instance if this backend started it."""
        ray = self.ray
        with self._lock:
            self._stop = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._fail_all(Cancelled("the run stopped before this candidate's result came back"))
        for a in self.actors:  # their GPU worker processes end with them (child.py)
            try:
                ray.kill(a)
            except Exception:
                pass
        self.actors = []
        if self.owns and self.local is not None:
            self.local.stop()  # the instance, then the environment as it was
        elif self.owns and ray.is_initialized():
            ray.shutdown()
        self.owns = False

    def __enter__(self) -> "RayBackend":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class RayEvaluator:
    """One kernel job's evaluator over the shared backend (the search's ParallelEvaluator)."""

    def __init__(self, backend: RayBackend, job: Job, options):
        self.backend, self.job, self.options = backend, job, options

    @property
    def batch(self) -> int:
        return self.backend.window

    @property
    def mixed_models(self) -> bool:
        return self.backend.mixed

    def submit(self, candidates: list[Candidate]) -> list[Future]:
        return self.backend.submit(self.job, self.options, candidates)

    def evaluate(self, candidates: list[Candidate]) -> list[Evaluation]:
        return [f.result() for f in self.submit(candidates)]

    def remeasure(self, candidates: list[Candidate]) -> list[Evaluation]:
        """Root and candidate again in a fresh worker process, on one GPU (the first worker's)."""
        try:
            return self.backend.call("remeasure", self.job, candidates)
        except Exception as e:
            return [Evaluation(ok=False, failure=f"crash: the re-measurement failed: {one_line(e)}")
                    for _ in candidates]

    def sanitize(self, cand: Candidate) -> dict:
        try:
            return self.backend.call("sanitize", self.job, cand)
        except Exception as e:
            return {"failure": f"the sanitizer run failed: {one_line(e)}"}

    def energy_of(self, cand: Candidate) -> dict[str, float]:
        return self.backend.call("energy_of", self.job, cand)

    def close(self) -> None:
        self.backend.release(self.job.id)
