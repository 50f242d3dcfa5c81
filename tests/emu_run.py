"""Run CUDA kernels on the CPU with tests/emu/kp_emu.h (each CUDA thread a fiber of the launching
process's thread, or with KP_EMU_THREADS=1 in the environment an OS thread).

`emulate(source, kernel, args, grid, block)`: args are numpy arrays (buffers, written back)
or Python numbers (scalars, converted to the parameter's type by the C++ driver); a buffer
may be given as (array, byte_offset) to pass a pointer off its start. Returns the arrays
after the launch.

`Batch([(source, kernel), ...])` compiles many sources into one program (each in its own
namespace, with a precompiled kp_emu.h), so a test that checks many candidates pays for one
compilation; `batch.run(i, args, grid, block)` runs the i-th. Under pytest (the session's compile cache
set, tests/conftest.py) the built programs are kept there too, content-addressed (the generated program,
the g++ flags and version, every file of tests/emu/): the workers of one session build each program once
(a family's best kernel runs in several tests, a candidate in several files).
"""
from __future__ import annotations

import hashlib
import re
import os
import shutil
import subprocess
import tempfile
import threading

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
EMU = os.path.join(HERE, "emu")
GXX = shutil.which("g++")
FLAGS = ["-std=c++20", "-O1", "-w", "-pthread", "-DKP_EMU_SEPARATE_RUNTIME"]
RUNTIME = "kp_emu_rt.o"  # the launch machinery, compiled once beside the precompiled header (kp_emu.h)
_PCH_DIR = None
_LOCK = threading.Lock()


class EmulationError(Exception):
    pass


_TOOLS_KEY = None


def _tools_key() -> str:
    """What, besides a program's text, changes what g++ makes of it: the flags, g++ itself (its path
    and version) and every file of tests/emu/ (kp_emu.h and the stand-in CUDA headers)."""
    global _TOOLS_KEY
    with _LOCK:
        if _TOOLS_KEY is None:
            h = hashlib.sha256("\0".join(FLAGS).encode() + b"\1" + str(GXX).encode() + b"\1")
            if GXX:
                v = subprocess.run([GXX, "--version"], capture_output=True, text=True)
                h.update(v.stdout.encode())
            for root, _, files in sorted(os.walk(EMU)):
                for f in sorted(files):
                    path = os.path.join(root, f)
                    h.update(os.path.relpath(path, EMU).encode() + b"\0" + open(path, "rb").read() + b"\1")
            _TOOLS_KEY = h.hexdigest()
        return _TOOLS_KEY


def _pch() -> str:
    """A folder holding kp_emu.h and its precompiled header, built once per test session: in the
    session's compile cache (tests/conftest.py), shared by the pytest-xdist workers, keyed by the
    headers, flags and g++; else in a temporary folder of this process."""
    global _PCH_DIR
    key = _tools_key()
    with _LOCK:
        if _PCH_DIR is None:
            cache = os.environ.get("KERNELPRO_CACHE_DIR")
            if cache:
                from session_lock import session_lock

                d = os.path.join(cache, f"emu-pch-{key[:16]}")
                with session_lock("emu-pch"):
                    if not os.path.isdir(d):
                        tmp = tempfile.mkdtemp(prefix="emu-pch.tmp", dir=cache)
                        _build_pch(tmp)
                        os.replace(tmp, d)
            else:
                d = tempfile.mkdtemp(prefix="kp-emu-pch-")
                _build_pch(d)
            _PCH_DIR = d
        return _PCH_DIR


def _build_pch(d: str) -> None:
    shutil.copy(os.path.join(EMU, "kp_emu.h"), os.path.join(d, "kp_emu.h"))
    # without a PCH (g++ failed) the header itself still works
    subprocess.run([GXX, *FLAGS, f"-I{os.path.join(EMU, 'include')}", "-x", "c++-header", os.path.join(d, "kp_emu.h"),
                    "-o", os.path.join(d, "kp_emu.h.gch")], capture_output=True, text=True)
    # the launch machinery once, linked into every program (it is the same for every kernel)
    rt = os.path.join(d, "kp_emu_rt.cpp")
    with open(rt, "w") as f:
        f.write('#define KP_EMU_DEFINE_RUNTIME\n#include "kp_emu.h"\n')
    r = subprocess.run([GXX, *FLAGS, f"-I{d}", f"-I{os.path.join(EMU, 'include')}", "-c", rt,
                        "-o", os.path.join(d, RUNTIME)], capture_output=True, text=True)
    if r.returncode != 0:
        raise EmulationError(f"g++ failed for the emulator's runtime:\n{r.stderr[:4000]}")


_GUARDS = ("KERNELPRO_RESTRUCTURE_HELPERS", "KERNELPRO_COLUMN_HELPERS", "KERNELPRO_SCAN_HELPERS")
_DYN_SHARED = re.compile(r"extern\s+__shared__\s+(?:__align__\(\d+\)\s+)?((?:(?:unsigned|signed|long|short)\s+)*[\w:]+)"
                         r"\s+(\w+)\s*\[\s*\]\s*;")


def _dynamic_shared(src: str) -> str:
    """`extern __shared__ T name[];` -> a pointer to the emulator's per-block buffer; `static __shared__` (the
    Kepler reduction blog's spelling) as `__shared__`, which the emulator already makes static."""
    src = re.sub(r"\bstatic\s+((?:__device__\s+)?)__shared__\b|\b__shared__\s+static\b", r"\1__shared__", src)
    return _DYN_SHARED.sub(lambda m: f"{m.group(1)}* {m.group(2)} = kp_dyn_shared<{m.group(1)}>();", src)


class Batch:
    def __init__(self, items: list[tuple[str, str]], workdir: str | None = None):
        self.items = list(items)
        self.workdir = workdir or tempfile.mkdtemp(prefix="kp-emu-")
        key = hashlib.sha256("\0".join(s + "\1" + k for s, k in self.items).encode()).hexdigest()[:16]
        self.exe = os.path.join(self.workdir, f"emu-{key}")
        if not os.path.exists(self.exe):
            self._build()

    def _build(self) -> None:
        program = self._program()
        cache = os.environ.get("KERNELPRO_CACHE_DIR")
        if not cache:
            self._compile(program, self.exe)
            return
        # the session's cache: one build per program, whichever worker asks first (the others wait for it)
        from session_lock import session_lock

        key = hashlib.sha256(_tools_key().encode() + b"\0" + program.encode()).hexdigest()[:32]
        d = os.path.join(cache, "emu-bin")
        os.makedirs(d, exist_ok=True)
        exe = os.path.join(d, key)
        if not os.path.exists(exe):
            with session_lock(f"emu-bin-{key}"):
                if not os.path.exists(exe):
                    tmp = tempfile.mkdtemp(prefix="build.tmp", dir=d)
                    try:
                        self._compile(program, os.path.join(tmp, "emu"))
                        os.replace(os.path.join(tmp, "emu"), exe)  # only a program g++ built is kept
                    finally:
                        shutil.rmtree(tmp, ignore_errors=True)
        self.exe = exe

    def _program(self) -> str:
        parts = ['#include "kp_emu.h"']
        for i, (src, _) in enumerate(self.items):
            parts += [f"#undef {g}" for g in _GUARDS]
            # C linkage would put every source's kernel under one name: each keeps its namespace's
            src = re.sub(r'\bextern\s+"C"\s*(?=(__global__|__device__|template|static|inline|void)\b)', "", src)
            parts.append(f"namespace kp_s{i} {{\n#line 1 \"kernel{i}.cu\"\n{_dynamic_shared(src)}\n}}  // namespace kp_s{i}")
        table = ", ".join(f"+[](int c, char** v) {{ return kp_main(kp_s{i}::{k}, c, v); }}"
                          for i, (_, k) in enumerate(self.items))
        # state kept in thread_local variables (benchmarks/suite_variants/emu_cluster.h) needs an OS
        # thread per CUDA thread: the fibers that run a block share one
        threads = "  kp_fibers = false;\n" if any(re.search(r"\bthread_local\b", src) for src, _ in self.items) else ""
        parts.append(f"int main(int argc, char** argv) {{\n{threads}  int (*run[])(int, char**) = {{{table}}};\n"
                     f"  return run[std::atoi(argv[1])](argc - 1, argv + 1);\n}}\n")
        return "\n".join(parts)

    def _compile(self, program: str, exe: str) -> None:
        cpp = exe + ".cpp"
        with open(cpp, "w") as f:
            f.write(program)
        r = subprocess.run([GXX, *FLAGS, f"-I{_pch()}", f"-I{os.path.join(EMU, 'include')}", "-o", exe, cpp,
                            os.path.join(_pch(), RUNTIME)], capture_output=True, text=True)
        if r.returncode != 0:
            raise EmulationError(f"g++ failed for {[k for _, k in self.items]}:\n{r.stderr[:4000]}")

    def run(self, index: int, args: list, grid, block, timeout: float = 120.0, shared_bytes: int = 0) -> list:
        grid = list(grid) + [1] * (3 - len(grid))
        block = list(block) + [1] * (3 - len(block))
        words, outs = [], []
        tag = f"{os.getpid()}-{threading.get_ident()}-{index}"
        for i, a in enumerate(args):
            off = 0
            if isinstance(a, tuple):
                a, off = a
            if isinstance(a, np.ndarray):
                path = os.path.join(self.workdir, f"arg{i}-{tag}.bin")
                np.ascontiguousarray(a).tofile(path)
                words.append(f"@{path}+{off}")
                outs.append((path, a.dtype, a.shape))
            else:
                words.append(repr(float(a)) if isinstance(a, float) else str(int(a)))
                outs.append(None)
        r = subprocess.run([self.exe, str(index), *map(str, grid), *map(str, block), str(int(shared_bytes)), *words],
                           capture_output=True,
                           text=True, timeout=timeout)
        if r.returncode != 0:
            raise EmulationError(f"{self.items[index][1]} failed in the emulator (exit {r.returncode}): "
                                 f"{r.stderr[:2000]}")
        result = []
        for o in outs:
            if o is None:
                result.append(None)
            else:
                path, dtype, shape = o
                result.append(np.fromfile(path, dtype=dtype).reshape(shape))
                os.remove(path)
        return result


def emulate(source: str, kernel: str, args: list, grid, block, workdir: str | None = None,
            timeout: float = 120.0, shared_bytes: int = 0) -> list:
    return Batch([(source, kernel)], workdir).run(0, args, grid, block, timeout, shared_bytes)
