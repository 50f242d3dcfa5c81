"""Size-specialised results: where the search's best candidate over every size is not the fastest at some of the
spec's sizes, one candidate that picks per size.

The sizes are ordered by the product of their size variables (the problem's size); switch points split them into
runs (one or more switches: gemm_fp32 on an H100 wanted the direct kernel at the small size, 128 x 64 tiles at
1024^3 and 128 x 128 ones at 4096^3), each run taking the candidate fastest over it, and a candidate other than
the overall best must beat it by more than MARGIN over its run (`plan`). The dispatch is one .cu file holding the
kernels (the others' top-level names given a suffix, so nothing collides) and a launch spec whose [[launches]]
carry `when` conditions on the size variables: each threshold lies near the geometric mean of the problem sizes
on either side of its switch (above the smaller, at most the larger), and sizes between them were not measured (said
in the branch note).
"""
from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass

from kernelpro.profilers.runtime.spec import rebind_launch
from kernelpro.profilers.source import parse_source, walk

from . import spec_edit
from .model import Candidate, Evaluation

MARGIN = 0.03  # the other candidate must be this much faster at its sizes
SAME = 0.01  # a side that stands in for the best (its flags differ, say) may be this much slower there


@dataclass
class Split:
    runs: list  # [Candidate]: each run's variant, smallest sizes first
    sizes: list  # [[size names]] of each run
    measure: str  # the problem size as an expression of the size variables
    thresholds: list  # [float]: run i takes measure >= thresholds[i - 1] and < thresholds[i]

    def condition(self, i: int) -> str:
        """Run i's `when`."""
        parts = ([f"{self.measure} >= {self.thresholds[i - 1]:g}"] if i else []) + \
            ([f"{self.measure} < {self.thresholds[i]:g}"] if i < len(self.thresholds) else [])
        return " and ".join(parts)

    def describe(self) -> str:
        return f"{self.measure} switching at {', '.join(f'{t:g}' for t in self.thresholds)}"


def problem_size(env: dict) -> float:
    return float(math.prod(v for v in env.values() if isinstance(v, (int, float)) and v > 0))


def plan(spec, best: tuple[Candidate, Evaluation], seen: list[tuple[Candidate, Evaluation]]) -> Split | str:
    """The split where one is worth it, else why not (a str).

    Every switch point over the sizes ordered by problem size is tried, each side taking the candidate with the
    smallest geometric-mean time over its sizes; the split kept is the one with the smallest geometric mean over
    every size, where a side's candidate other than the best beats the best by more than MARGIN there (gemm_chain
    on the H100: the naive kernel fastest at the small size, the tiles at the large one; the split by the first
    winner alone put the naive kernel below the medium size and left the tiles out)."""
    sizes = sorted(spec.sizes, key=lambda s: problem_size(spec.env(s)))
    if len(sizes) < 2:
        return "one size: nothing to specialise"
    if not any(st.kernel == spec.kernel and not st.memset for st in spec.launches):
        return f"the spec does not launch {spec.kernel}"
    if any(st.when for st in spec.launches):
        return "the spec's launches already run at some sizes only (`when`)"
    bc, be = best
    if not all(be.times_s.get(s) for s in sizes):
        return "no candidate timed at every size"
    if bc.runs_host_launcher:
        return "the best candidate runs through a host launcher (a library kernel that covers every size itself)"
    if bc.launch and ("launches" in bc.launch or "kernel" in bc.launch):
        return "the best candidate launches several steps of its own"
    ok = [(c, e) for c, e in seen if e.ok and all(e.times_s.get(s) for s in sizes)
          and not (c.launch and ("launches" in c.launch or "kernel" in c.launch or "host" in c.launch))]
    # (one launch of the kernel each)
    if not any(c.key() != bc.key() for c, _ in ok):
        return "no other candidate timed at every size"

    def log_mean(e: Evaluation, part: list[str]) -> float:
        return sum(math.log(e.times_s[s]) for s in part) / len(part)
    found, why = None, f"the best candidate is within {MARGIN:.0%} of the fastest at every size"
    # one file takes one set of compile flags: both sides come from candidates built alike (the transpose on an
    # H100: the best was the 32-wide tile with fast math, 1% from the tile without it, which the 64-wide tile,
    # 7% faster at 8192^2, could have joined)
    groups: dict[tuple, list] = {}
    for ce in ok + [best]:
        groups.setdefault(tuple(ce[0].flags), []).append(ce)
    psize = [problem_size(spec.env(sz)) for sz in sizes]
    for ncut in range(1, len(sizes)):
        # (a switch between two sizes of one problem size would send both to one side)
        for cuts in itertools.combinations([c for c in range(1, len(sizes)) if psize[c - 1] < psize[c]], ncut):
            parts = [sizes[a:b] for a, b in zip((0,) + cuts, cuts + (len(sizes),))]
            for pool in [ok + [best]] + list(groups.values()):
                picks = [min(pool, key=lambda ce: log_mean(ce[1], part)) for part in parts]
                # a run whose fastest is within the margin of the best takes the best where the pool has it (on the
                # H100, an unroll variant 1% faster at 1024^3 kept the three-run split of gemm_fp32 from forming)
                if any(ce[0].key() == bc.key() for ce in pool):
                    picks = [pk if pk[0].key() == bc.key() or log_mean(be, part) - log_mean(pk[1], part)
                             > math.log1p(MARGIN) else best for pk, part in zip(picks, parts)]
                if any(a[0].key() == b[0].key() for a, b in zip(picks, picks[1:])):
                    continue  # two runs with one variant: a split with fewer switches covers it
                sides = [(c, log_mean(be, part) - log_mean(e, part)) for (c, e), part in zip(picks, parts)
                         if c.key() != bc.key()]
                # a side other than the best must win there by MARGIN; one built with other flags than the best
                # may instead stand in for it (within SAME) where another side wins by MARGIN
                if not any(g > math.log1p(MARGIN) for _, g in sides) or any(
                        g <= math.log1p(MARGIN) and (c.flags == bc.flags or g < -math.log1p(SAME)) for c, g in sides):
                    continue
                if len({tuple(c.flags) for c, _ in picks}) > 1:
                    why = "the variants are built with different compile flags (one file takes one set)"
                    continue
                total = sum(log_mean(e, part) * len(part) for (_, e), part in zip(picks, parts))
                if found is None or total < found[0] - 1e-12:
                    found = (total, picks, parts)
    if found is None:
        return why
    _, picks, parts = found
    names = sorted({n for s in sizes for n in spec.env(s)})
    thresholds = [_between(problem_size(spec.env(a[-1])), problem_size(spec.env(b[0])))
                  for a, b in zip(parts, parts[1:])]
    return Split([c for c, _ in picks], parts, " * ".join(names), thresholds)


def _between(a: float, b: float) -> float:
    """A threshold t with a < t <= b near their geometric mean, with as few digits as keep it there."""
    g = math.sqrt(a * b)
    for digits in range(3, 18):
        t = float(f"{g:.{digits}g}")
        if a < t <= b:
            return t
    return b


def top_level_names(text: str, path: str = "x.cu") -> set[str]:
    """The names a file defines at its top level: functions, kernels, globals, types, macros."""
    src = parse_source(text, path)
    out = set()
    for n in walk(src.root):
        if n.type in ("preproc_def", "preproc_function_def"):
            nm = n.child_by_field_name("name")
            if nm is not None:
                out.add(src.node_text(nm))
        elif n.type == "function_definition" and _top(n):
            d = n.child_by_field_name("declarator")
            while d is not None and d.type not in ("identifier", "field_identifier", "qualified_identifier"):
                d = d.child_by_field_name("declarator")
            if d is not None:
                out.add(src.node_text(d))
        elif n.type in ("struct_specifier", "class_specifier") and _top(n):
            nm = n.child_by_field_name("name")
            if nm is not None:
                out.add(src.node_text(nm))
        elif n.type == "declaration" and _top(n):
            for dec in n.children_by_field_name("declarator"):
                while dec is not None and dec.type not in ("identifier",):
                    dec = dec.child_by_field_name("declarator")
                if dec is not None:
                    out.add(src.node_text(dec))
    return out


def _top(n) -> bool:
    p = n.parent
    while p is not None and p.type in ("template_declaration", "linkage_specification", "declaration_list"):
        p = p.parent
    return p is not None and p.type == "translation_unit"


def merged_source(main: str, other: str, kernel: str, suffix: str) -> tuple[str, str]:
    """(one file with both, the other kernel's new name): every name the other defines gets `suffix`."""
    names = top_level_names(other) - {"main"}
    names.add(kernel)
    renamed = re.sub(r"\b(" + "|".join(sorted(map(re.escape, names), key=len, reverse=True)) + r")\b",
                     lambda m: m.group(1) + suffix, other)
    return (main.rstrip("\n") + f"\n\n// ---- kernelpro: the variant for the other sizes ({kernel}{suffix}) ----\n"
            + renamed), kernel + suffix


def build(spec, split: Split, kernel: str) -> Candidate:
    """The dispatch candidate: the variants in one file; each launch of the kernel becomes one per run, each with
    its `when` (a chain launching the kernel twice gets twice as many), the other steps (memsets, other kernels)
    kept."""
    last = len(split.runs) - 1
    src, names = split.runs[0].source, [kernel]  # the smallest sizes' variant keeps the kernel's name
    for i, c in enumerate(split.runs[1:], 1):
        same = next((n for r, n in zip(split.runs, names) if r.key() == c.key()), None)
        if same is not None:  # a variant that an earlier run already put in the file (small and large, say)
            names.append(same)
            continue
        src, name = merged_source(src, c.source, kernel, "_kp_large" if i == last else f"_kp_size{i}")
        names.append(name)
    conds = [split.condition(i) for i in range(len(split.runs))]
    base = next(st for st in spec.launches if st.kernel == kernel and not st.memset)
    values = {a.name: a.value for a in spec.args if a.value is not None}

    def launch(st, lch: dict, name: str, when: str) -> dict:
        own = spec_edit.step_launch(st)
        # a variant's launch is written for the kernel's first launch: rebound to this one's arguments
        own.update(rebind_launch({k: v for k, v in (lch or {}).items() if k in ("grid", "block", "shared_bytes")},
                                 base.args, st.args, values))
        return {"kernel": name, **own, "args": list(st.args), "when": when}
    steps = []
    for st in spec.launches:
        if st.memset or st.kernel != kernel:
            steps.append(st.to_table())
        else:
            steps += [launch(st, c.full_launch, n, w) for c, n, w in zip(split.runs, names, conds)]
    flags = tuple(split.runs[0].flags)  # the same for all (plan)
    desc = "per-size dispatch: " + "; ".join(
        f"{n} ({c.description[:120]}) where {w} (sizes {', '.join(sz)})"
        for c, n, w, sz in zip(split.runs, names, conds, split.sizes))
    between = ", ".join(f"{a[-1]} and {b[0]}" for a, b in zip(split.sizes, split.sizes[1:]))
    notes = tuple(dict.fromkeys(tuple(n for c in split.runs for n in c.notes) + (
        f"a per-size dispatch: the launch spec runs {', '.join(f'{n} where {w}' for n, w in zip(names, conds))} "
        f"(the other variants' names suffixed); the thresholds lie between the spec's sizes {between}, and sizes "
        f"between them were not measured; your own launches of {kernel} take the first variant until you add the "
        "same tests",)))
    return Candidate(source=src, launch={"launches": steps}, flags=flags, description=desc,
                     answers=tuple(dict.fromkeys(a for c in split.runs for a in c.answers)), origin="builtin:dispatch",
                     kind="structural", notes=notes)
