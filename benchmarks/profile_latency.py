"""Profile latency on a generated 300-line file with 8 kernels, measured side by side.

Prints the cold profile (`kernelpro profile`, empty compile cache) as a ratio to the bare
`nvcc -cubin` of the same file (target <= 1.5), and the warm (cached) profile in
milliseconds (target <= 150 ms), both as whole commands, the way a user runs them, and the
in-process numbers the language server sees. Medians of several alternating repetitions.

Then the scale case: files of 250, 1000 and 2000 trivial kernels, the cold `kernelpro
profile --json --no-cache` against the bare nvcc of the same file (with -lineinfo and the
ptxas report, as kernelpro compiles); the time after nvcc per kernel at 2000 over that at
250 says whether that work is linear (target ~1; SCALE=0 skips this part, SCALE_SIZES
changes the sizes).
"""
from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from gen_kernels import generate  # noqa: E402

REPS = int(os.environ.get("REPS", "5"))


def timed(cmd, env) -> float:
    t = time.perf_counter()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stdout}\n{r.stderr}")
    return dt


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="kp-bench-"))
    src = work / "bench8.cu"
    src.write_text(generate(300))
    cache = work / "cache"
    env = {**os.environ, "KERNELPRO_CACHE_DIR": str(cache)}
    # a user's install has bytecode caches; a session that forbids writing them would time the
    # compilation of our own .py files instead
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    nvcc = shutil.which("nvcc") or sys.exit("nvcc not on PATH")
    bare = [nvcc, "-cubin", "-arch=sm_90", "-o", str(work / "bare.cubin"), str(src)]
    prof = [sys.executable, "-m", "kernelpro.profilers.cli", "profile", str(src)]
    timed(prof, env)  # toolchain versions are probed once per machine, then cached
    from kernelpro.profilers.toolchain import discover

    dis = [discover().path("nvdisasm"), "-gi", "-c", str(work / "bare.cubin")]
    cold, base, warm, disasm = [], [], [], []
    for _ in range(REPS):
        base.append(timed(bare, env))
        disasm.append(timed(dis, env))
        shutil.rmtree(cache / "compile", ignore_errors=True)
        cold.append(timed(prof, env))
        warm.append(timed(prof, env))
    from kernelpro.profilers.profile import profile_file

    os.environ["KERNELPRO_CACHE_DIR"] = str(cache)
    profile_file(src)
    inproc = []
    for _ in range(REPS * 4):
        t = time.perf_counter()
        profile_file(src)
        inproc.append(time.perf_counter() - t)
    m = statistics.median
    lines = len(src.read_text().splitlines())
    print(f"file: {lines} lines, 8 kernels; {REPS} repetitions, medians")
    print(f"bare nvcc -cubin            {m(base) * 1000:8.0f} ms")
    print(f"nvdisasm -gi of that cubin {m(disasm) * 1000:8.0f} ms   (the disassembler alone; its start-up costs the same for any cubin)")
    print(f"cold kernelpro profile      {m(cold) * 1000:8.0f} ms   ratio to bare nvcc: {m(cold) / m(base):.2f}  (target <= 1.5)")
    print(f"warm kernelpro profile      {m(warm) * 1000:8.0f} ms   (whole command; target <= 150 ms)")
    print(f"warm profile_file in-process{m(inproc) * 1000:8.1f} ms")
    if os.environ.get("SCALE", "1") != "0":
        scale(work, env, nvcc)
    shutil.rmtree(work, ignore_errors=True)


def scale(work: Path, env: dict, nvcc: str) -> None:
    """The work after nvcc, per kernel, for files of many trivial kernels."""
    from gen_kernels import generate_many

    sizes = [int(x) for x in os.environ.get("SCALE_SIZES", "250,1000,2000").split(",")]
    per = {}
    print("\nkernels   bare nvcc   kernelpro (cold)   after nvcc   per kernel")
    for n in sizes:
        src = work / f"many{n}.cu"
        src.write_text(generate_many(n))
        bare = timed([nvcc, "-cubin", "-arch=sm_90", "-lineinfo", "-Xptxas", "-v", "-o", str(work / "m.cubin"), str(src)], env)
        cold = timed([sys.executable, "-m", "kernelpro.profilers.cli", "profile", str(src), "--json", "--no-cache"], env)
        per[n] = (cold - bare) / n
        print(f"{n:7d} {bare:10.1f} s {cold:14.1f} s {cold - bare:10.1f} s {per[n] * 1000:9.2f} ms")
    lo, hi = min(sizes), max(sizes)
    print(f"time after nvcc per kernel, {hi} vs {lo} kernels: ratio {per[hi] / per[lo]:.2f}  (linear: ~1)")


if __name__ == "__main__":
    main()
