"""Re-measure every kernelpro/ candidate branch of a repository against its base, side by side.

For each branch: the kernel file (and spec) at the branch tip and at its parent are written to
a scratch folder, both are evaluated by the same worker on fresh random inputs, alternating
root and candidate, and the re-measured speedup is printed beside the one recorded in the note.

    python benchmarks/remeasure.py REPO [--repeats 3]
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
from pathlib import Path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("repo")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", help="write the rows here")
    args = ap.parse_args(argv)
    import git

    from kernelpro.optimizer.candidates import list_candidates
    from kernelpro.profilers.compile import CompileOptions
    from kernelpro.profilers.runtime.measure import evaluate, gpu_problem
    from kernelpro.profilers.runtime.spec import load_spec
    from kernelpro.profilers.runtime.worker import WorkerPool

    if gpu_problem():
        print(f"no GPU: {gpu_problem()}", file=sys.stderr)
        return 2
    repo = git.Repo(args.repo)
    pool = WorkerPool(timeout_s=120)
    rows = []
    for rec in list_candidates(args.repo):
        note = rec.note
        tip = repo.commit(rec.commit)
        base = tip.parents[0]
        kfile, sfile = note.get("file"), note.get("spec_file")
        out = {}
        for label, commit in (("before", base), ("after", tip)):
            d = Path(tempfile.mkdtemp(prefix=f"remeasure-{label}-"))
            for blob in commit.tree.traverse():
                if blob.type == "blob" and Path(blob.path).parent == Path(kfile).parent:  # the kernel's folder
                    (d / Path(blob.path).name).write_bytes(blob.data_stream.read())
            cu = d / Path(kfile).name
            spec = load_spec(d / Path(sfile).name) if sfile else None
            flags = tuple(getattr(spec, "flags", ()))
            out[label] = (cu, spec, CompileOptions(extra_flags=flags))
        times = {"before": [], "after": []}
        for _ in range(args.repeats):
            for label in ("before", "after"):
                cu, spec, opt = out[label]
                res = evaluate(cu, spec, opt, pool=pool)
                if not res.ok:
                    times[label].append(None)
                    print(f"{rec.branch}: {label} failed: {res.failure}", file=sys.stderr)
                    continue
                times[label].append({s.size: s.time_s for s in res.sizes})
        ok = all(times["before"]) and all(times["after"])
        speed = None
        if ok:
            per = []
            for size in times["before"][0]:
                b = statistics.median(t[size] for t in times["before"])
                a = statistics.median(t[size] for t in times["after"])
                per.append(math.log(b / a))
            speed = math.exp(sum(per) / len(per))
        rows.append({"branch": rec.branch, "kernel": rec.kernel, "recorded": note.get("speedup"), "remeasured": speed,
                     "description": note.get("description")})
        print(f"{rec.branch:55} recorded {note.get('speedup', float('nan')):6.2f}x  re-measured "
              f"{speed if speed else float('nan'):6.2f}x  {note.get('description', '')[:60]}", flush=True)
    pool.close()
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
