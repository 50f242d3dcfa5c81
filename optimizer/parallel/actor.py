"""The Ray actor of one GPU: the single-GPU runtime (GpuEvaluator, its worker process) per kernel job.

A running actor task cannot be interrupted, so the actor never runs a kernel itself: GpuEvaluator's
worker is a child process (one per actor, shared by every kernel job measured there: one CUDA context
per GPU), killed (with its process group) when a kernel hangs past the timeout or the CUDA context is
poisoned, and the failure comes back as a failed Evaluation. That child ends itself when the actor is
gone (child.py), so killing an actor (Ray's close, a crash) leaves nothing. Ray gives the actor its GPU
through CUDA_VISIBLE_DEVICES, so the runtime's device 0 is that GPU.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from kernelpro.profilers.compile import CompileOptions

from ..model import Candidate, Evaluation

# The runtime the worker process will use (pycuda) starting with a device is the test; only when it
# does not, gpu_problem says why (the driver first). A stand-in pycuda (CI) passes the same way.
PROBE = """
try:
    import pycuda.driver as d
    d.init()
    ok = d.Device.count() > 0
except Exception:
    ok = False
if not ok:
    from kernelpro.profilers.runtime.measure import gpu_problem
    print(gpu_problem() or "no CUDA device found")
"""


@dataclass(frozen=True)
class Job:
    """One kernel's evaluation settings, sent with each call (the actor keeps one runtime per job id)."""

    id: str
    path: str
    kernel: str
    spec: object = field(compare=False)  # runtime.spec.LaunchSpec (plain data, pickled)
    options: CompileOptions = CompileOptions()
    energy: bool = False
    timeout_s: float = 60.0


class GpuWorker:
    """The actor's class (ray.remote is applied by the backend, so importing this needs no Ray)."""

    def __init__(self, env: dict[str, str] | None = None):
        self.env = {**os.environ, **env} if env else None  # the GPU worker process's environment
        self.evaluators: dict[str, object] = {}
        self.pools: dict[float, object] = {}  # timeout -> the GPU worker process every kernel job shares

    def info(self) -> dict:
        """Where this actor runs and whether the GPU runtime works there (probed in a child process, so the
        actor itself never holds a CUDA context)."""
        import ray

        try:
            p = subprocess.run([sys.executable, "-P", "-c", PROBE], capture_output=True, text=True, timeout=120,
                               stdin=subprocess.DEVNULL, env=self.env)
            problem = p.stdout.strip() or (None if p.returncode == 0 else (p.stderr.strip().splitlines() or ["?"])[-1])
        except (OSError, subprocess.TimeoutExpired) as e:
            problem = f"the GPU probe failed: {e}"
        ctx = ray.get_runtime_context()
        return {"pid": os.getpid(), "host": socket.gethostname(), "node": ctx.get_node_id(),
                "gpus": [str(g) for g in ray.get_gpu_ids()], "problem": problem or None}

    def missing(self, paths: list[str]) -> list[str]:
        """The paths this actor's machine cannot read (the project must be at the same path everywhere)."""
        return [p for p in paths if not os.access(p, os.R_OK)]

    def _evaluator(self, job: Job):
        ev = self.evaluators.get(job.id)
        if ev is None:
            from kernelpro.profilers.runtime.worker import WorkerPool

            from ..evaluator import GpuEvaluator
            from .child import command

            pool = self.pools.get(job.timeout_s)
            if pool is None:  # one worker process (one CUDA context) for every kernel measured here
                pool = self.pools[job.timeout_s] = WorkerPool(timeout_s=job.timeout_s, env=self.env, command=command())
            ev = GpuEvaluator(Path(job.path), job.kernel, job.spec, job.options, energy=job.energy,
                              timeout_s=job.timeout_s, env=self.env, command=command(), pool=pool)
            self.evaluators[job.id] = ev
        return ev

    def measure(self, job: Job, cand: Candidate, static) -> Evaluation:
        return self._evaluator(job).measure(cand, static)

    def remeasure(self, job: Job, cands: list[Candidate]) -> list[Evaluation]:
        return self._evaluator(job).remeasure(cands)

    def sanitize(self, job: Job, cand: Candidate) -> dict:
        return self._evaluator(job).sanitize(cand)

    def energy_of(self, job: Job, cand: Candidate) -> dict:
        return self._evaluator(job).energy_of(cand)

    def child_pids(self) -> dict[str, int | None]:
        """The GPU worker process measuring each job (tests kill one to show a crash costs one candidate)."""
        return {k: ev.pool.pid for k, ev in self.evaluators.items()}

    def release(self, job_id: str) -> None:
        ev = self.evaluators.pop(job_id, None)
        if ev is not None:
            ev.close()

    def close(self) -> None:
        for k in list(self.evaluators):
            self.release(k)
        for pool in self.pools.values():
            pool.close()
        self.pools = {}
