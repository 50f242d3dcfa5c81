"""benchmarks/run_suite.py without a GPU: units, estimates and packing into device calls, the resumable
JSON (finished units kept, cut units run again, other budgets refused), the deadline, the LLM column,
the ceilings flag and the best-so-far curve; and the CI check mode (kernels, specs, references, report)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import run_suite as rs  # noqa: E402
import suite_check  # noqa: E402
from suite_lab import judge, run_curve  # noqa: E402
from synthetic_lab import FIXTURE, FakeClock, SyntheticLab, make_fixture  # noqa: E402

QUIET = {"log": lambda *a, **k: None}


def _drive(tmp_path, units, lab, cfg=None, deadline=None, clock=None):
    cfg = cfg or rs.Config(budget=4)
    out = tmp_path / "results.json"
    results = rs.load_results(out, cfg)
    stopped = rs.drive(lab, units, results, out, cfg, deadline, clock=clock or FakeClock(), **QUIET)
    return stopped, json.loads(out.read_text())


def test_units_cover_the_selection_family_by_family():
    units = rs.units_for(["gelu", "softmax"], ["mcts", "greedy"], [0, 1], "time")
    assert [str(u) for u in units[:5]] == ["gelu:baseline", "gelu:time/mcts/0", "gelu:time/greedy/0",
                                           "gelu:time/mcts/1", "gelu:time/greedy/1"]
    assert len(units) == 2 * (1 + 4)
    assert all(u.kind == "run" for u in rs.units_for(["gelu"], ["mcts"], [0], "energy", baseline=False))


def test_finished_units_are_kept_and_not_run_again(tmp_path):
    units = rs.units_for(["gelu", "softmax"], ["mcts", "greedy"], [0], "time")
    lab = SyntheticLab()
    stopped, data = _drive(tmp_path, units, lab)
    assert stopped == "done" and len(lab.calls) == len(units)
    assert set(data["families"]["gelu"]["runs"]) == {"time/mcts/0", "time/greedy/0"}
    assert data["families"]["gelu"]["baseline"]["complete"]
    # a second call with a wider selection runs only what is new
    lab2 = SyntheticLab(seed=1)
    more = rs.units_for(["gelu", "softmax"], ["mcts", "greedy", "random"], [0], "time")
    cfg = rs.Config(budget=4)
    results = rs.load_results(tmp_path / "results.json", cfg)
    rs.drive(lab2, more, results, tmp_path / "results.json", cfg, None, clock=FakeClock(), **QUIET)
    assert lab2.calls == ["gelu:time/random/0", "softmax:time/random/0"]
    data2 = json.loads((tmp_path / "results.json").read_text())
    assert data2["families"]["gelu"]["runs"]["time/mcts/0"] == data["families"]["gelu"]["runs"]["time/mcts/0"]
    assert len(data2["calls"]) == 2 and data2["calls"][1]["units"] == lab2.calls


def test_a_unit_cut_by_its_time_limit_runs_again_next_call(tmp_path):
    units = rs.units_for(["gelu"], ["mcts"], [0], "time")
    _drive(tmp_path, units, SyntheticLab(timeout_units=("gelu:time/mcts/0",)))
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["families"]["gelu"]["runs"]["time/mcts/0"]["complete"] is False
    lab = SyntheticLab()
    cfg = rs.Config(budget=4)
    rs.drive(lab, units, rs.load_results(tmp_path / "results.json", cfg), tmp_path / "results.json", cfg, None,
             clock=FakeClock(), **QUIET)
    assert lab.calls == ["gelu:time/mcts/0"]
    assert json.loads((tmp_path / "results.json").read_text())["families"]["gelu"]["runs"]["time/mcts/0"]["complete"]


def test_the_deadline_starts_only_units_that_fit(tmp_path):
    clock = FakeClock()
    lab = SyntheticLab(clock=clock)  # a baseline advances the clock 60 s, a run 120 s
    units = rs.units_for(["gelu", "softmax"], ["mcts"], [0], "time")
    cfg = rs.Config(budget=4)
    # model: a baseline ~68 s, a run at budget 4 ~94 s; 200 s fit gelu's two, not softmax's
    stopped, data = _drive(tmp_path, units, lab, cfg, deadline=200, clock=clock)
    assert lab.calls == ["gelu:baseline", "gelu:time/mcts/0"]
    assert stopped.startswith("deadline: not started softmax:baseline")
    assert data["calls"][0]["stopped"] == stopped
    assert "softmax" not in data["families"]


def test_estimates_come_from_measured_units_once_there_are_some():
    cfg = rs.Config(budget=16, repeats=2)
    u = rs.Unit("gelu", "run", "time", "mcts", 0)
    c = rs.COST
    remeasure = 2 * 2 * c["measure"] + c["energy"]
    assert rs.estimate(u, cfg, None) == pytest.approx(c["run_start"] + 16 * c["eval"] + remeasure + c["energy"])
    # a run after another of its family shares the evaluator: only its new candidates and bests cost
    assert rs.estimate(u, cfg, None, warm=True) == pytest.approx(16 * c["eval"] * c["new"] + c["new_best"] * remeasure)
    assert rs.estimate(rs.Unit("gelu", "run", "energy", "mcts", 0), cfg) > rs.estimate(u, cfg)
    results = {"families": {"softmax": {"runs": {
        "time/mcts/0": {"objective": "time", "complete": True, "wall_s": 300, "warm": False},
        "time/mcts/1": {"objective": "time", "complete": True, "wall_s": 100, "warm": False},
        "time/greedy/1": {"objective": "time", "complete": True, "wall_s": 10, "warm": True},
        "time/mcts/2": {"objective": "time", "complete": False, "wall_s": 5, "warm": False}}}}}
    assert rs.estimate(u, cfg, results) == 200 and rs.estimate(u, cfg, results, warm=True) == 10
    assert rs.estimate(rs.Unit("gelu", "baseline"), cfg, results) == rs.estimate(rs.Unit("gelu", "baseline"), cfg)


def test_units_run_family_by_family_with_torch_compile_and_the_energy_objective_last():
    units = rs.units_for(["gelu", "softmax"], ["mcts", "greedy"], [0], "time", compile_=True,
                         energy_families=("gelu",))
    assert [str(u) for u in units] == [
        "gelu:baseline", "gelu:time/mcts/0", "gelu:time/greedy/0", "softmax:baseline", "softmax:time/mcts/0",
        "softmax:time/greedy/0", "gelu:compile", "softmax:compile", "gelu:peers", "softmax:peers", "gelu:energy/mcts/0"]
    # a family's later runs, and every torch.compile after the first, cost less in the same call
    cfg = rs.Config(budget=8)
    warm_costs = [rs.call_seconds_of(units[:k], cfg, None) for k in range(1, len(units) + 1)]
    steps = [b - a for a, b in zip(warm_costs, warm_costs[1:])]
    assert steps[1] == pytest.approx(rs.estimate(units[2], cfg, None, warm=True))
    assert steps[1] < rs.estimate(units[2], cfg)
    assert steps[6] == pytest.approx(rs.COST["torch_compile_warm"])


def test_plan_packs_every_unit_once_into_calls_that_fit():
    cfg = rs.Config(budget=16)
    units = rs.units_for(rs.suite_families(), ["mcts", "greedy", "random"], [0], "time", compile_=True)
    calls = rs.plan_calls(units, cfg, None, 540)
    assert sorted(map(str, (u for c in calls for u in c))) == sorted(map(str, units))
    assert all(rs.call_seconds_of(c, cfg, None) <= 540 for c in calls) and len(calls) > 1
    # a unit longer than a call gets a call of its own
    big = rs.Config(budget=200)
    calls = rs.plan_calls(rs.units_for(["gelu"], ["mcts"], [0], "time", baseline=False), big, None, 540)
    assert len(calls) == 1 and len(calls[0]) == 1


def test_results_of_another_budget_or_synthetic_ones_are_refused(tmp_path):
    out = tmp_path / "r.json"
    _drive(tmp_path, rs.units_for(["gelu"], ["mcts"], [0], "time"), SyntheticLab(), rs.Config(budget=4))
    with pytest.raises(rs.ResultsError, match="made with --budget 4, not 8"):
        rs.load_results(tmp_path / "results.json", rs.Config(budget=8))
    with pytest.raises(rs.ResultsError, match="synthetic test data"):
        rs.load_results(FIXTURE, rs.Config(budget=8))
    out.write_text("{not json")
    with pytest.raises(rs.ResultsError, match="not a results JSON"):
        rs.load_results(out, rs.Config())


def test_llm_column_says_not_run_without_an_endpoint(tmp_path):
    _, data = _drive(tmp_path, rs.units_for(["gelu"], ["mcts"], [0], "time"), SyntheticLab())
    assert data["llm"]["configured"] is False and data["llm"]["status"].startswith("not run: no endpoint")
    args = rs.parse(["--plan", "--strategies", "llm"])
    with pytest.raises(rs.ResultsError, match="needs an endpoint"):
        rs.selection(args, rs.Config())
    cfg = rs.Config(llm_base_url="http://127.0.0.1:1/v1", llm_model="m")
    assert {u.strategy for u in rs.selection(rs.parse(["--plan"]), cfg) if u.kind == "run"} == {"mcts", "greedy",
                                                                                                 "random", "llm"}


def test_command_line_plan_and_bad_input(tmp_path):
    run = lambda *a: subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run_suite.py"), *a],  # noqa: E731
                                    capture_output=True, text=True)
    r = run("--plan", "--families", "gelu", "--strategies", "mcts", "--seeds", "0")
    assert r.returncode == 0 and "4 units left" in r.stdout and "gelu:time/mcts/0, gelu:compile, gelu:peers" in r.stdout
    r = run("--plan", "--families", "nope")
    assert r.returncode == 2 and r.stderr.strip() == (
        f"run_suite: unknown family nope (the suite has {', '.join(rs.suite_families())})")
    r = run("--families", "gelu")
    assert r.returncode == 2 and "--out RESULTS.json is needed" in r.stderr


def test_a_time_beyond_the_ceilings_is_flagged_and_fractions_are_kept():
    ceil = {"dram_gbs": 4000.0, "fp32_gflops": 60000.0}
    size = 1 << 30
    ok = judge({"large": size / 3000e9}, {"large": size}, {"large": None}, ceil, "fp32", False, 50 << 20)
    assert ok["flagged"] is None and ok["roofline"]["large"]["bw_fraction"] == pytest.approx(0.75)
    bad = judge({"large": size / 9000e9}, {"large": size}, {"large": None}, ceil, "fp32", False, 50 << 20)
    assert bad["flagged"].startswith("size large: 9000 GB/s is 2.25x the measured DRAM bandwidth")


def test_best_so_far_curve_counts_evaluations_and_ignores_failures():
    events = [{"type": "evaluated", "parent": None, "ok": True, "speedup": 1.0},  # the root: not counted
              {"type": "evaluated", "parent": 0, "ok": True, "speedup": 1.2},
              {"type": "evaluated", "parent": 0, "ok": False, "speedup": None},
              {"type": "tuned", "ok": True, "speedup": 1.5, "better": False},  # a slower variant: not the best
              {"type": "new_best", "speedup": 9.0},
              {"type": "tuned", "ok": True, "speedup": 1.3, "better": True},
              {"type": "evaluated", "parent": 1, "ok": True, "speedup": 1.1}]
    assert run_curve(events) == [[1, 1.2], [2, 1.2], [3, 1.2], [4, 1.3], [5, 1.3]]


def test_the_committed_fixture_is_what_the_synthetic_lab_makes(tmp_path):
    made = make_fixture(tmp_path / "f.json")
    assert (tmp_path / "f.json").read_text() == FIXTURE.read_text(), "run python tests/synthetic_lab.py"
    assert made["synthetic"] is True and made["WARNING"] == "SYNTHETIC TEST DATA, NOT A MEASUREMENT"
    assert "synthetic" in FIXTURE.name


def test_check_finds_a_reference_that_fails_and_a_spec_that_does_not_fit(tmp_path, monkeypatch):
    assert suite_check.check_reference("softmax") is None
    monkeypatch.setitem(suite_check.CHECK_SIZES, "softmax", {"N": 3})  # C missing
    assert "softmax" in (suite_check.check_reference("softmax") or "")
    monkeypatch.delitem(suite_check.CHECK_SIZES, "gelu")
    assert suite_check.check_reference("gelu") == "gelu: no tiny sizes in benchmarks/suite_check.py CHECK_SIZES: add them"
    d = tmp_path / "gelu"
    d.mkdir()
    src = ROOT / "benchmarks" / "suite" / "gelu"
    for f in ("naive.cu", "naive.kernelpro.toml", "ref.py"):
        (d / f).write_text((src / f).read_text())
    spec = d / "naive.kernelpro.toml"
    spec.write_text(spec.read_text().replace('name = "n"\nvalue = "n"', 'name = "n"\nvalue = "n"\ndtype = "int64"'))
    problem = suite_check.check_kernel(d / "naive.cu")
    assert problem and problem.startswith("gelu/naive.cu:"), problem


@pytest.mark.slow
def test_check_mode_passes_on_the_repository():
    env = {**os.environ}
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run_suite.py"), "--check"], capture_output=True,
                       text=True, env=env, timeout=240)
    assert r.returncode == 0, r.stdout + r.stderr
    n_cu = len(list((ROOT / "benchmarks" / "suite").glob("*/*.cu")))
    n_fam = len(rs.suite_families())
    assert n_fam >= 14 and f"check: {n_cu} kernels, {n_fam} references, the report: all good" in r.stdout


FAKE_RESIDUAL = '''

def residual(args, grid, block):
    """out = a + b; the fewer threads per element (up to 4), the faster, as on a GPU."""
    out, a, b = (x.view(np.float32) for x in args[:3])
    n = int(args[3])
    out[:n] = a[:n] + b[:n]
    per_thread = n / (grid[0] * block[0])
    return 4e-5 / min(max(per_thread, 1.0), 4.0) ** 0.5

KERNELS["residual_forward"] = residual
'''

DRIVER = """
import sys
from pathlib import Path
sys.path.insert(0, {bench!r})
import suite_run
suite_run.SUITE = Path({suite!r})
import run_suite
sys.exit(run_suite.main(sys.argv[1:]))
"""


CC = __import__("shutil").which("cc") or __import__("shutil").which("gcc")


@pytest.mark.slow
@pytest.mark.skipif(CC is None, reason="needs a C compiler for the stand-in libcuda")
def test_the_gpu_lab_end_to_end_on_the_fake_gpu(tmp_path):
    """GpuLab as run_suite.py drives it (the searches through the family's shared evaluator, the memory, the
    best re-measured, energy, the ceilings, the environment), with tests/fake_pycuda.py's GPU and a residual family at tiny sizes."""
    import re

    import fake_pycuda as fp

    fake = tmp_path / "fake"
    (fake / "pycuda").mkdir(parents=True)
    # the driver check (measure.driver_problem) loads libcuda itself: a stand-in that says one device
    (fake / "cuda.c").write_text("int cuInit(unsigned f) { return 0; }\n"
                                 "int cuDeviceGetCount(int *n) { *n = 1; return 0; }\n")
    subprocess.run([CC, "-shared", "-fPIC", "-o", str(fake / "libcuda.so.1"), str(fake / "cuda.c")], check=True)
    (fake / "pycuda" / "__init__.py").write_text("")
    (fake / "pycuda" / "driver.py").write_text(fp.FAKE_DRIVER)
    (fake / "pycuda" / "fake_kernels.py").write_text(fp.FAKE_KERNELS + FAKE_RESIDUAL)
    (fake / "pynvml.py").write_text(fp.FAKE_NVML)
    suite = tmp_path / "suite" / "residual"
    suite.mkdir(parents=True)
    for f in (ROOT / "benchmarks" / "suite" / "residual").iterdir():
        text = f.read_text()
        if f.name.endswith(".kernelpro.toml") or f.name == "family.toml":
            text = re.sub(r"small = \{ N = \d+ \}", "small = { N = 4099 }", text)
            text = re.sub(r"large = \{ N = \d+ \}", "large = { N = 65536 }", text)
        (suite / f.name).write_text(text)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(fake), os.environ.get("PYTHONPATH", "")]),
           "LD_LIBRARY_PATH": os.pathsep.join([str(fake), os.environ.get("LD_LIBRARY_PATH", "")]),
           "KERNELPRO_HOST_CHECKS": "1", "KERNELPRO_ENERGY_S": "0.3"}  # the fake's energy: host wall time
    script = tmp_path / "drive.py"
    script.write_text(DRIVER.format(bench=str(ROOT / "benchmarks"), suite=str(suite.parent)))
    out = tmp_path / "out" / "results.json"
    # one call: the baseline, MCTS and greedy (seed 0), then the energy objective (its best beside MCTS's)
    r = subprocess.run([sys.executable, str(script), "--out", str(out), "--strategies", "mcts", "greedy", "--seeds",
                        "0", "--budget", "2", "--repeats", "1", "--no-torch-compile", "--energy-families", "residual"],
                       env=env, capture_output=True, text=True, timeout=280)
    assert r.returncode == 0, r.stdout + r.stderr
    data = json.loads(out.read_text())
    env_ = data["environment"]
    assert env_["device"]["name"] == "Fake GPU" and env_["ceilings"]["dram_gbs"] > 0 and env_["toolkit"]["nvcc"]
    fam = data["families"]["residual"]
    assert fam["largest"] == "large" and "narrow-elementwise-access" in fam["root_rules"]
    base = fam["baseline"]
    assert base["complete"] and base["naive"]["flagged"] is None and base["naive"]["energy_j"]["large"] > 0
    assert set(base["naive"]["roofline"]) == {"small", "large"}
    assert base["torch_eager"]["failure"] or base["torch_eager"]["times_s"]
    run = fam["runs"]["time/mcts/0"]
    assert run["complete"] and run["rc"] == 0 and "error" not in run, run.get("error")
    assert run["evaluations"] == 2 and len(run["curve"]) == 2 and len(run["attempts"]) == 2
    assert any(a["answers"] for a in run["attempts"])
    assert run["best_candidate"], "the packed rewrite runs faster on the fake GPU and is the run's best"
    assert not run["warm"] and run["measured_evaluations"] == run["evaluations"] + 1  # and the root
    greedy = fam["runs"]["time/greedy/0"]  # the second run of the family: the shared evaluator knows the root
    assert greedy["warm"] and greedy["complete"] and greedy["measured_evaluations"] <= greedy["evaluations"]
    meas = run["measured"]
    assert set(meas) == {"naive", "optimized"} and "residual_forward" in run["optimized_source"]["cu"]
    import report_data as rd

    assert rd.run_speedup(run) > 1.2
    assert data["calls"][0]["units"] == ["residual:baseline", "residual:time/mcts/0", "residual:time/greedy/0",
                                         "residual:energy/mcts/0"]
    erun = data["families"]["residual"]["runs"]["energy/mcts/0"]
    assert erun["complete"] and "error" not in erun, erun.get("error")
    # (the fake's energy follows the host's wall time, not the kernels' simulated times: a leaner best may or may
    # not come of it; either way the record says what happened)
    assert erun["evaluations"] == 2 and erun["objective"] == "energy"
    if erun["best_candidate"]:
        assert set(erun["measured"]) == {"naive", "optimized", "time_best"}
        assert all(m["energy_j"]["large"] > 0 for m in erun["measured"].values())
    else:
        assert "measured" not in erun and rd.run_speedup(erun) == 1.0
    # and the report is made from it
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "report.py"), str(out), "--out",
                        str(tmp_path / "report")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "| `residual` |" in (tmp_path / "report" / "index.md").read_text()


def test_the_time_objective_s_best_is_rebuilt_from_its_stored_source():
    from suite_lab import GpuLab

    d = GpuLab._files_with(None, "gelu", {"cu": "// the time run's best\n", "spec": "# its spec\n"})
    try:
        assert (d / "naive.cu").read_text() == "// the time run's best\n"
        assert (d / "naive.kernelpro.toml").read_text() == "# its spec\n"
        assert (d / "ref.py").read_text() == (ROOT / "benchmarks" / "suite" / "gelu" / "ref.py").read_text()
    finally:
        import shutil

        shutil.rmtree(d)


def test_a_unit_that_raises_is_recorded_and_the_next_units_still_run(tmp_path):
    class Broken(SyntheticLab):
        def baseline(self, family):
            if family == "gelu":
                raise RuntimeError("the worker died")
            return super().baseline(family)

    lab = Broken()
    stopped, data = _drive(tmp_path, rs.units_for(["gelu", "softmax"], ["mcts"], [0], "time"), lab)
    assert stopped == "done" and lab.calls == ["gelu:time/mcts/0", "softmax:baseline", "softmax:time/mcts/0"]
    assert data["families"]["gelu"]["baseline"] == {"complete": False, "error": "RuntimeError: the worker died",
                                                    "wall_s": 0.0, "warm": False}
    assert not rs.is_done(data, rs.Unit("gelu", "baseline"))  # tried again next call


def test_the_shared_evaluator_measures_a_candidate_once_and_hands_out_copies():
    from suite_lab import SharedEvaluator

    from kernelpro.optimizer.model import Candidate, Evaluation

    class Inner:  # stands for the GPU evaluator: a time from the source's length
        def __init__(self):
            self.asked, self.closed = [], False

        def evaluate(self, cands):
            self.asked += [c.description for c in cands]
            return [Evaluation(ok=True, times_s={"s": len(c.source) * 1e-6}) for c in cands]

        def remeasure(self, cands):
            return ["fresh"] * len(cands)

    inner = Inner()
    shared = SharedEvaluator(inner)
    a, b = Candidate(source="aa", description="a"), Candidate(source="bbb", description="b")
    a_again = Candidate(source="aa", description="a, proposed by another run")  # the same key
    first = shared.evaluate([a, b, a_again])
    assert inner.asked == ["a", "b"] and shared.fresh == 2
    assert [e.times_s["s"] for e in first] == pytest.approx([2e-6, 3e-6, 2e-6])
    first[0].energy_j["s"] = 1.0  # what a run writes into its evaluation stays in its copy
    again = shared.evaluate([a_again])
    assert inner.asked == ["a", "b"] and again[0].energy_j == {} and again[0].times_s == first[0].times_s
    assert shared.remeasure([a]) == ["fresh"] and len(shared.log) == 4
    shared.close()  # optimize closes its evaluator after each run: the shared one lives on
    assert shared.evaluate([b])[0].ok and inner.asked == ["a", "b"]


def test_a_run_s_best_is_its_highest_reward_over_the_margin():
    import math

    from suite_lab import best_of

    from kernelpro.optimizer.model import Candidate, Evaluation

    def ev(t):
        return Evaluation(ok=True, times_s={"small": t, "large": 8 * t})
    log = [(Candidate(source="root"), ev(1.0)), (Candidate(source="1% faster"), ev(0.99)),
           (Candidate(source="wrong"), Evaluation(ok=False, failure="incorrect: max rel err 1")),
           (Candidate(source="2x"), ev(0.5)), (Candidate(source="1.6x"), ev(0.625))]
    margin = math.log1p(0.02)
    cand, r = best_of(log, "time", margin)
    assert cand.source == "2x" and r == pytest.approx(math.log(2))
    assert best_of(log[:3], "time", margin) is None  # 1% is within the margin: the naive kernel stays
    assert best_of([(Candidate(source="root"), Evaluation(ok=False, failure="crash"))] + log[1:], "time", margin) is None


def test_the_report_s_plan_runs_to_the_end_in_the_calls_it_plans_of_modelled_time(tmp_path):
    """The pipeline without a GPU: the report's selection (every family, the matrix products too) driven through
    the device calls the plan packs it into (CALL_SECONDS, setup included), each unit taking its modelled time,
    the JSON carried from one call to the next; then the report."""
    import report

    cfg = rs.Config()  # the report's budget and rounds
    units = report.plan_units(cfg)
    assert {u.family for u in units} == set(rs.suite_families()) >= {"gemm_fp32", "gemm_bf16", "attn_scores"}
    n = len(rs.plan_calls(units, cfg, None))
    assert n >= 2

    class Timed(SyntheticLab):
        def __init__(self, clock):
            super().__init__(clock=clock)
            self.started = set()

        def _take(self, u):
            self.clock.t += rs.estimate(u, cfg, None, u.shares in self.started)
            self.started.add(u.shares)

        def baseline(self, family):
            self._take(rs.Unit(family, "baseline"))
            return super().baseline(family)

        def torch_compile(self, family):
            self._take(rs.Unit(family, "compile"))
            return super().torch_compile(family)

        def peers(self, family):
            self._take(rs.Unit(family, "peers"))
            return super().peers(family)

        def run(self, family, unit, time_left, results):
            self._take(unit)
            return super().run(family, unit, time_left, results)

        def _tick(self, unit_cost):
            pass

    out = tmp_path / "results.json"
    for call in range(1, n + 1):
        clock = FakeClock()
        results = rs.load_results(out, cfg)
        stopped = rs.drive(Timed(clock), units, results, out, cfg, rs.CALL_SECONDS - rs.COST["call_setup"],
                           clock=clock, **QUIET)
        assert clock.t <= rs.CALL_SECONDS - rs.COST["call_setup"]
        assert (stopped == "done") == (call == n), stopped
    data = json.loads(out.read_text())
    assert all(rs.is_done(data, u) for u in units) and len(data["calls"]) == n
    text = report.report_page(data, "(not drawn here)")  # the plots: tests/test_report.py
    assert "Every unit of the selection is done." in text and "| `softmax` |" in text


def test_a_run_stopped_from_outside_keeps_its_last_saved_branch_as_its_best():
    import suite_run
    br = lambda b: {"type": "branch", "branch": b, "speedup": 2.0}
    events = [br("k/1"), br("k/2"), {"type": "branch_removed", "branch": "k/1"}, br("k/3"),
              {"type": "branch_removed", "branch": "k/3"}]  # k/3 removed (e.g. it failed its re-check)
    assert suite_run.final(events)["best_branch"] == "k/2"
    assert suite_run.final([{"type": "evaluated"}]) is None
    done = {"type": "done", "best_branch": "k/9"}
    assert suite_run.final(events + [done]) is done


def test_an_inferred_run_s_best_is_measured_again_at_the_family_s_sizes(tmp_path):
    """issue 28: the search on an inferred spec (its own guessed sizes) is compared with the hand-written spec's
    search at the family's sizes: the branch's spec keeps its launch, takes the family's [sizes], and the
    hand-written best joins the measurement; a family whose sizes name another variable is said, not guessed."""
    import dataclasses

    import suite_run
    from kernelpro.profilers.runtime.spec import load_spec

    repo = suite_run.make_repo("softmax", drop="naive.kernelpro.toml")
    from kernelpro.profilers.runtime.infer import infer_spec, write_spec
    write_spec(infer_spec(repo / "naive.cu"))  # (what `spec init` does, in process)
    inferred = load_spec(repo / "naive.kernelpro.toml")
    assert inferred.sizes["large"] != {"N": 1024, "C": 50257}  # its own guess
    entries = {"optimized": (repo / "naive.cu", inferred)}
    row: dict = {}
    suite_run.at_family_sizes(entries, row, repo, "softmax", "naive", "best", None)
    moved = entries["optimized@family"][1]
    assert moved.sizes == {"small": {"N": 256, "C": 50257}, "large": {"N": 1024, "C": 50257}}
    assert moved.launches == inferred.launches and moved.reference == inferred.reference
    assert all(abs(v["N"] - 256) <= 1 for v in moved.check_sizes.values())  # off-by-one of the family's smallest
    assert entries["best"][0].name == "best.cu" and row["family_sizes"]["large"]["C"] == 50257
    # other size names: nothing added, the reason kept
    renamed = dataclasses.replace(inferred, sizes={"large": {"rows": 8, "cols": 8}})
    entries, row = {"optimized": (repo / "naive.cu", renamed)}, {}
    suite_run.at_family_sizes(entries, row, repo, "softmax", "naive", "best", None)
    assert set(entries) == {"optimized"} and "does not" in row["family_sizes"]


def test_a_sweep_candidate_s_launch_line_is_its_whole_launch():
    """benchmarks/baseline_sweep.py: a candidate's `// launch:` replaces the best kernel's, dynamic shared memory
    included (0 unless it says; the 3-D stencil's candidates had run with the best kernel's 78 KB a block)."""
    import baseline_sweep

    one = '// launch: {"grid": ["cdiv(W, 32)", "cdiv(H, 8)"], "block": [32, 8]}\n__global__ void k() {}\n'
    assert baseline_sweep.file_launch(one) == {"grid": ["cdiv(W, 32)", "cdiv(H, 8)"], "block": [32, 8],
                                               "shared_bytes": 0}
    said = one.replace('"block": [32, 8]', '"block": [32, 8], "shared_bytes": "4 * 256"')
    assert baseline_sweep.file_launch(said)["shared_bytes"] == "4 * 256"
    assert baseline_sweep.file_launch("__global__ void k() {}\n") == {}
    dyn = one.replace("{}", "{ extern __shared__ float s[]; }")  # declares some, says no size: the spec's
    assert "shared_bytes" not in baseline_sweep.file_launch(dyn)
