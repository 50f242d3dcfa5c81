"""The compile cache's key, and what it needs: options, reading the source, its headers.

Kept apart from compile.py (nvcc, parsers) so a warm command can find a cache entry cheaply.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import stat
from dataclasses import dataclass, replace
from pathlib import Path

from .toolchain import Toolchain, supported_archs

FORMAT = 6  # bump when the cached layout or parsers change
_INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


class CompileError(Exception):
    """Bad usage (unknown architecture, unreadable file); not a compile failure of the source."""


@dataclass(frozen=True)
class CompileOptions:
    arch: str = "sm_90"
    include_paths: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    extra_flags: tuple[str, ...] = ()
    timeout_s: float = 120.0

    def base_flags(self) -> list[str]:
        """The flags every compile gets: the cubin for the architecture, line info, the ptxas report."""
        base = self.arch.removeprefix("sm_")
        return ["-cubin", f"-gencode=arch=compute_{base},code=sm_{base}", "-lineinfo", "-Xptxas", "-v"]

    def flags(self) -> list[str]:
        out = self.base_flags()
        out += [f"-I{p}" for p in self.include_paths]
        out += [f"-D{d}" for d in self.defines]
        out += list(self.extra_flags)
        return out


@dataclass
class Keyed:
    """One compile's inputs, resolved, and the cache key over them."""

    path: Path
    options: CompileOptions  # include paths made absolute
    text: str
    headers: list[Path]
    key: str


def compile_key(path: str | os.PathLike, options: CompileOptions, text: str | None, tc: Toolchain) -> Keyed:
    """Key over the source, its project headers (recursive), the flags, arch and tool versions."""
    check_arch(options.arch, tc)
    src_path = Path(path).resolve()
    # nvcc runs in the file's folder: relative -I paths mean the caller's working directory
    options = replace(options, include_paths=tuple(str(Path(p).resolve()) for p in options.include_paths))
    if text is None:
        text = read_source(src_path)
    headers = project_headers(src_path, text, options.include_paths)
    h = hashlib.sha256()
    h.update(json.dumps([FORMAT, str(src_path), options.flags(), tc.fingerprint]).encode())
    h.update(text.encode("utf-8", errors="replace"))
    for hp in headers:
        h.update(str(hp).encode())
        try:
            h.update(read_bounded(hp, MAX_HEADER_BYTES))
        except OSError:
            pass
    return Keyed(src_path, options, text, headers, h.hexdigest()[:32])


def check_arch(arch: str, tc: Toolchain) -> None:
    archs = supported_archs(tc.path("nvcc"))
    if arch not in archs:
        raise CompileError(f"unknown architecture '{arch}': this nvcc builds for {', '.join(archs)}")


MAX_SOURCE_BYTES = 16 * 1024 * 1024


def read_bounded(path: str | os.PathLike, limit: int) -> bytes:
    """A regular file's bytes, at most `limit` of them. A device, FIFO or socket (a file named
    k.cu that links to /dev/zero, a FIFO left in a repository) or a larger file raises OSError
    with a message that says which, instead of reading forever or filling memory."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens at once instead of waiting for a writer
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file (a device, FIFO or socket)")
        if st.st_size > limit:
            raise OSError(errno.EFBIG, f"{st.st_size / 1e6:.1f} MB, over the {limit / 1e6:.0f} MB limit")
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb") as f:
            fd = -1
            data = f.read(limit + 1)
    finally:
        if fd >= 0:
            os.close(fd)
    if len(data) > limit:  # grew while read
        raise OSError(errno.EFBIG, f"over the {limit / 1e6:.0f} MB limit")
    return data


def read_source(path: Path) -> str:
    if not path.exists():
        raise CompileError(f"{path}: no such file")
    if path.is_dir():
        raise CompileError(f"{path}: is a folder, not a CUDA source file")
    try:
        data = read_bounded(path, MAX_SOURCE_BYTES)
    except OSError as e:
        raise CompileError(f"{path}: cannot read it ({e.strerror or e})") from None
    if b"\0" in data[:8192]:
        raise CompileError(f"{path}: binary file, not CUDA source")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise CompileError(f"{path}:{line}:{column}: not UTF-8 text (byte 0x{data[e.start]:02x} on line {line}; "
                           "save the file as UTF-8)") from None


MAX_HEADER_BYTES = 8 * 1024 * 1024  # one project header; a CUDA source is a few hundred KB at most
MAX_HEADERS_BYTES = 64 * 1024 * 1024  # all of a file's project headers together


def project_headers(path: Path, text: str, include_paths: tuple[str, ...]) -> list[Path]:
    """Headers the file includes that resolve to files (not system headers), recursively.

    Raises CompileError for an include that names something other than a regular file (a
    device such as /dev/stdin or /dev/zero, a FIFO, a socket: the compiler would read it
    forever or take the server's input) and for headers over the size limits."""
    seen: dict[Path, None] = {}
    total = 0
    todo = [(path, path.parent, text)]
    while todo:
        file, here, body = todo.pop()
        for m in _INCLUDE.finditer(body):
            kind, name = m.group(1), m.group(2)
            if os.path.isabs(name):
                dirs = [Path("/")]
            else:
                dirs = ([here] if kind == '"' else []) + [Path(p) for p in include_paths]
            for d in dirs:
                try:
                    st = (d / name).stat()  # follows links: /dev/stdin is a link to /proc/self/fd/0
                except OSError:
                    continue
                cand = (d / name).resolve()
                if cand in seen:
                    break
                where = f"{file}:{body.count(chr(10), 0, m.start()) + 1}"
                if stat.S_ISDIR(st.st_mode):
                    continue
                if not stat.S_ISREG(st.st_mode):
                    raise CompileError(f"{where}: #include {kind}{name}{'>' if kind == '<' else kind} names "
                                       f"{d / name}{'' if cand == d / name else f' ({cand})'}, which is not a regular file (a device, FIFO or socket); KernelPro does not compile it")
                total += st.st_size
                if st.st_size > MAX_HEADER_BYTES or total > MAX_HEADERS_BYTES:
                    raise CompileError(f"{where}: header {cand} is {st.st_size / 1e6:.1f} MB; KernelPro compiles files with "
                                       f"headers of at most {MAX_HEADER_BYTES // 2**20} MB each, "
                                       f"{MAX_HEADERS_BYTES // 2**20} MB together")
                seen[cand] = None
                try:
                    todo.append((cand, cand.parent, read_bounded(cand, MAX_HEADER_BYTES).decode(errors="replace")))
                except OSError:
                    pass
                break
    return list(seen)


def cache_dir() -> Path:
    base = os.environ.get("KERNELPRO_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "kernelpro"
    )
    return Path(base) / "compile"
