"""The GPU side of run_suite.py: measurements of the suite's kernels and optimize runs (H200).

Everything measured here runs in this process's worker pool, a process other than the optimize
run's, on fresh inputs: kernels side by side in alternating rounds (suite_run.measure), energy per
launch from NVML at the largest size, each time judged against the device's measured ceilings
(a result beyond them is flagged and never reported as a speedup).
"""
from __future__ import annotations

import copy
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
import tomllib
from pathlib import Path

import suite_run
from run_suite import LLM, Config, Unit

ROOT = Path(__file__).resolve().parent.parent


class NoGpu(Exception):
    pass


def judge(times_s: dict, bytes_: dict, flops: dict, ceilings: dict, precision: str, tensor_cores: bool,
          l2_bytes: int) -> dict:
    """Roofline fractions per size, and `flagged` (why a time is beyond the ceilings) or None."""
    from kernelpro.profilers.runtime.roofline import analyze, faster_than_ceiling

    roof, flagged = {}, None
    for size, t in times_s.items():
        if not t or t <= 0:
            continue
        r = analyze(bytes_.get(size), flops.get(size), t, ceilings, precision, tensor_cores)
        roof[size] = {"bw_fraction": r.bw_fraction, "flop_fraction": r.flop_fraction, "bound": r.bound,
                      "bandwidth_gbs": r.bandwidth_gbs, "gflops": r.gflops}
        why = faster_than_ceiling(bytes_.get(size), flops.get(size), t, ceilings, precision, tensor_cores, l2_bytes)
        if why and flagged is None:
            flagged = f"size {size}: {why}"
    return {"roofline": roof, "flagged": flagged}


class ClockSampler(threading.Thread):
    """SM and memory clocks and power from NVML every 0.25 s while the lab lives ("clocks seen")."""

    def __init__(self, handle, nv):
        super().__init__(daemon=True)
        self.h, self.nv, self.samples, self.stop = handle, nv, [], threading.Event()

    def run(self):
        nv = self.nv
        sm, mem = getattr(nv, "NVML_CLOCK_SM", 1), getattr(nv, "NVML_CLOCK_MEM", 2)
        while not self.stop.wait(0.25):
            try:
                self.samples.append((nv.nvmlDeviceGetClockInfo(self.h, sm), nv.nvmlDeviceGetClockInfo(self.h, mem),
                                     nv.nvmlDeviceGetPowerUsage(self.h) / 1000.0))
            except Exception:  # a missed sample (or no clock reading at all) is not a reason to stop measuring
                pass

    def summary(self) -> dict:
        s = list(self.samples)
        if not s:
            return {"samples": 0}

        def stats(i):
            v = sorted(x[i] for x in s)
            return {"min": v[0], "median": statistics.median(v), "max": v[-1]}
        return {"samples": len(s), "sm_mhz": stats(0), "mem_mhz": stats(1), "power_w": stats(2)}


def _nvml_facts(pci_bus_id: str | None) -> tuple[dict, object, object]:
    """Driver, CUDA driver version, clocks and power limit from NVML; a fact NVML cannot give is None."""
    from kernelpro.profilers.runtime import energy

    nv = energy._nvml()
    h = energy.nvml_handle(pci_bus_id)
    sm, mem = getattr(nv, "NVML_CLOCK_SM", 1), getattr(nv, "NVML_CLOCK_MEM", 2)

    def get(name, *a):
        try:
            v = getattr(nv, name)(*a)
            return v.decode() if isinstance(v, bytes) else v
        except Exception:  # an older driver, a call this GPU does not support: the fact is left out
            return None
    cuda = get("nvmlSystemGetCudaDriverVersion_v2")
    limit = get("nvmlDeviceGetPowerManagementLimit", h)
    facts = {"driver": get("nvmlSystemGetDriverVersion"),
             "cuda_driver": f"{cuda // 1000}.{cuda % 1000 // 10}" if isinstance(cuda, int) else None,
             "max_sm_mhz": get("nvmlDeviceGetMaxClockInfo", h, sm),
             "max_mem_mhz": get("nvmlDeviceGetMaxClockInfo", h, mem),
             "application_sm_mhz": get("nvmlDeviceGetApplicationsClock", h, sm),
             "power_limit_w": limit / 1000.0 if isinstance(limit, (int, float)) else None,
             "persistence_mode": get("nvmlDeviceGetPersistenceMode", h)}
    return facts, h, nv


def _versions() -> dict:
    out = {"python": platform.python_version()}
    for mod in ("numpy", "cupy", "torch", "pycuda"):
        try:
            m = __import__(mod)
            out[mod] = getattr(m, "__version__", None) or getattr(m, "VERSION_TEXT", None)
        except Exception:
            out[mod] = None
    return out


def _commit() -> dict:
    def git(*a):
        try:
            r = subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):  # no git, or a copy of the tree without its history
            return None
        return r.stdout.strip() if r.returncode == 0 else None
    if os.environ.get("KERNELPRO_COMMIT"):  # the caller knows: the device's copy of .git can be stale
        return {"commit": os.environ["KERNELPRO_COMMIT"], "dirty": None}
    head = git("rev-parse", "HEAD")
    if head is None:  # a copy without .git and no commit stated
        return {"commit": None, "dirty": None}
    status = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": head, "dirty": bool(status) if status is not None else None}


def _sha(*texts: str) -> str:
    return hashlib.sha256("\0".join(texts).encode()).hexdigest()[:16]


def run_curve(events: list[dict]) -> list[list]:
    """[evaluations, best speedup so far] after each evaluation, as the search measured it (in-run)."""
    out, best, n = [], 1.0, 0
    for e in events:
        if e.get("type") == "evaluated" and e.get("parent") is not None or e.get("type") == "tuned":
            n += 1
            s = e.get("speedup") if e.get("ok") else None
            if s is not None and (e.get("type") != "tuned" or e.get("better")):
                best = max(best, s)
            out.append([n, round(best, 4)])
    return out


class SharedEvaluator:
    """One family's GPU evaluator shared by the searches of a call: a candidate (the same source, launch and
    flags: Candidate.key) is measured once and its evaluation handed to every search that asks for it, so
    the strategies and seeds compare their choices on the same measurements for a fraction of the device
    time. Every search still counts each evaluation it asks for against its budget."""

    def __init__(self, inner):
        self.inner, self.memo, self.fresh = inner, {}, 0
        self.log: list = []  # (candidate, evaluation) in the order asked, every search's

    def evaluate(self, candidates: list) -> list:
        todo = {}
        for c in candidates:
            if c.key() not in self.memo:
                todo.setdefault(c.key(), c)
        if todo:
            for k, ev in zip(todo, self.inner.evaluate(list(todo.values()))):
                self.memo[k] = ev
            self.fresh += len(todo)
        out = [copy.deepcopy(self.memo[c.key()]) for c in candidates]
        self.log += list(zip(candidates, out))
        return out

    def __getattr__(self, name):  # remeasure, sanitize, energy_of, reports: the inner evaluator's
        return getattr(self.inner, name)

    def close(self) -> None:
        """(optimize closes its evaluator after each run: the family's lives on until FamilyState.close)"""


class FamilyState:
    """A family's copy (the evaluator's kernel file, spec and reference), its shared evaluator and the
    re-measurements made for its runs, for one objective, while its runs go on."""

    def __init__(self, key: tuple[str, str], cfg: Config):
        from kernelpro.optimizer.evaluator import GpuEvaluator
        from kernelpro.profilers.compile import CompileOptions
        from kernelpro.profilers.runtime.spec import load_spec

        family, objective = key
        self.key, self.dir = key, suite_run.make_repo(family)
        self.spec_path = self.dir / "naive.kernelpro.toml"
        self.spec = load_spec(self.spec_path)
        self.evaluator = SharedEvaluator(GpuEvaluator(self.dir / "naive.cu", self.spec.kernel, self.spec,
                                                      CompileOptions(arch=cfg.arch), energy=objective == "energy"))
        self.measured: dict[str, tuple] = {}  # sha -> (measurement, the unit that made it)
        self.naive_energy: dict = {}

    def close(self) -> None:
        self.evaluator.inner.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def best_of(log: list, objective: str, min_reward: float):
    """(candidate, reward) of a run's best correct candidate against its root (the log's first entry), or None
    when none beats the root by more than min_reward (the margin a branch needs)."""
    from kernelpro.optimizer.search import reward

    if not log or not log[0][1].ok:
        return None
    root = log[0][1]
    best = None
    for c, ev in log[1:]:
        if not ev.ok:
            continue
        try:
            r = reward(ev, root, objective)
        except ValueError:
            continue
        if r > min_reward and (best is None or r > best[1]):
            best = (c, r)
    return best


class GpuLab:
    def __init__(self, cfg: Config, logs: Path):
        from kernelpro.profilers.runtime.ceilings import get_ceilings
        from kernelpro.profilers.runtime.measure import gpu_problem
        from kernelpro.profilers.runtime.worker import WorkerPool

        problem = gpu_problem()
        if problem:
            raise NoGpu(problem)
        self.cfg, self.logs = cfg, logs
        logs.mkdir(parents=True, exist_ok=True)
        self.pool = WorkerPool(timeout_s=240)
        self.device = self.pool.call({"op": "device"})
        self.ceilings = get_ceilings(self.pool)
        self.nvml, h, nv = _nvml_facts(self.device.get("pci_bus_id"))
        self.sampler = ClockSampler(h, nv)
        self.sampler.start()
        self.state: FamilyState | None = None  # the family whose runs are going on

    # --- what the JSON records about the machine ----------------------------------------------------------
    def environment(self) -> dict:
        from kernelpro.profilers.toolchain import discover

        try:
            tools = {k: v["version"] for k, v in discover().describe().items()}
        except Exception as e:
            tools = {"error": str(e)}
        ceil = {k: self.ceilings.get(k) for k in ("dram_gbs", "fp32_gflops", "fp16_gflops", "measured", "method")}
        return {"date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "device": self.device, "nvml": self.nvml,
                "toolkit": tools, "ceilings": ceil, "versions": _versions(), "source": _commit(),
                "clocks": self.clocks()}

    def clocks(self) -> dict:
        return self.sampler.summary()

    def family_info(self, family: str) -> dict:
        from kernelpro.profilers.compile import CompileOptions
        from kernelpro.profilers.profile import profile_file
        from kernelpro.profilers.runtime.spec import load_spec
        from kernelpro.profilers.tools import load_builtin

        meta = tomllib.loads((suite_run.SUITE / family / "family.toml").read_text())
        spec = load_spec(suite_run.SUITE / family / "naive.kernelpro.toml")
        rep = profile_file(suite_run.SUITE / family / "naive.cu", CompileOptions(arch=self.cfg.arch), kernel=meta["kernel"])
        return {"title": meta["title"], "kernel": meta["kernel"], "sizes": spec.sizes, "largest": list(spec.sizes)[-1],
                "bytes": {s: spec.bytes_moved(s) for s in spec.sizes}, "flops": {s: spec.flops(s) for s in spec.sizes},
                "root_rules": sorted({a.rule for a in rep.advice}),
                "rule_tools": {r: t.name for t in load_builtin().values() for r in t.rules}}

    # --- measurements ----------------------------------------------------------------------------------
    def measure(self, entries: dict, energy_for: set | None = None) -> dict:
        """label -> (cu, spec): the side-by-side times, then energy at the largest size (of the labels in
        `energy_for`, default all), each judged."""
        from kernelpro.profilers.compile import CompileOptions, compile_cuda
        from kernelpro.profilers.runtime.measure import _precision, _tensor_cores, evaluate

        out = suite_run.measure(entries, self.pool, self.cfg.repeats)
        for label, (cu, spec) in entries.items():
            m = out[label]
            if "times_s" not in m:
                continue
            opts = CompileOptions(arch=self.cfg.arch, extra_flags=tuple(getattr(spec, "flags", ())))
            art = compile_cuda(cu, opts)
            m["spread"] = {s: (max(v) - min(v)) / statistics.median(v) for s, v in m.get("rounds_s", {}).items() if v}
            m.update(judge(m["times_s"], {s: spec.bytes_moved(s) for s in spec.sizes},
                           {s: spec.flops(s) for s in spec.sizes}, self.ceilings, _precision(spec),
                           _tensor_cores(art, spec), int(self.device.get("l2_bytes") or 0)))
            if energy_for is None or label in energy_for:
                largest = list(spec.sizes)[-1]
                res = evaluate(cu, spec, opts, timing=False, energy=True, pool=self.pool, sizes=[largest])
                e = (res.energy or {}).get(largest) or {}
                if res.ok and e.get("energy_j") is not None:
                    m["energy_j"] = {largest: e["energy_j"]}
                    m["power_w"] = {largest: e.get("avg_power_w")}
                    m["energy_uncertainty"] = {largest: e.get("uncertainty")}
                else:
                    m["energy_error"] = res.failure or e.get("error") or "no energy reading"
        return out

    def _torch(self, family: str, spec, compiled: bool) -> dict:
        from kernelpro.profilers.runtime.measure import _precision

        from suite_torch import policies, time_torch
        policy = policies(family)[0]  # the matrix products: cuBLAS's precision (fp32 strict, or bf16), said
        try:
            times = time_torch(family, spec, compiled=compiled)
        except Exception as e:  # torch missing, an op not in this version, no compiler for inductor: said
            return {"failure": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300],
                    "policy": policy}
        m = {"times_s": times, "policy": policy}
        m.update(judge(times, {s: spec.bytes_moved(s) for s in spec.sizes}, {s: spec.flops(s) for s in spec.sizes},
                       self.ceilings, _precision(spec), policy in ("tf32", "bf16"), int(self.device.get("l2_bytes") or 0)))
        return m

    def baseline(self, family: str) -> dict:
        from kernelpro.profilers.runtime.spec import load_spec

        repo = suite_run.make_repo(family)
        try:
            entries = {"naive": (repo / "naive.cu", load_spec(repo / "naive.kernelpro.toml")),
                       "best": (repo / "best.cu", load_spec(repo / "best.kernelpro.toml"))}
            rec = self.measure(entries)
            spec = entries["naive"][1]
            if self.cfg.torch:
                rec["torch_eager"] = self._torch(family, spec, compiled=False)
            rec["complete"] = True
            return rec
        finally:
            shutil.rmtree(repo, ignore_errors=True)

    # --- the searches -------------------------------------------------------------------------------
    def _family(self, family: str, objective: str) -> "FamilyState":
        """The family's shared evaluator and re-measurements, kept while consecutive runs are of this family and
        objective (the driver orders them so); the previous family's are closed."""
        key = (family, objective)
        if self.state is None or self.state.key != key:
            if self.state is not None:
                self.state.close()
            self.state = FamilyState(key, self.cfg)
        return self.state

    def torch_compile(self, family: str) -> dict:
        """PyTorch's op through torch.compile at every size (compiling is not timed), judged like the rest."""
        from kernelpro.profilers.runtime.spec import load_spec

        rec = self._torch(family, load_spec(suite_run.SUITE / family / "naive.kernelpro.toml"), compiled=True)
        rec["complete"] = True
        return rec

    def peers(self, family: str) -> dict:
        """Each peer of suite_peers.NAMES that implements the family: its times at every size (checked against
        PyTorch eager first), judged like the rest; a missing package or a wrong output said as such."""
        from kernelpro.profilers.runtime.measure import _precision
        from kernelpro.profilers.runtime.spec import load_spec

        import suite_peers
        spec = load_spec(suite_run.SUITE / family / "naive.kernelpro.toml")
        rec: dict = {}
        for name in suite_peers.NAMES:
            if not suite_peers.implements(name, family):
                continue
            m = suite_peers.time_peer(name, family, spec)
            if "times_s" in m:
                m.update(judge(m["times_s"], {s: spec.bytes_moved(s) for s in spec.sizes},
                               {s: spec.flops(s) for s in spec.sizes}, self.ceilings, _precision(spec),
                               suite_peers.policies(family)[0] in ("tf32", "bf16"),
                               int(self.device.get("l2_bytes") or 0)))
            rec[name] = m
        return {"peers": rec, "complete": True}

    def run(self, family: str, unit: Unit, time_left: float, results: dict) -> dict:
        """One search (`kernelpro.optimizer.run.optimize`, in this process) on the naive kernel in a fresh git
        repository, through the family's shared evaluator; no branch is written: the run's best candidate is
        re-measured here, beside the naive kernel, in the lab's own worker process."""
        import math

        from kernelpro.optimizer.memory import Memory
        from kernelpro.optimizer.model import Budget
        from kernelpro.optimizer.run import SAVE_MARGIN, OptimizeError, RunConfig, optimize
        from kernelpro.profilers.compile import CompileOptions

        cfg = self.cfg
        fam = results["families"][family]
        warm = self.state is not None and self.state.key == (family, unit.objective)
        st = self._family(family, unit.objective)
        repo = suite_run.make_repo(family)
        tmp: list[Path] = [repo]
        try:
            measure_s = cfg.repeats * 2 * 3.0 + 10.0
            seconds = max(30.0, min(cfg.timeout, time_left - measure_s))
            rc = RunConfig(file=repo / "naive.cu", kernel=fam["kernel"],
                           budget=Budget(evaluations=cfg.budget, seconds=seconds), objective=unit.objective,
                           strategy="mcts" if unit.strategy == LLM else unit.strategy, seed=unit.seed,
                           options=CompileOptions(arch=cfg.arch), energy=False, max_branches=0,
                           llm_base_url=cfg.llm_base_url if unit.strategy == LLM else None,
                           llm_model=cfg.llm_model if unit.strategy == LLM else None)
            events: list[dict] = []
            first, fresh_before = len(st.evaluator.log), st.evaluator.fresh
            t0 = time.monotonic()
            error = None
            try:
                optimize(rc, on_event=events.append, evaluator=st.evaluator)
            except OptimizeError as e:  # the root fails its own check: said, never a speedup
                error = str(e)[:300]
            wall = round(time.monotonic() - t0, 1)
            (self.logs / f"events_{family}_{unit.key.replace('/', '_')}.jsonl").write_text(
                "".join(json.dumps(e, default=str) + "\n" for e in events))
            done = next((e for e in reversed(events) if e.get("type") == "done"), None)
            rec = {"objective": unit.objective, "strategy": unit.strategy, "seed": unit.seed, "budget": cfg.budget,
                   "proposer": "llm" if unit.strategy == LLM else "builtin", "rc": 1 if error else 0,
                   "search_wall_s": wall, "spend": suite_run.spend(events), "curve": run_curve(events),
                   "warm": warm, "measured_evaluations": st.evaluator.fresh - fresh_before,
                   # cut by its time limit: run again next call; any other end (an error included) is final
                   "complete": (done or {}).get("stopped_by") != "seconds"}
            if done is not None:
                rec.update({k: done.get(k) for k in ("evaluations", "failures", "stopped_by", "path")})
                rec["search_speedup"] = done.get("time_speedup")
            if error:
                rec["error"] = error
            mem = Memory(repo)
            try:
                rec["attempts"] = [{"answers": a.answers, "outcome": a.outcome, "speedup": a.speedup,
                                    "origin": a.origin, "description": a.description[:120]} for a in mem.attempts()]
            finally:
                mem.close()
            best = best_of(st.evaluator.log[first:], unit.objective, math.log1p(SAVE_MARGIN))
            rec["best_candidate"] = best[0].description if best else None
            if best and rec["complete"] and not error:  # (an incomplete run is run again: measuring it would be wasted)
                cand = best[0]
                spec_text = st.spec_path.read_text()
                if cand.launch or cand.flags:
                    from kernelpro.optimizer import spec_edit

                    spec_text = spec_edit.render_spec(spec_text, cand.launch, tuple(cand.flags), kernel=fam["kernel"])
                rec["optimized_source"] = {"cu": cand.source, "spec": spec_text, "sha": _sha(cand.source, spec_text)}
                rec["best_description"] = " → ".join(rec.get("path") or []) or cand.description
                rec["measured"], rec["remeasured_with"] = self._remeasure(family, unit, fam, st, rec["optimized_source"],
                                                                         tmp)
            return rec
        finally:
            for p in tmp:
                shutil.rmtree(p, ignore_errors=True)

    def _remeasure(self, family: str, unit: Unit, fam: dict, st: "FamilyState", source: dict, tmp: list) -> tuple:
        """The best candidate beside the naive kernel (and, for the energy objective, the time objective's best of
        the same seed), alternating, with energy; a kernel already re-measured in this family's runs of this call
        is not measured again (the record names the run that measured it)."""
        from kernelpro.profilers.runtime.spec import load_spec

        other = fam.get("runs", {}).get(f"time/{unit.strategy}/{unit.seed}", {}).get("optimized_source")
        with_time = unit.objective == "energy" and other
        if source["sha"] in st.measured and not with_time:
            return st.measured[source["sha"]]
        d = self._files_with(family, source)
        tmp.append(d)
        entries = {"naive": (st.dir / "naive.cu", st.spec),
                   "optimized": (d / "naive.cu", load_spec(d / "naive.kernelpro.toml"))}
        if with_time:
            t = self._files_with(family, other)
            tmp.append(t)
            entries["time_best"] = (t / "naive.cu", load_spec(t / "naive.kernelpro.toml"))
        # energy: of every new best (a later MCTS run may reuse it), the naive kernel's once per family
        energy = set(entries) if with_time or "naive" not in st.naive_energy else {"optimized"}
        m = self.measure(entries, energy_for=energy)
        if "energy_j" not in m["naive"] and st.naive_energy.get("naive"):
            m["naive"].update(st.naive_energy["naive"])
        elif "energy_j" in m["naive"]:
            st.naive_energy["naive"] = {k: m["naive"][k] for k in ("energy_j", "power_w", "energy_uncertainty")}
        st.measured[source["sha"]] = (m, unit.key)
        return m, None

    def _files_with(self, family: str, source: dict) -> Path:
        d = Path(tempfile.mkdtemp(prefix=f"suite-{family}-time-"))
        for f in (suite_run.SUITE / family).iterdir():
            if f.is_file():
                shutil.copy(f, d / f.name)
        (d / "naive.cu").write_text(source["cu"])
        (d / "naive.kernelpro.toml").write_text(source["spec"])
        return d

    def close(self) -> None:
        if self.state is not None:
            self.state.close()
        self.sampler.stop.set()
        self.pool.close()
