"""Compile many whole-file variants of one source (candidates) in few nvcc calls, for tests that only
need to know that each compiles and builds its kernel.

The variants with the same extra flags and the same #include lines go in one file: the includes once at
the top, then each variant in its own namespace with its kernel renamed and every macro of the group
#undef'd before it (so no variant sees another's names or macros). A group that fails, or lacks one of
its kernels, is compiled variant by variant, which says which one is at fault.
"""
from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from kernelpro.profilers.compile import CompileOptions, compile_cuda

_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include\b.*$", re.M)
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.M)


def compile_each(path: str, items: list[tuple[str, str, tuple[str, ...]]],
                 options: CompileOptions = CompileOptions()) -> list[list[str] | None]:
    """items: (kernel, source, extra flags). For each: None when it compiles and builds its kernel, else
    the compiler's error messages (empty when it compiled without that kernel)."""
    groups: dict[tuple, list[int]] = {}
    for i, (_, src, flags) in enumerate(items):
        groups.setdefault((tuple(flags), tuple(_INCLUDE.findall(src))), []).append(i)

    def together(key_idx) -> list[int]:
        """Compile one group in one call; the indices that must be compiled alone."""
        (flags, includes), idx = key_idx
        if len(idx) == 1:
            return idx
        macros = sorted({m for i in idx for m in _DEFINE.findall(items[i][1])})
        parts = list(includes)
        for n, i in enumerate(idx):
            kernel, src, _ = items[i]
            parts += [f"#undef {m}" for m in macros]
            body = re.sub(rf"\b{re.escape(kernel)}\b", f"{kernel}_kpc{n}", _INCLUDE.sub("", src))
            parts.append(f"namespace kp_c{n} {{\n{body}\n}}  // namespace kp_c{n}")
        art = compile_cuda(path, replace(options, extra_flags=flags), text="\n".join(parts) + "\n")
        if art.ok and all(art.builds(f"{items[i][0]}_kpc{n}") for n, i in enumerate(idx)):
            return []
        return idx

    def alone(i: int) -> list[str] | None:
        kernel, src, flags = items[i]
        art = compile_cuda(path, replace(options, extra_flags=tuple(flags)), text=src)
        return None if art.ok and art.builds(kernel) else [d.message for d in art.errors]

    out: list[list[str] | None] = [None] * len(items)
    with ThreadPoolExecutor(2) as pool:
        single = sorted(i for idx in pool.map(together, groups.items()) for i in idx)
        for i, problem in zip(single, pool.map(alone, single)):
            out[i] = problem
    return out


def candidates_compile(proposer, cands) -> list[str | None]:
    """For each candidate of a BuiltinProposer: what `proposer.compile_error(c)` says (None when it compiles
    and builds the proposer's kernel; else the errors), with the proposer's own compile options and the
    candidate's flags, but the candidates compiled together (compile_each)."""
    o = proposer.options
    opts = CompileOptions(arch=o.arch, include_paths=o.include_paths, defines=o.defines, timeout_s=o.timeout_s)
    items = [(proposer.kernel, c.source, tuple(o.extra_flags) + tuple(c.flags)) for c in cands]
    return [None if p is None else "compile: " + ("; ".join(p[:3]) or f"kernel {proposer.kernel!r} is missing from the build")
            for p in compile_each(proposer.path, items, opts)]
