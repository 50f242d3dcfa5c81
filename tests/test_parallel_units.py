"""The pieces of `--workers` that need no Ray: the value, the GPU model picked from a cluster's nodes,
how many workers, several kernels from files and directories, the command line's one-line errors, and
kernelpro without Ray."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from ray_standin import standin_project

from kernelpro.optimizer.many import find_jobs
from kernelpro.optimizer.parallel.workers import (GPUS_ENV, Workers, WorkersError, gpu_models, gpus_per_worker,
                                                  parse_workers, pick_gpus, worker_count)
from kernelpro.optimizer.run import OptimizeError


@pytest.mark.parametrize("text, want", [
    ("auto", Workers()), ("4", Workers(count=4)), ("ray://head.example:10001", Workers(address="ray://head.example:10001")),
    ("10.0.0.5:6379", Workers(address="10.0.0.5:6379")),
])
def test_workers_values(text, want):
    assert parse_workers(text) == want


@pytest.mark.parametrize("text", ["0", "-2", "many", "ray://", "http://x:1", "4 gpus", ""])
def test_bad_workers_values_are_one_line(text):
    with pytest.raises(WorkersError, match=r"^--workers: expected auto, a number of GPUs \(1 or more\) or ray://HOST:PORT"):
        parse_workers(text)


def _node(gpus, model=None, alive=True):
    res = {"CPU": 16.0, "GPU": float(gpus)} if gpus else {"CPU": 16.0}
    if model:
        res[f"accelerator_type:{model}"] = 1.0
    return {"Alive": alive, "Resources": res}


def test_the_model_with_most_gpus_is_pinned_and_the_others_named():
    nodes = [_node(2, "H100"), _node(8, "H200"), _node(8, "H200"), _node(0), _node(4, "A100", alive=False)]
    assert gpu_models(nodes) == {"H100": 2.0, "H200": 16.0}
    p = pick_gpus(nodes, None)
    assert (p.model, p.gpus, p.mixed) == ("H200", 16.0, False)
    assert "2 x H100 stay unused" in p.note and "--gpu-model any" in p.note


def test_a_model_asked_for_or_any():
    nodes = [_node(2, "H100"), _node(4, "H200")]
    assert pick_gpus(nodes, "H100").model == "H100"
    anyp = pick_gpus(nodes, "any")
    assert anyp.model is None and anyp.mixed and anyp.gpus == 6.0 and "re-measured on one GPU" in anyp.note
    with pytest.raises(WorkersError, match=r"--gpu-model A100: the cluster has no GPU of that model \(it has: 2 x H100, 4 x H200\)"):
        pick_gpus(nodes, "A100")
    assert pick_gpus([_node(2)], None).model is None  # unlabelled GPUs: nothing to pin
    tie = pick_gpus([_node(2, "L40S"), _node(2, "H100")], None)
    assert tie.model == "H100"  # ties by name, so the choice is the same every run


def test_worker_count():
    assert worker_count(Workers(), 8, 1.0) == 8
    assert worker_count(Workers(count=2), 8, 1.0) == 2
    assert worker_count(Workers(count=2), 1, 0.5) == 2  # the plumbing check: two on one GPU
    assert worker_count(Workers(count=4), 0, 0.0) == 4  # CPU-only actors
    with pytest.raises(WorkersError, match=r"--workers 3: Ray sees 2 GPU\(s\) of the model used here, room for 2"):
        worker_count(Workers(count=3), 2, 1.0)
    with pytest.raises(WorkersError, match="--workers auto: Ray sees no GPU on this machine"):
        worker_count(Workers(), 0, 1.0)
    with pytest.raises(WorkersError, match="give the number of workers"):
        worker_count(Workers(), 0, 0.0)


def test_gpus_per_worker(monkeypatch):
    monkeypatch.delenv(GPUS_ENV, raising=False)
    assert gpus_per_worker() == 1.0
    monkeypatch.setenv(GPUS_ENV, "0.5")
    assert gpus_per_worker() == 0.5
    for bad in ("2", "-1", "half"):
        monkeypatch.setenv(GPUS_ENV, bad)
        with pytest.raises(WorkersError, match=f"{GPUS_ENV}='{bad}': expected a number from 0 to 1"):
            gpus_per_worker()


def test_kernels_from_files_and_directories(tmp_path):
    a = standin_project(tmp_path / "d", "a", "standin_add")
    b = standin_project(tmp_path / "d" / "sub", "b", "standin_other")
    (tmp_path / "d" / ".hidden").mkdir()
    (tmp_path / "d" / ".hidden" / "x.kernelpro.toml").write_text('kernel = "nope"\n')
    (tmp_path / "d" / "a.standin_other.kernelpro.toml").write_text('kernel = "standin_other"\n')
    jobs = find_jobs([str(tmp_path / "d")])
    assert [(j.file, j.kernel) for j in jobs] == [(a, "standin_add"), (a, "standin_other"), (b, "standin_other")]
    assert [(j.file, j.kernel) for j in find_jobs([str(a)])] == [(a, "standin_add"), (a, "standin_other")]
    assert [(j.file, j.kernel) for j in find_jobs([str(a), str(b), str(a)], "standin_other")] == [
        (a, "standin_other"), (b, "standin_other")]
    assert [(j.file, j.kernel) for j in find_jobs([str(tmp_path / "d")], "standin_add")] == [(a, "standin_add")]


@pytest.mark.parametrize("make, args, msg", [
    (lambda d: None, ["{d}"], "{d}: no launch spec (*.kernelpro.toml) in this directory"),
    (lambda d: (d / "k.cu").write_text("__global__ void k() {}\n"), ["{d}/k.cu"],
     "{d}/k.cu: give --kernel K (no launch spec beside it names a kernel)"),
    (lambda d: None, ["{d}/missing.cu"], "{d}/missing.cu: no such file or directory"),
    (lambda d: (d / "k.kernelpro.toml").write_text("kernel = 3\n"), ["{d}"],
     '{d}/k.kernelpro.toml: missing kernel = "NAME"'),
])
def test_what_cannot_be_a_kernel_job_is_one_line(tmp_path, make, args, msg):
    make(tmp_path)
    with pytest.raises(OptimizeError) as e:
        find_jobs([a.format(d=tmp_path) for a in args])
    assert str(e.value).startswith(msg.format(d=tmp_path)) and "\n" not in str(e.value)


def _kp(*args, env_extra=None, pre=""):
    code = pre + "import sys; from kernelpro.profilers.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "KERNELPRO_NO_GPU": "1", **(env_extra or {})})


@pytest.mark.parametrize("args, msg", [
    (["--workers", "lots"], "kernelpro: --workers: expected auto, a number of GPUs (1 or more) or ray://HOST:PORT, got 'lots'"),
    (["--gpu-model", "H200"], "kernelpro: --gpu-model goes with --workers"),
    (["--workers", "2", "--propose-only"], "kernelpro: --propose-only needs no workers"),
])
def test_command_line_errors_are_one_line(tmp_path, args, msg):
    cu = standin_project(tmp_path)
    r = _kp("optimize", str(cu), *args)
    assert r.returncode == 2 and r.stderr.startswith(msg) and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_propose_only_takes_one_kernel(tmp_path):
    standin_project(tmp_path, "a", "standin_add")
    standin_project(tmp_path, "b", "standin_other")
    r = _kp("optimize", str(tmp_path), "--propose-only")
    assert r.returncode == 2 and "--propose-only takes one kernel; 2 were named (standin_add, standin_other)" in r.stderr


def test_without_ray_workers_say_how_to_install_it_and_nothing_else_needs_it(tmp_path):
    cu = standin_project(tmp_path)
    import git
    r = git.Repo.init(tmp_path)
    r.git.config("user.name", "T")
    r.git.config("user.email", "t@e")
    r.git.add(".")
    r.git.commit("-m", "k")
    no_ray = "import sys; sys.modules['ray'] = None; "  # what `import ray` does where Ray is not installed
    out = _kp("optimize", str(cu), "--workers", "2", pre=no_ray)
    assert out.returncode == 2
    assert out.stderr.strip() == ("kernelpro: --workers needs Ray, which is not installed (import of ray halted; "
                                  "None in sys.modules): pip install 'kernelpro[ray]'")
    # the default path, the parallel package and the search import no Ray
    code = (no_ray + "import kernelpro.optimizer.cli, kernelpro.optimizer.parallel.backend, kernelpro.optimizer.many, "
            "kernelpro.optimizer.search; print('ok')")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.stdout.strip() == "ok", p.stderr
    plain = _kp("optimize", str(cu), "--kernel", "standin_add", pre=no_ray)
    assert plain.returncode == 2 and plain.stderr.strip() == (
        "kernelpro: no GPU: disabled by KERNELPRO_NO_GPU; kernelpro optimize measures every candidate on the GPU")


@pytest.mark.parametrize("mixed", [False, True])
def test_timings_of_several_gpu_models_report_the_one_gpu_re_measurement(tmp_path, mixed):
    """With --gpu-model any the search compares times across models; a branch then states the speedup
    its root and candidate got when re-measured together on one GPU."""
    import shutil

    import git

    from kernelpro.optimizer.model import Budget, Evaluation
    from kernelpro.optimizer.run import RunConfig, optimize

    ex = Path(__file__).resolve().parent.parent / "examples"
    for f in ("a_fp64_literal.cu", "a_fp64_literal.kernelpro.toml", "refs.py"):
        shutil.copy(ex / f, tmp_path / f)
    r = git.Repo.init(tmp_path)
    r.git.config("user.name", "T")
    r.git.config("user.email", "t@e")
    r.git.add(".")
    r.git.commit("-m", "k")

    class SeveralModels:
        mixed_models = mixed
        n = 0

        def evaluate(self, cands):
            out = []
            for _ in cands:
                t = 1e-3 / (1 + 0.5 * min(self.n, 1))  # the root, then 1.5x on "another model"
                self.n += 1
                out.append(Evaluation(ok=True, times_s={"small": t, "large": 8 * t}, resources={"registers": 16}))
            return out

        def remeasure(self, cands):  # on one GPU: 1.2x
            return [Evaluation(ok=True, times_s={"small": t, "large": 8 * t}) for t in (1e-3, 1e-3 / 1.2)]

    events = []
    optimize(RunConfig(file=tmp_path / "a_fp64_literal.cu", kernel="gelu", budget=Budget(evaluations=1), energy=False),
             on_event=events.append, evaluator=SeveralModels())
    (branch,) = [e for e in events if e["type"] == "branch"]
    assert branch["speedup"] == pytest.approx(1.2 if mixed else 1.5)
    assert branch["title"].startswith("gelu: 1.20x" if mixed else "gelu: 1.50x")


def test_the_gpu_worker_under_an_actor_ends_when_its_parent_is_not_the_actor():
    """The actor passes its pid: a worker whose actor died before it started watching ends at once (it
    would otherwise hang on with a kernel); under its real parent it serves until its input closes."""
    child = [sys.executable, "-m", "kernelpro.optimizer.parallel.child"]
    orphan = subprocess.Popen(child + ["--parent", "1", "--serve"], stdin=subprocess.PIPE)  # stdin stays open
    try:
        assert orphan.wait(timeout=60) == 1
    finally:
        orphan.kill()
    served = subprocess.run(child + ["--parent", str(os.getpid()), "--serve"], input=b"", timeout=60)
    assert served.returncode == 0


def test_the_kernels_measured_on_one_gpu_share_its_worker_process(tmp_path):
    """One GPU worker process (one CUDA context) per actor, whatever number of kernels it measures; a
    kernel released leaves it to the others, the actor's close ends it."""
    from kernelpro.optimizer.parallel.actor import GpuWorker, Job
    from kernelpro.profilers.runtime.spec import load_spec

    cu = standin_project(tmp_path)
    spec = load_spec(tmp_path / "standin.kernelpro.toml")
    w = GpuWorker()
    one, two = (w._evaluator(Job(id=i, path=str(cu), kernel="standin_add", spec=spec)) for i in ("one", "two"))
    other = w._evaluator(Job(id="slow", path=str(cu), kernel="standin_add", spec=spec, timeout_s=5.0))
    assert one.pool is two.pool and other.pool is not one.pool and other.pool.timeout_s == 5.0
    assert one.pool.command[-3:-1] == ["--parent", str(os.getpid())]
    with pytest.raises(Exception, match="unknown job op"):
        one.pool.call({"op": "nothing"})  # starts the worker process
    pid = one.pool.pid
    assert pid and two.pool.pid == pid
    w.release("one")
    assert two.pool.pid == pid  # still serving the other kernel
    assert w.evaluators.keys() == {"two", "slow"} and len(w.pools) == 2
    w.close()
    assert not w.evaluators and not w.pools and one.pool.pid is None
