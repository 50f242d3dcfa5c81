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


# ---------------------------------------------------------------- second read: fixes

from kernelpro.optimizer.spec_edit import render_spec  # noqa: E402


class LaunchModel(TimingModel):
    """TimingModel where any change of the grid (a restructured launch) halves the time."""

    def evaluate(self, candidates):
        out = super().evaluate(candidates)
        for c, ev in zip(candidates, out):
            g = (c.launch or {}).get("grid")
            if g and g != ["cdiv(n, 256)"]:
                ev.times_s = {k: v * 0.5 for k, v in ev.times_s.items()}
        return out


def _commit_spec(repo, text):
    (repo / "a_fp64_literal.kernelpro.toml").write_text(text)
    r = git.Repo(repo)
    r.git.add(".")
    r.git.commit("-m", "spec")


@pytest.mark.parametrize("header", ["[[launches]]", "[launch]   # the one launch"])
def test_launch_change_saved_into_multi_launch_and_commented_specs(repo, header):
    import tomllib

    from kernelpro.profilers.runtime.spec import load_spec

    _commit_spec(repo, (repo / "a_fp64_literal.kernelpro.toml").read_text().replace("[launch]", header))
    events = []
    out = optimize(RunConfig(file=repo / "a_fp64_literal.cu", kernel="gelu", budget=Budget(evaluations=8)),
                   on_event=events.append, evaluator=LaunchModel())
    r = git.Repo(repo)
    launched = [b for b in out.branches if json.loads(r.git.notes("--ref=kernelpro", "show", r.commit(b).hexsha))["launch"]]
    assert launched, [e["description"] for e in events if e["type"] == "evaluated"]
    tip = r.commit(launched[-1])
    note = json.loads(r.git.notes("--ref=kernelpro", "show", tip.hexsha))
    spec_text = tip.tree["a_fp64_literal.kernelpro.toml"].data_stream.read().decode()
    data = tomllib.loads(spec_text)
    step = data["launches"][0] if "launches" in data else data["launch"]
    assert step["grid"] == note["launch"]["grid"] != ["cdiv(n, 256)"]
    assert step["block"] == note["launch"]["block"]
    spec_path = repo / "check.kernelpro.toml"
    spec_path.write_text(spec_text.replace('kernel = "gelu"', 'kernel = "gelu"\nsource = "a_fp64_literal.cu"'))
    load_spec(spec_path)  # the branch's spec is still a valid spec


def test_render_spec_keeps_own_flags_multiline_values_and_inline_tables():
    import tomllib

    text = ('kernel = "k"\n[launch]\nblock = [\n  256,\n]  # threads\ngrid = ["cdiv(n, 256)"]\n'
            '[compile]\nflags = ["-DTILE=16"]  # the tile\n')
    out = render_spec(text, {"block": [128], "grid": ["cdiv(n, 128)"]}, ("-use_fast_math",))
    d = tomllib.loads(out)
    assert d["launch"] == {"block": [128], "grid": ["cdiv(n, 128)"]}
    assert d["compile"]["flags"] == ["-DTILE=16", "-use_fast_math"]  # what the evaluator built with
    inline = 'kernel = "k"\nlaunch = { grid = ["cdiv(n, 256)"], block = [256] }  # one launch\n[sizes]\ns = { n = 1 }\n'
    d = tomllib.loads(render_spec(inline, {"block": [512]}))
    assert d["launch"] == {"grid": ["cdiv(n, 256)"], "block": [512]} and d["sizes"] == {"s": {"n": 1}}
    two = ('kernel = "a"\n[[launches]]\nkernel = "a"\nblock = [256]\ngrid = [1]\n'
           '[[launches]]\nkernel = "b"\nblock = [64]\ngrid = [1]\n')
    d = tomllib.loads(render_spec(two, {"block": [128]}, kernel="a"))
    assert [s["block"] for s in d["launches"]] == [[128], [64]]
    # a memset step (no kernel of its own, the top-level one by default) is never given a grid or block
    zeroed = ('kernel = "a"\n[[launches]]\nmemset = "y"\n[[launches]]\nkernel = "a"\nblock = [256]\ngrid = [1]\n'
              'args = ["y", "n"]\n')
    d = tomllib.loads(render_spec(zeroed, {"block": [128], "grid": [2]}))
    assert d["launches"][0] == {"memset": "y"} and d["launches"][1]["block"] == [128] and d["launches"][1]["grid"] == [2]


def test_preflight_uses_the_kernels_own_spec_and_refuses_another_kernels(repo):
    spec = repo / "a_fp64_literal.kernelpro.toml"
    own = repo / "a_fp64_literal.gelu.kernelpro.toml"
    spec.rename(own)
    out = optimize(RunConfig(file=repo / "a_fp64_literal.cu", kernel="gelu", budget=Budget(evaluations=1)),
                   evaluator=TimingModel())
    assert out.evaluations == 1
    src = (repo / "a_fp64_literal.cu").read_text()
    (repo / "a_fp64_literal.cu").write_text(src + "\n__global__ void other(float* y, int n) { if (n) y[0] = 1.0f; }\n")
    own.rename(spec)
    model = TimingModel()
    with pytest.raises(OptimizeError, match="runs kernel 'gelu', not 'other'"):
        optimize(RunConfig(file=repo / "a_fp64_literal.cu", kernel="other"), evaluator=model)
    assert model.calls == 0


class MissingSizeModel(TimingModel):
    """Every second candidate comes back without its 'large' time."""

    def evaluate(self, candidates):
        out = super().evaluate(candidates)
        for ev in out:
            if self.calls > 1 and self.calls % 2 == 0:
                ev.times_s.pop("large")
        return out


def test_an_evaluation_missing_a_size_is_a_failure_not_a_crash(repo):
    events = []
    out = optimize(RunConfig(file=repo / "a_fp64_literal.cu", kernel="gelu", budget=Budget(evaluations=4)),
                   on_event=events.append, evaluator=MissingSizeModel())
    assert out.evaluations == 4 and out.failures >= 1
    assert any("lacks times_s" in (e.get("failure") or "") for e in events if e["type"] == "evaluated")


def test_done_and_outcome_report_the_named_branchs_speedup(repo):
    events = []
    out = optimize(RunConfig(file=repo / "a_fp64_literal.cu", kernel="gelu", budget=Budget(evaluations=8),
                             max_branches=1), on_event=events.append, evaluator=LaunchModel())
    branch = [e for e in events if e["type"] == "branch"]
    # with a cap of 1 the newest best is kept and the ones it superseded are removed
    assert out.branches == [branch[-1]["branch"]] == [out.best_branch]
    assert [e["branch"] for e in events if e["type"] == "branch_removed"] == [b["branch"] for b in branch[:-1]]
    assert out.speedup == pytest.approx(branch[-1]["speedup"])
    assert events[-1]["type"] == "done" and events[-1]["speedup"] == pytest.approx(branch[-1]["speedup"])


def _cli(*args, cwd=None):
    env = {**os.environ, "KERNELPRO_NO_GPU": "1"}
    return subprocess.run([sys.executable, "-m", "kernelpro.optimizer", *args], capture_output=True, text=True,
                          env=env, timeout=120, cwd=cwd)


def test_cli_bad_numbers_bad_memory_and_candidate_errors_are_one_line_exit_2(repo):
    cu = str(repo / "a_fp64_literal.cu")
    for args, word in ((["optimize", cu, "--kernel", "gelu", "--budget", "-1"], "--budget must be >= 0"),
                       (["optimize", cu, "--kernel", "gelu", "--time-limit", "-3"], "--time-limit must be >= 0"),
                       (["memory", "--repo", str(repo), "--limit", "0"], "--limit"),
                       (["candidates", "show", "nope", "--repo", str(repo)], "not a kernelpro candidate branch"),
                       (["candidates", "list", "--repo", str(repo / "nowhere")], "no such file")):
        r = _cli(*args)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(lines) == 1 and word in lines[0] and "Traceback" not in r.stderr, (args, r.stderr)
    r = _cli("optimize", cu, "--kernel", "gelu", "--budget", "-1", "--json-events")
    assert json.loads(r.stdout.splitlines()[-1])["type"] == "error"
    (repo / ".kernelpro").mkdir()
    (repo / ".kernelpro" / "memory.sqlite").write_text("not a database")
    r = _cli("memory", "--repo", str(repo))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "search memory" in r.stderr
    with pytest.raises(OptimizeError, match="cannot open the search memory"):
        optimize(RunConfig(file=repo / "a_fp64_literal.cu", kernel="gelu"), evaluator=TimingModel())


def test_cli_progress_display_is_stopped_when_the_run_fails(repo, monkeypatch, capsys):
    from kernelpro.optimizer import cli, progress, run
    from kernelpro.profilers.cli import main

    made = []

    class Spy(progress.Progress):
        def __init__(self, budget):
            super().__init__(budget)
            made.append(self)

    def failing(cfg, on_event=None, **kw):
        on_event({"type": "start", "evaluations": 0})
        raise OptimizeError("the kernel as written fails its own check: boom")

    monkeypatch.setattr(progress, "Progress", Spy)
    monkeypatch.setattr(run, "optimize", failing)
    assert main(["optimize", str(repo / "a_fp64_literal.cu"), "--kernel", "gelu"]) == 2
    assert made and made[0].live is not None and not made[0].live.is_started
    assert "fails its own check" in capsys.readouterr().err


def test_gpu_evaluator_turns_an_invalid_launch_into_a_failed_evaluation(repo):
    """A model's launch the spec rejects (2048 threads) is a failed candidate, not a crashed run."""
    from kernelpro.optimizer.evaluator import GpuEvaluator
    from kernelpro.optimizer.model import Candidate
    from kernelpro.profilers.runtime.spec import load_spec

    cu = repo / "a_fp64_literal.cu"
    ev = GpuEvaluator(cu, "gelu", load_spec(repo / "a_fp64_literal.kernelpro.toml"))
    try:
        (out,) = ev.evaluate([Candidate(source=cu.read_text(), launch={"block": [2048]}, description="big")])
    finally:
        ev.close()
    assert not out.ok and out.failure.startswith("launch:") and "1024" in out.failure
    assert out.resources.get("registers")  # the static profile is kept


def test_max_branches_keeps_the_newest_best_and_drops_superseded_ones(repo):
    """A later, faster candidate is never lost to the cap: the oldest (slowest) branch goes."""
    class EachBetter:  # every new candidate beats all earlier ones by 10%
        n = 0

        def evaluate(self, candidates):
            out = []
            for c in candidates:
                t = 1e-3 / (1 + 0.1 * self.n)
                self.n += 1
                out.append(Evaluation(ok=True, times_s={"small": t, "large": 8 * t}, resources={"registers": 16}))
            return out

    events = []
    out = optimize(RunConfig(file=repo / "a_fp64_literal.cu", kernel="gelu", budget=Budget(evaluations=4),
                             max_branches=2), on_event=events.append, evaluator=EachBetter())
    saved = [e["branch"] for e in events if e["type"] == "branch"]
    removed = [e["branch"] for e in events if e["type"] == "branch_removed"]
    assert len(saved) == 4 and removed == saved[:2]
    heads = sorted(h.name for h in git.Repo(repo).heads if h.name.startswith("kernelpro/"))
    assert heads == sorted(saved[2:]) and out.best_branch == saved[-1]
    speedups = [e["speedup"] for e in events if e["type"] == "branch"]
    assert speedups == sorted(speedups) and out.speedup == pytest.approx(speedups[-1])
