"""The corpus (tests/corpus/): realistic kernels with the findings an expert expects and those
that must not appear, and improving sequences whose report changes at every step.

In each .cu file (and the project headers it includes):
  `// expect: RULE[, RULE]` at the end of a line: a finding of RULE on that line;
  `// absent: RULE, ...` in the header: RULE appears nowhere in the file's report;
  `// fixes: RULE`: the previous step of its sequence has RULE, this one does not;
  `// same-report-ok: WHY`: this step may report what the previous one did (WHY says why).
A sequence is the files of one folder named `<letter><digit>_...` (r1_, r2_, ...), in order.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import pytest

from kernelpro.profilers.profile import profile_file

CORPUS = Path(__file__).resolve().parent / "corpus"
FILES = sorted(CORPUS.rglob("*.cu"))
_STEP = re.compile(r"^([a-z])(\d+)_")


def header(path: Path, key: str) -> list[str]:
    out = []
    for line in path.read_text().splitlines():
        m = re.match(rf"//\s*{key}:\s*(.*)$", line.strip())
        if m:
            out += [x.strip() for x in m.group(1).split(",") if x.strip()]
    return out


def included(path: Path) -> list[Path]:
    return [path.parent / h for h in re.findall(r'^\s*#\s*include\s*"([^"]+)"', path.read_text(), re.M)
            if (path.parent / h).is_file()]


def expected(path: Path) -> set[tuple[str, str, int]]:
    """(file, rule, line) from the `// expect:` markers of the file and its project headers."""
    out = set()
    for f in [path, *included(path)]:
        for n, line in enumerate(f.read_text().splitlines(), 1):
            m = re.search(r"//\s*expect:\s*(.*)$", line)
            if m and not line.strip().startswith("//"):
                out |= {(str(f.resolve()), r.strip(), n) for r in m.group(1).split(",") if r.strip()}
    return out


@lru_cache(maxsize=None)
def report(path: Path):
    rep = profile_file(path)
    assert rep.ok, [d.message for d in rep.errors]
    return rep


def findings(path: Path) -> set[tuple[str, str, int]]:
    return {(a.file, a.rule, a.line) for a in report(path).advice}


def sequences() -> list[list[Path]]:
    groups: dict[tuple[Path, str], list[Path]] = {}
    for f in FILES:
        m = _STEP.match(f.name)
        if m:
            groups.setdefault((f.parent, m.group(1)), []).append(f)
    return [sorted(g, key=lambda f: int(_STEP.match(f.name).group(2))) for g in groups.values() if len(g) > 1]


def test_the_corpus_is_large_enough():
    assert len(FILES) >= 25
    assert all(expected(f) or header(f, "absent") for f in FILES)  # every file asserts something
    assert sum(1 for f in FILES if expected(f)) >= 15
    assert {len(s) for s in sequences()} >= {7, 5, 3}


@pytest.mark.slow
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(CORPUS)))
def test_expected_findings_at_their_lines_and_no_listed_false_finding(path):
    got = findings(path)
    missing = expected(path) - got
    assert not missing, f"missing {sorted(missing)}; got {sorted(got)}"
    false = {r for _, r, _ in got} & set(header(path, "absent"))
    assert not false, f"must not appear: {sorted(false)}; " + "; ".join(
        a.text(with_evidence=False) for a in report(path).advice if a.rule in false)


@pytest.mark.slow
@pytest.mark.parametrize("seq", sequences(), ids=lambda s: s[0].parent.name)
def test_each_step_of_a_sequence_changes_the_report(seq):
    for before, after in zip(seq, seq[1:]):
        rules_before = {r for _, r, _ in findings(before)}
        rules_after = {r for _, r, _ in findings(after)}
        for fixed in header(after, "fixes"):
            assert fixed in rules_before and fixed not in rules_after, (before.name, after.name, fixed)
        if not header(after, "same-report-ok"):
            shape = lambda p: sorted((r, a.severity.value) for a in report(p).advice for r in [a.rule])  # noqa: E731
            assert shape(before) != shape(after), (before.name, after.name)
