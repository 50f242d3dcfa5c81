"""Kernel symbols as C++: `_Z6reduceIfLj256EEvPKT_PS0_i` -> `reduce<float, 256>` and its arguments.

A template kernel has one build per instantiation; its template arguments (read from the
demangled signature) tell the rules which element type and constants that build has.
"""
from __future__ import annotations

import re
from functools import lru_cache

_INT_SUFFIX = re.compile(r"^(-?\d+)(?:u|l|ul|ll|ull)$", re.I)


@lru_cache(maxsize=None)
def signature(mangled: str) -> str:
    """The demangled signature (`void reduce<float, 256u>(float const*, float*, int)`), or the
    symbol itself when it is not a C++ name."""
    if not mangled.startswith("_Z"):
        return mangled
    try:
        import cxxfilt

        return cxxfilt.demangle(mangled)
    except Exception:  # an unknown mangling or no C++ runtime to ask: keep the symbol
        return mangled


def _split_top(s: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _clean(arg: str) -> str:
    m = _INT_SUFFIX.match(arg)
    return m.group(1) if m else arg


@lru_cache(maxsize=None)
def template_args(mangled: str, name: str) -> tuple[str, ...] | None:
    """The template arguments of kernel `name` in this symbol, or None for a plain function."""
    sig = signature(mangled)
    m = re.search(rf"(?:^|[\s:]){re.escape(name)}<", sig)
    if m is None:
        return None
    start, depth = m.end(), 1
    for i in range(start, len(sig)):
        depth += {"<": 1, ">": -1}.get(sig[i], 0)
        if depth == 0:
            return tuple(_clean(a) for a in _split_top(sig[start:i]))
    return None


def label(mangled: str, name: str) -> str:
    """`reduce<float, 256>` for an instantiation, the plain name otherwise."""
    args = template_args(mangled, name)
    return f"{name}<{', '.join(args)}>" if args is not None else name
