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
    Only ``apply_candidate`` writes into the working tree, and only the candidate's files:
    branches may come from anyone (a fetch from a colleague or a shared repository), so
    every path is checked as git's ``verify_path`` would on any platform, and against the
    work tree's symbolic links, before the first file is written (see ``apply_candidate``).
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import random
import re
import secrets
import shutil
import stat
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import git

from .search import scored_sizes

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


class UnsafeCandidate(CandidateError):
    """apply: the candidate's tree holds a path or an entry that must never be written."""


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
    """Turn a kernel name or run id into one valid ref-name component.

    A name that is already a valid component (``vecadd``, ``20250101-120000-ab12``) is kept
    as it is. Any other is made readable (runs of other characters become ``-``) and gets
    ``-`` and the first 8 hex digits of the SHA-256 of the original name, so that distinct
    names (``ядро`` and ``内核``, ``a/b`` and ``a b``) never share a branch prefix.
    """
    original = str(name)
    s = re.sub(r"[^A-Za-z0-9._-]+", "-", original)
    s = re.sub(r"\.{2,}", ".", s)
    s = s.strip(".-")
    while s.endswith(".lock"):
        s = s[: -len(".lock")].rstrip(".-")
    s = s[:100].rstrip(".-")
    s = s or fallback
    if s != original:
        digest = hashlib.sha256(original.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        s = f"{s}-{digest}"
    return s


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
    scored = scored_sizes({s: t for s, t in before.items() if t}) if before else sizes
    if 0 < len(scored) < len(sizes):  # the speedup is the scored sizes' (search.scored_sizes)
        nsz = f"scored at {', '.join(map(str, sorted(scored, key=_size_key)))} of {nsz} (the others launch-bound)"
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


# What git's verify_path() refuses on some platform (read-cache.c, path.c, compat/mingw.c):
# .git in any letter case, its NTFS short name git~1, either with trailing dots or spaces or
# an NTFS stream (":..."), .git with the code points HFS+ ignores, "." and "..", empty
# components, backslashes, the characters and device names Windows does not allow.
_NTFS_DOTGIT = re.compile(r"(?:\.git|git~1)[. ]*(?::.*)?", re.IGNORECASE | re.DOTALL)
_HFS_IGNORED = dict.fromkeys([*range(0x200C, 0x2010), *range(0x202A, 0x202F),
                              *range(0x206A, 0x2070), 0xFEFF])
_WIN_DEVICE = re.compile(r"(?:aux|con|conin\$|conout\$|com[1-9]|lpt[0-9]|nul|prn) *(?:[.:].*)?",
                         re.IGNORECASE | re.DOTALL)
_WIN_CHARS = set('<>:"|?*') | {chr(c) for c in range(1, 32)}
_REGULAR = ("100644", "100755")
_MODE_WORDS = {"120000": "a symbolic link", "160000": "a submodule (gitlink)", "040000": "a directory"}


def unsafe_path_reason(path: str) -> str | None:
    """Why git would refuse to check out ``path`` on some platform, or None when it is fine."""
    if not path:
        return "the path is empty"
    if path.startswith("/"):
        return "it is an absolute path"
    if "\\" in path:
        return "it contains a backslash, a directory separator on Windows"
    for comp in path.split("/"):
        if comp == "":
            return "it has an empty component (// or a trailing /)"
        if comp in (".", ".."):
            return f"it has a {comp!r} component"
        if _NTFS_DOTGIT.fullmatch(comp):
            return (f"its component {comp!r} names the .git directory (in any letter case, or as "
                    f"Windows reads it: trailing dots or spaces, the short name git~1, a stream)")
        if comp.translate(_HFS_IGNORED).lower() == ".git":
            return f"its component {comp!r} names the .git directory on macOS (HFS+ ignores some code points)"
        bad = sorted(set(comp) & _WIN_CHARS)
        if bad:
            return f"its component {comp!r} has a character Windows does not allow in file names ({ascii(bad[0])})"
        if comp[-1] in ". ":
            return f"its component {comp!r} ends in a dot or a space, which Windows drops"
        if _WIN_DEVICE.fullmatch(comp):
            return f"its component {comp!r} is a Windows device name"
    return None


def _changed_entries(repo: git.Repo, parent: str, sha: str) -> list[tuple[str, str, str, str, str]]:
    """(path, old mode, new mode, old blob, new blob) for every path ``sha`` changes against
    ``parent``, read from the raw trees (no rename detection, submodules as entries)."""
    out = _raw(repo, "diff-tree", "-r", "-z", "--no-renames", "--no-abbrev",
               "--ignore-submodules=none", parent, sha)
    fields = out.split(b"\0")
    entries = []
    i = 0
    while i + 1 < len(fields) and fields[i]:
        meta = fields[i].decode("ascii", "replace").lstrip(":").split()
        path = os.fsdecode(fields[i + 1])
        old_mode, new_mode, old_blob, new_blob = meta[:4]
        entries.append((path, old_mode, new_mode, old_blob, new_blob))
        i += 2
    return entries


def _work_tree_problem(root: Path, rel: str) -> str | None:
    """Why writing ``rel`` under ``root`` would leave the work tree (a symbolic link or a
    non-directory among its parents, or a leaf that is not a regular file), or None."""
    real_root = os.path.realpath(root)
    cur = root
    parts = rel.split("/")
    for i, comp in enumerate(parts):
        cur = cur / comp
        try:
            st = os.lstat(cur)
        except FileNotFoundError:
            break  # it and what lies under it will be created as plain directories and a file
        shown = "/".join(parts[: i + 1])
        last = i == len(parts) - 1
        if stat.S_ISLNK(st.st_mode):
            return (f"{shown!r} is a symbolic link in the work tree; a candidate never writes "
                    f"{'through one' if not last else 'over one'}")
        if not last and not stat.S_ISDIR(st.st_mode):
            return f"its parent {shown!r} is not a directory"
        if last and stat.S_ISDIR(st.st_mode):
            return f"{cur} is a directory; cannot write the candidate's file there"
        if last and not stat.S_ISREG(st.st_mode):
            return f"{shown!r} is not a regular file in the work tree"
        if not last:
            real = os.path.realpath(cur)
            if os.path.commonpath([real, real_root]) != real_root:
                return f"its parent {shown!r} resolves outside the work tree ({real})"
    return None


def _check_candidate_paths(ref: str, root: Path, entries) -> None:
    """Raise UnsafeCandidate naming every path of the candidate that apply must not write."""
    problems = []
    paths = [e[0] for e in entries]
    seen = set()
    for path, old_mode, new_mode, _ob, _nb in entries:
        why = unsafe_path_reason(path)
        if why is None:
            for mode, where in ((new_mode, "tree"), (old_mode, "base")):
                if mode != "000000" and mode not in _REGULAR:
                    what = _MODE_WORDS.get(mode, f"an entry of mode {mode}")
                    why = f"it is {what} in the candidate's {where}; a candidate only changes regular files"
                    break
        if why is None and path in seen:
            why = "the candidate's tree lists it twice"
        if why is None and any(p.startswith(path + "/") for p in paths):
            why = "the candidate's tree has it both as a file and as a directory"
        if why is None:
            why = _work_tree_problem(root, path)
        seen.add(path)
        if why:
            problems.append(f"{path!r}: {why}")
    if problems:
        raise UnsafeCandidate(
            f"refusing to apply {ref[11:]}: " + "; ".join(problems) +
            ". A candidate only changes regular files of the work tree (the kernel and its "
            "launch spec); nothing was written. Delete the branch if you did not make it.")


def apply_candidate(repo_path, branch, force=False) -> list[str]:
    """Write the candidate's changed files into the working tree; returns the paths.

    Every changed path is checked first, as git's own ``verify_path`` would on any platform
    (``.git`` in any case or spelling, ``..``, ``.``, empty components, backslashes, Windows
    names), and against the work tree (no symbolic link among its parents or as the file
    itself); only regular files may change (no symbolic links, submodules). Any of these
    refuses the whole candidate with UnsafeCandidate before anything is written.
    A file is overwritten only if its working-tree content equals HEAD, the candidate's
    base, or the candidate itself (so no edit is lost); otherwise UncommittedChanges unless
    ``force``. The index and HEAD are never touched.
    """
    repo = check_repository(repo_path)
    ref, sha = _resolve(repo, branch)
    parent = _git(repo, "rev-parse", sha + "^")
    root = Path(repo.working_tree_dir)
    entries = _changed_entries(repo, parent, sha)
    _check_candidate_paths(ref, root, entries)
    if not force:
        for rel, old_mode, _new_mode, old_blob, new_blob in entries:
            path = root / rel
            if not os.path.lexists(path):
                continue
            cur = _hash_blob(repo, path.read_bytes(), rel)
            head = _tree_entry(repo, "HEAD", rel)
            safe = {b for b in (old_blob, new_blob) if set(b) != {"0"}}
            if head:
                safe.add(head[1])
            if cur not in safe:
                raise UncommittedChanges(
                    f"{path} has uncommitted changes that are neither in HEAD nor in the "
                    f"candidate's base {parent[:10]}; commit or stash them, or use --force "
                    f"to overwrite")
    # read every blob before the first write, so a git failure leaves the work tree as it was
    contents = {rel: (None if new_mode == "000000" else
                      _raw(repo, "cat-file", "--filters", f"--path={rel}", new_blob))
                for rel, _om, new_mode, _ob, new_blob in entries}
    written = []
    for rel, _old_mode, new_mode, _ob, _nb in entries:
        path = root / rel
        data = contents[rel]
        if data is None:  # the candidate removed it
            if os.path.lexists(path):
                path.unlink()
            written.append(str(path))
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_new(path, data, 0o755 if new_mode == "100755" else 0o644)
        written.append(str(path))
    return written


def _write_new(path: Path, data: bytes, mode: int) -> None:
    """Replace ``path`` by a new file: a temporary file of a fresh name (O_EXCL, never a link
    that is already there) beside it, then renamed over it."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = path.with_name(f".{path.name}.kernelpro-{secrets.token_hex(4)}")
        try:
            fd = os.open(tmp, flags, 0o600)
            break
        except FileExistsError:
            continue
    else:
        raise CandidateError(f"cannot create a temporary file beside {path}")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


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
            "unsafe" if isinstance(e, UnsafeCandidate) else
            "not-a-repository" if isinstance(e, NotARepository) else "error")
    return 1, json.dumps({"ok": False, "error": str(e), "kind": kind})
