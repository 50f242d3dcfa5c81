"""Compile a .cu file to a cubin with -lineinfo and the ptxas report; disassemble; cache.

The cache key (cachekey.py) covers the source, every header it includes from the project
(recursively), the flags, the architecture and the toolchain versions, so an unchanged file
costs a read.
"""
from __future__ import annotations

import bisect
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
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
    _path_map: tuple[str, str] | None = field(default=None, repr=False)
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
            if text and self._path_map:
                text = text.replace(*self._path_map)
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
) -> CompiledArtifact:
    """Compile `path` (or `text`, an unsaved buffer of that file) for options.arch."""
    t0 = time.perf_counter()
    tc = toolchain or discover()
    nvcc = tc.path("nvcc")
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
        on_disk = src_path.is_file() and _same(src_path, text)
        if on_disk:
            compile_path = src_path
        else:
            compile_path = work / src_path.name
            compile_path.write_text(text)
        cubin = work / "kernel.cubin"
        extra_inc = [] if on_disk else [f"-I{src_path.parent}"]
        lang = [] if src_path.suffix == ".cu" else ["-x", "cu"]  # .cuh and --force files
        keep = work / "keep"  # nvcc's intermediate files: the preprocessed device source tells which lines compiled
        keep.mkdir()
        cmd = [nvcc, *options.flags(), *extra_inc, *lang, "-keep", f"-keep-dir={keep}", "-o", str(cubin), str(compile_path)]
        rc, out = _run(cmd, options.timeout_s, cwd=str(src_path.parent if src_path.parent.is_dir() else work), tmpdir=work)
        out = out.replace(str(compile_path), str(src_path)) if not on_disk else out
        lines = text.split("\n")

        def read_line(f, n):
            if f and Path(f).resolve() == src_path and 0 < n <= len(lines):
                return lines[n - 1]
            try:
                return Path(f).read_text(errors="replace").split("\n")[n - 1]
            except (OSError, IndexError):
                return None

        diags = parse_diagnostics(out, read_line) if rc != -1 else []
        if rc == -1:
            diags = [Diagnostic("error", f"compilation timed out after {options.timeout_s:g} s and was stopped", str(src_path), None, tool="nvcc")]
        ok = rc == 0 and cubin.is_file()
        if rc not in (0, -1) and not any(d.severity == "error" for d in diags):
            diags.append(Diagnostic("error", (out.strip().splitlines() or ["nvcc failed"])[-1], tool="nvcc"))
        for d in diags:  # relative paths in messages are relative to the file's folder
            if d.file and not os.path.isabs(d.file):
                d.file = str((src_path.parent / d.file).resolve())
        resources = parse_ptxas(out) if ok else {}
        live = _live_lines(keep, {str(compile_path): str(src_path), **{str(h): str(h) for h in headers}}) if ok else {}
        art = _artifact(ok, src_path, options, cmd, diags, resources, None, headers, None, key, tc, [], live)
        if not on_disk:
            art._path_map = (str(compile_path), str(src_path))
        if use_cache and rc != -1 and _store(cdir, art, cubin if ok else None, out):
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


def _same(p: Path, text: str) -> bool:
    try:
        return p.read_text(errors="replace") == text
    except OSError:
        return False


def _run(cmd: list[str], timeout: float, cwd: str, tmpdir: Path | None = None) -> tuple[int, str]:
    """Run in its own process group, so a hung nvcc and its children (cicc, ptxas) all die on a
    timeout, on Ctrl-C and on SIGTERM (the CLI turns it into SystemExit); with `tmpdir`, nvcc's
    tmpxft_* files go there, to be removed with it."""
    env = {**os.environ, "TMPDIR": str(tmpdir)} if tmpdir is not None else None
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            cwd=cwd, start_new_session=True, env=env)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        return -1, ""
    except BaseException:  # KeyboardInterrupt, SystemExit: take the whole group down with us
        _kill_group(proc)
        raise


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.communicate()


def _disassemble_with(nvdisasm: str, cubin: Path, timeout: float) -> str:
    rc, out = _run([nvdisasm, "-gi", "-c", str(cubin)], timeout, cwd=str(cubin.parent))
    if rc != 0:
        raise ToolchainError(f"nvdisasm failed on the cubin: {out.strip()[:300]}")
    return out


_MARKER = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"[^\n]*\n', re.M)


def _live_lines(keep: Path, wanted: dict[str, str]) -> dict[str, list[list[int]]]:
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
        f = wanted.get(os.path.normpath(unescape_path(m.group(2))))
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
                "live_lines": art.live_lines, "compiled_as": art._path_map[0] if art._path_map else None}
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
    try:
        meta = json.loads((cdir / "artifact.json").read_text())
    except (OSError, ValueError):
        return None
    try:
        sass_text = (cdir / "sass.txt").read_text()  # written by the first use of the SASS
    except OSError:
        sass_text = None
    diags = [Diagnostic(**d) for d in meta["diagnostics"]]
    res = {m: KernelResources(**r) for m, r in meta["resources"].items()}
    art = _artifact(meta["ok"], src_path, options, meta["command"], diags, res, sass_text, headers,
                    str(cdir / "kernel.cubin") if meta["ok"] else None, key, tc, meta.get("notes", []),
                    meta.get("live_lines", {}))
    art.cache_hit = True
    art._cache_dir = str(cdir)
    if meta.get("compiled_as"):  # the SASS line info names the temporary file it was compiled as
        art._path_map = (meta["compiled_as"], str(src_path))
    return art
