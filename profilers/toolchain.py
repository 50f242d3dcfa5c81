"""Find nvcc, ptxas, cuobjdump and nvdisasm, and record their versions.

Order for each tool: an explicit setting, the environment (KERNELPRO_<TOOL>), CUDA_HOME /
CUDA_PATH, PATH, then the executables shipped in the NVIDIA PyPI wheels
(nvidia-cuda-nvdisasm, nvidia-cuda-cuobjdump).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

TOOLS = ("nvcc", "ptxas", "cuobjdump", "nvdisasm")

HOW_TO_GET = {
    "nvcc": "install the CUDA toolkit (https://developer.nvidia.com/cuda-downloads) or set CUDA_HOME / the 'nvccPath' setting",
    "ptxas": "it ships with the CUDA toolkit next to nvcc",
    "cuobjdump": "pip install nvidia-cuda-cuobjdump, or install the CUDA toolkit",
    "nvdisasm": "pip install nvidia-cuda-nvdisasm, or install the CUDA toolkit",
}


class ToolchainError(Exception):
    """A tool is missing or broken; the message says which and how to get it."""


@dataclass(frozen=True)
class Tool:
    name: str
    path: str
    version: str
    found_by: str


@dataclass
class Toolchain:
    tools: dict[str, Tool] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)  # name -> what was tried

    def path(self, name: str) -> str:
        if name not in self.tools:
            raise ToolchainError(self.missing_message(name))
        return self.tools[name].path

    def missing_message(self, name: str) -> str:
        tried = self.missing.get(name, "")
        what = "not usable" if "does not" in tried else "not found"
        return f"{name} {what} ({tried}); {HOW_TO_GET[name]}"

    @property
    def fingerprint(self) -> str:
        return ";".join(f"{n}={t.version}" for n, t in sorted(self.tools.items()))

    def describe(self) -> dict[str, dict[str, str]]:
        return {n: {"path": t.path, "version": t.version, "found_by": t.found_by} for n, t in self.tools.items()}


def _wheel_bins() -> list[Path]:
    out = []
    for base in {Path(p) for p in sys.path if p}:
        nv = base / "nvidia"
        if nv.is_dir():
            out += sorted(nv.glob("*/bin"))
    return out


def _disk_cache_path() -> Path:
    base = os.environ.get("KERNELPRO_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "kernelpro")
    return Path(base) / "toolchain.json"


def _cached_probe(kind: str, path: str, probe):
    """Run probe(path) once per executable version: keyed by path, size and mtime, kept on disk.

    Asking four tools for their versions costs a few hundred milliseconds of subprocesses;
    a warm profile must not pay that every time."""
    try:
        st = os.stat(path)
    except OSError:
        return probe(path)
    key = f"{kind}:{path}:{st.st_size}:{st.st_mtime_ns}"
    f = _disk_cache_path()
    try:
        data = json.loads(f.read_text())
    except (OSError, ValueError):
        data = {}
    if key in data:
        return data[key]
    value = probe(path)
    data[key] = value
    try:
        f.parent.mkdir(parents=True, exist_ok=True)
        tmp = f.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(data))
        os.replace(tmp, f)
    except OSError:
        pass
    return value


def _version(path: str) -> str:
    return _cached_probe("version", path, _probe_version)


def _probe_version(path: str) -> str:
    import subprocess  # only when a version is not cached yet: a warm command skips the import

    try:
        r = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as e:
        raise ToolchainError(f"{path} does not run: {e}") from None
    text = r.stdout + r.stderr
    if r.returncode != 0:
        said = (text.strip().splitlines() or ["no output"])[0][:120]
        raise ToolchainError(f"{path} does not work: `--version` exited {r.returncode} ({said})")
    m = re.search(r"release (\d+\.\d+), V([\d.]+)", text) or re.search(r"Build cuda_([\d.]+)\.r", text)
    if m:
        return m.group(2) if m.lastindex and m.lastindex >= 2 else m.group(1)
    m = re.search(r"(\d+\.\d+(?:\.\d+)?)", text)
    return m.group(1) if m else "unknown"


def _candidates(name: str, settings: dict[str, str]) -> list[tuple[str, str]]:
    c: list[tuple[str, str]] = []
    if settings.get(name):
        # a setting may come from a workspace: a relative path would name a program inside it
        given = os.path.expanduser(settings[name])
        c.append((given if os.path.isabs(given) else "", f"setting {name} (an absolute path is required, not {settings[name]!r})"
                  if not os.path.isabs(given) else f"setting {name}"))
    env = os.environ.get(f"KERNELPRO_{name.upper()}")
    if env:
        c.append((env, f"KERNELPRO_{name.upper()}"))
    if name == "ptxas" and settings.get("nvcc") and os.path.isabs(os.path.expanduser(settings["nvcc"])):  # beside a configured nvcc
        c.append((str(Path(os.path.expanduser(settings["nvcc"])).parent / "ptxas"), "beside the nvcc setting"))
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            c.append((str(Path(os.environ[var]) / "bin" / name), var))
    w = shutil.which(name)
    if w:
        c.append((w, "PATH"))
    for b in _wheel_bins():
        c.append((str(b / name), f"wheel {b.parent.name}"))
    return c


def discover(settings: dict[str, str] | None = None) -> Toolchain:
    """Find every tool; missing ones are recorded, not raised (see Toolchain.path)."""
    key = tuple(sorted((settings or {}).items())) + tuple(
        (v, os.environ.get(v, "")) for v in ("CUDA_HOME", "CUDA_PATH", "PATH", *[f"KERNELPRO_{t.upper()}" for t in TOOLS])
    )
    return _discover(key)


@lru_cache(maxsize=16)
def _discover(key: tuple) -> Toolchain:
    settings = {k: v for k, v in key if k in TOOLS}
    tc = Toolchain()
    for name in TOOLS:
        tried = []
        for path, how in _candidates(name, settings):
            if os.path.isfile(path) and os.access(path, os.X_OK):
                try:
                    tc.tools[name] = Tool(name, path, _version(path), how)
                    break
                except ToolchainError as e:
                    tried.append(str(e))
            else:
                tried.append(f"{how}: {path}")
            if how.startswith("setting") or how.startswith("KERNELPRO_"):
                break  # an explicit choice that fails is reported, not silently replaced
        if name not in tc.tools:
            tc.missing[name] = "; ".join(tried) or "not on PATH, no CUDA_HOME, no NVIDIA wheel"
    return tc


@lru_cache(maxsize=8)
def supported_archs(nvcc: str) -> tuple[str, ...]:
    """Real architectures nvcc can build for, with the arch-specific 'a'/'f' variants."""
    return tuple(_cached_probe("archs", nvcc, _probe_archs))


def _probe_archs(nvcc: str) -> list[str]:
    import subprocess

    try:
        r = subprocess.run([nvcc, "--list-gpu-code"], capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as e:
        raise ToolchainError(f"{nvcc} --list-gpu-code failed: {e}") from None
    base = [a for a in r.stdout.split() if re.fullmatch(r"sm_\d+", a)]
    if r.returncode != 0 or not base:
        said = ((r.stderr + r.stdout).strip().splitlines() or ["no output"])[0][:120]
        raise ToolchainError(f"{nvcc} does not work as nvcc: `--list-gpu-code` exited {r.returncode} ({said})")
    out = list(base)
    for a in base:
        n = int(a[3:])
        if n >= 90:
            out.append(a + "a")
        if n >= 100:
            out.append(a + "f")
    return out


def include_dirs(nvcc: str) -> tuple[str, ...]:
    """The toolkit's include directories nvcc passes to the compiler (`-I` and `-isystem`, in
    order): the CUDA headers, and on CUDA 13 the CCCL headers (CUB, libcu++, Thrust) under
    include/cccl. Read from `nvcc --dryrun`, once per nvcc executable."""
    return tuple(_cached_probe("includes", nvcc, _probe_includes))


def _probe_includes(nvcc: str) -> list[str]:
    import subprocess

    try:
        r = subprocess.run([nvcc, "--dryrun", "-x", "cu", "-c", os.devnull, "-o", os.devnull],
                           capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as e:
        raise ToolchainError(f"{nvcc} --dryrun failed: {e}") from None
    out: list[str] = []
    for m in re.finditer(r'^#\$ (?:SYSTEM_)?INCLUDES="?(.*?)"?\s*$', r.stdout + r.stderr, re.M):
        for d in re.findall(r'"?(?:-I|-isystem"?\s+")([^"\s]+)', m.group(1)):
            d = os.path.normpath(d)
            if os.path.isdir(d) and d not in out:
                out.append(d)
    return out
