"""Size-specialised results: where the search's best candidate over every size is not the fastest at some of the
spec's sizes, one candidate that picks per size.

The sizes are ordered by the product of their size variables (the problem's size); one switch point splits them
in two runs (below a threshold, above), each run taking the candidate fastest over it, and a candidate other than
the overall best must beat it by more than MARGIN over its run (`plan`). The dispatch is one .cu file holding both kernels (the other one's top-level names
given a suffix, so nothing collides) and a launch spec whose two [[launches]] carry `when` conditions on the
size variables: the threshold is the geometric mean of the problem sizes on either side of the switch, and
sizes between them were not measured (said in the branch note).
"""
from __future__ import annotations

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
    low: Candidate  # the variant below the threshold
    high: Candidate
    measure: str  # the problem size as an expression of the size variables
    threshold: float
    low_sizes: list[str]
    high_sizes: list[str]


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
    for cut in range(1, len(sizes)):
        low_sizes, high_sizes = sizes[:cut], sizes[cut:]
        for pool in [ok + [best]] + list(groups.values()):
            low = min(pool, key=lambda ce: log_mean(ce[1], low_sizes))
            high = min(pool, key=lambda ce: log_mean(ce[1], high_sizes))
            if low[0].key() == high[0].key():
                continue
            sides = [(c, log_mean(be, part) - log_mean(e, part)) for (c, e), part in ((low, low_sizes),
                                                                                      (high, high_sizes))
                     if c.key() != bc.key()]
            # a side other than the best must win there by MARGIN; one built with other flags than the best may
            # instead stand in for it (within SAME) where the other side wins by MARGIN
            if not any(g > math.log1p(MARGIN) for _, g in sides) or any(
                    g <= math.log1p(MARGIN) and (c.flags == bc.flags or g < -math.log1p(SAME)) for c, g in sides):
                continue
            if low[0].flags != high[0].flags:
                why = "the two variants are built with different compile flags (one file takes one set)"
                continue
            total = (log_mean(low[1], low_sizes) * len(low_sizes) + log_mean(high[1], high_sizes) * len(high_sizes))
            if found is None or total < found[0]:
                found = (total, low, high, low_sizes, high_sizes)
    if found is None:
        return why
    _, low, high, low_sizes, high_sizes = found
    a, b = problem_size(spec.env(low_sizes[-1])), problem_size(spec.env(high_sizes[0]))
    names = sorted({n for s in sizes for n in spec.env(s)})
    return Split(low[0], high[0], " * ".join(names), float(f"{math.sqrt(a * b):.3g}"), low_sizes, high_sizes)


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
    """The dispatch candidate: both kernels in one file; each launch of the kernel becomes two, each with its
    `when` (a chain launching the kernel twice gets four), the other steps (memsets, other kernels) kept."""
    lc, hc = split.low, split.high  # the smaller sizes' variant keeps the kernel's name
    src, other_name = merged_source(lc.source, hc.source, kernel, "_kp_large")
    low_cond = f"{split.measure} < {split.threshold:g}"
    cond = f"{split.measure} >= {split.threshold:g}"
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
            steps += [launch(st, lc.launch, kernel, low_cond), launch(st, hc.launch, other_name, cond)]
    flags = tuple(lc.flags)  # the same for both (plan)
    desc = (f"per-size dispatch: {kernel} ({lc.description[:120]}) where {low_cond} "
            f"(sizes {', '.join(split.low_sizes)}), {other_name} ({hc.description[:120]}) from there on "
            f"(sizes {', '.join(split.high_sizes)})")
    notes = tuple(dict.fromkeys(tuple(lc.notes) + tuple(hc.notes) + (
        f"a per-size dispatch: the launch spec runs {kernel} where {low_cond} and "
        f"{other_name} (the other variant, its names suffixed) where it is larger; the threshold lies between the "
        f"spec's sizes {split.low_sizes[-1]} and {split.high_sizes[0]}, and sizes between them were not measured; "
        f"your own launches of {kernel} take the first variant until you add the same test",)))
    return Candidate(source=src, launch={"launches": steps}, flags=flags, description=desc, answers=tuple(
        dict.fromkeys(lc.answers + hc.answers)), origin="builtin:dispatch", kind="structural", notes=notes)
