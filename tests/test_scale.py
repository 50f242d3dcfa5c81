"""Many kernels in one file: progress on a terminal, none with --json; the work after nvcc
stays per kernel (the timing itself is measured in benchmarks/profile_latency.py)."""
from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from gen_kernels import generate_many  # noqa: E402

from kernelpro.profilers.compile import compile_cuda  # noqa: E402


def on_a_terminal(*args: str) -> tuple[int, bytes, bytes]:
    """(exit code, stdout, what the terminal on stderr received) of `kernelpro profile ARGS`."""
    master, slave = pty.openpty()
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen([sys.executable, "-m", "kernelpro.profilers.cli", "profile", *args], stdout=out,
                             stderr=slave, env={**os.environ, "TERM": "xterm", "COLUMNS": "120"})
        os.close(slave)
        err = b""
        while True:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                err += chunk
            elif p.poll() is not None:
                break
        os.close(master)
        code = p.wait(timeout=300)
        out.seek(0)
        return code, out.read(), err


def test_progress_on_a_terminal_and_none_with_json(tmp_path):
    src = tmp_path / "many.cu"
    src.write_text(generate_many(80))
    code, out, err = on_a_terminal(str(src), "--no-cache")
    assert code == 0 and b"k79" in out
    assert b"compiling many.cu with nvcc" in err and b"analysing the kernels of many.cu" in err
    code, out, err = on_a_terminal(str(src), "--no-cache", "--json")
    assert code == 0 and err == b""
    import json

    assert len(json.loads(out)["kernels"]) == 80


def test_artifact_finds_builds_by_name_without_scanning():
    # builds() is asked once per kernel and rule: an index, not a scan of every kernel
    from kernelpro.profilers.compile import CompiledArtifact, KernelBuild
    from kernelpro.profilers.ptxas import KernelResources

    ks = [KernelBuild(f"k{i}", f"_Z2k{i}v", KernelResources(f"_Z2k{i}v")) for i in range(3)]
    art = CompiledArtifact(True, "x.cu", None, [], [], ks, [], None, 0.0, False, "", "")
    assert [b.mangled for b in art.builds("k1")] == ["_Z2k1v"] and art.builds("zz") == []
    art.kernels.append(KernelBuild("k1", "_Z2k1i", KernelResources("_Z2k1i")))
    assert [b.mangled for b in art.builds("k1")] == ["_Z2k1v", "_Z2k1i"]


def test_every_kernel_of_a_large_file_is_summarised(tmp_path):
    from kernelpro.profilers.profile import profile_file

    src = tmp_path / "many.cu"
    src.write_text(generate_many(300))
    seen = []
    rep = profile_file(src, progress=lambda done, total: seen.append((done, total)))
    assert rep.ok and [k.name for k in rep.kernels] == [f"k{i}" for i in range(300)]
    assert all(k.registers for k in rep.kernels)
    assert seen[0] == (0, 300) and seen[-1] == (300, 300) and len(seen) > 3
    assert compile_cuda(src).cache_hit
