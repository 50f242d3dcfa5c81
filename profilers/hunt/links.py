"""Links from advice to KernelPro's building blocks: cheap (one small header read and parsed,
no index), so a rule can attach them while it runs."""
from __future__ import annotations

from functools import lru_cache

from ..advice import Link
from .library import BLOCKS, LIBRARY_DIR


def block_link(symbol: str) -> list[Link]:
    """[a Link to the definition of `symbol` (e.g. "kernelpro::block_reduce_sum") in KernelPro's
    library], or [] when it is not there (a rule never fails for a missing link)."""
    found = _definitions().get(symbol)
    if found is None:
        return []
    header, line = found
    from .corpus import Source, include_for
    from .library import INCLUDE_DIR

    src = Source("kernelpro", "", LIBRARY_DIR, INCLUDE_DIR, "", f"-I{INCLUDE_DIR}")
    inc, flags = include_for(src, header)
    return [Link(symbol, f"{header.as_uri()}#L{line}", f"{inc}, nvcc {flags}")]


@lru_cache(maxsize=1)
def _definitions() -> dict:
    from .extract import extract

    out: dict[str, tuple] = {}
    for b in BLOCKS:
        path = LIBRARY_DIR.parent / b.header
        try:
            syms = extract(path.read_bytes())
        except OSError:
            continue
        for s in syms:
            if s.kind != "file":
                out.setdefault(s.name, (path, s.start))
    return out
