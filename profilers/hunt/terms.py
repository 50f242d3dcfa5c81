"""Index terms: identifiers split on camelCase, snake_case and digits, English stems.

`BlockRadixSort` -> block, radix, sort, and the joins blockradix, radixsort, blockradixsort;
`SM90_TMA_LOAD` -> sm90, tma, load, ...; `F32BF16BF16` -> f32, bf16; `64x128x16` stays
whole. Words are stemmed with the Snowball English stemmer (`sorting` -> sort). The joins of
adjacent parts let a query written as words ("warp reduce") meet a name written as one
identifier (WarpReduce) with extra weight. The query side adds a few domain synonyms
(smem = shared, wgmma = gmma, ...): spellings CUDA code uses for the same thing.
"""
from __future__ import annotations

import re
from functools import lru_cache

import snowballstemmer

_WORD = re.compile(r"\d+(?:x\d+)+|[A-Za-z_][A-Za-z0-9_]*|\d+")
_PART = re.compile(r"\d+(?:x\d+)+|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+(?:\d+[a-z]*)*|[A-Z]+\d*|\d+[a-z]*")
_ARCH_VARIANT = re.compile(r"^([a-z]+\d+)[a-z]$")  # sm90a -> also sm90

STOPWORDS = frozenset("""a an the to of for in on and or with by from into how do does i can use using is are be
    that this it as at my me we you want need find which what where code function way""".split())

# Spellings that mean the same thing in CUDA code. Each query word brings its group along.
SYNONYMS = (
    ("reduce", "reduction"),
    ("gemm", "matmul"),
    ("wgmma", "gmma"),
    ("smem", "shared"),
    ("gmem", "global"),
    ("rmem", "register"),
    ("bf16", "bfloat16"),
    ("fp16", "f16", "half"),
    ("fp32", "f32"),
    ("fp64", "f64"),
    ("fp8", "e4m3", "e5m2", "float8"),
    ("tf32", "tfloat32"),
    ("transpose", "transposition"),
    ("shuffle", "shfl"),
    ("ldmatrix", "ldsm"),
    ("stmatrix", "stsm"),
    ("async", "asynchronous"),
    ("sync", "synchronize"),
    ("vector", "vectorized", "vec"),
    ("prefix", "scan"),
    ("cta", "threadblock"),
    # abbreviations common in code
    ("ref", "reference"),
    ("ptr", "pointer"),
    ("idx", "index"),
    ("addr", "address"),
    ("mem", "memory"),
    ("elem", "element"),
    ("dim", "dimension"),
    ("alloc", "allocate", "allocation"),
    ("param", "parameter"),
    ("config", "configuration"),
    ("impl", "implementation"),
    ("len", "length"),
    ("max", "maximum"),
    ("min", "minimum"),
    ("src", "source"),
    ("dst", "destination"),
)


_stemmer = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    w = word.lower()
    return _stemmer.stemWord(w) if w.isalpha() else w


def _variants(t: str) -> tuple[str, ...]:
    m = _ARCH_VARIANT.match(t)
    return (t, m.group(1)) if m else (t,)


@lru_cache(maxsize=65536)
def word_terms(word: str) -> tuple[str, ...]:
    """Terms of one identifier: its stemmed parts, the joins of adjacent parts, the whole."""
    parts = [stem(p) for p in _PART.findall(word)]
    if not parts:
        return ()
    out = list(parts)
    if len(parts) > 1:
        out += [a + b for a, b in zip(parts, parts[1:])]
        if len(parts) > 2:
            out.append("".join(parts))
    return tuple(v for t in out for v in _variants(t))


def parts(text: str) -> list[str]:
    """The stemmed parts of every identifier in text, without the joins."""
    return [stem(p) for w in _WORD.findall(text) for p in _PART.findall(w)]


def terms(text: str) -> list[str]:
    out: list[str] = []
    for w in _WORD.findall(text):
        out += word_terms(w)
    return out


def doc_terms(text: str) -> str:
    """Index text for a column: its terms, space separated."""
    return " ".join(terms(text))


_GROUPS = {stem(w): tuple(stem(x) for x in g) for g in SYNONYMS for w in g}


def query_groups(query: str) -> list[tuple[str, ...]]:
    """One group of alternative terms per meaningful query word (its synonyms), then the
    joins of an identifier's parts and of adjacent words as groups of their own, marked by
    a leading '+' (they add weight, they are not needed)."""
    words = [w for w in _WORD.findall(query) if w.lower() not in STOPWORDS]
    groups: list[tuple[str, ...]] = []
    parts: list[str] = []

    def add(g):
        if g not in groups:
            groups.append(g)

    for w in words:
        ps = [stem(p) for p in _PART.findall(w)]
        parts += ps
        for p in ps:  # the word as typed first, then its synonyms
            add(tuple(dict.fromkeys(_variants(p) + _GROUPS.get(p, ()))))
        if 1 < len(ps) <= 4:
            add(tuple("+" + v for v in _variants("".join(ps))))
    for a, b in zip(parts, parts[1:]):
        add(tuple("+" + v for v in _variants(a + b)))
    return groups
