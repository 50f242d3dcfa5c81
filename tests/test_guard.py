"""The gate before a branch (optimizer/guard.py): Compute Sanitizer, then a fresh-process re-measurement.

The GPU is replaced by a timing model (a test double, named as such) that also answers `sanitize` and
`remeasure` the way GpuEvaluator does; the real ones run on the GPU (tests/adversarial)."""
import json
import re
import shutil
from pathlib import Path

import git
import pytest

from kernelpro.optimizer.model import Budget, Evaluation
from kernelpro.optimizer.run import RunConfig, optimize

EX = Path(__file__).resolve().parent.parent / "examples"


class CheckedTimingModel:
    """Time from the source (fewer double literals: faster); sanitizer and re-measurement scripted."""

    def __init__(self, sanitizer_failure: str | None = None, remeasured_gain: float | None = None):
        self.sanitizer_failure, self.remeasured_gain = sanitizer_failure, remeasured_gain
        self.sanitized, self.remeasured = [], []

    def evaluate(self, candidates):
        out = []
        for c in candidates:
            doubles = len(re.findall(r"\d\.\d+(?![\df])", c.source))
            t = 1e-3 * (1 + doubles)
            out.append(Evaluation(ok=True, times_s={"small": t, "large": 8 * t}, resources={"registers": 16}))
        return out

    def sanitize(self, cand):
        self.sanitized.append(cand)
        tools = [{"tool": t, "ran": True} for t in ("memcheck", "racecheck", "initcheck")]
        return {"failure": self.sanitizer_failure, "notes": [], "reports": tools}

    def remeasure(self, candidates):
        self.remeasured.append(candidates)
        root, cand = self.evaluate(candidates)
        if self.remeasured_gain is not None:  # the "fresh process" sees another speedup
            cand.times_s = {k: v / self.remeasured_gain for k, v in root.times_s.items()}
        return [root, cand]


@pytest.fixture
def repo(tmp_path):
    r = git.Repo.init(tmp_path)
    r.git.config("user.name", "Test")
    r.git.config("user.email", "t@example.com")
    for f in ("a_fp64_literal.cu", "a_fp64_literal.kernelpro.toml", "refs.py"):
        shutil.copy(EX / f, tmp_path / f)
    r.git.add(".")
    r.git.commit("-m", "kernel")
    return tmp_path


def _run(repo, model):
    events = []
    out = optimize(RunConfig(file=repo / "a_fp64_literal.cu", kernel="gelu", budget=Budget(evaluations=6)),
                   on_event=events.append, evaluator=model)
    return out, events


def test_a_branch_is_written_after_a_clean_sanitizer_and_a_fresh_remeasurement(repo):
    model = CheckedTimingModel()
    out, events = _run(repo, model)
    assert out.best_branch and model.sanitized and model.remeasured
    tip = git.Repo(repo).commit(out.best_branch)
    note = json.loads(git.Repo(repo).git.notes("--ref=kernelpro", "show", tip.hexsha))
    assert note["remeasured"]["process"] == "fresh" and note["remeasured"]["speedup"] > 1.02
    assert note["sanitizer"]["clean"] == ["memcheck", "racecheck", "initcheck"]
    assert "Re-measured in a fresh process before this branch was written" in tip.message
    assert "Compute Sanitizer: memcheck, racecheck, initcheck clean." in tip.message


def test_a_sanitizer_error_keeps_the_candidate_off_the_branches(repo):
    model = CheckedTimingModel(sanitizer_failure="compute-sanitizer memcheck: Invalid __global__ read of size 16 bytes")
    out, events = _run(repo, model)
    assert out.branches == [] and model.sanitized and not model.remeasured
    assert any(e["type"] == "note" and "not saved as a branch: compute-sanitizer memcheck" in e["message"]
               for e in events)


def test_a_speedup_that_does_not_hold_in_a_fresh_process_is_not_saved(repo):
    model = CheckedTimingModel(remeasured_gain=1.005)
    out, events = _run(repo, model)
    assert out.branches == [] and model.remeasured
    assert any(e["type"] == "note" and "re-measured in a fresh process it is 1.005x" in e["message"] for e in events)
