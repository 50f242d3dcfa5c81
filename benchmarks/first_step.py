"""Does the first expansion hold the right structural first step? (issue 27's measure)

    python benchmarks/first_step.py DIR [--json] [--no-build] [-v]

Each `DIR/*.cu` starts with a header:

    // launch: grid <expr>[, <expr>[, <expr>]] block <int>[, <int>[, <int>]] [shared <expr>]
    // sizes: NAME=value ...            (the spec's sizes; every scalar parameter needs one)
    // kernel: NAME                     (optional: else the file's first kernel)
    // template: ARG[, ARG]             (optional: the instantiation the spec runs, `template = [...]`)
    // expect: plan-a|plan-b            (the plan names that are a right first step)

For each kernel, `restructure.plans` runs with a Context built from that header, as `optimize
--propose-only` builds it from a spec (the scalar parameters mapped to themselves, the sizes as the one
size of `size_env`); a plan counts as offered when one of its knob settings builds (what
`BuiltinProposer.structural_candidates` proposes; `--no-build` counts every plan returned). Prints per
kernel the plans offered, whether an expected one is among them and, when not, the `not_applied` reasons;
then the hit rate. No GPU and no nvcc. Exits non-zero only when a kernel crashes the plans (or a header
cannot be read): a miss is a result, not a failure.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import re
import sys
import time
import traceback

from kernelpro.optimizer.restructure import api
from kernelpro.profilers.analysis.types import table_for
from kernelpro.profilers.source import parse_source


def split_top(s: str) -> list[str]:
    """`a, cdiv(b, c)` -> ['a', 'cdiv(b, c)']: commas outside parentheses."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _value(v: str):
    try:
        return int(v)
    except ValueError:
        return float(v)


def read_header(text: str) -> dict:
    """The header's launch, sizes, kernel and expected plans (ValueError when the launch is missing)."""
    head = {}
    for line in text.split("\n")[:12]:
        m = re.match(r"\s*//\s*(launch|sizes|kernel|expect|template):\s*(.*?)\s*$", line)
        if m:
            head[m.group(1)] = m.group(2)
    m = re.match(r"grid\s+(.*?)\s+block\s+(.*?)(?:\s+shared\s+(.*))?$", head.get("launch", ""))
    if not m:
        raise ValueError("no `// launch: grid ... block ...` line")
    launch = {"grid": split_top(m.group(1)), "block": [int(b) for b in split_top(m.group(2))]}
    if m.group(3):
        launch["shared_bytes"] = m.group(3).strip()
    sizes = {k: _value(v) for k, v in re.findall(r"(\w+)\s*=\s*([-+.\w]+)", head.get("sizes", ""))}
    expect = [e.strip() for e in head.get("expect", "").split("|") if e.strip()]
    template = tuple(a.strip() for a in split_top(head["template"])) if head.get("template") else ()
    return {"launch": launch, "sizes": sizes, "kernel": head.get("kernel"), "expect": expect, "template": template}


class NoKernel(ValueError):
    """The file's kernel is not one the tools see (`#define __kernel __global__`, an OpenCL shim): a miss."""


def context(path: str, text: str, head: dict) -> api.Context:
    src = parse_source(text, path)
    k = src.kernel(head["kernel"]) if head["kernel"] else (src.kernels[0] if src.kernels else None)
    if k is None:
        raise NoKernel(f"no kernel {head['kernel'] or ''} found in the file (a `__global__` the parser sees)")
    types = table_for(src)
    # (a struct passed by value, the programming guide's `Matrix A`, is no size: the spec cannot name one either)
    scalars = {p.name: p.name for p in k.params if not p.is_pointer
               and (types.scalar(p.base_type) is not None or p.name in head["sizes"])}
    missing = [s for s in scalars if s not in head["sizes"]]
    if missing:
        raise ValueError(f"no size for the scalar parameters {', '.join(missing)}")
    launch = head["launch"]
    return api.Context(kernel=k.name, path=path, launch=dict(launch), base_launch=dict(launch),
                       size_env={"probe": dict(head["sizes"])}, scalar_params=scalars,
                       template=head.get("template", ()))


def offered(plans, build: bool, enough: tuple = ()) -> tuple[list[str], list[str]]:
    """The plans that give a candidate (a knob setting that builds), and why the others gave none; with `enough`
    (the expected plans), no more are built once one of those has (what the hit rate needs: the tests' time)."""
    names, why = [], []
    for p in plans:
        if not build or any(n in enough for n in names):
            names.append(p.name)
            continue
        errors = []
        for knobs in p.space:
            try:
                p.build(knobs)
            except api.Refuse as e:
                errors.append(str(e))
                continue
            names.append(p.name)
            break
        else:
            why.append(f"{p.name}: no setting builds: {errors[0] if errors else 'no settings'}")
    return list(dict.fromkeys(names)), why


def probe(path: str, build: bool = True, first_hit: bool = False) -> dict:
    text = open(path).read()
    row = {"file": os.path.basename(path)}
    t0 = time.perf_counter()
    try:
        head = read_header(text)
        row["expect"] = head["expect"]
        ctx = context(path, text, head)
        row["kernel"] = ctx.kernel
        plans, why = api.plans(text, ctx)
        expected = [p for p in plans if p.name in head["expect"]]  # (those first: one that builds is a hit)
        names, unbuilt = offered(expected + [p for p in plans if p not in expected] if first_hit else plans, build,
                                 tuple(head["expect"]) if first_hit else ())
    except NoKernel as e:  # nothing to plan for: no step offered
        row.update(offered=[], not_applied=[str(e)], hit=False, seconds=round(time.perf_counter() - t0, 3))
        return row
    except Exception as e:  # a crash is the one failure
        row.update(crashed=f"{type(e).__name__}: {e}", trace=traceback.format_exc())
        return row
    row.update(offered=names, not_applied=unbuilt + list(why),
               hit=any(e in names for e in head["expect"]), seconds=round(time.perf_counter() - t0, 3))
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--json", action="store_true", help="one JSON object: the rows and the rate")
    ap.add_argument("--no-build", action="store_true", help="count plans returned, without building them")
    ap.add_argument("--first-hit", action="store_true", help="stop building a kernel's plans once an expected one "
                                                                 "builds (the rest are listed as offered, unbuilt)")
    ap.add_argument("-v", "--verbose", action="store_true", help="the not_applied reasons of hits too")
    args = ap.parse_args(argv)
    files = sorted(glob.glob(os.path.join(args.dir, "*.cu")))
    rows = [probe(f, not args.no_build, args.first_hit) for f in files]
    scored = [r for r in rows if "hit" in r and r["expect"]]
    hits = sum(r["hit"] for r in scored)
    rate = hits / len(scored) if scored else 0.0
    crashed = [r for r in rows if "crashed" in r]
    if args.json:
        print(json.dumps({"rows": rows, "hits": hits, "scored": len(scored), "rate": rate}, indent=1))
    else:
        for r in rows:
            if "crashed" in r:
                print(f"CRASH {r['file']}: {r['crashed']}\n{r['trace']}")
                continue
            mark = "hit " if r["hit"] else ("MISS" if r["expect"] else "  - ")
            print(f"{mark} {r['file']:34s} expect {'|'.join(r['expect']) or '-':28s} "
                  f"offered {', '.join(r['offered']) or '(none)'}  [{r['seconds']}s]")
            if (not r["hit"] or args.verbose) and r["not_applied"]:
                for w in r["not_applied"]:
                    print(f"       - {w}")
        print(f"\nhit rate: {hits}/{len(scored)} = {rate:.0%}" + (f"; {len(crashed)} crashed" if crashed else ""))
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
