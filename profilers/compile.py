"""Compile a .cu file to a cubin with -lineinfo and the ptxas report; disassemble; cache.

The cache key (cachekey.py) covers the source, every header it includes from the project
(recursively), the flags, the architecture and the toolchain versions, so an unchanged file
costs a read.
"""
from __future__ import annotations

import bisect
import dataclasses
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path

# the key and what it needs live in cachekey.py (cheap to import); re-exported here
from .cachekey import FORMAT, CompileError, CompileOptions, cache_dir, check_arch, compile_key, project_headers, read_source  # noqa: F401
from .nvcc_diag import Diagnostic, parse_diagnostics
from .ptxas import KernelResources, parse_ptxas
from .demangle import label, template_args
from .sass import Instruction, parse_sass, unescape_path
from .toolchain import Toolchain, ToolchainError, discover
from .children import child_env, compile_memory_mb, limited
from .safe_args import SafeArgs, compile_name, unmap
from .safe_args import check as check_args


@dataclass
class KernelBuild:
    name: str  # as written in the source
    mangled: str
    resources: KernelResources
    _sass: list[Instruction] | None = field(default=None, repr=False)  # None: not disassembled yet
    _artifact: "CompiledArtifact | None" = field(default=None, repr=False, compare=False)

    @property
    def sass(self) -> list[Instruction]:
        """The kernel's SASS, disassembled the first time any kernel of the build asks."""
        if self._sass is None and self._artifact is not None:
            self._artifact._disassemble()
        if self._sass is None:
            self._sass = []
        return self._sass

    @property
    def template_args(self) -> tuple[str, ...] | None:
        """The instantiation's template arguments (`("float", "256")`), None for a plain kernel."""
        return template_args(self.mangled, self.name)

    @property
    def label(self) -> str:
        """`reduce<float, 256>` for an instantiation, the name otherwise."""
        return label(self.mangled, self.name)


@dataclass
class CompiledArtifact:
    ok: bool
    path: str
    options: CompileOptions
    command: list[str]
    diagnostics: list[Diagnostic]
    kernels: list[KernelBuild]
    headers: list[str]  # project headers it includes (resolved paths)
    cubin: str | None  # path to the cubin (in the cache)
    duration_s: float
    cache_hit: bool
    key: str
    toolchain: str
    notes: list[str] = field(default_factory=list)
    # lines of the source and its project headers that survived the preprocessor: file -> [[first, last], ...]
    live_lines: dict[str, list[list[int]]] = field(default_factory=dict)
    # SASS is disassembled on first use (nvdisasm costs as much as a small compile): the tool, the
    # path in the cubin's line info to report as the source, and the cache entry to keep it in
    _sass_state: str = field(default="pending", repr=False)  # pending, done, failed
    _nvdisasm: str | None = field(default=None, repr=False)
    # (path nvcc saw, the user's path): the compiled copy and the safe links (safe_args.py)
    _path_maps: list = field(default_factory=list, repr=False)
    _cache_dir: str | None = field(default=None, repr=False)
    _timeout_s: float = field(default=60.0, repr=False)

    @property
    def sass_available(self) -> bool:
        if self._sass_state == "pending":
            self._disassemble()
        return self._sass_state == "done"

    def _disassemble(self) -> None:
        """Fill every kernel's SASS from the cubin (once); a failure becomes a note."""
        if self._sass_state != "pending":
            return
        self._sass_state = "failed"
        text = ""
        if self.ok and self.cubin and self._nvdisasm:
            try:
                text = _disassemble_with(self._nvdisasm, Path(self.cubin), self._timeout_s)
            except ToolchainError as e:
                self.notes.append(str(e))
            if text and self._path_maps:
                src, *links = self._path_maps
                text = unmap(text.replace(*src), links)
            if text and self._cache_dir:  # atomic, as the rest of the entry: readers see all or nothing
                try:
                    fd, tmp = tempfile.mkstemp(prefix="sass.", dir=self._cache_dir)
                    with os.fdopen(fd, "w") as f:
                        f.write(text)
                    os.replace(tmp, Path(self._cache_dir) / "sass.txt")
                except OSError:
                    pass
        self._set_sass(text)

    def _set_sass(self, text: str) -> None:
        sass = parse_sass(text) if text else {}
        for k in self.kernels:
            k._sass = sass.get(k.mangled, [])
        self._sass_state = "done" if text else "failed"

    def compiled(self, file: str, line: int) -> bool:
        """Whether `line` of `file` was compiled (True when the file's lines are not known)."""
        ranges = self.live_lines.get(file)
        if ranges is None:
            return True
        i = bisect.bisect_right(ranges, [line, float("inf")]) - 1
        return i >= 0 and ranges[i][0] <= line <= ranges[i][1]

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    def builds(self, name: str) -> list[KernelBuild]:
        index = self.__dict__.get("_by_name")
        if index is None or index[0] != len(self.kernels):  # built once, rebuilt if kernels change
            by: dict[str, list[KernelBuild]] = {}
            for k in self.kernels:
                by.setdefault(k.name, []).append(k)
            index = self.__dict__["_by_name"] = (len(self.kernels), by)
        return list(index[1].get(name, ()))


def demangle_name(mangled: str) -> str:
    """Source name of an Itanium-mangled function: _Z3addPfi -> add, _ZN2ns3fooEv -> foo."""
    if not mangled.startswith("_Z"):
        return mangled
    s = mangled[2:]
    if s.startswith("L"):
        s = s[1:]
    nested = s.startswith("N")
    if nested:
        s = s[1:]
        while s[:1] in ("r", "V", "K"):
            s = s[1:]
    last = mangled
    while s and s[0].isdigit():
        m = re.match(r"(\d+)", s)
        n = int(m.group(1))
        s = s[len(m.group(1)) :]
        last, s = s[:n], s[n:]
        if not nested:
            break
        if s[:1] == "I":  # template args of a nested name end the useful part
            break
    return last


def compile_cuda(
    path: str | os.PathLike,
    options: CompileOptions = CompileOptions(),
    text: str | None = None,
    toolchain: Toolchain | None = None,
    use_cache: bool = True,
    cancel: threading.Event | None = None,
) -> CompiledArtifact:
    """Compile `path` (or `text`, an unsaved buffer of that file) for options.arch; raises
    Cancelled when `cancel` is set while nvcc runs."""
    t0 = time.perf_counter()
    tc = toolchain or discover()
    nvcc = tc.path("nvcc")
    options = with_blocks(options, path, text)
    k = compile_key(path, options, text, tc)
    src_path, options, text, headers, key = k.path, k.options, k.text, k.headers, k.key
    cdir = cache_dir() / key
    if use_cache:
        hit = _load(cdir, src_path, options, key, tc, headers)
        if hit is not None:
            hit.duration_s = time.perf_counter() - t0
            return hit

    work = Path(tempfile.mkdtemp(prefix="kernelpro-"))
    try:
        # the source is compiled from a copy under a plain name in a private folder, and every
        # other path through safe_args: no workspace string reaches nvcc's shell (docs/security.md)
        safe = SafeArgs(work)
        (work / "src").mkdir()
        compile_path = work / "src" / compile_name(src_path)
        compile_path.write_text(text)
        cubin = work / "kernel.cubin"
        lang = [] if src_path.suffix == ".cu" else ["-x", "cu"]  # .cuh and --force files
        keep = work / "keep"  # nvcc's intermediate files: the preprocessed device source tells which lines compiled
        keep.mkdir()
        cmd = [nvcc, *_flags(options, safe), f"-I{safe.path(str(src_path.parent))}", *safe.header_flags(),
               *lang, "-keep", f"-keep-dir={keep}", "-o", str(cubin), str(compile_path)]
        check_args(cmd)
        maps = [(str(compile_path), str(src_path))] + safe.links
        rc, out = _run(limited(cmd, _memory_mb(options)), _timeout_s(options), cwd=str(work), tmpdir=work, cancel=cancel)
        out = unmap(out.replace(str(compile_path), str(src_path)), safe.links)
        lines = text.split("\n")

        def read_line(f, n):
            if f and Path(f).resolve() == src_path and 0 < n <= len(lines):
                return lines[n - 1]
            try:
                return Path(f).read_text(errors="replace").split("\n")[n - 1]
            except (OSError, IndexError):
                return None

        finished = rc >= 0  # nvcc exited by itself (not timed out, cancelled or killed)
        diags = parse_diagnostics(out, read_line) if finished else []
        # a header profiled on its own is nvcc's main file: its `#pragma once` is right where it is
        diags = [d for d in diags if not (d.severity == "warning" and d.message == "#pragma once in main file"
                                          and d.file and Path(d.file).resolve() == src_path)]
        if rc == _TIMEOUT:
            diags = [Diagnostic("error", f"compilation timed out after {_timeout_s(options):g} s and was stopped", str(src_path), None, tool="nvcc")]
        elif not finished:
            diags = [Diagnostic("error", f"nvcc was stopped (signal {-rc}) before it finished", str(src_path), None, tool="nvcc")]
        ok = rc == 0 and cubin.is_file()
        if rc > 0 and not any(d.severity == "error" for d in diags):
            diags.append(Diagnostic("error", _failure_line(out, rc), tool="nvcc"))
        for d in diags:  # relative paths in messages are relative to the file's folder
            if d.file and not os.path.isabs(d.file):
                d.file = str((src_path.parent / d.file).resolve())
        resources = parse_ptxas(out) if ok else {}
        live = _live_lines(keep, {str(compile_path): str(src_path), **{str(h): str(h) for h in headers}},
                           safe.links) if ok else {}
        art = _artifact(ok, src_path, options, cmd, diags, resources, None, headers, None, key, tc, [], live)
        art._path_maps = maps
        # only a compile nvcc finished is kept: a killed, cancelled or timed-out one is tried again
        # (nor one the memory limit stopped: a higher limit passes it)
        if use_cache and finished and not (rc > 0 and "out of memory" in out) and \
                _store(cdir, art, cubin if ok else None, out):
            art.cubin = str(cdir / "kernel.cubin") if ok else None
            art._cache_dir = str(cdir)
        elif ok:  # uncached, or the cache could not be written: the cubin lives as long as the artifact
            keep = Path(tempfile.mkdtemp(prefix="kernelpro-cubin-"))
            shutil.copy(cubin, keep / "kernel.cubin")
            art.cubin = str(keep / "kernel.cubin")
            weakref.finalize(art, shutil.rmtree, str(keep), True)  # also runs at exit
        art.duration_s = time.perf_counter() - t0
        return art
    finally:
        shutil.rmtree(work, ignore_errors=True)


_BLOCK_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include[ \t]*<(kernelpro/\w+\.cuh)>", re.M)


def with_blocks(options: CompileOptions, path, text: str | None) -> CompileOptions:
    """`options` plus what the KernelPro building blocks the source includes (`#include
    <kernelpro/NAME.cuh>`) need: their folder, CUTLASS's headers and flags for the tensor-core GEMM,
    and the arch-specific target (sm_90a for wgmma) where the block needs one."""
    from .hunt import library
    from .hunt.corpus import cutlass_root

    if text is None:
        try:
            text = read_source(Path(path).resolve())
        except (OSError, CompileError, UnicodeDecodeError):
            return options  # compile_key says what is wrong with the file
    blocks = [b for b in (library.block(h) for h in _BLOCK_INCLUDE.findall(text)) if b is not None]
    if not blocks:
        return options
    root = cutlass_root() if any(b.needs_cutlass for b in blocks) else None
    incs = [str(library.INCLUDE_DIR)] + ([str(root / "include")] if root is not None else [])
    extra, defines = [], []
    if any(b.needs_cutlass for b in blocks):
        extra, defines = ["-std=c++17", "--expt-relaxed-constexpr"], ["NDEBUG"]
    arch = options.arch
    for b in blocks:  # sm_90 -> sm_90a for a block built on wgmma
        if b.arch.endswith("a") and arch == b.arch[:-1]:
            arch = b.arch
    return dataclasses.replace(
        options, arch=arch, include_paths=tuple(dict.fromkeys(tuple(options.include_paths) + tuple(incs))),
        defines=tuple(dict.fromkeys(tuple(options.defines) + tuple(defines))),
        extra_flags=tuple(options.extra_flags) + tuple(f for f in extra if f not in options.extra_flags))


def _cutlass(options: CompileOptions) -> bool:
    return any(Path(p, "cute").is_dir() for p in options.include_paths)


def _memory_mb(options: CompileOptions) -> int:
    """The compile's address-space limit: CUTLASS's templates (the GEMM block) reserve about 6 GB of it."""
    return max(compile_memory_mb(), 12288) if _cutlass(options) else compile_memory_mb()


def _timeout_s(options: CompileOptions) -> float:
    """The compile's time limit: CUTLASS's GEMM takes one to three minutes on two cores."""
    return max(options.timeout_s, 600.0) if _cutlass(options) else options.timeout_s


def compile_library(path: str | os.PathLike, options: CompileOptions = CompileOptions(), text: str | None = None,
                    toolchain: Toolchain | None = None, use_cache: bool = True) -> str:
    """The source (or `text`) built as a shared library, host and device code, for a launch spec's host
    steps (an extern "C" launcher the runtime calls with the kernel's arguments); its path, cached like
    the cubins. Raises CompileError with nvcc's first error."""
    tc = toolchain or discover()
    options = with_blocks(options, path, text)
    k = compile_key(path, options, text, tc)
    cdir = cache_dir() / f"{k.key}-lib"
    lib = cdir / "host.so"
    if use_cache and lib.is_file():
        return str(lib)
    work = Path(tempfile.mkdtemp(prefix="kernelpro-lib-"))
    try:
        safe = SafeArgs(work)
        (work / "src").mkdir()
        compile_path = work / "src" / compile_name(k.path)
        compile_path.write_text(k.text)
        flags = _flags(k.options, safe)
        base = k.options.base_flags()
        flags = [f for f in flags if f not in base or f.startswith("-gencode")]  # no -cubin, no ptxas report
        out = work / "host.so"
        lang = [] if k.path.suffix == ".cu" else ["-x", "cu"]
        cmd = [tc.path("nvcc"), "-shared", "-Xcompiler", "-fPIC", *flags, f"-I{safe.path(str(k.path.parent))}",
               *safe.header_flags(), *lang, "-o", str(out), str(compile_path)]
        check_args(cmd)
        rc, log = _run(limited(cmd, _memory_mb(k.options)), max(_timeout_s(k.options), 600.0), cwd=str(work), tmpdir=work)
        log = unmap(log.replace(str(compile_path), str(k.path)), safe.links)
        if rc != 0 or not out.is_file():
            first = next((ln for ln in log.splitlines() if "error" in ln), None) or _failure_line(log, rc)
            raise CompileError(f"building {k.path.name} as a shared library for its host launcher failed: "
                               f"{first.strip()[:400]}")
        if not use_cache:
            keep = Path(tempfile.mkdtemp(prefix="kernelpro-lib-"))
            shutil.copy(out, keep / "host.so")
            return str(keep / "host.so")
        cache_dir().mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".lib-", dir=cache_dir()))
        shutil.copy(out, tmp / "host.so")
        try:
            os.replace(tmp, cdir)
        except OSError:  # another process stored it first
            shutil.rmtree(tmp, ignore_errors=True)
        return str(lib)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _flags(options: CompileOptions, safe: SafeArgs) -> list[str]:
    """options.flags() with every path through a safe link and unsafe defines left to the header."""
    out = options.base_flags() + [f"-I{safe.path(p)}" for p in options.include_paths]
    for d in options.defines:
        out += safe.define(d)
    extra = list(options.extra_flags)
    i = 0
    while i < len(extra):
        if extra[i] in ("-include", "--pre-include") and i + 1 < len(extra):
            out += ["-include", safe.path(os.path.abspath(extra[i + 1]))]
            i += 2
        else:
            out.append(extra[i])
            i += 1
    return out


def _failure_line(out: str, rc: int) -> str:
    last = (out.strip().splitlines() or [""])[-1]
    if "out of memory" in out or rc == 137:
        return f"nvcc ran out of its {compile_memory_mb()} MB memory limit (KERNELPRO_COMPILE_MEMORY_MB): {last}".rstrip(": ")
    return last or f"nvcc failed (exit code {rc})"


_TIMEOUT = -(10**6)  # _run's return code for a command stopped at its timeout


class Cancelled(Exception):
    """The compile was cancelled (a newer text of the file arrived, or the server is closing)."""


def _run(cmd: list[str], timeout: float, cwd: str, tmpdir: Path | None = None,
         cancel: threading.Event | None = None) -> tuple[int, str]:
    """Run in its own process group with stdin from /dev/null, so a hung nvcc and its children
    (cicc, ptxas) all die on a timeout, on `cancel`, on Ctrl-C and on SIGTERM (the CLI turns it
    into SystemExit); with `tmpdir`, nvcc's tmpxft_* files go there, to be removed with it.
    Returns (_TIMEOUT, "") at the timeout; raises Cancelled when `cancel` is set."""
    env = child_env({"TMPDIR": str(tmpdir)} if tmpdir is not None else None)
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, cwd=cwd, start_new_session=True, env=env)
    deadline = time.monotonic() + timeout
    try:
        while True:
            left = deadline - time.monotonic()
            try:
                out, _ = proc.communicate(timeout=max(0.0, min(left, 0.2 if cancel is not None else left)))
                return proc.returncode, out
            except subprocess.TimeoutExpired:
                if cancel is not None and cancel.is_set():
                    _kill_group(proc)
                    raise Cancelled() from None
                if time.monotonic() >= deadline:
                    _kill_group(proc)
                    return _TIMEOUT, ""
    except BaseException:  # KeyboardInterrupt, SystemExit: take the whole group down with us
        _kill_group(proc)
        raise


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        proc.communicate()
    except ValueError:  # the pipes were already read to the end
        proc.wait()


def _disassemble_with(nvdisasm: str, cubin: Path, timeout: float) -> str:
    rc, out = _run([nvdisasm, "-gi", "-c", str(cubin)], timeout, cwd=str(cubin.parent))
    if rc == _TIMEOUT:
        raise ToolchainError(f"nvdisasm did not finish within {timeout:g} s")
    if rc != 0:
        raise ToolchainError(f"nvdisasm failed on the cubin: {out.strip()[:300]}")
    return out


_MARKER = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"[^\n]*\n', re.M)


def _live_lines(keep: Path, wanted: dict[str, str], links=()) -> dict[str, list[list[int]]]:
    """Lines of the wanted files (path as nvcc saw it -> path to report) that hold code after the
    preprocessor, as ranges, read from nvcc's preprocessed device source (`*.cpp1.ii`)."""
    ii = next(keep.glob("*.cpp1.ii"), None)
    try:
        text = ii.read_text(errors="replace") if ii is not None else ""
    except OSError:
        return {}
    lines: dict[str, set[int]] = {}
    marks = list(_MARKER.finditer(text))
    for i, m in enumerate(marks):
        f = wanted.get(os.path.normpath(unmap(unescape_path(m.group(2)), links)))
        if f is None:
            continue
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        got = lines.setdefault(f, set())
        for j, code in enumerate(text[m.end():end].split("\n"), int(m.group(1))):
            if code.strip():
                got.add(j)
    out: dict[str, list[list[int]]] = {}
    for f, got in lines.items():
        ranges: list[list[int]] = []
        for n in sorted(got):
            if ranges and ranges[-1][1] == n - 1:
                ranges[-1][1] = n
            else:
                ranges.append([n, n])
        out[f] = ranges
    for f in wanted.values():  # a wanted file with no code left at all (everything switched off)
        out.setdefault(f, [])
    return out


def _artifact(ok, src_path, options, cmd, diags, resources, sass_text, headers, cubin, key, tc, notes, live) -> CompiledArtifact:
    """sass_text None: disassembled on first use."""
    kernels = [KernelBuild(demangle_name(m), m, r) for m, r in resources.items()]
    try:
        nvdisasm = tc.path("nvdisasm")
    except ToolchainError as e:
        nvdisasm, notes = None, list(notes) + [str(e)]
    art = CompiledArtifact(
        ok=ok, path=str(src_path), options=options, command=cmd, diagnostics=diags, kernels=kernels,
        headers=[str(h) for h in headers], cubin=cubin, duration_s=0.0, cache_hit=False, key=key,
        toolchain=tc.fingerprint, notes=notes, live_lines=live, _nvdisasm=nvdisasm, _timeout_s=options.timeout_s,
    )
    for k in kernels:
        k._artifact = art
    if sass_text is not None:
        art._set_sass(sass_text)
    return art


def _store(cdir: Path, art: CompiledArtifact, cubin: Path | None, log: str) -> bool:
    """True when the entry is in the cache (written now or by a concurrent compile)."""
    tmp = None
    try:
        cdir.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=cdir.name + ".tmp", dir=cdir.parent))  # unique per thread
        if cubin is not None:
            shutil.copy(cubin, tmp / "kernel.cubin")
        (tmp / "nvcc.log").write_text(log)
        meta = {"ok": art.ok, "command": art.command, "diagnostics": [d.to_json() for d in art.diagnostics],
                "resources": {k.mangled: k.resources.to_json() for k in art.kernels}, "notes": art.notes,
                "live_lines": art.live_lines, "path_maps": [list(m) for m in art._path_maps]}
        (tmp / "artifact.json").write_text(json.dumps(meta))
        if cdir.exists():
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            os.replace(tmp, cdir)  # atomic: readers see a whole entry or none
        return True
    except OSError:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        return (cdir / "artifact.json").is_file()


def _load(cdir, src_path, options, key, tc, headers) -> CompiledArtifact | None:
    """The cached entry, or None; an entry of the wrong shape (hand-edited, truncated, from a
    bug) is removed, so the compile that follows replaces it."""
    try:
        meta = json.loads((cdir / "artifact.json").read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        meta = None
    try:
        art = _from_meta(meta, cdir, src_path, options, key, tc, headers)
    except (TypeError, ValueError, KeyError, AttributeError):
        shutil.rmtree(cdir, ignore_errors=True)
        return None
    art.cache_hit = True
    art._cache_dir = str(cdir)
    return art


_TYPES = {"int": (int,), "str": (str,), "float": (int, float), "bool": (bool,)}


def _typed(cls, d: dict):
    """cls(**d) when every field holds its declared type (`int`, `str | None`, ...); else ValueError."""
    if not isinstance(d, dict):
        raise ValueError(f"{cls.__name__}: not an object")
    for f in dataclasses.fields(cls):
        if f.name not in d:
            continue
        v, kinds = d[f.name], [k.strip() for k in str(f.type).split("|")]
        ok = (v is None and "None" in kinds) or any(isinstance(v, _TYPES.get(k, object)) and not
                                                     (isinstance(v, bool) and k != "bool") for k in kinds)
        if not ok:
            raise ValueError(f"{cls.__name__}.{f.name}: {v!r} is not {f.type}")
    return cls(**d)


def _from_meta(meta, cdir, src_path, options, key, tc, headers) -> CompiledArtifact:
    if not isinstance(meta, dict) or not isinstance(meta.get("ok"), bool):
        raise ValueError("not a cache entry")
    if meta["ok"] and not (cdir / "kernel.cubin").is_file():
        raise ValueError("the cubin is missing")
    diags = [_typed(Diagnostic, d) for d in meta["diagnostics"]]
    res = {str(m): _typed(KernelResources, r) for m, r in meta["resources"].items()}
    maps = [(str(a), str(b)) for a, b in meta.get("path_maps") or []]
    live = meta.get("live_lines") or {}
    notes = meta.get("notes") or []
    if not isinstance(meta["command"], list) or not isinstance(live, dict) or not isinstance(notes, list):
        raise ValueError("fields of the wrong type")
    try:
        sass_text = (cdir / "sass.txt").read_text()  # written by the first use of the SASS
    except OSError:
        sass_text = None
    art = _artifact(meta["ok"], src_path, options, meta["command"], diags, res, sass_text, headers,
                    str(cdir / "kernel.cubin") if meta["ok"] else None, key, tc, [str(n) for n in notes], live)
    art._path_maps = maps  # the SASS line info names the temporary copy and links it was compiled through
    return art
