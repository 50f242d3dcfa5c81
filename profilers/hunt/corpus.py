"""The hunter's corpus: where each body of code lives on this machine, and its version.

Sources: KernelPro's own building blocks (package data), the CUTLASS/CuTe headers, tools
headers and examples that the `nvidia-cutlass` wheel ships, and the toolkit's CUB, libcu++
and cooperative-groups headers (found through nvcc, see toolchain.include_dirs). A source
that is not here is reported with how to get it, never silently skipped.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
from dataclasses import dataclass, field
from pathlib import Path

from . import library

HEADER_SUFFIXES = (".h", ".hpp", ".cuh", ".inl", ".hxx")
CODE_SUFFIXES = HEADER_SUFFIXES + (".cu", ".cpp", ".cc")
NAMES = ("kernelpro", "cutlass", "cutlass-examples", "cub", "libcu++", "cooperative_groups")


@dataclass(frozen=True)
class Source:
    name: str  # one of NAMES
    title: str
    root: Path  # scanned recursively (or a single file)
    include_root: Path | None  # what #include paths are relative to; None: examples, not headers
    version: str
    flags: str = ""  # nvcc flags needed to include it ("" when nvcc finds it by itself)
    suffixes: tuple[str, ...] | None = HEADER_SUFFIXES  # None: every file (libc++-style headers)
    extra: tuple[Path, ...] = ()  # more roots with the same include_root

    def files(self) -> list[Path]:
        out: list[Path] = []
        for r in (self.root, *self.extra):
            if r.is_file():
                out.append(r)
                continue
            for p in sorted(r.rglob("*")):
                if p.is_file() and (self.suffixes is None or p.suffix in self.suffixes):
                    out.append(p)
        return out


@dataclass(frozen=True)
class Missing:
    name: str
    reason: str  # what was looked for, and how to get it


@dataclass
class Corpus:
    sources: list[Source] = field(default_factory=list)
    missing: list[Missing] = field(default_factory=list)

    def key(self, code_version: str) -> str:
        """Changes when any source, its version, or the indexer's code changes."""
        desc = [(s.name, str(s.root), s.version, [str(e) for e in s.extra]) for s in self.sources]
        return hashlib.sha256(json.dumps([desc, code_version]).encode()).hexdigest()[:20]

    def source(self, name: str) -> Source | None:
        return next((s for s in self.sources if s.name == name), None)


def discover(nvcc: str | None = None) -> Corpus:
    """Find every source; `nvcc` is the compiler whose toolkit headers to use (default: the
    one toolchain.discover finds)."""
    c = Corpus()
    c.sources.append(Source("kernelpro", "KernelPro building blocks", library.LIBRARY_DIR, library.INCLUDE_DIR,
                            library.version(), f"-I{library.INCLUDE_DIR}"))
    _cutlass(c)
    _toolkit(c, nvcc)
    return c


def cutlass_root() -> Path | None:
    """The `source/` folder of the installed nvidia-cutlass wheel (include/, examples/, tools/)."""
    spec = importlib.util.find_spec("cutlass_library")  # locates it without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(list(spec.submodule_search_locations)[0]) / "source"
    return root if (root / "include" / "cute").is_dir() else None


def _cutlass(c: Corpus) -> None:
    root = cutlass_root()
    if root is None:
        msg = "the nvidia-cutlass package is not installed (pip install nvidia-cutlass)"
        c.missing += [Missing("cutlass", msg), Missing("cutlass-examples", msg)]
        return
    from importlib.metadata import PackageNotFoundError, version

    try:
        ver = version("nvidia-cutlass")
    except PackageNotFoundError:
        ver = "unknown"
    inc = root / "include"
    util = root / "tools" / "util" / "include"
    c.sources.append(Source("cutlass", f"CUTLASS/CuTe {ver} headers", inc, inc, ver, f"-I{inc}",
                            extra=(util,) if util.is_dir() else ()))
    ex = root / "examples"
    if ex.is_dir():
        c.sources.append(Source("cutlass-examples", f"CUTLASS {ver} examples", ex, None, ver, f"-I{inc}",
                                suffixes=CODE_SUFFIXES))
    else:
        c.missing.append(Missing("cutlass-examples", f"nvidia-cutlass {ver} ships no examples/ folder"))


def _toolkit(c: Corpus, nvcc: str | None) -> None:
    from ..toolchain import ToolchainError, discover, include_dirs

    try:
        nvcc = nvcc or discover().path("nvcc")
        dirs = [Path(d) for d in include_dirs(nvcc)]
        ver = discover({"nvcc": nvcc}).tools["nvcc"].version
    except (ToolchainError, KeyError) as e:
        for n in ("cub", "libcu++", "cooperative_groups"):
            c.missing.append(Missing(n, f"no CUDA toolkit: {e}"))
        return

    def find(rel: str) -> Path | None:
        return next((d / rel for d in dirs if (d / rel).exists()), None)

    for name, title, rel, suffixes in (("cub", "CUB", "cub", HEADER_SUFFIXES), ("libcu++", "libcu++", "cuda", None)):
        p = find(rel)
        if p is None:
            c.missing.append(Missing(name, f"{rel}/ is not in the toolkit's include directories ({', '.join(map(str, dirs))})"))
        else:
            c.sources.append(Source(name, f"{title} (CUDA {ver})", p, p.parent, f"{ver}:{p}", "", suffixes))
    cg = find("cooperative_groups.h")
    if cg is None:
        c.missing.append(Missing("cooperative_groups", f"cooperative_groups.h is not in {', '.join(map(str, dirs))}"))
    else:
        sub = cg.parent / "cooperative_groups"
        c.sources.append(Source("cooperative_groups", f"cooperative groups (CUDA {ver})", cg, cg.parent, f"{ver}:{cg}",
                                "", extra=(sub,) if sub.is_dir() else ()))


def include_for(src: Source, path: Path) -> tuple[str, str]:
    """How to include `path` of `src`: (`#include <...>` of its public header, or a note for an
    example; the nvcc flags it needs)."""
    if src.include_root is None:
        return f"example code, not a header: read or copy from {path}", src.flags
    root, flags = src.include_root, src.flags
    for r in src.extra:  # cutlass/util/... lives under tools/util/include
        if r.is_dir() and r.name == "include" and path.is_relative_to(r):
            root, flags = r, f"{src.flags} -I{r}".strip()
    rel = path.relative_to(root) if path.is_relative_to(root) else Path(path.name)
    parts = rel.parts
    for i, p in enumerate(parts):  # libcu++ internals: cuda/std/__atomic/x.h -> <cuda/std/atomic>
        if p.startswith("__") and i > 0:
            public = Path(*parts[:i], p.lstrip("_"))
            if (root / public).is_file():
                rel = public
            break
    if src.name == "kernelpro":  # the GEMM needs CUTLASS and sm_90a
        b = library.block(rel.as_posix())
        root = cutlass_root()
        flags = " ".join(library.nvcc_flags(rel.as_posix(), root / "include" if root else None))
        if b is not None and b.arch != "sm_90":
            flags += f" -arch={b.arch}"
    return f"#include <{rel.as_posix()}>", flags
