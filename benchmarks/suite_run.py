"""Optimize the suite's naive kernels and compare them with the hand-written best (GPU).

For each family of benchmarks/suite (or each file given with --files: another naive style of
the suite, or a kernel of tests/spellings): `kernelpro optimize` runs on the naive kernel (a copy
of the family in a fresh git repository, built-in proposer, --budget evaluations) in its own
process; then this process re-measures, side by side and alternating, the naive kernel, the
optimizer's best branch and the hand-written best (and PyTorch's op with --torch), on fresh
inputs at every size of the spec. Results: one JSON file with times per size, the fraction of
the measured DRAM bandwidth, the optimizer's best as a fraction of the hand-written speed
(geometric mean over sizes), and the evaluations the search spent by kind (structural, local,
flags, launch-only, tuning), counted from its events.

    python benchmarks/suite_run.py --budget 16 --out results.json [--families gelu softmax] [--torch]
    python benchmarks/suite_run.py --measure-only ...   # the three kernels, no optimize run
    python benchmarks/suite_run.py --files benchmarks/suite/encoder/naive_elem.cu tests/spellings/softmax_double.cu ...
    python benchmarks/suite_run.py --infer-spec --families softmax ...  # the naive kernel's spec removed

With --infer-spec the naive kernel's launch spec is deleted from the repository and `optimize --infer-spec`
writes the inferred one (the kernel as written as the reference); the naive kernel and the optimizer's best
are then measured with that spec (its sizes are its own); the optimizer's best is measured again at the family's
sizes (`optimized@family`, its branch's spec with the family's [sizes]) beside the hand-written best there, so
`inferred_fraction_of_best` compares with a run's `optimized_fraction_of_best` on the hand-written spec.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

SUITE = Path(__file__).resolve().parent / "suite"


def families() -> list[str]:
    return sorted(p.parent.name for p in SUITE.glob("*/family.toml"))


def naive_file(path: Path) -> tuple[str, str, Path | None]:
    """(family, stem, the spelling's path or None) for a naive kernel given as a file."""
    path = path.resolve()
    if path.parent.parent == SUITE:
        return path.parent.name, path.stem, None
    sys.path.insert(0, str(SUITE))
    from make_specs import spelling_spec
    return spelling_spec(path)[0], path.stem, path


def file_roles(meta: dict, stem: str) -> tuple[str, str, str | None]:
    """(kernel, the hand-written best's stem, the precision policy or None) for a naive file of a family: its
    own `kernel` (scan's naive: scan_blocks), `best` and `policy` in family.toml's [files.<stem>] (naive_tf32:
    best_tf32 and cuBLAS with TF32 on), else the family's kernel, best.cu and the family's first policy."""
    own = meta.get("files", {}).get(stem, {})
    return own.get("kernel", meta["kernel"]), own.get("best", "best"), own.get("policy")


def make_repo(family: str, spelled: Path | None = None, drop: str | None = None) -> Path:
    """A git repository with the family's files (and a spelling of it with its spec); `drop`: a file left out."""
    d = Path(tempfile.mkdtemp(prefix=f"suite-{family}-"))
    for f in (SUITE / family).iterdir():
        if f.is_file() and f.name != drop:
            shutil.copy(f, d / f.name)
    if spelled is not None:
        from make_specs import spelling_spec
        shutil.copy(spelled, d / spelled.name)
        (d / f"{spelled.stem}.kernelpro.toml").write_text(spelling_spec(spelled)[1])
    env = {**os.environ, "GIT_AUTHOR_NAME": "kp", "GIT_AUTHOR_EMAIL": "kp@suite", "GIT_COMMITTER_NAME": "kp",
           "GIT_COMMITTER_EMAIL": "kp@suite"}
    for cmd in (["git", "init", "-q"], ["git", "add", "."], ["git", "commit", "-qm", family]):
        subprocess.run(cmd, cwd=d, check=True, env=env, capture_output=True)
    return d


def optimize(repo: Path, stem: str, kernel: str, budget: int, timeout: float, log: Path, seed: int,
             extra: tuple[str, ...] = (), energy: bool = False) -> list[dict]:
    """`kernelpro optimize` in its own process; its events (the last one `_run`: rc, wall time, stderr).
    `extra`: more options (--search, --objective, --llm-...); `energy`: measure energy (an energy objective
    needs it), else --no-energy."""
    # the search's own time limit ends it (and writes its `done`) before the harness's timeout kills it
    cmd = [sys.executable, "-m", "kernelpro.optimizer", "optimize", f"{stem}.cu", "--kernel", kernel,
           "--budget", str(budget), "--json-events", "--seed", str(seed), *([] if energy else ["--no-energy"]),
           "--time-limit", str(max(10.0, timeout * 0.85 - 5)), *extra]
    t0 = time.monotonic()
    try:
        r = subprocess.run(cmd, cwd=repo, capture_output=True, text=True, timeout=timeout)
        out, err, rc = r.stdout, r.stderr, r.returncode
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err, rc = f"timed out after {timeout} s", 124
    log.write_text(out + ("\n# stderr\n" + err if err else ""))
    events = []
    for line in out.splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    events.append({"type": "_run", "rc": rc, "wall_s": round(time.monotonic() - t0, 1), "stderr": err[-2000:]})
    return events


def final(events: list[dict]) -> dict | None:
    """The run's `done` event; for a run stopped from outside (no `done`), the branches it saved are kept
    and the last one still there is its best."""
    done = next((e for e in reversed(events) if e.get("type") == "done"), None)
    if done is not None:
        return done
    gone = {e.get("branch") for e in events if e.get("type") == "branch_removed"}
    kept = [e["branch"] for e in events if e.get("type") == "branch" and e.get("branch") not in gone]
    return {"best_branch": kept[-1], "stopped_by": "the harness's timeout"} if kept else None


def spend(events: list[dict]) -> dict:
    """Evaluations by kind, counted from the events."""
    from kernelpro.profilers.contracts import Evaluated, Tuned, parse

    kinds: dict[str, int] = {}
    for raw in events:
        e = parse(raw)
        if isinstance(e, Evaluated) and e.parent is not None:
            kinds[e.kind or "?"] = kinds.get(e.kind or "?", 0) + 1
        elif isinstance(e, Tuned):
            kinds["tuning"] = kinds.get("tuning", 0) + 1
    total = sum(kinds.values())
    launch_only = kinds.get("launch", 0) + kinds.get("tuning", 0)
    return {"by_kind": kinds, "total": total, "launch_parameter_only": launch_only,
            "launch_parameter_share": round(launch_only / total, 3) if total else None}


def branch_files(repo: Path, branch: str, stem: str) -> Path:
    d = Path(tempfile.mkdtemp(prefix="suite-branch-"))
    for f in repo.iterdir():
        if f.is_file():
            shutil.copy(f, d / f.name)
    for name in (f"{stem}.cu", f"{stem}.kernelpro.toml"):
        r = subprocess.run(["git", "show", f"{branch}:{name}"], cwd=repo, capture_output=True)
        if r.returncode == 0:
            (d / name).write_bytes(r.stdout)
    return d


def measure(entries: dict, pool, repeats: int) -> dict:
    """label -> (cu, spec) or (cu, spec, extra nvcc flags): median time per size over `repeats`
    alternating rounds."""
    from kernelpro.profilers.compile import CompileOptions
    from kernelpro.profilers.runtime.measure import evaluate

    times: dict = {k: {} for k in entries}
    fail: dict = {}
    for _ in range(repeats):
        for label, (cu, spec, *flags) in entries.items():
            if label in fail:
                continue
            extra = tuple(getattr(spec, "flags", ())) + tuple(flags[0] if flags else ())
            res = evaluate(cu, spec, CompileOptions(extra_flags=extra), pool=pool)
            if not res.ok:
                fail[label] = res.failure
                continue
            for s in res.sizes:
                times[label].setdefault(s.size, []).append(s.time_s)
    out = {}
    for label in entries:
        if label in fail:
            out[label] = {"failure": fail[label]}
        else:
            out[label] = {"times_s": {s: statistics.median(v) for s, v in times[label].items()},
                          "rounds_s": {s: list(v) for s, v in times[label].items()}}
    return out


def at_family_sizes(entries: dict, row: dict, repo: Path, fam: str, stem: str, best: str,
                    spelled: Path | None) -> None:
    """With --infer-spec: the optimizer's best (its branch's inferred spec, launch as tuned) also measured at
    the family's own sizes, beside the hand-written best there, so the search on the inferred spec compares with
    the search on the hand-written one (issue 28). Where the inferred spec names other size variables than the
    family's, the row says so and nothing is added."""
    import dataclasses

    from kernelpro.profilers.runtime.spec import load_spec, off_by_one_sizes

    cu, inferred = entries["optimized"][:2]
    if spelled is not None:
        from make_specs import spelling_spec
        hand_text = spelling_spec(spelled)[1]
    else:
        hand_text = (SUITE / fam / f"{stem}.kernelpro.toml").read_text()
    sizes = {k: dict(v) for k, v in tomllib.loads(hand_text)["sizes"].items()}
    names = set().union(*(set(v) for v in sizes.values()))
    known = set().union(*(set(v) for v in inferred.sizes.values()))
    if not names <= known:
        row["family_sizes"] = (f"not measured: the family's sizes name {sorted(names - known)}, which the "
                               f"inferred spec does not ({sorted(known)})")
        return
    moved = dataclasses.replace(inferred, sizes=sizes, check_sizes={})
    off_by_one_sizes(moved)
    entries["optimized@family"] = (cu, moved)
    entries["best"] = (repo / f"{best}.cu", load_spec(repo / f"{best}.kernelpro.toml"))
    row["family_sizes"] = sizes


def geomean_ratio(a: dict, b: dict) -> float | None:
    """exp(mean(log(a[s] / b[s]))) over the sizes both have."""
    keys = [k for k in a if k in b and a[k] and b[k]]
    if not keys:
        return None
    return math.exp(sum(math.log(a[k] / b[k]) for k in keys) / len(keys))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--families", nargs="*", default=None)
    ap.add_argument("--files", nargs="*", default=None,
                    help="other naive kernels instead: a suite file (encoder/naive_elem.cu) or a spelling "
                         "(tests/spellings/softmax_double.cu, its spec made from its family), each against its family's best")
    ap.add_argument("--budget", type=int, default=16)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=300.0, help="per optimize run, seconds")
    ap.add_argument("--measure-only", action="store_true")
    ap.add_argument("--torch", action="store_true", help="time PyTorch's op for each family too")
    ap.add_argument("--infer-spec", action="store_true",
                    help="remove the naive kernel's spec; optimize --infer-spec; measure with the inferred spec")
    ap.add_argument("--out", required=True)
    ap.add_argument("--logs", default=None, help="folder for the event logs (default: beside --out)")
    args = ap.parse_args(argv)

    from kernelpro.profilers.runtime.ceilings import get_ceilings
    from kernelpro.profilers.runtime.measure import gpu_problem
    from kernelpro.profilers.runtime.spec import load_spec
    from kernelpro.profilers.runtime.worker import WorkerPool

    problem = gpu_problem()
    if problem:
        print(f"no GPU: {problem}", file=sys.stderr)
        return 2
    runs = [(f, "naive", None) for f in (args.families or families())] if not args.files else \
        [naive_file(Path(f)) for f in args.files]
    logs = Path(args.logs or Path(args.out).parent)
    logs.mkdir(parents=True, exist_ok=True)
    pool = WorkerPool(timeout_s=180)
    ceil = get_ceilings(pool)
    dram = ceil["dram_gbs"] * 1e9
    result = {"date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "budget": args.budget, "seed": args.seed,
              "device": ceil.get("device"), "dram_gbs": ceil["dram_gbs"], "families": {}}
    for fam, stem, spelled in runs:
        meta = tomllib.loads((SUITE / fam / "family.toml").read_text())
        kernel, best, policy = file_roles(meta, stem)
        key = (fam if stem == "naive" else f"{fam}/{stem}") + ("/inferred" if args.infer_spec else "")
        row: dict = {"title": meta["title"], "kernel": kernel, "naive_file": f"{stem}.cu", "best_file": f"{best}.cu"}
        if policy:
            row["policy"] = policy
        spec_name = f"{stem}.kernelpro.toml"
        repo = make_repo(fam, spelled, drop=spec_name if args.infer_spec else None)
        entries = {} if args.infer_spec else {
            "naive": (repo / f"{stem}.cu", load_spec(repo / spec_name)),
            "best": (repo / f"{best}.cu", load_spec(repo / f"{best}.kernelpro.toml"))}
        if not args.measure_only or args.infer_spec:
            print(f"== {key}: optimize {stem}.cu (budget {args.budget})", flush=True)
            events = optimize(repo, stem, kernel, args.budget, args.timeout, logs / f"events_{key.replace('/', '_')}.jsonl",
                              args.seed, extra=("--infer-spec",) if args.infer_spec else ())
            if args.infer_spec:
                if not (repo / spec_name).is_file():
                    row["failure"] = f"no spec was inferred: {events[-1].get('stderr', '')[-500:]}"
                    result["families"][key] = row
                    Path(args.out).write_text(json.dumps(result, indent=2, default=str))
                    print(f"== {key}: {row['failure']}", flush=True)
                    continue
                row["inferred_spec"] = (repo / spec_name).read_text()
                entries["naive"] = (repo / f"{stem}.cu", load_spec(repo / spec_name))
            done = final(events)
            row["search"] = {"spend": spend(events), "run": events[-1],
                             "done": {k: done.get(k) for k in ("speedup", "time_speedup", "evaluations", "failures",
                                                               "stopped_by", "path", "best_branch",
                                                               "tuning_evaluations")} if done else None}
            branch = done.get("best_branch") if done else None
            if branch:
                d = branch_files(repo, branch, stem)
                entries["optimized"] = (d / f"{stem}.cu", load_spec(d / f"{stem}.kernelpro.toml"))
                row["search"]["best_description"] = next(
                    (e.get("title") for e in events if e.get("type") == "branch" and e.get("branch") == branch), None)
                if args.infer_spec:
                    at_family_sizes(entries, row, repo, fam, stem, best, spelled)
        print(f"== {key}: measure {', '.join(entries)}", flush=True)
        row["measured"] = measure(entries, pool, args.repeats)
        spec = entries["naive"][1]
        row["bytes"] = {s: spec.bytes_moved(s) for s in spec.sizes}
        for label, m in row["measured"].items():
            if "times_s" in m:
                own = entries[label][1]  # the @family entries move the family's sizes' bytes
                m["dram_fraction"] = {s: round(own.bytes_moved(s) / t / dram, 3) for s, t in m["times_s"].items()}
        t = {k: v.get("times_s") for k, v in row["measured"].items()}
        if t.get("best") and t.get("optimized@family"):
            row["inferred_fraction_of_best"] = geomean_ratio(t["best"], t["optimized@family"])
        if t.get("best") and t.get("naive") and not args.infer_spec:  # inferred: the sizes are not the same
            row["best_vs_naive"] = geomean_ratio(t["naive"], t["best"])
        if t.get("best") and t.get("optimized") and not args.infer_spec:
            row["optimized_fraction_of_best"] = geomean_ratio(t["best"], t["optimized"])
        if t.get("optimized") and t.get("naive"):
            row["optimized_speedup"] = geomean_ratio(t["naive"], t["optimized"])
        if args.torch and not args.infer_spec:
            try:
                from suite_torch import time_torch
            except ImportError:
                sys.path.insert(0, str(Path(__file__).resolve().parent))
                from suite_torch import time_torch
            try:
                row["torch"] = {"times_s": time_torch(fam, spec, policy=row.get("policy"))}
                if row.get("policy"):  # cuBLAS under the file's policy (TF32 on for naive_tf32)
                    row["torch"]["policy"] = row["policy"]
                if t.get("best"):
                    row["best_vs_torch"] = geomean_ratio(row["torch"]["times_s"], t["best"])
                if t.get("optimized"):
                    row["optimized_vs_torch"] = geomean_ratio(row["torch"]["times_s"], t["optimized"])
            except Exception as e:  # torch missing or an op not in this version: said, not hidden
                row["torch"] = {"failure": f"{type(e).__name__}: {e}"}
        result["families"][key] = row
        Path(args.out).write_text(json.dumps(result, indent=2, default=str))
        print(json.dumps({k: row.get(k) for k in ("optimized_fraction_of_best", "inferred_fraction_of_best", "optimized_speedup", "best_vs_naive",
                                                   "best_vs_torch", "optimized_vs_torch")}), flush=True)
    fr = [r["optimized_fraction_of_best"] for r in result["families"].values() if r.get("optimized_fraction_of_best")]
    if fr:
        result["geomean_fraction_of_best"] = math.exp(sum(math.log(x) for x in fr) / len(fr))
        result["min_fraction_of_best"] = min(fr)
    Path(args.out).write_text(json.dumps(result, indent=2, default=str))
    pool.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
