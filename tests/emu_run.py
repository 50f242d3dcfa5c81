"""Run a CUDA kernel on the CPU with tests/emu/kp_emu.h (one std::thread per CUDA thread).

`emulate(source, kernel, args, grid, block)`: args are numpy arrays (buffers, written back)
or Python numbers (scalars, converted to the parameter's type by the C++ driver); a buffer
may be given as (array, byte_offset) to pass a pointer off its start. Returns the arrays
after the launch. Built binaries are cached per source text in `workdir`.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
EMU = os.path.join(HERE, "emu")
GXX = shutil.which("g++")


class EmulationError(Exception):
    pass


def build(source: str, kernel: str, workdir: str) -> str:
    key = hashlib.sha256((source + "\0" + kernel).encode()).hexdigest()[:16]
    exe = os.path.join(workdir, f"emu-{key}")
    if os.path.exists(exe):
        return exe
    cpp = exe + ".cpp"
    with open(cpp, "w") as f:
        f.write('#include "kp_emu.h"\n#line 1 "kernel.cu"\n' + source +
                f"\nint main(int argc, char** argv) {{ return kp_main({kernel}, argc, argv); }}\n")
    r = subprocess.run([GXX, "-std=c++20", "-O1", "-w", "-pthread", f"-I{EMU}", f"-I{os.path.join(EMU, 'include')}",
                        "-o", exe, cpp], capture_output=True, text=True)
    if r.returncode != 0:
        raise EmulationError(f"g++ failed for {kernel}:\n{r.stderr[:4000]}")
    return exe


def emulate(source: str, kernel: str, args: list, grid, block, workdir: str | None = None,
            timeout: float = 120.0) -> list:
    workdir = workdir or tempfile.mkdtemp(prefix="kp-emu-")
    exe = build(source, kernel, workdir)
    grid = list(grid) + [1] * (3 - len(grid))
    block = list(block) + [1] * (3 - len(block))
    words, outs = [], []
    for i, a in enumerate(args):
        off = 0
        if isinstance(a, tuple):
            a, off = a
        if isinstance(a, np.ndarray):
            path = os.path.join(workdir, f"arg{i}-{os.getpid()}.bin")
            np.ascontiguousarray(a).tofile(path)
            words.append(f"@{path}+{off}")
            outs.append((path, a.dtype, a.shape))
        else:
            words.append(repr(float(a)) if isinstance(a, float) else str(int(a)))
            outs.append(None)
    r = subprocess.run([exe, *map(str, grid), *map(str, block), *words], capture_output=True, text=True,
                       timeout=timeout)
    if r.returncode != 0:
        raise EmulationError(f"{kernel} failed in the emulator (exit {r.returncode}): {r.stderr[:2000]}")
    result = []
    for o in outs:
        if o is None:
            result.append(None)
        else:
            path, dtype, shape = o
            result.append(np.fromfile(path, dtype=dtype).reshape(shape))
            os.remove(path)
    return result
