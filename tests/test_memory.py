"""The search memory: persistence, ranking, lesson text, concurrent writers."""
from __future__ import annotations

import json
import multiprocessing as mp
import sqlite3

import pytest

from kernelpro.optimizer.memory import (Attempt, Lesson, Memory, MemoryStoreError, derive_lesson, format_lessons,
                                        make_attempt, outcome_of)
from kernelpro.optimizer.model import Candidate, Evaluation


def att(kernel="vecadd", desc="add const __restrict__ to in", answers=("restrict-missing",), outcome="improved",
        speedup=1.04, failure=None, numbers=None, run_id="r1", created=None):
    kw = {} if created is None else {"created": created}
    return Attempt(run_id=run_id, kernel=kernel, file="k.cu", candidate_key="ab" * 32, description=desc,
                   answers=list(answers), origin="builtin:restrict", outcome=outcome, speedup=speedup,
                   failure=failure, numbers=numbers or {}, **kw)


def test_workspace_dir_gets_kernelpro_sqlite_in_wal_mode(tmp_path):
    m = Memory(tmp_path)
    m.record(att())
    m.close()
    db = tmp_path / ".kernelpro" / "memory.sqlite"
    assert db.is_file()
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    con.close()


def test_persists_across_instances_and_runs(tmp_path):
    with Memory(tmp_path) as m:
        m.record(att(run_id="r1"))
        m.record(att(run_id="r1", desc="unroll x8", outcome="incorrect", speedup=None,
                     failure="incorrect: max rel err 0.31", numbers={"max_rel": 0.31}))
    with Memory(tmp_path / ".kernelpro" / "memory.sqlite") as m:  # same file, by path
        assert [a.description for a in m.attempts()] == ["add const __restrict__ to in", "unroll x8"]
        m.record(att(run_id="r2", kernel="matmul", desc="tile 32x32", answers=("tensor-cores-unused",),
                     speedup=2.0))
    with Memory(tmp_path) as m:
        assert len(m.attempts()) == 3
        assert [a.run_id for a in m.attempts(run_id="r1")] == ["r1", "r1"]
        assert [a.kernel for a in m.attempts(kernel="matmul")] == ["matmul"]
        a = m.attempts(kernel="vecadd", run_id="r1")[1]
        assert a.outcome == "incorrect" and a.numbers == {"max_rel": 0.31} and a.answers == ["restrict-missing"]
        assert m.lessons_for("vecadd")  # lessons persist too


def test_relevance_ranking(tmp_path):
    with Memory(tmp_path) as m:
        m.record(att(kernel="other", desc="x4", answers=("narrow-loads",), speedup=1.5, created=1.0))
        m.record(att(kernel="vecadd", desc="same kernel, other rule", answers=("fp64",), speedup=1.5, created=2.0))
        m.record(att(kernel="other", desc="rule on other kernel", answers=("restrict-missing",), speedup=1.1,
                     created=3.0))
        m.record(att(kernel="vecadd", desc="both weak", answers=("restrict-missing",), speedup=1.03, created=4.0))
        m.record(att(kernel="vecadd", desc="both strong", answers=("restrict-missing", "x"), speedup=1.6,
                     created=0.5))
        m.record(att(kernel="vecadd", desc="both strong newer", answers=("restrict-missing",), speedup=1.6,
                     created=5.0))
        got = [les.text.split("'")[1] for les in m.lessons_for("vecadd", ["restrict-missing"])]
        assert got == ["both strong newer", "both strong", "both weak", "rule on other kernel",
                       "same kernel, other rule", "x4"]
        assert len(m.lessons_for("vecadd", ["restrict-missing"], limit=2)) == 2
        # no rules given: same kernel first
        assert m.lessons_for("vecadd")[-1].kernel == "other"


def test_duplicate_lessons_are_listed_once(tmp_path):
    with Memory(tmp_path) as m:
        m.record(att(run_id="r1"))
        m.record(att(run_id="r2"))
        assert len(m.attempts()) == 2
        assert len(m.lessons_for("vecadd", ["restrict-missing"])) == 1


def test_outcome_of():
    ok = Evaluation(ok=True)
    assert outcome_of(ok, 1.10) == "improved"
    assert outcome_of(ok, 1.01) == "neutral"
    assert outcome_of(ok, 0.90) == "regressed"
    assert outcome_of(ok, 1.04, neutral_band=0.05) == "neutral"
    assert outcome_of(Evaluation(ok=False, failure="compile: error: x"), None) == "compile_error"
    assert outcome_of(Evaluation(ok=False, failure="incorrect: max rel err 0.3"), None) == "incorrect"
    assert outcome_of(Evaluation(ok=False, failure="crash: illegal address"), None) == "crash"
    assert outcome_of(Evaluation(ok=False, failure="timeout: 10 s"), None) == "timeout"
    assert outcome_of(Evaluation(ok=False, failure="weird"), None) == "failed"


def test_lesson_text_for_success_and_failures():
    assert derive_lesson(att()) == "'add const __restrict__ to in' (answers restrict-missing) made vecadd 1.04x faster"
    bad = att(desc="unroll x8", answers=(), outcome="incorrect", speedup=None,
              failure="incorrect: max rel err 0.31", numbers={"max_rel": 0.31})
    assert derive_lesson(bad) == ("'unroll x8' broke correctness on vecadd: max rel err 0.31 — "
                                  "keep the loop bounds check for the tail iterations")
    comp = att(desc="use float4 loads", outcome="compile_error", speedup=None,
               failure="compile: k.cu(12): error: identifier \"float5\" is undefined\nmore")
    text = derive_lesson(comp)
    assert "did not compile on vecadd" in text and "float5" in text and "more" not in text
    slow = derive_lesson(att(desc="block 1024", outcome="regressed", speedup=0.8))
    assert "slower" in slow and "0.80x" in slow
    block = format_lessons([Lesson("vecadd", ["restrict-missing"], "t1", "improved", 0.6, 1.0)])
    assert block.splitlines()[1] == "- (improved) [restrict-missing] t1"
    assert format_lessons([]) == ""


def test_make_attempt_from_evaluation():
    c = Candidate("src", description="unroll x4", answers=("loop-rolled",), origin="builtin:unroll")
    ev = Evaluation(ok=False, failure="incorrect: max rel err 0.2", error={"max_abs": 1.0, "max_rel": 0.2})
    a = make_attempt("r", "vecadd", "k.cu", c, ev, None)
    assert a.outcome == "incorrect" and a.candidate_key == c.key() and a.numbers["max_rel"] == 0.2
    assert "max rel err 0.2" in derive_lesson(a)


def test_bad_inputs_get_clear_errors(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_text("this is not a database" * 100)
    with pytest.raises(MemoryStoreError, match="junk.sqlite"):
        Memory(junk)
    with pytest.raises(ValueError, match="outcome"):
        att(outcome="great")
    loop: dict = {}
    loop["self"] = loop
    with Memory(tmp_path) as m, pytest.raises(ValueError, match="JSON"):
        m.record(att(numbers=loop))


def _writer(path, who, n, q, go):
    try:
        m = Memory(path)
        go.wait(30)  # both open first, then write at the same time (a barrier)
        for i in range(n):
            m.record(att(run_id=who, desc=f"{who} try {i}"))
        m.close()
        q.put(None)
    except Exception as e:  # reported to the parent
        q.put(repr(e))


def test_two_processes_record_at_once(tmp_path):
    # with the busy timeout set to 0 this same setup fails with "database is locked"
    ctx = mp.get_context("spawn")
    q, go = ctx.Queue(), ctx.Barrier(2)
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), who, 150, q, go)) for who in ("p1", "p2")]
    for p in procs:
        p.start()
    errors = [q.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=30)
    assert errors == [None, None]
    with Memory(tmp_path) as m:
        assert len(m.attempts(run_id="p1")) == 150 and len(m.attempts(run_id="p2")) == 150


def test_opening_waits_for_another_connection_to_let_go(tmp_path):
    """Switching a new database to WAL needs it to itself; another reader must not make the
    open fail (it waits, as two runs starting at once do)."""
    import sqlite3
    import threading

    db = tmp_path / "m.sqlite"
    other = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    other.execute("CREATE TABLE t (x)")
    other.execute("BEGIN")
    other.execute("SELECT * FROM t").fetchall()  # holds a shared lock
    threading.Timer(0.5, lambda: other.execute("COMMIT")).start()
    m = Memory(db)
    assert m.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    m.close()


# ----------------------------------------------------------------------------- a memory someone else wrote

LOOSE_SCHEMA = """
CREATE TABLE attempts (id INTEGER PRIMARY KEY, run_id, kernel, file, candidate_key, description, answers, origin,
                       outcome, speedup, failure, numbers, created);
CREATE TABLE lessons (id INTEGER PRIMARY KEY, attempt_id, kernel, rules, text, outcome, weight, created);
"""
ATTEMPT_COLS = ("run_id, kernel, file, candidate_key, description, answers, origin, outcome, speedup, failure, numbers,"
                " created")


def hostile_memory(root):
    """A workspace memory as a cloned repository could carry it: columns without types or NOT NULL,
    NULLs, numbers as text, text that is not JSON or not UTF-8, rich markup, terminal sequences."""
    db = root / ".kernelpro" / "memory.sqlite"
    db.parent.mkdir(parents=True)
    con = sqlite3.connect(db, isolation_level=None)
    con.executescript(LOOSE_SCHEMA)
    ins = f"INSERT INTO attempts ({ATTEMPT_COLS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"
    con.execute(ins, ("r1", "[bold]k[/]", "k.cu", "ab", "[/] closes nothing [red]x", "not json {", "o", "improved",
                      "fast", None, "[1, 2]", "yesterday"))
    con.execute(ins, (None,) * 12)
    con.execute(ins, (b"\xff\xfe", 7, 3.5, None, "desc", '{"a": 1}', None, "[bold]great[/bold]", float("inf"), None,
                      '{"t": NaN, "u": [Infinity]}', None))
    con.execute(f"INSERT INTO attempts ({ATTEMPT_COLS}) VALUES ('r2', CAST(x'6bff' AS TEXT), 'k.cu', 'cd', "
                "'bell\x07 clear\x1b[2J title\x1b]0;pwned\x07 rlo\u202eevil', '[1, null, \"rule[/]\"]', 'o', "
                "'regressed', 0.5, NULL, '{}', 2.0)")
    con.execute("INSERT INTO lessons (attempt_id, kernel, rules, text, outcome, weight, created) VALUES (?,?,?,?,?,?,?)",
                (1, None, "nope", "[/]lesson [bold]x", "[/]", "heavy", None))
    con.execute("INSERT INTO lessons (attempt_id, kernel, rules, text, outcome, weight, created) VALUES (?,?,?,?,?,?,?)",
                (2, "k", '["a"]', None, "improved", 1.0, 1.0))
    con.execute("INSERT INTO lessons (attempt_id, kernel, rules, text, outcome, weight, created) VALUES (?,?,?,?,?,?,?)",
                (3, "k", '["a", 5]', "ok lesson", "improved", 0.5, 1.0))
    con.close()
    return db


def test_hostile_rows_read_as_plain_values(tmp_path):
    hostile_memory(tmp_path)
    with Memory(tmp_path) as m:
        atts = m.attempts()
        lessons = m.lessons_for("k", ["a"])
    assert len(atts) == 4
    a = atts[0]
    assert (a.kernel, a.description, a.answers, a.speedup, a.numbers, a.created) == (
        "[bold]k[/]", "[/] closes nothing [red]x", [], None, {}, 0.0)
    nulls = atts[1]
    assert (nulls.run_id, nulls.description, nulls.answers, nulls.outcome, nulls.numbers) == ("", "", [], "failed", {})
    odd = atts[2]
    assert odd.run_id == "\ufffd\ufffd" and odd.kernel == "7" and odd.file == "3.5" and odd.answers == []
    assert odd.outcome == "failed" and "[bold]great[/bold]" in odd.failure and odd.speedup is None
    assert odd.numbers == {"t": None, "u": [None]}
    assert atts[3].kernel == "k\ufffd" and atts[3].answers == ["1", "rule[/]"] and atts[3].speedup == 0.5
    for x in atts:
        assert all(isinstance(getattr(x, f), str) for f in ("run_id", "kernel", "file", "description", "outcome"))
    assert [les.text for les in lessons] == ["ok lesson", "[/]lesson [bold]x"]  # the NULL text is left out
    assert lessons[0].rules == ["a", "5"] and lessons[1].rules == [] and lessons[1].weight == 0.0


def _memory_cli(root, *args):
    import os
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "kernelpro.optimizer", "memory", "--repo", str(root), *args],
                          capture_output=True, text=True, env={**os.environ, "COLUMNS": "400"})


def test_memory_command_prints_hostile_rows_literally(tmp_path):
    hostile_memory(tmp_path)
    r = _memory_cli(tmp_path)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for literal in ("[bold]k[/]", "[/] closes nothing [red]x", "[/]lesson [bold]x", "- [improved] ok lesson",
                    "- [[/]] [/]lesson", "rule[/]"):
        assert literal in out, (literal, out)
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out  # shown escaped, never sent
    assert "\\x1b[2J" in out and "\\u202e" in out
    r = _memory_cli(tmp_path, "--json")
    assert r.returncode == 0, r.stderr

    def no_constants(name):
        raise AssertionError(f"{name} is not JSON")

    data = json.loads(r.stdout, parse_constant=no_constants)
    assert [a["description"] for a in data["attempts"]][0] == "[/] closes nothing [red]x"
    assert data["attempts"][2]["numbers"] == {"t": None, "u": [None]}
    assert sorted(les["text"] for les in data["lessons"]) == ["[/]lesson [bold]x", "ok lesson"]


@pytest.mark.parametrize("schema, words", [
    ("CREATE TABLE attempts (id INTEGER PRIMARY KEY, kernel);", "attempts lacks"),
    ("CREATE VIEW lessons AS SELECT 1 AS x;", "lessons"),
])
def test_memory_of_another_shape_is_one_clear_line(tmp_path, schema, words):
    db = tmp_path / ".kernelpro" / "memory.sqlite"
    db.parent.mkdir(parents=True)
    con = sqlite3.connect(db)
    con.executescript(schema)
    con.close()
    with pytest.raises(MemoryStoreError, match=words):
        Memory(tmp_path)
    r = _memory_cli(tmp_path)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert r.stderr.startswith("kernelpro: cannot open the search memory") and words in r.stderr
