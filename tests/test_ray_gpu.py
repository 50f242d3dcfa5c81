"""The Ray backend on a real GPU (gpu marker; needs Ray): two workers sharing the one GPU
(KERNELPRO_RAY_GPUS_PER_WORKER=0.5, a plumbing check, never timing) measure real kernels, and a
candidate that hangs and one that crashes each cost only themselves. scripts/gpu_ray.sh runs it."""
from __future__ import annotations

from pathlib import Path

import pytest

from kernelpro.optimizer.model import Candidate
from kernelpro.profilers.contracts import FailureKind
from kernelpro.profilers.compile import CompileOptions
from kernelpro.profilers.runtime.spec import load_spec

GPU = Path(__file__).resolve().parent.parent / "examples" / "gpu"


@pytest.mark.gpu
def test_two_workers_on_the_gpu_measure_and_a_hang_or_a_crash_costs_one_candidate(monkeypatch):
    pytest.importorskip("ray")
    from kernelpro.optimizer.parallel.backend import RayBackend
    from kernelpro.optimizer.parallel.workers import Workers

    monkeypatch.setenv("KERNELPRO_RAY_GPUS_PER_WORKER", "0.5")
    src = (GPU / "vecadd.cu").read_text()
    body = "if (i < n) out[i] = a[i] + b[i];"
    assert body in src
    # a spin on the clock (nvcc removes an empty loop on a local, even a volatile one)
    hang = src.replace(body, body + " for (long long t0 = clock64(); clock64() - t0 >= 0;) { }")
    crash = src.replace(body, body + " if (i == 0) out[i + (1 << 30)] = 0.0f;")
    cands = [Candidate(source=src + "\n// one\n", description="good"), Candidate(source=hang, description="hangs"),
             Candidate(source=crash, description="crashes"), Candidate(source=src + "\n// two\n", description="good 2"),
             Candidate(source=src + "\n// three\n", description="good 3")]
    notes = []
    with RayBackend(Workers(count=2), emit=notes.append) as b:
        assert [i["gpus"] for i in b.infos] == [["0"], ["0"]]
        ev = b.evaluator(GPU / "vecadd.cu", "vecadd", load_spec(GPU / "vecadd.kernelpro.toml"), CompileOptions(),
                         timeout_s=20)
        out = {c.description: f.result() for c, f in zip(cands, ev.submit(cands))}
        assert b.per_actor[0] and b.per_actor[1]
    assert all(out[d].ok for d in ("good", "good 2", "good 3")), {d: e.failure for d, e in out.items()}
    assert all(out[d].times_s["large"] > 50e-6 for d in ("good", "good 2", "good 3"))
    assert not out["hangs"].ok and "timeout" in out["hangs"].failure
    # the typed kind, not the driver's wording (the H200 said CUDA_ERROR_INVALID_ADDRESS_SPACE here)
    assert not out["crashes"].ok and out["crashes"].failure_kind == FailureKind.CRASH, out["crashes"].failure
    assert any("must not be compared" in n["message"] for n in notes)
