"""The optimize run end to end on a real git repo, with the built-in proposer and real compiles.

The GPU is replaced by a timing model (a test double, named as such): a candidate's "time"
falls with each double-precision literal removed and each answered rule, so the search,
the memory and the branches can be checked without a GPU. What real runs measured is in
docs/gpu-validation.md.
"""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import git
import pytest

from fake_openai import fake_llm  # noqa: F401  (pytest fixture)
from kernelpro.optimizer.model import Budget, Evaluation
from kernelpro.optimizer.run import OptimizeError, RunConfig, optimize

EX = Path(__file__).resolve().parent.parent / "examples"


class TimingModel:
    """Deterministic stand-in for the GPU: time from the source text; fails on a marker."""

    def __init__(self):
        self.calls = 0

    def evaluate(self, candidates):
        out = []
        for c in candidates:
            self.calls += 1
            doubles = len(re.findall(r"\d\.\d+(?![\df])", c.source))
            t = 1e-3 * (1 + doubles) * (0.9 if "__restrict__" in c.source else 1.0)
            out.append(Evaluation(ok=True, times_s={"small": t, "large": 8 * t}, resources={"registers": 16}))
        return out


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


def state(path: Path):
    r = git.Repo(path)
    return (r.head.commit.hexsha, r.git.status("--porcelain"), r.git.stash("list"),
            (path / ".git" / "index").read_bytes())


def test_run_saves_improving_candidates_as_branches(repo):
    (repo / "notes.txt").write_text("uncommitted work")  # a dirty tree is fine and stays dirty
    before = state(repo)
    events = []
    out = optimize(RunConfig(file=repo / "a_fp64_literal.cu", kernel="gelu", budget=Budget(evaluations=6)),
                   on_event=events.append, evaluator=TimingModel())
    assert state(repo) == before
    assert out.best_branch and out.best_branch.startswith("kernelpro/gelu/") and out.speedup > 1.5
    r = git.Repo(repo)
    tip = r.commit(out.best_branch)
    assert tip.parents[0].hexsha == before[0]
    assert "faster" in tip.message.splitlines()[0]
    note = json.loads(r.git.notes("--ref=kernelpro", "show", tip.hexsha))
    assert note["kernel"] == "gelu" and note["speedup"] == pytest.approx(out.speedup, rel=1e-6)
    assert note["path"] and "times_s" in note
    assert "0.5 *" not in tip.tree["a_fp64_literal.cu"].data_stream.read().decode()
    types = [e["type"] for e in events]
    assert types[0] == "start" and types[-1] == "done" and "branch" in types
    assert events[-1]["best_branch"] == out.best_branch
    assert all("evaluations" in e for e in events if e["type"] in ("evaluated", "done"))
    # every attempt is in the search memory, with a lesson
    from kernelpro.optimizer.memory import Memory

    m = Memory(repo)
    assert len(m.attempts(kernel="gelu")) == out.evaluations
    assert m.lessons_for("gelu", ["fp64-in-float-kernel"])
    m.close()


def test_outside_a_repository_says_so_before_any_work(tmp_path):
    for f in ("a_fp64_literal.cu", "a_fp64_literal.kernelpro.toml", "refs.py"):
        shutil.copy(EX / f, tmp_path / f)
    model = TimingModel()
    with pytest.raises(OptimizeError, match="not inside a git repository"):
        optimize(RunConfig(file=tmp_path / "a_fp64_literal.cu", kernel="gelu"), evaluator=model)
    assert model.calls == 0 and not (tmp_path / ".kernelpro").exists()


def test_missing_spec_and_wrong_kernel(repo):
    (repo / "a_fp64_literal.kernelpro.toml").unlink()
    with pytest.raises(OptimizeError, match="spec init"):
        optimize(RunConfig(file=repo / "a_fp64_literal.cu", kernel="gelu"), evaluator=TimingModel())
    with pytest.raises(OptimizeError, match="no __global__ kernel named 'nope'.*gelu"):
        optimize(RunConfig(file=repo / "a_fp64_literal.cu", kernel="nope"), evaluator=TimingModel())


def test_cli_without_gpu_exits_with_one_line_and_touches_nothing(repo):
    before = state(repo)
    env = {**os.environ, "KERNELPRO_NO_GPU": "1"}
    r = subprocess.run([sys.executable, "-m", "kernelpro.optimizer", "optimize", str(repo / "a_fp64_literal.cu"),
                        "--kernel", "gelu", "--budget", "3"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "no GPU" in lines[0], r.stderr
    assert state(repo) == before
    assert not (repo / ".kernelpro").exists()
    assert not [h for h in git.Repo(repo).heads if h.name.startswith("kernelpro/")]


def test_json_events_report_the_error_too(repo):
    env = {**os.environ, "KERNELPRO_NO_GPU": "1"}
    r = subprocess.run([sys.executable, "-m", "kernelpro.optimizer", "optimize", str(repo / "a_fp64_literal.cu"),
                        "--kernel", "gelu", "--json-events"], capture_output=True, text=True, env=env, timeout=120)
    ev = [json.loads(l) for l in r.stdout.splitlines()]
    assert r.returncode == 2 and ev[-1]["type"] == "error" and "no GPU" in ev[-1]["message"]


def test_llm_path_through_a_local_openai_compatible_server(repo, fake_llm):
    """planner -> coder (with a real tool call on its draft) -> a candidate branch; then garbage."""
    from fake_openai import text, tool_call

    src = (repo / "a_fp64_literal.cu").read_text()
    fixed = src.replace("0.7978845608 *", "0.7978845608f *").replace("0.044715 *", "0.044715f *").replace(
        "0.5 * v * (1.0 +", "0.5f * v * (1.0f +")
    fake_llm.push(
        text('{"strategy": "make the literals float", "answers": ["fp64-in-float-kernel"], "confidence": 0.9}'),
        tool_call("static_advice", {"source": fixed}),
        text("Here it is:\n```cuda\n" + fixed + "\n```"),
        text("no idea"),  # planner answers plain text: tolerated
        text("I cannot write code today."),  # coder gives no code block: a failed attempt
        text("still nothing"),
    )
    events = []
    out = optimize(RunConfig(file=repo / "a_fp64_literal.cu", kernel="gelu", budget=Budget(evaluations=2),
                             llm_base_url=fake_llm.base_url, llm_model="scripted", llm_backoff_s=0.01),
                   on_event=events.append, evaluator=TimingModel())
    assert out.best_branch and out.speedup > 1.5
    # the tool ran on the draft for real and its findings went back to the model
    tool_msgs = [m for req in fake_llm.requests for m in req["messages"] if m.get("role") == "tool"]
    assert tool_msgs and "fp64-in-float-kernel" not in tool_msgs[0]["content"]
    assert any(e["type"] == "llm_failure" for e in events)
