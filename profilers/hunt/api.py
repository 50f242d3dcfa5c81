"""The hunter for callers: `hunt(query)` finds the corpus, builds its index once (cached under
the KernelPro cache dir) and searches it. Used by `kernelpro hunt` and the LLM coder's tool.
"""
from __future__ import annotations

import sqlite3
import threading

from .corpus import Corpus, discover
from .index import Hit, HuntError, Index, build, index_path

_lock = threading.Lock()
_open: dict[str, Index] = {}


def corpus_and_index(nvcc: str | None = None, rebuild: bool = False, progress=None) -> tuple[Corpus, Index]:
    """The corpus on this machine and its index, built when missing (or asked to).
    HuntError when no source of the corpus exists at all."""
    corpus = discover(nvcc)
    if not corpus.sources:
        raise HuntError("no corpus: " + "; ".join(f"{m.name}: {m.reason}" for m in corpus.missing))
    path = index_path(corpus)
    with _lock:
        if rebuild and str(path) in _open:
            _open.pop(str(path)).close()
        if str(path) in _open:
            return corpus, _open[str(path)]
        for attempt in (1, 2):
            if rebuild or not path.is_file():
                if progress:
                    progress(0, sum(len(s.files()) for s in corpus.sources))
                try:
                    build(corpus, path)
                except OSError as e:
                    raise HuntError(f"cannot write the index {path}: {e}") from None
            try:
                _open[str(path)] = Index(path)
                return corpus, _open[str(path)]
            except sqlite3.DatabaseError as e:  # a damaged cache file: build it again, once
                if attempt == 2:
                    raise HuntError(f"the index {path} cannot be read: {e}") from None
                rebuild = True
        raise AssertionError("unreachable")


def hunt(query: str, limit: int = 5, sources: list[str] | None = None, nvcc: str | None = None) -> list[Hit]:
    """The best building blocks for `query` (HuntError for an empty query or no corpus)."""
    if not query or not query.strip():
        raise HuntError("empty query: say what you are looking for, e.g. 'warp reduce sum'")
    return corpus_and_index(nvcc)[1].search(query, limit=limit, sources=sources)
