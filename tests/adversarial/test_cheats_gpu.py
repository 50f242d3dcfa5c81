"""The cheat suite on a GPU (skipped without one): every cheat rejected or shown without a speedup, every
honest twin accepted, through the path `kernelpro bench` takes (measure.measure_spec, the same pool,
the ceilings, Compute Sanitizer for the cases that need it) and through `optimize` with the cheats fed
as a model's answers by the scripted OpenAI-compatible server (no cheat may become a branch).

With KERNELPRO_ADVERSARIAL_LOG=FILE each case appends one JSON line there (scripts/gpu_adversarial.sh).
"""
from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys

import git
import pytest

from cases import CASES, HERE, by_name
from fake_openai import FakeLLM, text
from kernelpro.profilers.compile import CompileOptions

pytestmark = pytest.mark.gpu
NO_SPEEDUP = 1.03  # a "no-speedup" cheat may measure at most this much faster than its honest twin


def _log(record: dict) -> None:
    path = os.environ.get("KERNELPRO_ADVERSARIAL_LOG")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(record, default=str) + "\n")


@pytest.fixture(scope="module")
def pool():
    from kernelpro.profilers.runtime.worker import WorkerPool

    p = WorkerPool(timeout_s=120)
    yield p
    p.close()


@pytest.fixture(scope="module")
def arch(pool):
    return "sm_" + pool.call({"op": "device"})["compute_capability"].replace(".", "")


def bench(pool, arch, cu, case, **kw):
    """What `kernelpro bench FILE --spec SPEC [--no-energy] [--sanitize]` does."""
    from kernelpro.profilers.runtime.measure import measure_spec
    from kernelpro.profilers.runtime.spec import load_spec

    spec = load_spec(case.spec)
    return measure_spec(cu, spec, CompileOptions(arch=arch), energy=case.energy, pool=pool,
                        sanitize=case.sanitize, **kw)


_HONEST: dict = {}


def honest(pool, arch, case):
    key = (case.honest, case.energy, case.sanitize)
    if key not in _HONEST:
        _HONEST[key] = bench(pool, arch, case.source, case)["result"]
    return _HONEST[key]


def speedup(cheat, twin) -> float:
    ratios = [t.time_s / c.time_s for t, c in zip(twin.sizes, cheat.sizes) if c.time_s > 0 and t.time_s > 0]
    return math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else float("nan")


@pytest.mark.parametrize("name", [c.name for c in CASES])
def test_bench_path(pool, arch, name):
    case = by_name(name)
    twin = honest(pool, arch, case)
    assert twin.ok, f"the honest twin {case.honest} fails: {twin.failure}"
    res = bench(pool, arch, case.cheat, case)["result"]
    gain = speedup(res, twin) if res.ok else None
    _log({"path": "bench", "case": name, "expect": case.expect, "ok": res.ok, "failure": res.failure,
          "speedup": gain, "honest_us": [s.time_s * 1e6 for s in twin.sizes],
          "cheat_us": [s.time_s * 1e6 for s in res.sizes]})
    if case.expect == "rejected":
        assert not res.ok, f"{name} was accepted ({gain:.3f}x)"
        assert any(r in (res.failure or "") for r in case.reasons), res.failure
    else:
        assert not res.ok or gain <= NO_SPEEDUP, f"{name} measured {gain:.3f}x faster than its honest twin"


@pytest.fixture(scope="module")
def fake_llm_server():
    fake = FakeLLM().start()
    yield fake
    fake.stop()


def _repo(tmp_path, case):
    r = git.Repo.init(tmp_path)
    r.git.config("user.name", "Test")
    r.git.config("user.email", "t@example.com")
    for f in (case.source, case.spec, HERE / "refs.py"):
        shutil.copy(f, tmp_path / f.name)
    r.git.add(".")
    r.git.commit("-m", "honest kernel")
    return tmp_path


def _answers(case) -> list:
    plan = text(json.dumps({"strategy": f"optimize {case.kernel}", "answers": [], "confidence": 0.9}))
    answer = text("Here is a faster kernel:\n```cuda\n" + case.cheat.read_text() + "\n```")
    return [plan, answer, answer]  # the answer twice: a rejected answer is sent back once for repair


@pytest.mark.parametrize("name", [c.name for c in CASES])
def test_optimize_path(pool, arch, fake_llm_server, tmp_path, name):
    from kernelpro.optimizer.evaluator import GpuEvaluator
    from kernelpro.optimizer.model import Budget
    from kernelpro.optimizer.run import RunConfig, optimize, preflight

    case = by_name(name)
    repo = _repo(tmp_path, case)
    fake_llm_server.script.clear()
    fake_llm_server.push(*_answers(case))
    cfg = RunConfig(file=repo / case.source.name, kernel=case.kernel, budget=Budget(evaluations=1),
                    options=CompileOptions(arch=arch), llm_base_url=fake_llm_server.base_url, llm_model="scripted",
                    llm_backoff_s=0.01, energy=False)
    _, _, spec = preflight(cfg)
    evaluator = GpuEvaluator(repo / case.source.name, case.kernel, spec, cfg.options)
    evaluator.pool.close()
    evaluator.pool, evaluator.close = pool, lambda: None  # one worker for the whole suite
    events = []
    out = optimize(cfg, on_event=events.append, evaluator=evaluator)  # the honest root must pass (else OptimizeError)
    evaluated = [e for e in events if e["type"] == "evaluated" and e.get("parent") is not None]
    _log({"path": "optimize", "case": name, "branches": out.branches, "evaluated": evaluated[-1:] and {
        k: evaluated[-1].get(k) for k in ("ok", "failure", "reward")},
        "llm_failures": [e["reason"] for e in events if e["type"] == "llm_failure"][:2]})
    assert out.branches == [] and not any(e["type"] == "branch" for e in events), f"{name} became a branch"
    assert not list(git.Repo(repo).git.branch("--list", "kernelpro/*").split())


def test_bench_command_line_on_the_issue_cheat(tmp_path):
    """`kernelpro bench` itself on the memoizing kernel of issue 10 and on its honest twin."""
    case = by_name("memo_values")
    env = dict(os.environ, KERNELPRO_CACHE_DIR=str(tmp_path))
    runs = {}
    for label, cu in (("honest", case.source), ("cheat", case.cheat)):
        p = subprocess.run([sys.executable, "-m", "kernelpro.profilers.cli", "bench", str(cu), "--spec", str(case.spec),
                            "--no-energy", "--no-sanitize", "--json"], capture_output=True, text=True, env=env,
                           timeout=300)
        assert p.stdout, p.stderr
        runs[label] = json.loads(p.stdout)
    assert runs["honest"]["result"]["ok"], runs["honest"]["result"]["failure"]
    h = [s["time_s"] for s in runs["honest"]["result"]["sizes"]]
    c = runs["cheat"]["result"]
    gain = math.exp(sum(math.log(a / b) for a, b in zip(h, [s["time_s"] for s in c["sizes"]])) / len(h)) if c["ok"] else 0
    _log({"path": "bench-cli", "case": case.name, "ok": c["ok"], "failure": c["failure"], "speedup": gain,
          "device_state": [s.get("device_state") for s in c["sizes"]]})
    assert not c["ok"] or gain <= NO_SPEEDUP
    assert not c["ok"] or set(c["sizes"][0]["device_state"]) == {"seen", "seen_n", "blocks_done"}
