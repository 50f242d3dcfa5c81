"""Untrusted candidate branches: `kernelpro candidates apply` never writes where git would not.

Candidate branches arrive by fetch from colleagues or shared repositories, so their trees are
built here as an attacker would, with git plumbing (raw tree objects written with
`hash-object --literally`, which takes names git's own commands refuse), and applied through
the real command line in a real temporary repository. Every refusal must name the path and
why, write nothing, and leave no hook behind for the user's next commit.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernelpro.optimizer import candidates as c

KERNEL = "__global__ void vecadd(float *a) { a[threadIdx.x] += 1.0f; }\n"
FASTER = KERNEL + "// faster\n"
ENV = {**os.environ, "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.com",
       "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@example.com"}


def git(repo, *args, input=None, check=True) -> str:
    r = subprocess.run(["git", "--no-optional-locks", *args], cwd=repo, capture_output=True, env=ENV,
                       input=input if isinstance(input, (bytes, type(None))) else input.encode())
    if check and r.returncode:
        raise AssertionError(f"git {args}: {r.stderr.decode(errors='replace')}")
    return r.stdout.decode(errors="surrogateescape").strip()


def blob(repo, data: bytes) -> str:
    return git(repo, "hash-object", "-w", "--stdin", input=data)


def write_tree(repo, entries: dict) -> str:
    """A tree object from {name: (mode, sha) | dict (a subtree)}, written byte by byte, so
    that names git's own commands refuse (.git, .GIT, .., backslashes) can be made."""
    rows = []
    for name, v in entries.items():
        mode, sha = ("40000", write_tree(repo, v)) if isinstance(v, dict) else v
        rows.append((mode, os.fsencode(name), sha))
    rows.sort(key=lambda r: r[1] + (b"/" if r[0] == "40000" else b""))  # git's order
    body = b"".join(m.encode() + b" " + n + b"\0" + bytes.fromhex(s) for m, n, s in rows)
    return git(repo, "hash-object", "-t", "tree", "-w", "--literally", "--stdin", input=body)


def head_tree(repo) -> dict:
    """HEAD's tree as nested dicts of (mode, sha)."""
    tree: dict = {}
    for line in git(repo, "ls-tree", "-r", "-z", "HEAD").split("\0"):
        if not line:
            continue
        meta, path = line.split("\t", 1)
        mode, _typ, sha = meta.split()
        *dirs, leaf = path.split("/")
        node = tree
        for d in dirs:
            node = node.setdefault(d, {})
        node[leaf] = (mode, sha)
    return tree


def add(tree: dict, parts: list[str], entry) -> None:
    node = tree
    for d in parts[:-1]:
        node = node.setdefault(d, {})
    node[parts[-1]] = entry


def candidate_branch(repo, extra: list[tuple[list[str], tuple[str, str]]], name="kernelpro/vecadd/evil-1") -> str:
    """A commit on HEAD whose tree is HEAD's with a faster kernel and the ``extra`` entries
    (path components, (mode, sha)), under a kernelpro/ branch: what a fetch would bring."""
    tree = head_tree(repo)
    add(tree, ["k", "vecadd.cu"], ("100644", blob(repo, FASTER.encode())))
    for parts, entry in extra:
        add(tree, parts, entry)
    commit = git(repo, "commit-tree", write_tree(repo, tree), "-p", "HEAD", "-m", "vecadd: 9.99x faster")
    git(repo, "update-ref", "refs/heads/" + name, commit)
    return name


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "proj"
    (root / "k").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Test")
    git(root, "config", "user.email", "test@example.com")
    (root / "k" / "vecadd.cu").write_text(KERNEL)
    (root / "k" / "vecadd.json").write_text('{"sizes": [1024]}\n')
    git(root, "add", ".")
    git(root, "commit", "-qm", "init")
    return root


def marker(repo) -> Path:
    return repo.parent / "PWNED"


def hook(repo) -> bytes:
    return f"#!/bin/sh\ntouch '{marker(repo)}'\n".encode()


def snapshot(top: Path) -> dict:
    """Every path under ``top`` (links not followed): its kind and content."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(top):
        for n in dirnames + filenames:
            p = Path(dirpath) / n
            rel = p.relative_to(top).as_posix()
            if p.is_symlink():
                out[rel] = ("link", os.readlink(p))
            elif p.is_dir():
                out[rel] = ("dir",)
            else:
                out[rel] = ("file", hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mode & 0o777)
    return out


def kp(repo, *args):
    """The real command line, in the repository, as the editor and a user run it."""
    r = subprocess.run([sys.executable, "-m", "kernelpro.optimizer", "candidates", *args, "--json"],
                       cwd=repo, capture_output=True, text=True, env=ENV)
    return r.returncode, (json.loads(r.stdout) if r.stdout.strip() else None), r.stderr


def assert_refused(repo, branch, *words):
    before = snapshot(repo.parent)
    code, out, err = kp(repo, "apply", branch)
    assert code == 2, (out, err)
    assert out["ok"] is False and out["kind"] == "unsafe", out
    msg = out["error"]
    assert msg.startswith(f"refusing to apply {branch}: ") and "nothing was written" in msg, msg
    for w in words:
        assert w in msg, (w, msg)
    assert err.startswith("kernelpro: refusing to apply") and len(err.strip().splitlines()) == 1
    assert snapshot(repo.parent) == before  # not one byte written, not one directory made
    assert (repo / "k" / "vecadd.cu").read_text() == KERNEL
    # the user's next commands run nothing of the branch's
    (repo / "other.txt").write_text("next commit\n")
    git(repo, "add", "other.txt")
    git(repo, "-c", f"core.hooksPath={repo / '.git' / 'hooks'}", "commit", "-qm", "next")
    git(repo, "status")
    assert not marker(repo).exists()
    # show and delete still work on the branch
    code, shown, _ = kp(repo, "show", branch)
    assert code == 0 and shown["branch"] == branch
    code, deleted, _ = kp(repo, "delete", branch)
    assert code == 0 and deleted["refs"] == ["refs/heads/" + branch]
    return msg


# ----------------------------------------------------------------------------- paths git refuses

def test_hook_in_dot_git_arriving_by_fetch(repo, tmp_path):
    """The audit's case: a colleague's branch whose tree adds .git/hooks/post-commit."""
    theirs = tmp_path / "theirs"
    git(tmp_path, "clone", "-q", str(repo), str(theirs))
    branch = candidate_branch(theirs, [([".git", "hooks", "post-commit"], ("100755", blob(theirs, hook(repo))))])
    git(repo, "fetch", "-q", str(theirs), f"{branch}:{branch}")
    code, out, _ = kp(repo, "apply", branch, "--force")  # --force is about edits, not this
    assert code == 2 and out["kind"] == "unsafe" and not (repo / ".git" / "hooks" / "post-commit").exists()
    msg = assert_refused(repo, branch, "'.git/hooks/post-commit'", "names the .git directory")
    assert "k/vecadd.cu" not in msg  # only the bad path is named
    assert not (repo / ".git" / "hooks" / "post-commit").exists()


@pytest.mark.parametrize("parts, why", [
    ([".GIT", "hooks", "post-commit"], "names the .git directory"),
    ([".Git", "config"], "names the .git directory"),
    (["git~1", "hooks", "post-commit"], "names the .git directory"),
    ([".git ", "hooks", "post-commit"], "names the .git directory"),
    ([".git..", "hooks", "post-commit"], "names the .git directory"),
    ([".git::$INDEX_ALLOCATION", "hooks", "post-commit"], "names the .git directory"),
    (["sub", ".git", "hooks", "post-commit"], "names the .git directory"),
    ([".g\u200cit", "hooks", "post-commit"], "on macOS"),
    (["sub", "..", ".git", "config"], "'..' component"),
    (["sub/../.git/config"], "'..' component"),
    (["k", ".", "vecadd.json"], "'.' component"),
    (["..\\.git\\hooks\\post-commit"], "backslash"),
    (["k", "aux.cu"], "Windows device name"),
    (["k", "a:b"], "Windows does not allow"),
    (["k", "trailing. "], "ends in a dot or a space"),
])
def test_paths_git_refuses(repo, parts, why):
    branch = candidate_branch(repo, [(parts, ("100755", blob(repo, hook(repo))))])
    assert_refused(repo, branch, repr("/".join(parts)), why)
    assert (repo / ".git" / "config").read_text().count("[core]") == 1 and "hooksPath" not in (
        repo / ".git" / "config").read_text()


def test_dot_git_config_through_dotdot_is_not_rewritten(repo):
    """sub/../.git/config would replace the repository's config (core.fsmonitor runs a command
    on every `git status`)."""
    config = (repo / ".git" / "config").read_bytes()
    evil = f'[core]\n\tfsmonitor = "touch \'{marker(repo)}\'; false"\n'.encode()
    branch = candidate_branch(repo, [(["sub", "..", ".git", "config"], ("100644", blob(repo, evil)))])
    assert_refused(repo, branch, "'sub/../.git/config'")
    assert (repo / ".git" / "config").read_bytes() == config and not (repo / "sub").exists()


# ----------------------------------------------------------------------------- entries that are not files

def test_symlinked_parent_in_the_work_tree(repo, tmp_path):
    """The repository itself (untrusted too) holds links hooks -> .git/hooks and out -> a folder
    outside; the candidate, on a commit before them, adds hooks/post-commit and out/owned, which
    git would never write through the links."""
    branch = candidate_branch(repo, [(["hooks", "post-commit"], ("100755", blob(repo, hook(repo)))),
                                     (["out", "owned"], ("100644", blob(repo, b"owned\n")))])
    os.symlink(".git/hooks", repo / "hooks")
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(str(outside), repo / "out")
    git(repo, "add", "hooks", "out")
    git(repo, "commit", "-qm", "links")
    assert_refused(repo, branch, "'hooks' is a symbolic link", "'out' is a symbolic link")
    assert not (repo / ".git" / "hooks" / "post-commit").exists() and list(outside.iterdir()) == []


def test_symlink_and_submodule_entries(repo):
    head = git(repo, "rev-parse", "HEAD")
    branch = candidate_branch(repo, [
        (["k", "link.cu"], ("120000", blob(repo, b"../.git/hooks/post-commit"))),
        ([".gitmodules"], ("120000", blob(repo, b"k/vecadd.json"))),
        (["vendor"], ("160000", head)),
    ])
    assert_refused(repo, branch, "'k/link.cu': it is a symbolic link", "'.gitmodules': it is a symbolic link",
                   "'vendor': it is a submodule")
    assert not os.path.lexists(repo / "k" / "link.cu") and not os.path.lexists(repo / ".gitmodules")


def test_kernel_file_turned_into_a_symlink(repo):
    tree = head_tree(repo)
    add(tree, ["k", "vecadd.cu"], ("120000", blob(repo, b"../.git/hooks/post-commit")))
    commit = git(repo, "commit-tree", write_tree(repo, tree), "-p", "HEAD", "-m", "x")
    git(repo, "update-ref", "refs/heads/kernelpro/vecadd/evil-2", commit)
    assert_refused(repo, "kernelpro/vecadd/evil-2", "'k/vecadd.cu': it is a symbolic link")


def test_kernel_file_that_is_a_symlink_in_the_work_tree(repo, tmp_path):
    """A link committed where the candidate's file goes: git replaces it; apply refuses it."""
    target = tmp_path / "victim.txt"
    target.write_text("keep me\n")
    os.symlink(str(target), repo / "k" / "new.cu")
    branch = candidate_branch(repo, [(["k", "new.cu"], ("100644", blob(repo, b"overwritten\n")))])
    assert_refused(repo, branch, "'k/new.cu' is a symbolic link")
    assert target.read_text() == "keep me\n"


def test_temporary_file_name_taken_by_a_link(repo, tmp_path):
    """A committed link at the name apply used for its temporary file must not be written through."""
    target = tmp_path / "victim.txt"
    target.write_text("keep me\n")
    os.symlink(str(target), repo / "k" / ".vecadd.cu.kernelpro-tmp")
    git(repo, "add", "k/.vecadd.cu.kernelpro-tmp")
    git(repo, "commit", "-qm", "a link")
    branch = candidate_branch(repo, [])
    code, out, err = kp(repo, "apply", branch)
    assert code == 0, err
    assert out["files"] == ["k/vecadd.cu"]
    assert (repo / "k" / "vecadd.cu").read_text() == FASTER and not (repo / "k" / "vecadd.cu").is_symlink()
    assert target.read_text() == "keep me\n"
    assert os.readlink(repo / "k" / ".vecadd.cu.kernelpro-tmp") == str(target)
    assert sorted(p.name for p in (repo / "k").iterdir()) == [".vecadd.cu.kernelpro-tmp", "vecadd.cu", "vecadd.json"]


def test_honest_candidate_still_applies(repo):
    """New directories, the executable bit and deletions of regular files still work."""
    branch = candidate_branch(repo, [(["k", "gen", "helper.cuh"], ("100755", blob(repo, b"// helper\n")))])
    code, out, err = kp(repo, "apply", branch)
    assert code == 0, err
    assert sorted(out["files"]) == ["k/gen/helper.cuh", "k/vecadd.cu"]
    assert (repo / "k" / "gen" / "helper.cuh").read_text() == "// helper\n"
    assert (repo / "k" / "gen" / "helper.cuh").stat().st_mode & 0o777 == 0o755
    assert (repo / "k" / "vecadd.cu").read_text() == FASTER


def test_unsafe_path_reason():
    bad = ["", "/etc/passwd", "a//b", "a/", "./a", "a/./b", "../a", "a/..", ".git", ".GIT/x", "a/.Git/config",
           "git~1/x", "GIT~1", ".git /x", ".git. . /x", ".git::$INDEX_ALLOCATION/x", ".git:stream",
           ".\u200cgit/x", "\ufeff.git", "a\\b", "..\\.git", "C:/x", "a:b", "a<b", "a|b", 'a"b', "a?b", "a*b",
           "a\nb", "a\x01b", "a./b", "a /b", "con", "CON.cu", "aux.h", "nul", "NUL  .txt", "com1", "lpt9.c",
           "conin$", "CONOUT$.x", "k/prn.cu"]
    for p in bad:
        assert c.unsafe_path_reason(p), p
    good = ["k/vecadd.cu", "k/vecadd.json", ".gitignore", ".gitattributes", ".gitmodules", ".github/x.yml",
            "git/x", ".gitx/y", "gitx~1", "com0.c", "comm.cu", "console.cu", "auxiliary.cu", "lptx", "nully.cu",
            "a.b/c", "ядро.cu", "内核/k.cu", ".hidden", "a b.cu", "x~1"]
    for p in good:
        assert c.unsafe_path_reason(p) is None, p


# ----------------------------------------------------------------------------- branch names

def test_distinct_kernel_names_get_distinct_branches(repo):
    names = ["ядро", "内核", "..", "a/b", "a b", "a-b", "vecadd", ""]
    comps = [c.sanitize_ref_component(n) for n in names]
    assert len(set(comps)) == len(names), comps
    assert c.sanitize_ref_component("vecadd") == "vecadd"  # readable names do not change
    assert c.sanitize_ref_component("a-b") == "a-b"
    assert c.sanitize_ref_component("20250101-120000-ab12", fallback="run") == "20250101-120000-ab12"
    for s in comps:
        assert subprocess.run(["git", "check-ref-format", f"refs/heads/kernelpro/{s}/r-1"]).returncode == 0, s
    store = c.CandidateStore(repo, repo / "k" / "vecadd.cu", run_id="run1")
    recs = {}
    for i, name in enumerate(["ядро", "内核", "..", "a/b", "a b"]):
        title, body = c.format_message(name, "time", 2.0, {}, {}, None, None, None, [], [])
        recs[name] = store.save(name, KERNEL + f"// {i}\n", None, {}, title, body)
    assert len({r.branch.rsplit("/", 1)[0] for r in recs.values()}) == 5
    for name, rec in recs.items():
        listed = c.list_candidates(repo, kernel=name)
        assert [r.branch for r in listed] == [rec.branch], name
        assert (listed[0].kernel, listed[0].run, listed[0].n) == (rec.kernel, "run1", rec.n)
    code, listed, _ = kp(repo, "list", "--kernel", "ядро")
    assert code == 0 and [d["branch"] for d in listed] == [recs["ядро"].branch]
