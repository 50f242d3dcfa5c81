"""The hunter's index: SQLite FTS5 over the corpus's symbols, ranked with BM25, cached.

Why FTS5: it ships inside Python's sqlite3 (no dependency), keeps the index on disk, so the
cache *is* the index and a query opens it and reads a few pages instead of loading a
model, and its bm25() takes a weight per column (BM25F-like: a word in a symbol's name
counts more than one in its comment). bm25s and rank-bm25 hold the whole index in memory
(rank-bm25 scores every document in Python on every query), which costs more than our
50 ms on each `kernelpro hunt` run.

Columns: name (the symbol's own name), scope (namespaces and classes), path (its file),
doc (its documentation comment), code (signature and body identifiers), src (the source,
for filtering). All hold terms.py's terms. BM25 picks 400 candidates; the order is then
refined by how many of the query's words the name, scope and path cover, and by priors
(internal `_names` and `detail` scopes down, overloads merged into one hit).

Built once per corpus version (corpus.Corpus.key), at <cache>/hunt/index-<key>.sqlite,
written to a temporary file and renamed into place.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
import sqlite3
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from . import terms as T
from .corpus import Corpus, Source, include_for

INDEX_FORMAT = 1
WEIGHTS = (6.0, 3.0, 2.0, 3.0, 0.5, 0.0)  # name, scope, path, doc, code, src
COVER = 2.0  # weight of _cover against the normalized BM25 score
PRECISION = 0.5  # weight of _precision
JOIN_DF = 3  # adjacent query words whose join names at least this many symbols are one concept
CANDIDATES = 120
COMMON = 0.2  # a word in more than this share of the symbols is left out of the BM25 query
CODE_IDENTS = 20  # body identifiers kept per symbol (the signature is always kept)
EXCERPT = 240
_MODULES = ("extract.py", "terms.py", "index.py", "corpus.py")


class HuntError(Exception):
    """A query that cannot run (empty, no searchable word, no corpus): one line for the user."""


@dataclass
class Hit:
    source: str
    file: str
    start_line: int
    end_line: int
    symbol: str
    kind: str
    excerpt: str  # the first sentences of its documentation, or its signature
    signature: str
    include: str  # `#include <...>` or, for examples, where to read it
    flags: str  # nvcc flags the include needs ("" when nvcc finds it)
    score: float
    overloads: int = 1

    @property
    def url(self) -> str:
        """A link an editor opens at the symbol's first line."""
        return f"{Path(self.file).as_uri()}#L{self.start_line}"

    def to_json(self) -> dict:
        d = asdict(self)
        d["url"] = self.url
        return d

    def text(self) -> str:
        flags = f"  (nvcc {self.flags})" if self.flags else ""
        more = f" (+{self.overloads - 1} overloads)" if self.overloads > 1 else ""
        return (f"{self.symbol or Path(self.file).name} [{self.kind}, {self.source}]{more}\n"
                f"  {self.file}:{self.start_line}-{self.end_line}\n"
                f"  {self.excerpt}\n"
                f"  {self.include}{flags}")


def code_version() -> str:
    here = Path(__file__).resolve().parent
    h = hashlib.sha256(str(INDEX_FORMAT).encode())
    for m in _MODULES:
        h.update((here / m).read_bytes())
    return h.hexdigest()[:12]


def index_path(corpus: Corpus) -> Path:
    from ..cachekey import cache_dir

    return cache_dir().parent / "hunt" / f"index-{corpus.key(code_version())}.sqlite"


# --- building -----------------------------------------------------------------------------------
def _file_rows(job: tuple[str, str, str]) -> list[tuple]:
    """Index rows of one file (runs in a worker process)."""
    from .extract import extract

    source, path, rel = job
    try:
        data = Path(path).read_bytes()
    except OSError:
        return []
    rows = []
    path_terms = T.doc_terms(rel.replace("/", " ").rsplit(".", 1)[0])
    for s in extract(data):
        own, _, scope = _split_name(s.name)
        if s.kind == "file":
            own, scope = Path(rel).stem, ""
        base = _strip_templates(own)
        code = " ".join([own[len(base):], s.signature, " ".join(s.idents.split()[:CODE_IDENTS])])
        rows.append((source, path, s.start, s.end, s.name or rel, s.kind, s.signature, s.doc[:1000],
                     T.doc_terms(base), T.doc_terms(_strip_templates(scope)), path_terms, " ".join(T.parts(base)),
                     T.doc_terms(s.doc), T.doc_terms(code)))
    return rows


def _strip_templates(name: str) -> str:
    """cutlass::CollectiveMma<Mainloop<...>, X>::load -> cutlass::CollectiveMma::load"""
    out, depth = [], 0
    for ch in name:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(depth - 1, 0)
        elif depth == 0:
            out.append(ch)
    return "".join(out).strip()


def _split_name(q: str) -> tuple[str, str, str]:
    """('Sum', '::', 'cub::BlockReduce') for cub::BlockReduce::Sum (templates kept whole)."""
    depth, cut = 0, -1
    for i, ch in enumerate(q):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == ":" and depth == 0 and q[i:i + 2] == "::":
            cut = i
    return (q[cut + 2:], "::", q[:cut]) if cut >= 0 else (q, "", "")


def build(corpus: Corpus, path: Path, progress=None, workers: int | None = None) -> dict:
    """Index every file of the corpus into `path` (atomically). Returns the build's stats."""
    from concurrent.futures import ProcessPoolExecutor

    if not corpus.sources:
        raise HuntError("no corpus to index: " + "; ".join(f"{m.name}: {m.reason}" for m in corpus.missing))
    t0 = time.monotonic()
    jobs, stats = [], {}
    for src in corpus.sources:
        files = src.files()
        base = src.include_root or src.root
        for f in files:
            rel = f.relative_to(base).as_posix() if f.is_relative_to(base) else f.name
            jobs.append((src.name, str(f), rel))
        stats[src.name] = {"files": len(files), "symbols": 0, "version": src.version, "root": str(src.root)}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.unlink(missing_ok=True)
    db = sqlite3.connect(tmp)
    try:
        db.executescript("""
            PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;
            CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
            CREATE TABLE sym(id INTEGER PRIMARY KEY, source TEXT, file TEXT, start INT, "end" INT, name TEXT,
                             kind TEXT, signature TEXT, doc TEXT, nt TEXT, st TEXT, pt TEXT, np TEXT);
            CREATE VIRTUAL TABLE fts USING fts5(name, scope, path, doc, code, src, content='');
        """)
        by_source = {s.name: s for s in corpus.sources}
        workers = workers or min(4, os.cpu_count() or 1)
        done = 0
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for rows in pool.map(_file_rows, jobs, chunksize=16):
                done += 1
                if progress and done % 200 == 0:
                    progress(done, len(jobs))
                for r in rows:
                    src = r[0]
                    cur = db.execute("INSERT INTO sym(source, file, start, \"end\", name, kind, signature, doc, nt, st, pt, np) "
                                     "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", r[:12])
                    db.execute("INSERT INTO fts(rowid, name, scope, path, doc, code, src) VALUES (?,?,?,?,?,?,?)",
                               (cur.lastrowid, *r[8:11], *r[12:14], src_token(src)))
                    stats[src]["symbols"] += 1
        db.execute("INSERT INTO fts(fts) VALUES ('optimize')")
        # document frequency of every term, for the coverage weights at query time
        db.executescript("""
            CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, fts, 'row');
            CREATE TABLE df(term TEXT PRIMARY KEY, n INT) WITHOUT ROWID;
            INSERT INTO df SELECT term, doc FROM temp.vocab;
        """)
        meta = {"sources": stats, "symbols": sum(v["symbols"] for v in stats.values()), "missing": {m.name: m.reason for m in corpus.missing},
                "includes": {s.name: {"root": str(s.root), "include_root": str(s.include_root or ""),
                                      "flags": s.flags, "extra": [str(e) for e in s.extra]}
                             for s in by_source.values()},
                "built_s": round(time.monotonic() - t0, 1), "format": INDEX_FORMAT}
        db.execute("INSERT INTO meta VALUES ('corpus', ?)", (json.dumps(meta),))
        db.commit()
    finally:
        db.close()
    os.replace(tmp, path)
    return meta


# --- searching ----------------------------------------------------------------------------------
class Index:
    def __init__(self, path: Path):
        self.path = path
        self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        self.db.execute("PRAGMA mmap_size=268435456")
        self.meta = json.loads(self.db.execute("SELECT value FROM meta WHERE key='corpus'").fetchone()[0])
        self._sources: dict[str, Source] = {}

    def close(self) -> None:
        self.db.close()

    def search(self, query: str, limit: int = 10, sources: list[str] | None = None) -> list[Hit]:
        """The best `limit` symbols for `query`; [] when nothing matches. HuntError for an
        empty query or one with no searchable word."""
        if not query or not query.strip():
            raise HuntError("empty query: say what you are looking for, e.g. 'warp reduce sum'")
        groups = T.query_groups(query)
        if not any(not g[0].startswith("+") for g in groups):
            raise HuntError(f"no searchable word in {query!r} (only stop words or punctuation)")
        df = self._df(groups)
        n = max(self.meta.get("symbols", 1), 1)
        words = sorted({t for g in groups for t in g if not t.startswith("+") and df.get(t)})
        rare = [w for w in words if df[w] <= COMMON * n]
        if len(rare) >= 2:  # very common words add little to BM25 and cost the most: they count in _cover
            words = rare
        if not words:
            return []
        match = "{name scope path doc code} : (" + " OR ".join(f'"{w}"' for w in words) + ")"
        if sources:
            match = f"({match}) AND src : (" + " OR ".join(f'"{src_token(s)}"' for s in sources) + ")"
        ranked = f"SELECT rowid, bm25(fts, {', '.join(map(str, WEIGHTS))}) AS r FROM fts WHERE fts MATCH ? ORDER BY r LIMIT ?"
        rows = self.db.execute(ranked, (match, CANDIDATES)).fetchall()
        if not rows:
            return []
        bm = {rid: -r for rid, r in rows}
        top = max(bm.values()) or 1.0
        idf = {t: math.log(1.0 + n / c) for t, c in df.items() if c}
        concepts = _concepts(groups, df)
        marks = ",".join("?" * len(bm))
        cands = self.db.execute(f"SELECT id, source, file, start, \"end\", name, kind, signature, doc, nt, st, pt, np "
                                f"FROM sym WHERE id IN ({marks})", list(bm)).fetchall()
        asked = {t for g in groups for t in g if not t.startswith("+")}
        best: dict[str, list] = {}  # one hit per name (overloads, copies in several files)
        for rid, source, file, start, end, name, kind, sig, doc, nt, st, pt, np in cands:
            cover, prec = _cover(concepts, idf, groups, nt, st, pt), _precision(np, asked)
            score = bm[rid] / top * (1.0 + COVER * cover + PRECISION * prec) * _prior(source, name, kind)
            key = name if kind != "file" else file
            old = best.get(key)
            if old is None:
                best[key] = [score, 1, (source, file, start, end, name, kind, sig, doc)]
            else:
                old[1] += 1
                if score > old[0]:
                    old[0], old[2] = score, (source, file, start, end, name, kind, sig, doc)
        ranked = sorted(best.values(), key=lambda b: (-b[0], b[2][1], b[2][2]))[:limit]
        hits = []
        for score, count, row in ranked:
            h = self._hit(*row, score)
            h.overloads = count
            hits.append(h)
        return hits

    def _df(self, groups) -> dict[str, int]:
        """Document frequencies of the query's terms and of the joins of adjacent words."""
        core = [g[0] for g in groups if not g[0].startswith("+")]
        words = sorted({t.lstrip("+") for g in groups for t in g} | {a + b for a, b in zip(core, core[1:])})
        marks = ",".join("?" * len(words))
        return dict(self.db.execute(f"SELECT term, n FROM df WHERE term IN ({marks})", words))

    def _hit(self, source, file, start, end, name, kind, sig, doc, score) -> Hit:
        src = self._source(source)
        inc, flags = include_for(src, Path(file)) if src is not None else ("", "")
        return Hit(source, file, start, end, name if kind != "file" else "", kind, _excerpt(doc, sig), sig, inc,
                   flags, round(score, 4))

    def _source(self, name: str) -> Source | None:
        if name not in self._sources:
            d = self.meta["includes"].get(name)
            if d is None:
                return None
            self._sources[name] = Source(name, name, Path(d["root"]),
                                         Path(d["include_root"]) if d["include_root"] else None, "", d["flags"],
                                         extra=tuple(Path(e) for e in d.get("extra", ())))
        return self._sources[name]


def _concepts(groups: list[tuple[str, ...]], df: dict[str, int]) -> list[list[tuple[str, ...]]]:
    """The query's words as concepts: adjacent words whose join is itself a term of the corpus
    (shared memory -> sharedmemory, radix sort -> radixsort) form one concept, so a two-word
    name of one idea does not count twice against a rarer word."""
    core = [g for g in groups if not g[0].startswith("+")]
    out: list[list[tuple[str, ...]]] = []
    for i, g in enumerate(core):
        if out and i > 0 and df.get(core[i - 1][0] + g[0], 0) >= JOIN_DF:
            out[-1].append(g)
        else:
            out.append([g])
    return out


def _cover(concepts, idf: dict[str, float], groups, nt: str, st: str, pt: str) -> float:
    """How much of the query the symbol's name (1), scope (0.8) and path (0.4) say, 0 to 1:
    each concept weighted by its rarity in the corpus (idf), plus up to 0.5 for joins of
    adjacent query words found whole in the name (0.25 each) or scope (0.15)."""
    name, scope, path = set(nt.split()), set(st.split()), set(pt.split())

    def level(g) -> float:
        """1 name, 0.8 scope, 0.4 path; a synonym of the word typed counts 0.7 of that."""
        for where, w in ((name, 1.0), (scope, 0.8), (path, 0.4)):
            if g[0] in where:
                return w
            if any(t in where for t in g[1:]):
                return 0.7 * w
        return 0.0

    def weight(g) -> float:
        return idf.get(g[0]) or max((idf.get(t, 0.0) for t in g), default=0.0)

    total = got = bonus = 0.0
    for c in concepts:  # a concept of several words: their levels averaged by rarity
        ws = [weight(g) for g in c]
        total += max(ws)
        got += max(ws) * (sum(w * level(g) for w, g in zip(ws, c)) / sum(ws) if sum(ws) else 0.0)
    for g in groups:
        if g[0].startswith("+"):
            if any(t[1:] in name for t in g):
                bonus += 0.25
            elif any(t[1:] in scope for t in g):
                bonus += 0.15
    return (got / total if total else 0.0) + min(bonus, 0.5)


_QUALIFIER_PART = re.compile(r"^(?:sm\d+[a-z]?|\d+(?:x\d+)*)$")  # sm90, 128, 64x128x16


def _precision(name_parts: str, asked: set[str]) -> float:
    """The share of the name's words that the query asked for: Swizzle for 'swizzle shared
    memory layout' is 1, tma_descriptor_replace_addr_in_shared_mem 2 of 7. Architecture tags
    and numbers not asked for do not count (SM90_TMA_STORE is all 'tma store')."""
    parts = [p for p in name_parts.split() if p in asked or not _QUALIFIER_PART.match(p)]
    return sum(1 for p in parts if p in asked) / len(parts) if parts else 0.0


def src_token(name: str) -> str:
    """A source's name as one index term (cutlass-examples -> cutlassexamples)."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _prior(source: str, name: str, kind: str) -> float:
    own, _, scope = _split_name(name)
    p = 1.0
    if source == "kernelpro":
        p *= 1.15  # documented, tested, sm_90-checked blocks written for KernelPro's advice
    if own.startswith("_"):
        p *= 0.5
    if any(s in scope for s in ("detail", "__", "impl", "internal")):
        p *= 0.7
    p *= {"macro": 0.7, "alias": 0.8, "file": 0.9}.get(kind, 1.0)
    if source == "cutlass-examples":
        p *= 0.9
    return p


def _excerpt(doc: str, sig: str) -> str:
    text = doc or sig
    if len(text) <= EXCERPT:
        return text
    cut = text.rfind(". ", 0, EXCERPT)
    return text[:cut + 1] if cut > 60 else text[:EXCERPT].rstrip() + "..."
