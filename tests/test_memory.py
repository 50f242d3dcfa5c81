"""The search memory: persistence, ranking, lesson text, concurrent writers."""
from __future__ import annotations

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
