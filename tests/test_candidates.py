"""CandidateStore on real temporary git repositories."""

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from kernelpro.optimizer import candidates as c

KERNEL = "__global__ void vecadd(float *a) { a[threadIdx.x] += 1.0f; }\n"
SPEC = '{"sizes": [1024, 4096]}\n'
REQUIRED = {"kernel", "run", "n", "file", "spec_file", "objective", "speedup", "times_s",
            "energy_j", "error", "answers", "path", "base_commit", "created"}


def git(repo, *args, check=True):
    r = subprocess.run(["git", "--no-optional-locks", *args], cwd=repo, capture_output=True,
                       text=True)
    if check and r.returncode:
        raise AssertionError(f"git {args}: {r.stderr}")
    return r.stdout.strip()


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "proj"
    (root / "k").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Test")
    git(root, "config", "user.email", "test@example.com")
    (root / "k" / "vecadd.cu").write_text(KERNEL)
    (root / "k" / "vecadd.json").write_text(SPEC)
    (root / "other.txt").write_text("other\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "init")
    return root


def state(root):
    """Everything the user owns in git: must never change."""
    index = (root / ".git" / "index").read_bytes()
    return {"index": index, "ls": git(root, "ls-files", "-s"), "head": git(root, "rev-parse", "HEAD"),
            "sym": git(root, "symbolic-ref", "HEAD"), "stash": git(root, "stash", "list"),
            "status": git(root, "status", "--porcelain", "-uall")}


def note_for(**over):
    n = c.make_note("time", 1.84, {1024: 1e-5, 4096: 4e-5}, {1024: 5e-6, 4096: 2e-5},
                    1.2e-3, 7e-4, {"max_abs": 1e-7}, ["mem.uncoalesced"], ["root", "float4"])
    n.update(over)
    return n


def save(store, source, spec=None, kernel="vecadd", **over):
    title, body = c.format_message(kernel, "time", 1.84, {1024: 1e-5}, {1024: 5e-6},
                                   1.2e-3, 7e-4, {"max_abs": 1e-7}, ["mem.uncoalesced"], ["root"])
    return store.save(kernel, source, spec, note_for(**over), title, body)


def git_note(root, sha):
    return json.loads(git(root, "notes", "--ref=kernelpro", "show", sha))


# ----------------------------------------------------------------------------- basics

def test_clean_tree_builds_on_head(repo):
    before = state(repo)
    store = c.CandidateStore(repo, repo / "k" / "vecadd.cu", repo / "k" / "vecadd.json")
    assert store.base_commit == before["head"] and store.snapshot_ref is None
    rec = save(store, KERNEL + "// v2\n", spec='{"sizes": [1024]}\n')
    assert rec.branch == f"kernelpro/vecadd/{store.run_id}-1" and rec.n == 1
    assert git(repo, "rev-parse", rec.branch) == rec.commit
    assert git(repo, "rev-parse", rec.commit + "^") == before["head"]
    assert git(repo, "rev-list", "--count", f"{before['head']}..{rec.commit}") == "1"
    changed = git(repo, "diff", "--name-only", before["head"], rec.commit).split()
    assert changed == ["k/vecadd.cu", "k/vecadd.json"]
    assert git(repo, "show", f"{rec.commit}:k/vecadd.cu") + "\n" == KERNEL + "// v2\n"
    assert git(repo, "log", "-1", "--format=%s", rec.commit) == "vecadd: 1.84x faster (time), 1 size"
    note = git_note(repo, rec.commit)  # readable by git notes itself
    assert REQUIRED <= set(note)
    assert note["file"] == "k/vecadd.cu" and note["spec_file"] == "k/vecadd.json"
    assert note["energy_j"] == {"before": 1.2e-3, "after": 7e-4}
    assert note["times_s"]["after"] == {"1024": 5e-6, "4096": 2e-5}
    assert note["base_commit"] == before["head"] and note["n"] == 1 and note == rec.note
    rec2 = save(store, KERNEL + "// v3\n")
    assert rec2.n == 2 and git(repo, "diff", "--name-only", rec2.commit + "^", rec2.commit) == "k/vecadd.cu"
    assert git_note(repo, rec.commit)["n"] == 1  # first note kept
    assert state(repo) == before


def test_dirty_tree_snapshot(repo):
    (repo / "k" / "vecadd.cu").write_text(KERNEL + "// user edit, unstaged\n")
    (repo / "k" / "vecadd.json").write_text('{"sizes": [8]}\n')
    git(repo, "add", "k/vecadd.json")  # staged spec edit
    (repo / "other.txt").write_text("unrelated dirty\n")
    (repo / "scratch.cu").write_text("untracked\n")
    git(repo, "stash", "list")
    before = state(repo)
    store = c.CandidateStore(repo, repo / "k" / "vecadd.cu", repo / "k" / "vecadd.json")
    snap = store.base_commit
    assert snap != before["head"]
    assert store.snapshot_ref == f"refs/kernelpro/snapshots/{store.run_id}"
    assert git(repo, "rev-parse", store.snapshot_ref) == snap
    assert git(repo, "rev-parse", snap + "^") == before["head"]
    assert git(repo, "log", "-1", "--format=%s", snap) == (
        f"kernelpro: snapshot of uncommitted k/vecadd.cu, k/vecadd.json (run {store.run_id})")
    assert git(repo, "show", f"{snap}:k/vecadd.cu").endswith("// user edit, unstaged")
    assert git(repo, "show", f"{snap}:k/vecadd.json") == '{"sizes": [8]}'
    assert git(repo, "show", f"{snap}:other.txt") == "other"  # unrelated edits not recorded
    assert git(repo, "cat-file", "-e", f"{snap}:scratch.cu", check=False) == ""
    assert git(repo, "for-each-ref", "refs/heads/").count("\n") == 0  # snapshot is not a branch
    rec = save(store, KERNEL + "// optimized\n")
    assert git(repo, "rev-parse", rec.commit + "^") == snap
    assert git(repo, "diff", "--name-only", snap, rec.commit) == "k/vecadd.cu"
    assert rec.note["base_commit"] == snap
    after = state(repo)
    assert after == before
    assert " M other.txt" in after["status"] and "?? scratch.cu" in after["status"]
    assert (repo / "scratch.cu").read_text() == "untracked\n"
    assert (repo / "k" / "vecadd.cu").read_text() == KERNEL + "// user edit, unstaged\n"


def test_staged_only_and_untracked_kernel(repo):
    (repo / "k" / "vecadd.cu").write_text(KERNEL + "// staged\n")
    git(repo, "add", "k/vecadd.cu")
    new = repo / "k" / "new.cu"
    new.write_text("__global__ void g() {}\n")
    before = state(repo)
    store = c.CandidateStore(repo, repo / "k" / "vecadd.cu")
    assert store.snapshot_ref and git(repo, "show", f"{store.base_commit}:k/vecadd.cu").endswith("// staged")
    store2 = c.CandidateStore(repo, new)  # untracked kernel: snapshot adds it
    assert git(repo, "show", f"{store2.base_commit}:k/new.cu") == "__global__ void g() {}"
    rec = save(store2, "__global__ void g() { /* fast */ }\n", kernel="g")
    assert git(repo, "diff", "--name-only", rec.commit + "^", rec.commit) == "k/new.cu"
    assert state(repo) == before


def test_existing_ref_never_overwritten_and_identical_source(repo):
    head = git(repo, "rev-parse", "HEAD")
    git(repo, "update-ref", "refs/heads/kernelpro/vecadd/myrun-1", head)
    store = c.CandidateStore(repo, repo / "k" / "vecadd.cu", run_id="myrun")
    rec = save(store, KERNEL + "// x\n")
    assert rec.n == 2
    assert git(repo, "rev-parse", "kernelpro/vecadd/myrun-1") == head
    with pytest.raises(c.CandidateError, match="identical to the base"):
        save(store, KERNEL)
    with pytest.raises(c.CandidateError, match="no spec file"):
        save(store, KERNEL + "// y\n", spec="{}")


def test_names_are_sanitized(repo):
    for name in ["vec add<float>", "..a..b.lock", "-x~^:?*[\\", "", "@{x}", "a/b"]:
        s = c.sanitize_ref_component(name)
        assert subprocess.run(["git", "check-ref-format", f"refs/heads/kernelpro/{s}/r-1"]).returncode == 0, s
    store = c.CandidateStore(repo, repo / "k" / "vecadd.cu", run_id="run 1:..x")
    assert store.run_id == "run-1-.x-84fb521c"  # rewritten names carry a hash of the original
    rec = save(store, KERNEL + "// z\n", kernel="vec add<float>")
    assert rec.branch == "kernelpro/vec-add-float-4c18bd5f/run-1-.x-84fb521c-1"
    assert (rec.kernel, rec.run, rec.n) == ("vec-add-float-4c18bd5f", "run-1-.x-84fb521c", 1)
    assert [r.branch for r in c.list_candidates(repo, kernel="vec add<float>")] == [rec.branch]
    assert [(r.kernel, r.run, r.n) for r in c.list_candidates(repo, kernel="vec add<float>")] == [
        (rec.kernel, rec.run, rec.n)]


def test_non_finite_values_become_null(repo):
    store = c.CandidateStore(repo, repo / "k" / "vecadd.cu")
    rec = save(store, KERNEL + "// n\n", speedup=float("nan"), energy_j={"before": float("inf"), "after": 1.0})
    note = git_note(repo, rec.commit)
    assert note["speedup"] is None and note["energy_j"] == {"before": None, "after": 1.0}


def test_format_message():
    t, b = c.format_message("vecadd", "time", 1.84, {1024: 1e-5, "1M": 2e-3, 4096: 4e-5},
                            {1024: 5e-6, "1M": 1e-3, 4096: 2e-5}, 1.2e-3, 6e-4,
                            {"max_abs": 1.5e-7}, ["mem.uncoalesced"], ["root", "vectorize"])
    assert t == "vecadd: 1.84x faster (time), 3 sizes"
    lines = b.splitlines()
    assert lines[1].split()[:4] == ["1024", "10", "us", "->"] and lines[1].endswith("2.00x")
    assert lines[3].startswith("  1M") and "2 ms" in lines[3]
    assert "Energy per launch: 1.2 mJ -> 600 uJ (2.00x less)" in b
    assert "max_abs=1.5e-07" in b and "Answers advice: mem.uncoalesced" in b
    assert "  2. vectorize" in b
    assert c.format_message("k", "energy", 0.9, {}, {}, None, None, None, [], [])[0] == \
        "k: 0.90x, slower (energy), 0 sizes"
    t, b = c.format_message("k", None, None, {1: 1.0}, {1: 0.5}, None, None, None, None, None)
    assert t == "k: candidate (time), 1 size" and "Energy per launch: - -> -" in b


# ----------------------------------------------------------------------------- concurrency

def test_concurrent_runs(repo):
    before = state(repo)
    errors, recs = [], []

    def worker(run_id, tag):
        try:
            store = c.CandidateStore(repo, repo / "k" / "vecadd.cu", run_id=run_id)
            for i in range(6):
                recs.append(save(store, KERNEL + f"// {tag} {i}\n"))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    # two independent runs, plus two stores sharing one run id (n must not collide)
    threads = [threading.Thread(target=worker, args=(None, "a")),
               threading.Thread(target=worker, args=(None, "b")),
               threading.Thread(target=worker, args=("shared", "c")),
               threading.Thread(target=worker, args=("shared", "d"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    listed = c.list_candidates(repo)
    assert len(listed) == 24 == len({r.branch for r in recs})
    assert len({r.run for r in listed}) == 3
    shared = sorted(r.n for r in listed if r.run == "shared")
    assert shared == list(range(1, 13))
    for r in listed:  # every branch kept its own note
        assert r.note["n"] == r.n and r.note["run"] == r.run
    assert len(git(repo, "notes", "--ref=kernelpro", "list").splitlines()) == 24
    assert git(repo, "fsck", "--no-dangling") == ""
    assert state(repo) == before


CHILD = """
import sys
from kernelpro.optimizer import candidates as c
repo, i = sys.argv[1], 0
store = c.CandidateStore(repo, repo + "/k/vecadd.cu")
print("ready", flush=True)
while True:
    i += 1
    note = c.make_note("time", 1.5, {1: 2.0}, {1: 1.0}, None, None, {}, [], [])
    store.save("vecadd", "// v%d\\n" % i, None, note, "vecadd: 1.50x faster (time), 1 size", "body")
"""


def test_killed_run_leaves_no_broken_ref(repo):
    (repo / "k" / "vecadd.cu").write_text(KERNEL + "// dirty\n")  # exercise the snapshot too
    before = state(repo)
    rng = random.Random(7)
    for _ in range(4):
        p = subprocess.Popen([sys.executable, "-c", CHILD, str(repo)], stdout=subprocess.PIPE,
                             text=True)
        assert p.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.05, 0.8))
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        p.stdout.close()
    git_dir = repo / ".git"
    deadline = time.time() + 10  # an orphaned git child may still be finishing its own lock
    while list(git_dir.rglob("*.lock")) and time.time() < deadline:
        time.sleep(0.05)
    assert list(git_dir.rglob("*.lock")) == []
    fsck = subprocess.run(["git", "fsck", "--no-dangling", "--strict"], cwd=repo,
                          capture_output=True, text=True)
    assert fsck.returncode == 0 and fsck.stdout == "" and "error" not in fsck.stderr
    refs = git(repo, "for-each-ref", "--format=%(refname)", "refs/heads/kernelpro/").split()
    assert refs, "the child never saved a candidate"
    for ref in refs:
        assert git(repo, "cat-file", "-t", ref) == "commit"
        assert git(repo, "cat-file", "-t", f"{ref}:k/vecadd.cu") == "blob"
    for r in c.list_candidates(repo):  # branch and note are created in one transaction
        assert r.note.get("n") == r.n
    assert state(repo) == before


# ----------------------------------------------------------------------------- list/show/apply/delete

def test_list_show_and_cli(repo):
    store = c.CandidateStore(repo, repo / "k" / "vecadd.cu")
    r1 = save(store, KERNEL + "// one\n")
    r2 = save(store, KERNEL + "// two\n", kernel="other")
    assert [r.branch for r in c.list_candidates(repo)] == [r2.branch, r1.branch]  # by kernel
    only = c.list_candidates(repo, kernel="vecadd")
    assert [r.branch for r in only] == [r1.branch] and only[0].note["speedup"] == 1.84
    assert only[0].title == "vecadd: 1.84x faster (time), 1 size"
    info = c.show_candidate(repo, r1.branch)
    assert info["parent"] == store.base_commit and "+// one" in info["diff"]
    assert info["note"]["kernel"] == "vecadd" and "Kernelpro-Candidate: 1" in info["message"]
    assert c.show_candidate(repo, "refs/heads/" + r1.branch)["commit"] == r1.commit
    code, text = c.cli_list(repo)
    assert code == 0 and r1.branch in text and "1.84x" in text and "1.2 mJ -> 700 uJ" in text
    code, text = c.cli_list(repo, as_json=True)
    data = json.loads(text)
    assert code == 0 and {d["branch"] for d in data} == {r1.branch, r2.branch}
    code, text = c.cli_show(repo, r1.branch)
    assert code == 0 and "+// one" in text and "vecadd: 1.84x faster" in text
    code, text = c.cli_show(repo, "kernelpro/nope/x-1")
    assert code == 1 and "no candidate branch kernelpro/nope/x-1" in text
    assert c.cli_list(repo, kernel="zzz") == (0, "No candidates for kernel zzz yet.")


def test_apply(repo):
    kfile = repo / "k" / "vecadd.cu"
    store = c.CandidateStore(repo, kfile)
    rec = save(store, KERNEL + "// applied\n")
    index = (repo / ".git" / "index").read_bytes()
    head = git(repo, "rev-parse", "HEAD")
    assert c.apply_candidate(repo, rec.branch) == [str(kfile)]
    assert kfile.read_text() == KERNEL + "// applied\n"
    assert (repo / ".git" / "index").read_bytes() == index and git(repo, "rev-parse", "HEAD") == head
    assert git(repo, "status", "--porcelain") == "M k/vecadd.cu"
    assert c.apply_candidate(repo, rec.branch) == [str(kfile)]  # already applied: fine
    kfile.write_text("// someone else's edit\n")
    with pytest.raises(c.CandidateError, match=r"k/vecadd.cu has uncommitted changes.*--force"):
        c.apply_candidate(repo, rec.branch)
    assert kfile.read_text() == "// someone else's edit\n"
    code, text = c.cli_apply(repo, rec.branch, False)
    assert code == 1 and text.startswith("error:") and "vecadd.cu" in text
    code, text = c.cli_apply(repo, rec.branch, True)
    assert code == 0 and kfile.read_text() == KERNEL + "// applied\n"
    assert (repo / ".git" / "index").read_bytes() == index


def test_apply_over_snapshot_base(repo):
    kfile = repo / "k" / "vecadd.cu"
    kfile.write_text(KERNEL + "// wip\n")  # the run starts from uncommitted work
    store = c.CandidateStore(repo, kfile)
    rec = save(store, KERNEL + "// wip optimized\n")
    assert c.apply_candidate(repo, rec.branch) == [str(kfile)]  # same as its base: safe
    assert kfile.read_text() == KERNEL + "// wip optimized\n"


def test_delete(repo):
    store = c.CandidateStore(repo, repo / "k" / "vecadd.cu")
    r1, r2 = save(store, KERNEL + "// 1\n"), save(store, KERNEL + "// 2\n")
    c.delete_candidate(repo, r1.branch)
    assert git(repo, "rev-parse", "--verify", "-q", r1.branch, check=False) == ""
    assert subprocess.run(["git", "notes", "--ref=kernelpro", "show", r1.commit], cwd=repo,
                          capture_output=True).returncode != 0
    assert git_note(repo, r2.commit)["n"] == 2
    assert [r.branch for r in c.list_candidates(repo)] == [r2.branch]
    with pytest.raises(c.CandidateError, match="not a kernelpro candidate branch"):
        c.delete_candidate(repo, "main")
    assert git(repo, "rev-parse", "main")
    code, text = c.cli_delete(repo, r1.branch)
    assert code == 1 and "no candidate branch" in text


def test_delete_last_candidate_drops_snapshot(repo):
    (repo / "k" / "vecadd.cu").write_text(KERNEL + "// wip\n")
    store = c.CandidateStore(repo, repo / "k" / "vecadd.cu")
    r1, r2 = save(store, KERNEL + "// 1\n"), save(store, KERNEL + "// 2\n")
    assert c.cli_delete(repo, r1.branch) == (0, f"deleted {r1.branch} and its note")
    assert git(repo, "rev-parse", store.snapshot_ref) == store.base_commit
    c.delete_candidate(repo, r2.branch)
    assert git(repo, "rev-parse", "--verify", "-q", store.snapshot_ref, check=False) == ""
    assert git(repo, "notes", "--ref=kernelpro", "list") == ""


def test_bad_notes_do_not_crash(repo):
    store = c.CandidateStore(repo, repo / "k" / "vecadd.cu")
    r1, r2 = save(store, KERNEL + "// 1\n"), save(store, KERNEL + "// 2\n")
    git(repo, "notes", "--ref=kernelpro", "add", "-f", "-m", "not json {", r1.commit)
    git(repo, "notes", "--ref=kernelpro", "add", "-f", "-m", "[1, 2]", r2.commit)
    git(repo, "update-ref", "refs/heads/kernelpro/handmade", "HEAD")  # no run, no note
    recs = {r.branch: r for r in c.list_candidates(repo)}
    assert recs[r1.branch].note == {} and recs[r2.branch].note == {}
    assert recs["kernelpro/handmade"].note == {} and recs["kernelpro/handmade"].n == 0
    code, text = c.cli_list(repo)
    assert code == 0 and r1.branch in text
    r3 = save(store, KERNEL + "// 3\n")  # our notes commit keeps notes written by git notes
    assert git(repo, "notes", "--ref=kernelpro", "show", r1.commit) == "not json {"
    assert git_note(repo, r3.commit)["n"] == 3
    assert c.show_candidate(repo, r1.branch)["note"] == {}


# ----------------------------------------------------------------------------- bad places

def test_outside_a_repository(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "k.cu").write_text(KERNEL)
    with pytest.raises(c.NotARepository, match=str(plain)) as e:
        c.check_repository(plain / "k.cu")
    assert isinstance(e.value, c.CandidateError)
    with pytest.raises(c.NotARepository, match="no such file"):
        c.check_repository(tmp_path / "missing")
    with pytest.raises(c.NotARepository):
        c.CandidateStore(plain, plain / "k.cu")
    code, text = c.cli_list(plain)
    assert code == 1 and text.startswith("error:") and "not inside a git repository" in text
    assert list(plain.iterdir()) == [plain / "k.cu"]  # nothing was created


def test_no_commits_bare_and_outside_work_tree(tmp_path, repo):
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    with pytest.raises(c.CandidateError, match="no commits"):
        c.check_repository(empty)
    bare = tmp_path / "bare.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    with pytest.raises(c.CandidateError, match="bare"):
        c.check_repository(bare)
    outside = tmp_path / "elsewhere.cu"
    outside.write_text(KERNEL)
    with pytest.raises(c.CandidateError, match="outside the repository work tree"):
        c.CandidateStore(repo, outside)
    assert c.CandidateStore(repo, "k/vecadd.cu").kernel_file == "k/vecadd.cu"  # relative to repo
    with pytest.raises(c.CandidateError, match="does not exist"):
        c.CandidateStore(repo, repo / "k" / "missing.cu")
    assert git(repo, "for-each-ref", "refs/kernelpro/") == ""


# ----------------------------------------------------------------------------- the editor's entry: --json

def kp(repo, *args):
    r = subprocess.run([sys.executable, "-m", "kernelpro.profilers.cli", "candidates", *args, "--repo", str(repo),
                        "--json"], capture_output=True, text=True)
    return r.returncode, (json.loads(r.stdout) if r.stdout.strip() else None), r.stderr


def test_json_cli_apply_carries_the_spec_and_delete_leaves_no_ref(repo):
    """What the VS Code Candidates view runs: its Apply wrote only the kernel file and its Delete
    left the run's snapshot ref behind."""
    kfile, sfile = repo / "k" / "vecadd.cu", repo / "k" / "vecadd.json"
    kfile.write_text(KERNEL + "// work in progress\n")  # uncommitted: the run snapshots it
    store = c.CandidateStore(repo, kfile, sfile)
    rec = save(store, KERNEL + "// faster\n", spec='{"sizes": [1024, 4096], "block": 128}\n')
    code, listed, _ = kp(repo, "list")
    assert code == 0 and [d["branch"] for d in listed] == [rec.branch] and listed[0]["note"]["spec_file"] == "k/vecadd.json"
    code, shown, _ = kp(repo, "show", rec.branch)
    assert code == 0 and shown["commit"] == rec.commit and "+// faster" in shown["diff"] and '"block": 128' in shown["diff"]

    code, applied, _ = kp(repo, "apply", rec.branch)
    assert code == 0 and sorted(applied["files"]) == ["k/vecadd.cu", "k/vecadd.json"]
    assert kfile.read_text() == KERNEL + "// faster\n" and '"block": 128' in sfile.read_text()

    sfile.write_text('{"sizes": [8]}\n')  # an edit apply would lose: refused, with a kind to act on
    code, err, stderr = kp(repo, "apply", rec.branch)
    assert code == 2 and err["kind"] == "uncommitted" and "vecadd.json" in err["error"]
    assert stderr.startswith("kernelpro: ") and len(stderr.strip().splitlines()) == 1
    assert sfile.read_text() == '{"sizes": [8]}\n'
    code, applied, _ = kp(repo, "apply", rec.branch, "--force")
    assert code == 0 and '"block": 128' in sfile.read_text()

    refs_before = git(repo, "for-each-ref", "--format=%(refname)").split()
    assert store.snapshot_ref in refs_before and "refs/notes/kernelpro" in refs_before
    code, deleted, _ = kp(repo, "delete", rec.branch)
    assert code == 0 and set(deleted["refs"]) == {"refs/heads/" + rec.branch, store.snapshot_ref, "refs/notes/kernelpro"}
    left = git(repo, "for-each-ref", "--format=%(refname)").split()
    assert [r for r in left if "kernelpro" in r and r != "refs/notes/kernelpro"] == []
    assert git(repo, "notes", "--ref=kernelpro", "list") == ""
    code, err, _ = kp(repo, "delete", rec.branch)
    assert code == 2 and err["kind"] == "error" and "no candidate branch" in err["error"]


def test_delete_refuses_the_checked_out_candidate(repo):
    store = c.CandidateStore(repo, repo / "k" / "vecadd.cu")
    rec = save(store, KERNEL + "// 1\n")
    git(repo, "checkout", "-q", rec.branch)
    with pytest.raises(c.CandidateError, match="is checked out"):
        c.delete_candidate(repo, rec.branch)
    assert git(repo, "rev-parse", rec.branch) == rec.commit and git(repo, "symbolic-ref", "HEAD") == "refs/heads/" + rec.branch
