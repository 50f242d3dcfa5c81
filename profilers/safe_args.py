"""nvcc's command line with no workspace string it could interpret.

nvcc runs its host preprocessor and cicc through `sh -c`, putting each value in double
quotes, and splits the values of -I and -D at commas. So `$(...)`, backticks, `"` and `\\`
in a file name, an include path, a -D value or a compile database's `directory` would run
commands, and a comma would split one value in two. Here every path that is not plainly
safe is reached through a safely named link in the compile's private folder, every -D
with such a character becomes a `#define` in a generated header passed with `-include`,
and `check` refuses any argument still unsafe. `unmap` turns the links back into the
user's paths in whatever nvcc and nvdisasm print.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from .cachekey import CompileError

_SHELL = re.compile(r'[$`"\\\x00-\x1f\x7f]')  # what sh interprets inside double quotes (and line breaks)
_UNSAFE = re.compile(r'[$`"\\,\x00-\x1f\x7f]')  # ... and the comma nvcc splits -I and -D values at
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")
_MACRO = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\([A-Za-z0-9_, ]*\))?")


def unsafe_char(s: str) -> str | None:
    """The first character nvcc's shell or its comma splitting would interpret, or None."""
    m = _UNSAFE.search(s)
    return m.group(0) if m else None


def _plain_path(p: str) -> bool:
    return p.isascii() and unsafe_char(p) is None


def compile_name(src: Path) -> str:
    """The name the source is compiled under: its own when plain ASCII, else kernel<suffix>."""
    if _PLAIN_NAME.fullmatch(src.name):
        return src.name
    suffix = src.suffix if _PLAIN_NAME.fullmatch(src.suffix.lstrip(".") or "-") else ".cu"
    return "kernel" + (suffix or ".cu")


class SafeArgs:
    """Builds the path and define arguments of one compile inside its private folder `work`."""

    def __init__(self, work: Path):
        self.work = work
        self.links: list[tuple[str, str]] = []  # (link path, the user's path)
        self.defines: list[str] = []  # -D values moved into the generated header

    def path(self, p: str) -> str:
        """`p`, or a link to it named inc/N when `p` is not plain."""
        if _plain_path(p):
            return p
        for link, target in self.links:
            if target == p:
                return link
        d = self.work / "inc"
        d.mkdir(exist_ok=True)
        link = d / str(len(self.links))
        os.symlink(p, link)
        self.links.append((str(link), p))
        return str(link)

    def define(self, d: str) -> list[str]:
        """`-DNAME=VALUE` as it is when safe; otherwise kept for the generated header."""
        name = d.split("=", 1)[0]
        if not _MACRO.fullmatch(name):
            raise CompileError(f"-D {d!r}: {name!r} is not a macro name")
        if "\n" in d or "\r" in d:
            raise CompileError(f"-D {name}: a define's value cannot span lines")
        if unsafe_char(d) is None:
            return [f"-D{d}"]
        self.defines.append(d)
        return []

    def header_flags(self) -> list[str]:
        """`-include` of the generated header holding the defines that were not safe to pass."""
        if not self.defines:
            return []
        lines = []
        for d in self.defines:
            name, _, value = d.partition("=")
            lines.append(f"#define {name} {value if '=' in d else '1'}")
        h = self.work / "kernelpro_defines.h"
        h.write_text("\n".join(lines) + "\n")
        return ["-include", str(h)]

    def unmap(self, text: str) -> str:
        return unmap(text, self.links)


def unmap(text: str, pairs: list[tuple[str, str]] | list[list[str]]) -> str:
    """Replace each link path (followed by `/`) with the user's path, longest first."""
    for link, target in sorted(pairs, key=lambda lt: -len(lt[0])):
        text = text.replace(link + "/", target.rstrip("/") + "/")
    return text


def check(cmd: list[str]) -> None:
    """Refuse a command line with an argument nvcc's shell could interpret."""
    for a in cmd[1:]:
        m = _SHELL.search(a)
        if m is not None:
            c = m.group(0)
            raise CompileError(f"nvcc argument {a[:80]!r} holds {c!r}, which nvcc's shell would interpret; "
                               "KernelPro does not pass it")
