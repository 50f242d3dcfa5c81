"""Candidates as git branches.

Each candidate worth keeping becomes a branch ``kernelpro/<kernel>/<run>-<n>`` whose single
commit, on top of the base commit, changes the kernel file (and its spec file when given).
The commit title states the speedup; the body gives times per size, energy per launch,
the error against the reference, the advice it answered and its path in the search tree.
A git note in ``refs/notes/kernelpro`` on that commit carries the same as JSON.

The base commit
    If the kernel file (or spec file) in the working tree differs from HEAD - staged or
    not, or untracked - the store first records a *snapshot* commit: parent HEAD, tree =
    HEAD's tree with the working-tree versions of those files, message
    ``kernelpro: snapshot of uncommitted <file> (run <run>)``, kept alive by the ref
    ``refs/kernelpro/snapshots/<run>`` (not a branch). Candidates are then one commit on
    top of the snapshot, so their diffs show only what the optimizer changed. Otherwise the
    base is HEAD. Other dirty files are ignored: they are neither recorded nor touched.

Safety
    The user's working tree, index, HEAD and stash are never touched. Everything is built
    with plumbing: ``hash-object -w``, a temporary index file outside ``.git``
    (``GIT_INDEX_FILE``), ``write-tree``, ``commit-tree``, and finally one
    ``update-ref --stdin`` transaction that creates the branch (expected old value: none,
    so an existing ref is never overwritten) and moves the notes ref by compare-and-swap
    in the same step. A run killed at any moment leaves at most unreferenced objects;
    a concurrent run that moved the notes ref makes the transaction fail and we retry.
    Only ``apply_candidate`` writes into the working tree, and only the candidate's files.
"""

from __future__ import annotations

import io
import json
import math
import os
import random
import re
import secrets
import shutil
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import git

NOTES_REF = "refs/notes/kernelpro"
BRANCH_PREFIX = "refs/heads/kernelpro/"
SNAPSHOT_PREFIX = "refs/kernelpro/snapshots/"
_RETRIES = 60


class CandidateError(Exception):
    """Anything that stops us recording or reading a candidate; the message says why."""


class NotARepository(CandidateError):
    """The path is not inside a git work tree."""


class UncommittedChanges(CandidateError):
    """apply: a file the candidate changes has edits that would be lost (use force)."""


@dataclass
class CandidateRecord:
    branch: str
    commit: str
    kernel: str
    run: str
    n: int
    note: dict = field(default_factory=dict)
    title: str = ""


# --------------------------------------------------------------------------- helpers

def _git(repo: git.Repo, *args, **kw) -> str:
    """Run git, turning failures into CandidateError with git's own message."""
    try:
        return repo.git.execute(["git", *args], **kw)
    except git.GitCommandError as e:
        msg = (e.stderr or e.stdout or str(e)).strip().removeprefix("stderr:").strip(" '")
        raise CandidateError(f"git {args[0]} failed: {msg}") from e


def _git_ok(repo: git.Repo, *args, **kw) -> str | None:
    """Run git; None when it fails (used for probes such as rev-parse --verify)."""
    try:
        return repo.git.execute(["git", *args], **kw)
    except git.GitCommandError:
        return None


def _raw(repo: git.Repo, *args) -> bytes:
    return _git(repo, *args, stdout_as_string=False, strip_newline_in_stdout=False)


def check_repository(path) -> git.Repo:
    """Open the git work tree that contains ``path`` or raise a clear CandidateError."""
    p = Path(path).expanduser()
    if not p.exists():
        raise NotARepository(f"{p}: no such file or directory")
    start = p if p.is_dir() else p.parent
    try:
        repo = git.Repo(start, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise NotARepository(
            f"{p} is not inside a git repository; candidates are saved as git branches, "
            f"so run `git init` there first (and commit the kernel)") from None
    if repo.bare or repo.working_tree_dir is None:
        raise CandidateError(f"{repo.git_dir} is a bare repository; candidates need a work tree")
    if not repo.head.is_valid():
        raise CandidateError(
            f"the repository at {repo.working_tree_dir} has no commits yet; "
            f"commit the kernel first so candidates have a base")
    return repo


def sanitize_ref_component(name: str, fallback: str = "kernel") -> str:
    """Turn a kernel name or run id into one valid ref-name component."""
    s = re.sub(r"[^A-Za-z0-9._-]+", "-", str(name))
    s = re.sub(r"\.{2,}", ".", s)
    s = s.strip(".-")
    while s.endswith(".lock"):
        s = s[: -len(".lock")].rstrip(".-")
    s = s[:100].rstrip(".-")
    return s or fallback


def new_run_id() -> str:
    return datetime.now().strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(2)


def _relpath(repo: git.Repo, path, what: str) -> str:
    root = Path(repo.working_tree_dir).resolve()
    p = Path(path).expanduser()
    if not p.is_absolute():  # relative to the cwd, else to the work tree
        p = Path.cwd() / p if (Path.cwd() / p).exists() else root / p
    p = p.resolve()
    try:
        rel = p.relative_to(root)
    except ValueError:
        raise CandidateError(
            f"{what} {p} is outside the repository work tree {root}") from None
    if rel.parts and rel.parts[0] == ".git":
        raise CandidateError(f"{what} {p} is inside .git")
    if not p.is_file():
        raise CandidateError(f"{what} {p} does not exist or is not a file")
    return rel.as_posix()


def _finite(obj):
    """Replace NaN/inf by None so the note stays valid JSON for the VS Code view."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {str(k): _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


class _TempIndex:
    """A throw-away index file outside .git, so the real index is never used."""

    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix="kernelpro-idx-")
        self.env = {"GIT_INDEX_FILE": os.path.join(self.dir, "index")}
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.dir, ignore_errors=True)


_IDENTITY: dict[str, dict] = {}


def _identity_env(repo: git.Repo) -> dict:
    """Author/committer fallback when the user has none configured."""
    key = repo.git_dir
    if key not in _IDENTITY:
        ok = _git_ok(repo, "var", "GIT_COMMITTER_IDENT") and _git_ok(repo, "var", "GIT_AUTHOR_IDENT")
        _IDENTITY[key] = {} if ok else _FALLBACK_IDENTITY
    return _IDENTITY[key]


_FALLBACK_IDENTITY = {
    "GIT_AUTHOR_NAME": "KernelPro", "GIT_AUTHOR_EMAIL": "kernelpro@localhost",
    "GIT_COMMITTER_NAME": "KernelPro", "GIT_COMMITTER_EMAIL": "kernelpro@localhost"}


def _hash_blob(repo: git.Repo, data: bytes, relpath: str | None) -> str:
    """Write a blob; with relpath, git applies that path's attributes as `git add` would."""
    with tempfile.NamedTemporaryFile(prefix="kernelpro-blob-", delete=False) as f:
        f.write(data)
    try:
        where = f"--path={relpath}" if relpath else "--no-filters"
        return _git(repo, "hash-object", "-w", where, f.name)
    finally:
        os.unlink(f.name)


def _tree_entry(repo: git.Repo, commit: str, relpath: str) -> tuple[str, str] | None:
    """(mode, blob sha) of relpath in commit, or None."""
    out = _git(repo, "ls-tree", commit, "--", relpath)
    if not out:
        return None
    meta, _path = out.split("\t", 1)
    mode, _type, sha = meta.split()
    return mode, sha


def _build_tree(repo: git.Repo, base: str, files: dict[str, str]) -> str:
    """Tree of ``base`` with ``files`` ({relpath: blob sha}) replaced or added."""
    with _TempIndex() as idx:
        _git(repo, "read-tree", base, env=idx.env)
        for rel, blob in files.items():
            entry = _tree_entry(repo, base, rel)
            mode = entry[0] if entry and entry[0] in ("100644", "100755") else "100644"
            _git(repo, "update-index", "--add", "--cacheinfo", f"{mode},{blob},{rel}", env=idx.env)
        return _git(repo, "write-tree", env=idx.env)


def _commit_tree(repo: git.Repo, tree: str, parent: str, message: str) -> str:
    with tempfile.NamedTemporaryFile("w", prefix="kernelpro-msg-", delete=False,
                                     encoding="utf-8") as f:
        f.write(message)
    try:
        return _git(repo, "commit-tree", tree, "-p", parent, "-F", f.name,
                    env=_identity_env(repo))
    finally:
        os.unlink(f.name)


def _update_refs(repo: git.Repo, lines: list[str]) -> str | None:
    """One atomic update-ref transaction; returns git's error text or None on success."""
    with tempfile.TemporaryFile() as f:
        f.write(("\n".join(lines) + "\n").encode())
        f.seek(0)
        try:
            repo.git.execute(["git", "update-ref", "-m", "kernelpro", "--stdin"], istream=f)
        except git.GitCommandError as e:
            return (e.stderr or str(e)).strip()
    return None


def _rev(repo: git.Repo, ref: str) -> str | None:
    return _git_ok(repo, "rev-parse", "--verify", "-q", ref + "^{commit}") or None


# --------------------------------------------------------------------------- notes

def _notes_entries(repo: git.Repo, notes_commit: str | None) -> dict[str, tuple[str, str]]:
    """{annotated sha: (path in notes tree, blob sha)} for every note (any fanout)."""
    if not notes_commit:
        return {}
    out = _git(repo, "ls-tree", "-r", notes_commit)
    entries = {}
    for line in out.splitlines():
        meta, path = line.split("\t", 1)
        _mode, typ, sha = meta.split()
        target = path.replace("/", "")
        if typ == "blob" and re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", target):
            entries[target] = (path, sha)
    return entries


def _notes_commit_with(repo: git.Repo, old: str | None, target: str,
                       note_blob: str | None) -> str:
    """A new notes commit: ``old`` with the note on ``target`` set (or removed if None)."""
    with _TempIndex() as idx:
        if old:
            _git(repo, "read-tree", old, env=idx.env)
            entry = _notes_entries(repo, old).get(target)
            if entry:
                _git(repo, "update-index", "--force-remove", "--", entry[0], env=idx.env)
        else:
            _git(repo, "read-tree", "--empty", env=idx.env)
        if note_blob:
            _git(repo, "update-index", "--add", "--cacheinfo",
                 f"100644,{note_blob},{target}", env=idx.env)
        tree = _git(repo, "write-tree", env=idx.env)
    msg = "Notes added by 'kernelpro'\n" if note_blob else "Notes removed by 'kernelpro'\n"
    with tempfile.NamedTemporaryFile("w", prefix="kernelpro-msg-", delete=False) as f:
        f.write(msg)
    try:
        args = ["commit-tree", tree, "-F", f.name] + (["-p", old] if old else [])
        return _git(repo, *args, env=_identity_env(repo))
    finally:
        os.unlink(f.name)


def _notes_ref_line(old: str | None, new: str) -> str:
    return f"update {NOTES_REF} {new} {old}" if old else f"create {NOTES_REF} {new}"


def _read_note(repo: git.Repo, blob: str | None) -> dict:
    if not blob:
        return {}
    try:
        data = json.loads(_raw(repo, "cat-file", "blob", blob).decode("utf-8"))
    except (CandidateError, ValueError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


# --------------------------------------------------------------------------- messages

def _fmt_time(s) -> str:
    if s is None:
        return "-"
    s = float(s)
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if abs(s) >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def _fmt_energy(j) -> str:
    if j is None:
        return "-"
    j = float(j)
    for unit, scale in (("J", 1.0), ("mJ", 1e-3), ("uJ", 1e-6)):
        if abs(j) >= scale:
            return f"{j / scale:.3g} {unit}"
    return f"{j / 1e-9:.3g} nJ"


def _size_key(k):
    try:
        return (0, float(k), str(k))
    except (TypeError, ValueError):
        return (1, 0.0, str(k))


def _ratio(a, b) -> str:
    try:
        return f"{float(a) / float(b):.2f}x" if a and b else "-"
    except (TypeError, ValueError, ZeroDivisionError):
        return "-"


def format_message(kernel, objective, speedup, before, after, energy_before, energy_after,
                   error, answers, path) -> tuple[str, str]:
    """(title, body) of a candidate commit. ``before``/``after`` map size -> seconds."""
    before, after = dict(before or {}), dict(after or {})
    sizes = sorted(set(before) | set(after), key=_size_key)
    nsz = f"{len(sizes)} size" + ("" if len(sizes) == 1 else "s")
    objective = objective or "time"
    if speedup is None or not math.isfinite(float(speedup)):
        title = f"{kernel}: candidate ({objective}), {nsz}"
    elif float(speedup) >= 1.0:
        title = f"{kernel}: {float(speedup):.2f}x faster ({objective}), {nsz}"
    else:
        title = f"{kernel}: {float(speedup):.2f}x, slower ({objective}), {nsz}"

    lines = ["Time per launch (before -> after, speedup):"]
    w = max([len(str(s)) for s in sizes] + [4])
    for s in sizes:
        b, a = before.get(s), after.get(s)
        lines.append(f"  {str(s):<{w}}  {_fmt_time(b):>9} -> {_fmt_time(a):>9}  {_ratio(b, a)}")
    if not sizes:
        lines.append("  (no timings)")
    lines.append("")
    energy = f"Energy per launch: {_fmt_energy(energy_before)} -> {_fmt_energy(energy_after)}"
    if energy_before and energy_after:
        energy += f" ({_ratio(energy_before, energy_after)} less)"
    lines.append(energy)
    if error:
        if isinstance(error, dict):
            parts = [f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in error.items()]
            lines.append("Error vs reference: " + ", ".join(parts))
        else:
            lines.append(f"Error vs reference: {error}")
    else:
        lines.append("Error vs reference: not measured")
    lines.append("Answers advice: " + (", ".join(map(str, answers)) if answers else "none"))
    lines.append("")
    lines.append("Search path:")
    for i, step in enumerate(path or [], 1):
        lines.append(f"  {i}. {step}")
    if not path:
        lines.append("  (root)")
    return title, "\n".join(lines)


def make_note(objective, speedup, before, after, energy_before, energy_after, error,
              answers, path) -> dict:
    """The measurement part of a note, same arguments as format_message."""
    return {"objective": objective, "speedup": speedup,
            "times_s": {"before": dict(before or {}), "after": dict(after or {})},
            "energy_j": {"before": energy_before, "after": energy_after},
            "error": error if error is not None else {},
            "answers": list(answers or []), "path": list(path or [])}


# --------------------------------------------------------------------------- store

class CandidateStore:
    """Saves candidates of one run as branches; see the module docstring."""

    def __init__(self, repo_path, kernel_file, spec_file=None, run_id=None):
        self.repo = check_repository(repo_path)
        self.kernel_file = _relpath(self.repo, kernel_file, "kernel file")
        self.spec_file = _relpath(self.repo, spec_file, "spec file") if spec_file else None
        self._lock = threading.Lock()
        self.head_commit = _git(self.repo, "rev-parse", "HEAD^{commit}")
        if run_id is None:
            run_id = new_run_id()
            while self._run_exists(run_id):
                run_id = new_run_id()
        self.run_id = sanitize_ref_component(run_id, fallback="run")
        self.snapshot_ref: str | None = None
        self.base_commit = self._make_base()
        self._next_n = self._max_n() + 1

    # -- base
    def _files(self) -> list[str]:
        return [self.kernel_file] + ([self.spec_file] if self.spec_file else [])

    def _make_base(self) -> str:
        root = Path(self.repo.working_tree_dir)
        dirty = {}
        for rel in self._files():
            blob = _hash_blob(self.repo, (root / rel).read_bytes(), rel)
            entry = _tree_entry(self.repo, self.head_commit, rel)
            if entry is None or entry[1] != blob:
                dirty[rel] = blob
        if not dirty:
            return self.head_commit
        tree = _build_tree(self.repo, self.head_commit, dirty)
        msg = (f"kernelpro: snapshot of uncommitted {', '.join(dirty)} (run {self.run_id})\n\n"
               f"The working-tree version of these files when the run started; candidates\n"
               f"of run {self.run_id} are commits on top of this one.\n")
        commit = _commit_tree(self.repo, tree, self.head_commit, msg)
        ref = SNAPSHOT_PREFIX + self.run_id
        existing = _rev(self.repo, ref)
        if existing:  # a resumed run with an explicit run id
            same = (_git(self.repo, "rev-parse", existing + "^{tree}") == tree and
                    _git(self.repo, "rev-parse", existing + "^") == self.head_commit)
            if not same:
                raise CandidateError(
                    f"run id {self.run_id} already has a snapshot ({ref}) of different "
                    f"content; choose another run id")
            commit = existing
        else:
            err = _update_refs(self.repo, [f"create {ref} {commit}"])
            if err and _rev(self.repo, ref) != commit:
                raise CandidateError(f"cannot create {ref}: {err}")
        self.snapshot_ref = ref
        return commit

    def _run_exists(self, run: str) -> bool:
        if _rev(self.repo, SNAPSHOT_PREFIX + run):
            return True
        return bool(self._run_refs(run))

    def _run_refs(self, run: str) -> list[tuple[str, int]]:
        """(ref without -n, n) for branches of this run."""
        out = _git(self.repo, "for-each-ref", "--format=%(refname)", BRANCH_PREFIX)
        found = []
        for ref in out.splitlines():
            m = re.fullmatch(rf"(.*/{re.escape(run)})-(\d+)", ref)
            if m:
                found.append((m.group(1), int(m.group(2))))
        return found

    def _max_n(self) -> int:
        return max((n for _, n in self._run_refs(self.run_id)), default=0)

    # -- save
    def save(self, kernel: str, source: str, spec_text: str | None, note: dict,
             title: str, body: str) -> CandidateRecord:
        """Record one candidate as branch kernelpro/<kernel>/<run>-<n> (n: next free)."""
        if spec_text is not None and not self.spec_file:
            raise CandidateError("spec_text given but the store has no spec file")
        kname = sanitize_ref_component(kernel)
        for clash in ("refs/heads/kernelpro", f"refs/heads/kernelpro/{kname}"):
            if _rev(self.repo, clash):
                raise CandidateError(f"branch {clash[11:]} exists and blocks kernelpro/ branches; "
                                     f"rename it")
        files = {self.kernel_file: _hash_blob(self.repo, source.encode("utf-8"), self.kernel_file)}
        if spec_text is not None:
            files[self.spec_file] = _hash_blob(self.repo, spec_text.encode("utf-8"),
                                               self.spec_file)
        tree = _build_tree(self.repo, self.base_commit, files)
        if tree == _git(self.repo, "rev-parse", self.base_commit + "^{tree}"):
            raise CandidateError(f"candidate for {kernel} is identical to the base "
                                 f"{self.base_commit[:10]}; nothing to save")
        with self._lock:
            return self._save_locked(kname, tree, note, title, body)

    def _save_locked(self, kname, tree, note, title, body) -> CandidateRecord:
        created = note.get("created") or datetime.now(timezone.utc).isoformat(timespec="seconds")
        last_err = ""
        for attempt in range(_RETRIES):
            n = self._next_n
            ref = f"{BRANCH_PREFIX}{kname}/{self.run_id}-{n}"
            if _rev(self.repo, ref):
                self._next_n += 1
                continue
            if attempt == 0 and _git_ok(self.repo, "check-ref-format", ref) is None:
                raise CandidateError(f"invalid branch name {ref[11:]}")
            message = (f"{title.strip()}\n\n{body.rstrip()}\n\n"
                       f"Kernelpro-Kernel: {kname}\nKernelpro-Run: {self.run_id}\n"
                       f"Kernelpro-Candidate: {n}\n")
            commit = _commit_tree(self.repo, tree, self.base_commit, message)
            full = make_note(None, None, None, None, None, None, None, None, None)
            full.update(note)
            full.update(kernel=kname, run=self.run_id, n=n, file=self.kernel_file,
                        spec_file=self.spec_file, base_commit=self.base_commit,
                        created=created)
            try:
                text = json.dumps(_finite(full), indent=2, sort_keys=True, allow_nan=False)
            except (TypeError, ValueError) as e:
                raise CandidateError(f"note for {kname} is not JSON-serializable: {e}") from e
            full = json.loads(text)  # the record carries exactly what the note holds
            blob = _hash_blob(self.repo, text.encode() + b"\n", None)
            old_notes = _rev(self.repo, NOTES_REF)
            new_notes = _notes_commit_with(self.repo, old_notes, commit, blob)
            err = _update_refs(self.repo, [f"create {ref} {commit}",
                                           _notes_ref_line(old_notes, new_notes)])
            if err is None:
                self._next_n = n + 1
                return CandidateRecord(branch=ref[11:], commit=commit, kernel=kname,
                                       run=self.run_id, n=n, note=full, title=title.strip())
            last_err = err  # ref taken or notes moved by a concurrent run: retry
            time.sleep(random.uniform(0.005, 0.05))
        raise CandidateError(f"could not create a candidate branch after {_RETRIES} "
                             f"attempts: {last_err}")


# --------------------------------------------------------------------------- reading

def _branch_ref(branch: str) -> str:
    b = branch.strip()
    b = b.removeprefix("refs/heads/")
    if not b.startswith("kernelpro/"):
        raise CandidateError(f"{branch!r} is not a kernelpro candidate branch "
                             f"(those start with kernelpro/)")
    return "refs/heads/" + b


def _parse_branch(ref: str) -> tuple[str, str, int]:
    rest = ref[len(BRANCH_PREFIX):]
    kernel, _, leaf = rest.rpartition("/")
    m = re.fullmatch(r"(.+)-(\d+)", leaf)
    if not m:
        return kernel or leaf, "", 0
    return kernel, m.group(1), int(m.group(2))


def list_candidates(repo_path, kernel=None) -> list[CandidateRecord]:
    repo = check_repository(repo_path)
    out = _git(repo, "for-each-ref", "--format=%(refname)%00%(objectname)%00%(contents:subject)",
               BRANCH_PREFIX)
    notes = _notes_entries(repo, _rev(repo, NOTES_REF))
    records = []
    for line in out.splitlines():
        ref, sha, subject = line.split("\0", 2)
        k, run, n = _parse_branch(ref)
        if kernel is not None and k != sanitize_ref_component(kernel):
            continue
        note = _read_note(repo, notes.get(sha, (None, None))[1])
        records.append(CandidateRecord(branch=ref[11:], commit=sha, kernel=k, run=run, n=n,
                                       note=note, title=subject))
    records.sort(key=lambda r: (r.kernel, str(r.note.get("created", "")), r.run, r.n))
    return records


def _resolve(repo: git.Repo, branch: str) -> tuple[str, str]:
    ref = _branch_ref(branch)
    sha = _rev(repo, ref)
    if not sha:
        raise CandidateError(f"no candidate branch {ref[11:]}; see `kernelpro candidates list`")
    return ref, sha


def show_candidate(repo_path, branch) -> dict:
    """The record as a dict plus ``message``, ``parent`` and ``diff`` (against its parent)."""
    repo = check_repository(repo_path)
    ref, sha = _resolve(repo, branch)
    k, run, n = _parse_branch(ref)
    notes = _notes_entries(repo, _rev(repo, NOTES_REF))
    message = _git(repo, "log", "-1", "--format=%B", sha)
    parent = _git_ok(repo, "rev-parse", "--verify", "-q", sha + "^")
    diff = _git(repo, "diff", "--no-color", "--no-ext-diff", parent, sha) if parent else ""
    rec = CandidateRecord(branch=ref[11:], commit=sha, kernel=k, run=run, n=n,
                          note=_read_note(repo, notes.get(sha, (None, None))[1]),
                          title=message.split("\n", 1)[0])
    return {**asdict(rec), "message": message, "parent": parent, "diff": diff}


def apply_candidate(repo_path, branch, force=False) -> list[str]:
    """Write the candidate's changed files into the working tree; returns the paths.

    A file is overwritten only if its working-tree content equals HEAD, the candidate's
    base, or the candidate itself (so no edit is lost); otherwise CandidateError unless
    ``force``. The index and HEAD are never touched.
    """
    repo = check_repository(repo_path)
    ref, sha = _resolve(repo, branch)
    parent = _git(repo, "rev-parse", sha + "^")
    changed = [p for p in _git(repo, "diff", "--name-only", "--no-renames", "-z",
                               parent, sha).split("\0") if p]
    root = Path(repo.working_tree_dir)
    for rel in changed:
        path = root / rel
        if force or not path.exists():
            continue
        if path.is_dir():
            raise CandidateError(f"{path} is a directory; cannot write the candidate's file there")
        cur = _hash_blob(repo, path.read_bytes(), rel)
        safe = {e[1] for c in ("HEAD", parent, sha) if (e := _tree_entry(repo, c, rel))}
        if cur not in safe:
            raise UncommittedChanges(
                f"{path} has uncommitted changes that are neither in HEAD nor in the "
                f"candidate's base {parent[:10]}; commit or stash them, or use --force "
                f"to overwrite")
    written = []
    for rel in changed:
        path = root / rel
        entry = _tree_entry(repo, sha, rel)
        if entry is None:  # the candidate removed it
            if path.exists():
                path.unlink()
            written.append(str(path))
            continue
        data = _raw(repo, "cat-file", "--filters", f"{sha}:{rel}")
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.kernelpro-tmp")
        tmp.write_bytes(data)
        os.chmod(tmp, 0o755 if entry[0] == "100755" else 0o644)
        os.replace(tmp, path)
        written.append(str(path))
    return written


def delete_candidate(repo_path, branch) -> list[str]:
    """Delete the branch and its note in one transaction (and the run's snapshot ref once
    no branch of that run is left); returns the refs deleted or changed."""
    repo = check_repository(repo_path)
    ref, sha = _resolve(repo, branch)
    if _git_ok(repo, "symbolic-ref", "-q", "HEAD") == ref:
        raise CandidateError(f"{ref[11:]} is checked out; switch to another branch before deleting it")
    _k, run, _n = _parse_branch(ref)
    last_err = ""
    for _ in range(_RETRIES):
        lines = [f"delete {ref} {sha}"]
        old_notes = _rev(repo, NOTES_REF)
        if sha in _notes_entries(repo, old_notes):
            lines.append(_notes_ref_line(old_notes, _notes_commit_with(repo, old_notes, sha, None)))
        snap = _rev(repo, SNAPSHOT_PREFIX + run) if run else None
        if snap:
            others = _git(repo, "for-each-ref", "--format=%(refname)", BRANCH_PREFIX).split()
            if not any(o != ref and re.fullmatch(rf".*/{re.escape(run)}-\d+", o) for o in others):
                lines.append(f"delete {SNAPSHOT_PREFIX}{run} {snap}")
        err = _update_refs(repo, lines)
        if err is None:
            return [line.split()[1] for line in lines]
        if _rev(repo, ref) != sha:
            raise CandidateError(f"{ref[11:]} changed or vanished while deleting: {err}")
        last_err = err
        time.sleep(random.uniform(0.005, 0.05))
    raise CandidateError(f"could not delete {ref[11:]}: {last_err}")


# --------------------------------------------------------------------------- CLI bits

def _fmt_speedup(v) -> str:
    try:
        return f"{float(v):.2f}x"
    except (TypeError, ValueError):
        return "-"


def cli_list(repo, kernel=None, as_json=False) -> tuple[int, str]:
    try:
        recs = list_candidates(repo, kernel)
    except CandidateError as e:
        return _failed(e, as_json)
    if as_json:
        return 0, json.dumps([asdict(r) for r in recs], indent=2)
    if not recs:
        what = f" for kernel {kernel}" if kernel else ""
        return 0, f"No candidates{what} yet."
    from rich.console import Console
    from rich.table import Table

    table = Table(title="KernelPro candidates")
    for col in ("speedup", "objective", "energy/launch before -> after", "branch", "created"):
        table.add_column(col, justify="right" if col == "speedup" else "left")
    for r in recs:
        e = r.note.get("energy_j") if isinstance(r.note.get("energy_j"), dict) else {}
        energy = f"{_fmt_energy(e.get('before'))} -> {_fmt_energy(e.get('after'))}"
        table.add_row(_fmt_speedup(r.note.get("speedup")), str(r.note.get("objective") or "-"),
                      energy, r.branch, str(r.note.get("created") or "-"))
    buf = io.StringIO()
    Console(file=buf, width=140, color_system=None, force_terminal=False).print(table)
    return 0, buf.getvalue().rstrip()


def cli_show(repo, branch, as_json=False) -> tuple[int, str]:
    try:
        info = show_candidate(repo, branch)
    except CandidateError as e:
        return _failed(e, as_json)
    if as_json:
        return 0, json.dumps(info, indent=2)
    head = f"branch {info['branch']}\ncommit {info['commit']}\nparent {info['parent']}\n"
    return 0, f"{head}\n{info['message'].rstrip()}\n\n{info['diff']}".rstrip()


def cli_apply(repo, branch, force=False, as_json=False) -> tuple[int, str]:
    try:
        paths = apply_candidate(repo, branch, force)
    except CandidateError as e:
        return _failed(e, as_json)
    if as_json:
        root = Path(check_repository(repo).working_tree_dir)
        return 0, json.dumps({"branch": _branch_ref(branch)[11:], "written": paths,
                              "files": [Path(p).relative_to(root).as_posix() for p in paths]}, indent=2)
    return 0, "\n".join(f"wrote {p}" for p in paths) + \
        "\n(the index and HEAD are unchanged; review with `git diff`)"


def cli_delete(repo, branch, as_json=False) -> tuple[int, str]:
    try:
        refs = delete_candidate(repo, branch)
    except CandidateError as e:
        return _failed(e, as_json)
    if as_json:
        return 0, json.dumps({"branch": _branch_ref(branch)[11:], "refs": refs}, indent=2)
    return 0, f"deleted {_branch_ref(branch)[11:]} and its note"


def _failed(e: CandidateError, as_json: bool) -> tuple[int, str]:
    """(1, "error: ...") or, for --json, the error as JSON with a kind a program can act on
    ("uncommitted": apply would overwrite edits; the editor asks, then passes --force)."""
    if not as_json:
        return 1, f"error: {e}"
    kind = ("uncommitted" if isinstance(e, UncommittedChanges) else
            "not-a-repository" if isinstance(e, NotARepository) else "error")
    return 1, json.dumps({"ok": False, "error": str(e), "kind": kind})
