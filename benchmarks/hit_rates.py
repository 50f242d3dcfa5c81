"""Each rule's hit rate, from the search memory of the suite's runs (as run_suite.py keeps it in the JSON).

For every rule: in how many runs it fired on the naive kernel (static profile), in how many runs a
candidate answered it (the candidate's `answers`), how many such candidates there were, how many were
correct, and how many were correct and more than 1.5x faster than the naive kernel: the hit rate is
that last count over the candidates that answered it. Only time-objective runs that completed count;
a candidate's speedup is the search's own measurement of it (only the best one of a run is
re-measured in another process).

`rules_doc(text, results)` writes each rule's measured hit rate into its section of docs/rules.md,
between markers, so that regenerating it is byte-stable.
"""
from __future__ import annotations

import re

from docblocks import block, has_block, replace_block

HIT_SPEEDUP = 1.5
CORRECT = ("improved", "regressed", "neutral")  # the memory's outcomes of a candidate that passed every check
LINK = "benchmarks/index.md#rule-hit-rates"


def hit_rates(results: dict) -> dict:
    """{"runs": counted runs, "rules": {rule: {tool, fired_runs, followed_runs, candidates, correct, hits, hit_rate}}}."""
    rows: dict[str, dict] = {}

    def row(rule: str, tool: str = "?") -> dict:
        return rows.setdefault(rule, {"tool": tool, "fired_runs": 0, "followed_runs": 0, "candidates": 0,
                                      "correct": 0, "hits": 0, "hit_rate": None})
    for fam in results.get("families", {}).values():
        for rule, tool in fam.get("rule_tools", {}).items():
            row(rule, tool)["tool"] = tool
    runs = 0
    for name in sorted(results.get("families", {})):
        fam = results["families"][name]
        root = set(fam.get("root_rules", []))
        for key in sorted(fam.get("runs", {})):
            run = fam["runs"][key]
            if run.get("objective") != "time" or not run.get("complete") or "attempts" not in run:
                continue
            runs += 1
            followed = set()
            for a in run["attempts"]:
                for rule in a.get("answers", []):
                    r = row(rule)
                    r["candidates"] += 1
                    followed.add(rule)
                    if a.get("outcome") in CORRECT:
                        r["correct"] += 1
                        if (a.get("speedup") or 0.0) > HIT_SPEEDUP:
                            r["hits"] += 1
            for rule in root:
                row(rule)["fired_runs"] += 1
            for rule in followed:
                row(rule)["followed_runs"] += 1
    for r in rows.values():
        r["hit_rate"] = r["hits"] / r["candidates"] if r["candidates"] else None
    return {"runs": runs, "rules": dict(sorted(rows.items()))}


def _when(results: dict) -> str:
    env = results.get("environment", {})
    date = str(env.get("date") or "?").split(" ")[0]
    device = (env.get("device") or {}).get("name") or "?"
    return f"{device}, {date}"


def rule_text(rule: str, results: dict | None, rates: dict | None = None) -> str:
    """The one paragraph a rule's section shows."""
    head = "**Measured hit rate** (benchmark suite):"
    if not results or (rates := rates or hit_rates(results))["runs"] == 0:
        return f"{head} not measured yet: the suite has not been run on the H200 ([the report](benchmarks/index.md))."
    runs, r = rates["runs"], rates["rules"].get(rule)
    when = _when(results)
    if r is None:
        return f"{head} not measured: the rule is newer than the suite run ({when}; [the report]({LINK}))."
    if not r["candidates"]:
        return (f"{head} no candidate answered it in {runs} runs ({when}); it fired on the naive kernel "
                f"in {r['fired_runs']} of them ([the report]({LINK})).")
    return (f"{head} **{r['hit_rate'] * 100:.0f}%**: of {r['candidates']} candidates that answered it (in "
            f"{r['followed_runs']} of {runs} runs; it fired on the naive kernel in {r['fired_runs']}), "
            f"{r['correct']} were correct and {r['hits']} correct and more than {HIT_SPEEDUP:g}x faster "
            f"({when}; [the report]({LINK})).")


HEADING = re.compile(r"^### ([a-z0-9-]+)\s*$")


def rules_doc(text: str, results: dict | None, rules: set[str]) -> str:
    """docs/rules.md with each rule's hit-rate block (inserted under its heading the first time)."""
    rates = hit_rates(results) if results else None
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        m = HEADING.match(line)
        i += 1
        if not m or m.group(1) not in rules:
            continue
        name = f"hit-rate {m.group(1)}"
        content = rule_text(m.group(1), results, rates)
        rest = "\n".join(lines[i:])
        if has_block(rest.split("\n### ", 1)[0], name):  # already there: rewrite it in place
            j = i
            while not lines[j].startswith(f"<!-- {name}:end -->"):
                j += 1
            new = replace_block("\n".join(lines[i:j + 1]), name, content, "docs/rules.md")
            out += new.split("\n")
            i = j + 1
        else:
            out += ["", block(name, content)]
    return "\n".join(out)
