"""Compilation with the real nvcc, ptxas and nvdisasm: resources, SASS lines, errors, cache, timeout."""
import os
import stat
import textwrap
import time
from pathlib import Path

import pytest

from kernelpro.profilers.compile import CompileError, CompileOptions, compile_cuda
from kernelpro.profilers.toolchain import ToolchainError, discover

KERNEL = textwrap.dedent("""\
    #include "scale.cuh"
    __global__ void scale(float* out, const float* in, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = in[i] * SCALE;
    }
    """)


@pytest.fixture
def kfile(tmp_path):
    (tmp_path / "scale.cuh").write_text("#define SCALE 3.0f\n")
    p = tmp_path / "scale.cu"
    p.write_text(KERNEL)
    return p


def test_compile_reports_resources_and_maps_sass_to_lines(kfile):
    art = compile_cuda(kfile, use_cache=False)
    assert art.ok and not art.errors
    (k,) = art.kernels
    assert k.name == "scale" and k.mangled == "_Z5scalePfPKfi"
    assert 4 <= k.resources.registers <= 64 and k.resources.spill_stores == 0
    lines = {i.line_in(str(kfile)) for i in k.sass}
    ldg = [i for i in k.sass if i.base == "LDG"]
    assert ldg and all(i.line_in(str(kfile)) == 4 for i in ldg)
    assert 3 in lines
    assert art.headers == [str((kfile.parent / "scale.cuh").resolve())]


def test_cache_hit_and_header_change_invalidates(kfile):
    a = compile_cuda(kfile)
    b = compile_cuda(kfile)
    assert not a.cache_hit and b.cache_hit and b.duration_s < a.duration_s / 5
    assert b.kernels[0].resources == a.kernels[0].resources and len(b.kernels[0].sass) == len(a.kernels[0].sass)
    (kfile.parent / "scale.cuh").write_text("#define SCALE 4.0f\n")
    assert not compile_cuda(kfile).cache_hit
    assert not compile_cuda(kfile, CompileOptions(defines=("X=1",))).cache_hit


def test_unsaved_buffer_is_compiled_not_the_disk(kfile):
    text = KERNEL.replace("in[i] * SCALE", "in[i] * SCALE + undefined_name")
    art = compile_cuda(kfile, text=text)
    assert not art.ok
    (err,) = art.errors
    assert err.file == str(kfile) and err.line == 4
    assert err.column == text.splitlines()[3].index("undefined_name") + 1
    assert compile_cuda(kfile).ok  # the file on disk is still fine


def test_every_syntax_error_reported_with_its_line(tmp_path):
    p = tmp_path / "bad.cu"
    p.write_text("__global__ void k(float* x) {\n  x[0] = ;\n  int y = z;\n  return 1\n}\n")
    art = compile_cuda(p, use_cache=False)
    assert not art.ok
    lines = {d.line for d in art.errors}
    assert {2, 3} <= lines and lines & {4, 5}  # the missing ';' is reported where the parser notices it


def test_error_in_included_header_names_the_header(tmp_path):
    (tmp_path / "h.cuh").write_text("__device__ float f(float x) { return x +; }\n")
    p = tmp_path / "u.cu"
    p.write_text('#include "h.cuh"\n__global__ void k(float* o) { o[0] = f(1.f); }\n')
    art = compile_cuda(p, use_cache=False)
    assert not art.ok and art.errors[0].file == str(tmp_path / "h.cuh") and art.errors[0].line == 1


def test_unknown_architecture_names_the_known_ones(kfile):
    with pytest.raises(CompileError) as e:
        compile_cuda(kfile, CompileOptions(arch="sm_99"))
    assert "sm_99" in str(e.value) and "sm_90a" in str(e.value) and "sm_121" in str(e.value)


@pytest.mark.parametrize("arch", ["sm_75", "sm_90a", "sm_120"])
def test_other_architectures(kfile, arch):
    art = compile_cuda(kfile, CompileOptions(arch=arch), use_cache=False)
    assert art.ok and art.kernels[0].resources.arch == arch


def test_hung_compile_is_stopped(tmp_path, kfile):
    fake = tmp_path / "nvcc"
    real = discover().path("nvcc")
    fake.write_text(f'#!/bin/sh\ncase "$1" in --version|--list-gpu-code) exec {real} "$@";; esac\nsleep 600\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    tc = discover({"nvcc": str(fake)})
    t0 = time.monotonic()
    art = compile_cuda(kfile, CompileOptions(timeout_s=1.0), toolchain=tc, use_cache=False)
    assert time.monotonic() - t0 < 10
    assert not art.ok and "timed out after 1 s" in art.errors[0].message


def test_bad_files(tmp_path):
    with pytest.raises(CompileError, match="no such file"):
        compile_cuda(tmp_path / "missing.cu")
    b = tmp_path / "b.cu"
    b.write_bytes(b"\x7fELF\x00\x01\x02")
    with pytest.raises(CompileError, match="binary file"):
        compile_cuda(b)


def test_missing_nvcc_is_a_clear_error(tmp_path, monkeypatch):
    tc = discover({"nvcc": str(tmp_path / "nope" / "nvcc")})
    with pytest.raises(ToolchainError) as e:
        tc.path("nvcc")
    assert "nvcc not found" in str(e.value) and "CUDA" in str(e.value)


def test_toolchain_finds_all_four_tools_with_versions():
    tc = discover()
    assert set(tc.tools) == {"nvcc", "ptxas", "cuobjdump", "nvdisasm"}
    assert tc.tools["nvcc"].version.startswith("13.")
    assert all(t.version != "unknown" for t in tc.tools.values())
    assert "wheel" in tc.tools["nvdisasm"].found_by or os.environ.get("CUDA_HOME")


def test_relative_include_path_means_the_callers_directory(tmp_path, monkeypatch):
    (tmp_path / "proj" / "inc").mkdir(parents=True)
    (tmp_path / "proj" / "inc" / "cfg.h").write_text("#define SCALE 0.5f\n")
    (tmp_path / "proj" / "k.cu").write_text("#include <cfg.h>\n__global__ void k(float* x) { x[threadIdx.x] *= SCALE; }\n")
    monkeypatch.chdir(tmp_path)  # nvcc itself runs in proj/, so "proj/inc" must be made absolute
    art = compile_cuda("proj/k.cu", CompileOptions(include_paths=("proj/inc",)), use_cache=False)
    assert art.ok, [d.text() for d in art.diagnostics]
    assert art.headers == [str(tmp_path / "proj" / "inc" / "cfg.h")]


def test_header_only_cuh_compiles(tmp_path):
    p = tmp_path / "ops.cuh"
    p.write_text("#pragma once\n__global__ void hk(float* x) { x[threadIdx.x] *= 2.0f; }\n")
    art = compile_cuda(p, use_cache=False)
    assert art.ok, [d.text() for d in art.diagnostics]
    assert [k.name for k in art.kernels] == ["hk"]
    art = compile_cuda(p, text=p.read_text() + "__global__ void hk2(float* x) { x[0] = 1.0f; }\n", use_cache=False)
    assert art.ok and {k.name for k in art.kernels} == {"hk", "hk2"}  # unsaved buffer of a .cuh too


def test_timed_out_compile_is_not_cached(tmp_path, kfile):
    fake = tmp_path / "nvcc"
    real = discover().path("nvcc")
    fake.write_text(f'#!/bin/sh\ncase "$1" in --version|--list-gpu-code) exec {real} "$@";; esac\nsleep 600\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    slow = discover({"nvcc": str(fake)})
    assert not compile_cuda(kfile, CompileOptions(timeout_s=0.5), toolchain=slow).ok
    assert slow.fingerprint == discover().fingerprint  # same cache key with the working nvcc
    art = compile_cuda(kfile, CompileOptions(timeout_s=60))  # a transient timeout must not stick
    assert art.ok and not art.cache_hit


def test_unwritable_cache_still_gives_a_cubin(kfile, tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    monkeypatch.setenv("KERNELPRO_CACHE_DIR", str(blocker))  # cache_dir() is below a file: writes fail
    art = compile_cuda(kfile)
    assert art.ok and art.cubin and os.path.isfile(art.cubin)


def test_concurrent_compiles_of_one_file_store_one_whole_entry(kfile, tmp_path, monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setenv("KERNELPRO_CACHE_DIR", str(tmp_path / "cache"))
    with ThreadPoolExecutor(4) as ex:
        arts = list(ex.map(lambda _: compile_cuda(kfile), range(4)))
    assert all(a.ok and os.path.isfile(a.cubin) for a in arts)
    entries = os.listdir(tmp_path / "cache" / "compile")
    assert entries == [arts[0].key]  # no leftover temporary folders
    assert compile_cuda(kfile).cache_hit


def test_sass_is_disassembled_on_first_use_and_kept_in_the_cache(kfile, tmp_path, monkeypatch):
    """nvdisasm runs only when the SASS is used; a later cache hit reads it back, and an unsaved
    buffer's SASS names the file (not the temporary copy nvcc compiled), also from the cache."""
    monkeypatch.setenv("KERNELPRO_CACHE_DIR", str(tmp_path / "cache"))
    text = KERNEL.replace("* SCALE", "* SCALE + 1.0f")  # an unsaved buffer: compiled from a temporary copy
    a = compile_cuda(kfile, text=text)
    assert a.ok and a._sass_state == "pending" and not (Path(a._cache_dir) / "sass.txt").exists()
    b = compile_cuda(kfile, text=text)  # a hit before any SASS was read: disassembled from the cached cubin
    assert b.cache_hit and b.sass_available
    ldg = [i for i in b.kernels[0].sass if i.base == "LDG"]
    assert ldg and all(i.line_in(str(kfile)) == 4 for i in ldg)
    assert (Path(b._cache_dir) / "sass.txt").exists()
    c = compile_cuda(kfile, text=text)  # now read from the cache
    assert c.cache_hit and c._sass_state == "done" and len(c.kernels[0].sass) == len(b.kernels[0].sass)
    assert [i.line_in(str(kfile)) for i in c.kernels[0].sass] == [i.line_in(str(kfile)) for i in b.kernels[0].sass]
