"""The finished report of `kernelpro profile`, cached: a warm command skips parsing and the rules.

An entry is a file inside its compile cache entry (removing that removes it), named by a key
over the compile key and all else the report depends on: --kernel, --block, the launch
spec's outcome, kernelpro's own code, tree-sitter's files and the docs link. Written
atomically; stored only when those inputs read the same before and after the profile.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from importlib.util import find_spec
from pathlib import Path
from types import SimpleNamespace

from .advice import DOCS_URL, Advice
from .cachekey import CompileOptions, cache_dir, compile_key
from .specblocks import spec_block_sizes
from .toolchain import Toolchain

FORMAT = 1  # bump when the entry's layout changes
_PACKAGE = Path(__file__).resolve().parent


class CachedReport:
    """A report read back from the cache: what the command prints, nothing more."""

    def __init__(self, data: dict, diagnostics: list[dict], duration_s: float):
        self.data = data
        self.path, self.arch, self.ok, self.notes = data["file"], data["arch"], data["compiled"], data["notes"]
        self.analysed = data.get("analysed", True)
        self.cache_hit = True  # its compile cache entry exists: a full profile would hit it
        self.kernels = [SimpleNamespace(**k) for k in data["kernels"]]
        self.advice = [Advice.from_json(a) for a in data["advice"]]
        self.diagnostics = [SimpleNamespace(**d) for d in diagnostics]
        self.duration_s = duration_s

    @property
    def errors(self) -> list:
        return [d for d in self.diagnostics if d.severity == "error"]

    def to_json(self) -> dict:
        return {**self.data, "cache_hit": True, "duration_s": round(self.duration_s, 4)}


def code_version() -> str:
    """Kernelpro's own modules (rules, parsers, tables), the building-block headers advice links
    to (by line), Python, and tree-sitter's installed files."""
    h = hashlib.sha256(sys.version.encode())
    for f in sorted([*_PACKAGE.rglob("*.py"), *_PACKAGE.rglob("*.cuh")]):
        h.update(f"{f.relative_to(_PACKAGE)}\0".encode())
        h.update(f.read_bytes())
    for mod in ("tree_sitter", "tree_sitter_cuda"):
        spec = find_spec(mod)
        for d in (spec.submodule_search_locations or []) if spec else []:
            for e in sorted(os.scandir(d), key=lambda e: e.name):
                if e.is_file():
                    st = e.stat()
                    h.update(f"{mod}/{e.name}:{st.st_size}:{st.st_mtime_ns}\0".encode())
    return h.hexdigest()


def _inputs(path: Path, block: int | None) -> list:
    """What the report depends on beyond the compile key; read again after a profile."""
    spec = None if block else spec_block_sizes(path)  # as profile_file: --block overrides the spec
    return [spec, code_version(), DOCS_URL]


def _entry(ckey: str, kernel: str | None, block: int | None, inputs: list) -> Path:
    k = hashlib.sha256(json.dumps([FORMAT, ckey, kernel, block, inputs]).encode()).hexdigest()[:32]
    return cache_dir() / ckey / f"report-{k}.json"


def lookup(path: str | Path, options: CompileOptions, tc: Toolchain, kernel: str | None,
           block: int | None) -> tuple[CachedReport | None, tuple | None]:
    """(the cached report or None, a slot for store()); bad input raises as profile_file would."""
    t0 = time.perf_counter()
    k = compile_key(path, options, None, tc)
    inputs = _inputs(k.path, block)
    entry = _entry(k.key, kernel, block, inputs)
    slot = (k.key, kernel, block, inputs, entry)
    try:
        rec = json.loads(entry.read_text())
        if rec.get("format") != FORMAT:
            return None, slot
        return CachedReport(rec["report"], rec["diagnostics"], time.perf_counter() - t0), slot
    except (OSError, ValueError, KeyError, TypeError, AttributeError):  # no entry, or one this code cannot read
        return None, slot


def store(slot: tuple, rep) -> bool:
    """Keep a finished ProfileReport; False when its inputs moved meanwhile or there is no compile entry."""
    ckey, kernel, block, inputs, entry = slot
    if rep.artifact is None or rep.artifact.key != ckey or _inputs(Path(rep.path), block) != inputs:
        return False  # the source, a header, the spec or the code changed during the profile
    if not (entry.parent / "artifact.json").is_file():
        return False  # the compile was not cached (a timeout, an unwritable cache)
    rec = {"format": FORMAT, "report": rep.to_json(), "diagnostics": [d.to_json() for d in rep.diagnostics]}
    try:
        text = json.dumps(rec)
        if json.loads(text) != rec:
            return False  # a value JSON does not keep (a tuple, a number key): not cached
    except (TypeError, ValueError):
        return False
    import tempfile

    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".report-", suffix=".tmp", dir=entry.parent)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, entry)  # atomic: readers see a whole entry or none
        return True
    except OSError:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        return False
