"""Clear one-line errors and the right exit codes on bad input (issue 11, item 10)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest

ONE = textwrap.dedent("""\
    __global__ void vadd(float* c, const float* a, const float* b, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) c[i] = a[i] + b[i];
    }
    void launch(float* c, const float* a, const float* b, int count) {
        vadd<<<(count + 255) / 256, 256>>>(c, a, b, count);
    }
    """)


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "kernelpro.profilers.cli", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def one_line(r, code: int, want: str) -> None:
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and want in lines[0], r.stderr
    assert "Traceback" not in r.stderr


@pytest.fixture
def one(tmp_path):
    p = tmp_path / "one.cu"
    p.write_text(ONE)
    return p


def unreadable(tmp_path):
    """A .cu file that exists but cannot be read (root reads any mode, so a file that fails on read)."""
    p = tmp_path / "locked.cu"
    if os.geteuid() == 0:
        p.symlink_to("/proc/self/mem")  # reading it fails with EIO
    else:
        p.write_text(ONE)
        p.chmod(0)
    return p


def test_unreadable_source_is_one_line(tmp_path):
    one_line(run("profile", str(unreadable(tmp_path))), 2, "cannot read it")


def test_unknown_kernel_exits_2_and_names_the_kernels(one):
    one_line(run("profile", str(one), "--kernel", "vad"), 2, "no kernel named 'vad' in one.cu (kernels: vadd)")
    one_line(run("profile", str(one), "--kernel", "vad", "--json"), 2, "no kernel named 'vad'")


@pytest.mark.parametrize("value", ["-1", "0", "nan"])
def test_compile_timeout_must_be_positive(one, value):
    one_line(run("profile", str(one), f"--compile-timeout={value}"), 2, "--compile-timeout")


def test_broken_nvcc_is_named_as_broken(one, tmp_path):
    fake = tmp_path / "nvcc"
    fake.write_text("#!/bin/sh\necho 'nvcc: cannot load libcuda' >&2\nexit 1\n")
    fake.chmod(0o755)
    r = run("profile", str(one), "--nvcc", str(fake))
    one_line(r, 2, f"nvcc not usable ({fake} does not work")
    assert "unknown architecture" not in r.stderr


def test_version():
    r = run("--version")
    assert r.returncode == 0 and r.stdout.startswith("kernelpro ") and r.stdout.split()[1][0].isdigit()


def test_spec_check_of_non_utf8_spec(tmp_path):
    s = tmp_path / "k.kernelpro.toml"
    s.write_bytes(b'kernel = "\xff\xfe"\n')
    one_line(run("spec", "check", str(s)), 2, "not UTF-8 text")


def test_spec_init_on_binary_and_unreadable_files(tmp_path):
    b = tmp_path / "bin.cu"
    b.write_bytes(bytes(range(256)) * 4)
    one_line(run("spec", "init", str(b)), 2, "binary file")
    one_line(run("spec", "init", str(unreadable(tmp_path))), 2, "cannot read it")
    assert not list(tmp_path.glob("*.toml"))


def test_spec_init_picks_the_only_kernel_and_reads_the_callers_names(one):
    r = run("spec", "init", str(one))
    assert r.returncode == 0, r.stderr
    text = one.with_name("one.kernelpro.toml").read_text()
    assert 'kernel = "vadd"' in text
    # <<<(count + 255) / 256, 256>>>(..., count): the size is the caller's `count`, passed as the kernel's `n`
    assert 'grid = ["cdiv(count, 256)"]' in text and "block = [256]" in text
    assert re.search(r'name = "n"\nvalue = "count"', text), text
    r = run("spec", "check", str(one.with_name("one.kernelpro.toml")))
    assert r.returncode == 0, r.stderr


def test_spec_init_with_several_kernels_asks_for_one(tmp_path):
    p = tmp_path / "two.cu"
    p.write_text(ONE + ONE.replace("vadd", "vsub").replace("a[i] + b[i]", "a[i] - b[i]"))
    one_line(run("spec", "init", str(p)), 2, "2 kernels here (vadd, vsub): name one with --kernel")
    assert run("spec", "init", str(p), "--kernel", "vsub").returncode == 0
