"""A file's compile flags from the project's `compile_commands.json`, found as clangd finds it.

CMake (`-DCMAKE_EXPORT_COMPILE_COMMANDS=ON`), Bear and Meson write a JSON list of
`{"directory", "file", "command" | "arguments"}`. For a file, the database is the setting
`compileCommands` (the file or its folder) when set, else the first `compile_commands.json`
or `build/compile_commands.json` in the file's folder or a parent folder up to the workspace
folder that holds the file (never above it: a database in a parent of the workspace is
somebody else's). The file's own entry gives its flags; a file without an entry borrows the
flags of the entry nearest to it in the tree (clangd interpolates the same way), only from an
entry in the same workspace folder. Only what changes the static profile is kept: include
paths, defines, the architecture and the flags that change code generation; output,
dependency, optimisation-level and host-compiler flags (`-ccbin`, `-Xcompiler`, `-MF`, ...)
are dropped, and the settings' `extraFlags` pass through the same filter. Nothing a database
names is ever run; its values reach nvcc only through profilers/safe_args.py.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import threading
from dataclasses import dataclass
from pathlib import Path

from kernelpro.profilers.cachekey import read_bounded

NAMES = ("compile_commands.json", "build/compile_commands.json")
MAX_DATABASE_BYTES = 512 * 1024 * 1024  # a large CMake project writes tens of MB

# flags kept as they are (with their value when it is attached with "=")
_KEEP = re.compile(r"^--?(std|expt-relaxed-constexpr|expt-extended-lambda|extended-lambda|use_fast_math|ftz|prec-div|"
                   r"prec-sqrt|fmad|maxrregcount|default-stream|restrict|relocatable-device-code|rdc|"
                   r"Wno-deprecated-gpu-targets)(=.*)?$")
_DEFINE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\([A-Za-z0-9_, ]*\))?(=[^\n\r]*)?\Z")  # one line; match() anchors the start
_TAKES_VALUE = {"-o", "-x", "-MF", "-MT", "-MQ", "-ccbin", "--compiler-bindir", "-Xcompiler", "--compiler-options",
                "-Xlinker", "--linker-options", "-Xptxas", "--ptxas-options", "-Xnvlink", "-Xfatbin", "-Xarchive",
                "--options-file", "-optf", "-odir", "--output-directory", "-l", "-L", "--library", "--library-path",
                "--dependency-output", "-MJ"}


@dataclass(frozen=True)
class ProjectFlags:
    database: str  # the compile_commands.json they came from
    entry: str  # the file whose entry they are (this file, or the nearest one)
    arch: str | None
    include_paths: tuple[str, ...]
    defines: tuple[str, ...]
    extra_flags: tuple[str, ...]


class ProjectError(Exception):
    """A compile_commands.json that cannot be read; the message says which and why."""


_cache: dict[str, tuple[tuple, list[dict]]] = {}
_lock = threading.Lock()


def root_of(path: str, roots: tuple[str, ...] = ()) -> Path:
    """The workspace folder holding `path` (the deepest), else the file's own folder."""
    p = Path(path).resolve()
    inside = [Path(r).resolve() for r in roots if p.is_relative_to(Path(r).resolve())]
    return max(inside, key=lambda r: len(r.parts)) if inside else p.parent


def find_database(path: str, setting: str = "", roots: tuple[str, ...] = ()) -> Path | None:
    """The compile_commands.json for `path`: the setting (a file or folder), else clangd's search
    from the file's folder up to its workspace folder (`roots`; without one, the file's folder)."""
    if setting:
        p = Path(os.path.expanduser(setting))
        p = p / "compile_commands.json" if p.is_dir() else p
        return p if p.is_file() else None
    top = root_of(path, roots)
    for folder in Path(path).resolve().parents:
        if not folder.is_relative_to(top):
            break
        for name in NAMES:
            p = folder / name
            if p.is_file():
                return p
    return None


def _entries(db: Path) -> list[dict]:
    st = db.stat()
    stamp = (st.st_mtime_ns, st.st_size)
    with _lock:
        hit = _cache.get(str(db))
        if hit and hit[0] == stamp:
            return hit[1]
    try:
        data = json.loads(read_bounded(db, MAX_DATABASE_BYTES).decode("utf-8", errors="replace"))
    except (OSError, ValueError) as e:
        raise ProjectError(f"{db}: not a readable compile_commands.json ({e})") from None
    if not isinstance(data, list):
        raise ProjectError(f"{db}: a compile_commands.json is a JSON list of entries")
    out = []
    for e in data:
        if not isinstance(e, dict) or not isinstance(e.get("file"), str):
            continue
        d = Path(str(e.get("directory") or db.parent))
        f = Path(e["file"])
        out.append({**e, "_file": os.path.normpath(str(f if f.is_absolute() else d / f)), "_dir": str(d)})
    with _lock:
        _cache[str(db)] = (stamp, out)
    return out


def _nearest(entries: list[dict], path: str, top: Path | None = None) -> dict | None:
    """The file's own entry, else the nearest entry under `top` (the workspace folder), else None."""
    exact = [e for e in entries if e["_file"] == path]
    if exact:
        return exact[0]
    parts = Path(path).parts
    if top is not None:
        entries = [e for e in entries if Path(e["_file"]).is_relative_to(top)]

    def score(e):
        common = 0
        for a, b in zip(Path(e["_file"]).parts, parts):
            if a != b:
                break
            common += 1
        return (common, e["_file"].endswith(".cu"))

    return max(entries, key=score, default=None)


def _argv(e: dict) -> list[str]:
    if isinstance(e.get("arguments"), list):
        return [str(a) for a in e["arguments"]]
    return shlex.split(str(e.get("command") or ""))


def _arch_of(flag: str) -> list[int]:
    """Architecture numbers a flag names: sm_80, compute_90a, arch=compute_80,code=[compute_80,sm_80]."""
    return [int(n) for n in re.findall(r"(?:sm|compute)_(\d+)", flag)]


def parse_command(argv: list[str], directory: str, dropped: list[str] | None = None
                  ) -> tuple[str | None, list[str], list[str], list[str]]:
    """(arch, include paths, defines, kept flags) of one compile command; what it drops is
    appended to `dropped` when given."""
    incs, defs, extra, archs = [], [], [], []
    absolute = lambda p: os.path.normpath(p if os.path.isabs(p) else os.path.join(directory, p))
    args = argv[1:]
    i = 0
    while i < len(args):
        a = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else None
        for opt in ("-I", "-isystem", "-iquote", "--include-path", "--system-include"):
            if a == opt and nxt is not None:
                incs.append(absolute(nxt))
                i += 2
                break
            if a.startswith(opt + "=") or (opt in ("-I", "-isystem", "-iquote") and a.startswith(opt) and len(a) > len(opt)):
                incs.append(absolute(a[len(opt):].lstrip("=")))
                i += 1
                break
        else:
            if a in ("-D", "--define-macro") and nxt is not None:
                defs.append(nxt)
                i += 2
            elif a.startswith("--define-macro="):
                defs.append(a.split("=", 1)[1])
                i += 1
            elif a.startswith("-D") and len(a) > 2:
                defs.append(a[2:])
                i += 1
            elif a in ("-arch", "--gpu-architecture", "-gencode", "--generate-code", "-code", "--gpu-code") and nxt:
                archs += _arch_of(nxt)
                i += 2
            elif re.match(r"^(-arch|--gpu-architecture|-gencode|--generate-code|--cuda-gpu-arch|--offload-arch)=", a):
                archs += _arch_of(a)
                i += 1
            elif a in ("-include", "--pre-include") and nxt is not None:
                extra += ["-include", absolute(nxt)]
                i += 2
            elif a in ("-std", "--std", "-maxrregcount", "--maxrregcount") and nxt is not None:
                if _plain(nxt):
                    extra += [a, nxt]
                elif dropped is not None:
                    dropped.append(f"{a} {nxt}")
                i += 2
            elif _KEEP.match(a) and _plain(a):
                extra.append(a)
                i += 1
            else:
                n = 2 if a in _TAKES_VALUE else 1
                if dropped is not None:
                    dropped.append(" ".join(args[i:i + n]))
                i += n
    arch = f"sm_{max(archs)}" if archs else None
    bad = [d for d in defs if not _DEFINE.match(d)]  # -D$(...): not a macro name, never reaches nvcc
    if dropped is not None:
        dropped += [f"-D{d}" for d in bad]
    return arch, incs, [d for d in defs if d not in bad], extra


def _plain(flag: str) -> bool:
    """A kept flag's text holds nothing nvcc's shell would read (paths and defines are made safe later)."""
    return re.search(r'[$`"\\\x00-\x1f]', flag) is None


def project_flags(path: str, setting: str = "", roots: tuple[str, ...] = ()) -> ProjectFlags | None:
    """The flags for `path` from its project's compile_commands.json, or None without one."""
    db = find_database(path, setting, roots)
    if db is None:
        if setting:
            raise ProjectError(f"compileCommands setting {setting!r}: no compile_commands.json there")
        return None
    entries = _entries(db)
    e = _nearest(entries, os.path.normpath(str(Path(path).resolve())), root_of(path, roots))
    if e is None:
        return None
    arch, incs, defs, extra = parse_command(_argv(e), e["_dir"])
    return ProjectFlags(str(db), e["_file"], arch, tuple(incs), tuple(defs), tuple(extra))
