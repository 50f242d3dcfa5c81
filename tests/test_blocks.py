"""KernelPro's building blocks: documented, compiled for sm_90 with the real nvcc (their SASS
has the instructions they exist for), and on the GPU equal to a torch reference; the
tensor-core GEMM is timed against torch.matmul (bf16, 4096^3) and the fraction printed."""
from __future__ import annotations

import ctypes
import json
import hashlib
import os
import subprocess
import time
from pathlib import Path

import pytest

from kernelpro.profilers.hunt.corpus import cutlass_root
from kernelpro.profilers.hunt.extract import extract
from kernelpro.profilers.hunt.library import BLOCKS, INCLUDE_DIR, LIBRARY_DIR, nvcc_flags
from kernelpro.profilers.toolchain import discover

HERE = Path(__file__).parent / "blocks"
# harness -> (headers it tests, architecture, SASS instructions it must contain)
HARNESSES = {
    "reduce": (("kernelpro/warp_reduce.cuh", "kernelpro/block_reduce.cuh"), "sm_90", ("SHFL.BFLY", "BAR.SYNC")),
    "vector_io": (("kernelpro/vector_io.cuh",), "sm_90", ("LDG.E.128", "STG.E.128")),
    "transpose": (("kernelpro/transpose.cuh",), "sm_90", ("STS", "LDS", "BAR.SYNC")),
    "softmax": (("kernelpro/online_softmax.cuh",), "sm_90", ("SHFL.BFLY", "MUFU.EX2")),
    "scan": (("kernelpro/scan.cuh",), "sm_90", ("SHFL.UP", "VOTE.ANY", "ATOMG.E.ADD.64")),
    "gemm_sm90": (("kernelpro/gemm_sm90.cuh",), "sm_90a", ("HGMMA", "UTMALDG")),
    "gemm_sm90_tf32": (("kernelpro/gemm_sm90.cuh",), "sm_90a", ("HGMMA", "UTMALDG")),
}
GPU_ONLY = ("gemm_sm90_tf32",)  # built by the GPU tests alone: the compile test covers the block with gemm_sm90
_BUILT: dict[tuple[str, bool], Path] = {}


def _sources_hash(name: str) -> str:
    """The harness's and its headers' contents, hashed: a prebuilt library is used only for these sources."""
    h = hashlib.sha256((HERE / f"{name}_test.cu").read_bytes())
    for header in HARNESSES[name][0]:
        h.update((INCLUDE_DIR / header).read_bytes())
    return h.hexdigest()[:12]


def build(name: str, out_dir: Path, cubin: bool = False) -> Path:
    """The harness compiled with nvcc into a shared library (host and device code), or with
    cubin=True its device code alone (what the compile check needs: no host compiler pass)."""
    key = (name, cubin)
    if key in _BUILT:
        return _BUILT[key]
    # KERNELPRO_PREBUILT_BLOCKS: a folder of libraries built from these harnesses elsewhere (the CUTLASS ones take
    # minutes of nvcc; a GPU call can bring them built on a CPU machine: scripts/prebuild_blocks.sh)
    pre = Path(os.environ.get("KERNELPRO_PREBUILT_BLOCKS", "/nonexistent")) / f"{name}.{_sources_hash(name)}.{'cubin' if cubin else 'so'}"
    if pre.is_file():
        _BUILT[key] = pre
        return pre
    headers, arch, _ = HARNESSES[name]
    root = cutlass_root()
    flags = sorted({f for h in headers for f in nvcc_flags(h, root / "include" if root else None)})
    out = out_dir / f"{name}.{'cubin' if cubin else 'so'}"
    kind = ["-cubin"] if cubin else ["-shared", "-Xcompiler", "-fPIC"]
    cmd = [discover().path("nvcc"), "-std=c++17", "-O3", f"-arch={arch}", *kind,
           *flags, "-o", str(out), str(HERE / f"{name}_test.cu")]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"{' '.join(cmd)}\n{r.stderr[-3000:]}"
    assert "C7510" not in r.stderr, "ptxas serialized the wgmma pipeline: " + r.stderr[-1500:]
    _BUILT[key] = out
    return out


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("blocks")


def test_every_block_has_a_harness_and_documentation():
    tested = {h for headers, _, _ in HARNESSES.values() for h in headers}
    assert tested == {b.header for b in BLOCKS} == {f"kernelpro/{p.name}" for p in LIBRARY_DIR.glob("*.cuh")}
    for b in BLOCKS:
        syms = extract((INCLUDE_DIR / b.header).read_bytes())
        assert syms[0].kind == "file" and "KernelPro building block" in syms[0].doc and "Usage" in syms[0].doc, b.header
        public = [s for s in syms[1:] if s.kind in ("function", "struct", "class", "kernel")]
        assert any(s.name == b.symbol for s in public), (b.header, b.symbol)
        undocumented = [s.name for s in public if not s.doc]
        assert not undocumented, f"{b.header}: no documentation comment on {undocumented}"


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n == "gemm_sm90" else n
                                  for n in HARNESSES if n not in GPU_ONLY])
def test_block_compiles_for_sm90_with_the_instructions_it_exists_for(name, build_dir):
    cubin = build(name, build_dir, cubin=True)  # the device code: the GPU tests build the whole library
    sass = subprocess.run([discover().path("cuobjdump"), "-sass", str(cubin)], capture_output=True, text=True,
                          timeout=120).stdout
    assert "sm_90" in sass
    for opcode in HARNESSES[name][2]:
        assert opcode in sass, f"{name}: no {opcode} in its SASS"
    if name == "vector_io":  # the misaligned path stays scalar, the aligned one is 128-bit
        assert "LDG.E.CONSTANT" in sass or "LDG.E " in sass


# --- on the GPU ---------------------------------------------------------------------------------
def _lib(name, build_dir):
    return ctypes.CDLL(str(build(name, build_dir)))


def _p(t) -> ctypes.c_void_p:
    return ctypes.c_void_p(t.data_ptr())


@pytest.mark.gpu
def test_warp_and_block_reductions_match_torch(build_dir):
    torch = pytest.importorskip("torch")
    lib = _lib("reduce", build_dir)
    n = 256 * 64
    x = torch.randn(n, device="cuda")
    bad = torch.zeros(1, dtype=torch.int32, device="cuda")
    out = torch.empty(n // 32, device="cuda")
    groups = x.view(-1, 32)
    for op, ref in ((0, groups.sum(1)), (1, groups.amax(1)), (2, groups.amin(1))):
        assert lib.kp_warp_reduce(_p(x), _p(out), n, op, _p(bad)) == 0
        torch.cuda.synchronize()
        torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-5)
    xi = torch.randint(-1000, 1000, (n,), dtype=torch.int32, device="cuda")
    outi = torch.empty(n // 16, dtype=torch.int32, device="cuda")
    assert lib.kp_warp_reduce_int16(_p(xi), _p(outi), n) == 0
    torch.cuda.synchronize()
    assert torch.equal(outi, xi.view(-1, 16).sum(1, dtype=torch.int32))
    for threads in (32, 96, 256, 1024):
        blocks = 40
        xb = torch.randn(blocks * threads, device="cuda")
        ob = torch.empty(blocks * 2, device="cuda")
        assert lib.kp_block_reduce(_p(xb), _p(ob), blocks, threads, _p(bad)) == 0
        torch.cuda.synchronize()
        v = xb.view(blocks, threads)
        torch.testing.assert_close(ob[0::2], v.sum(1), rtol=1e-4, atol=1e-4)
        assert torch.equal(ob[1::2], v.amax(1))
    assert bad.item() == 0, "lanes of a warp disagreed on a reduction result"


@pytest.mark.gpu
def test_vectorized_io_matches_torch_aligned_or_not(build_dir):
    torch = pytest.importorskip("torch")
    lib = _lib("vector_io", build_dir)
    lib.kp_scale.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long, ctypes.c_float]
    lib.kp_copy_half.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
    lib.kp_vector_width_float.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    base = torch.randn(1_000_011, device="cuda")
    dst = torch.zeros_like(base)
    for off_in, off_out, n in ((0, 0, 1_000_000), (1, 0, 999_997), (0, 3, 1_000_003), (2, 2, 12345)):
        x, y = base[off_in:off_in + n], dst[off_out:off_out + n]
        y.fill_(float("nan"))
        assert lib.kp_scale(x.data_ptr(), y.data_ptr(), n, 2.5) == 0
        torch.cuda.synchronize()
        torch.testing.assert_close(y, 2.5 * x + 1.0, rtol=1e-6, atol=1e-6)
    assert lib.kp_vector_width_float(base.data_ptr(), dst.data_ptr()) == 4
    assert lib.kp_vector_width_float(base[1:].data_ptr(), dst.data_ptr()) == 1
    assert lib.kp_vector_width_float(base[2:].data_ptr(), dst[2:].data_ptr()) == 2
    h = torch.randn(100_003, device="cuda").half()
    ho = torch.zeros_like(h)
    assert lib.kp_copy_half(h[3:].data_ptr(), ho[3:].data_ptr(), 100_000) == 0
    assert lib.kp_copy_half(h.data_ptr(), ho.data_ptr(), 3) == 0
    torch.cuda.synchronize()
    assert torch.equal(ho, h)


@pytest.mark.gpu
def test_tiled_transpose_matches_torch(build_dir):
    torch = pytest.importorskip("torch")
    lib = _lib("transpose", build_dir)
    for dtype, fn, (rows, cols) in ((torch.float32, lib.kp_transpose_float, (1000, 777)),
                                    (torch.float32, lib.kp_transpose_float, (4096, 4096)),
                                    (torch.float64, lib.kp_transpose_double, (333, 1025))):
        x = torch.randn(rows, cols, device="cuda", dtype=dtype)
        y = torch.full((cols, rows), float("nan"), device="cuda", dtype=dtype)
        assert fn(_p(y), _p(x), rows, cols) == 0
        torch.cuda.synchronize()
        assert torch.equal(y, x.t().contiguous())


@pytest.mark.gpu
def test_online_softmax_matches_torch(build_dir):
    torch = pytest.importorskip("torch")
    lib = _lib("softmax", build_dir)
    for cols in (1, 100, 3000, 4097):
        x = torch.randn(64, cols, device="cuda") * 8
        x[3, : cols // 2] = float("-inf")
        x[5] = float("-inf")  # a row of -inf gives NaN, as in torch
        ref = torch.softmax(x, dim=1)
        for fn in (lib.kp_softmax_block, lib.kp_softmax_warp):
            y = torch.zeros_like(x)
            assert fn(_p(x), _p(y), 64, cols) == 0
            torch.cuda.synchronize()
            torch.testing.assert_close(y, ref, rtol=1e-4, atol=1e-6, equal_nan=True)


@pytest.mark.gpu
def test_scan_matches_torch_cumsum_in_place_and_at_any_length(build_dir):
    torch = pytest.importorskip("torch")
    lib = _lib("scan", build_dir)
    for fn in (lib.kp_scan_float, lib.kp_scan_int):
        fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_longlong, ctypes.c_int, ctypes.c_void_p]
    for n in (1, 2047, 2049, 1 << 20, (1 << 24) + 5):
        x = torch.randint(-5, 6, (n,), device="cuda", dtype=torch.int32)
        for inclusive in (1, 0):
            y = torch.full_like(x, 12345)
            assert lib.kp_scan_int(x.data_ptr(), y.data_ptr(), n, inclusive, None) == 0
            want = torch.cumsum(x, 0, dtype=torch.int32)
            if not inclusive:
                want = torch.cat([torch.zeros(1, device="cuda", dtype=torch.int32), want[:-1]])
            torch.cuda.synchronize()
            assert torch.equal(y, want), (n, inclusive)
        xf = torch.rand(n, device="cuda")
        want = torch.cumsum(xf.double(), 0)
        assert lib.kp_scan_float(xf.data_ptr(), xf.data_ptr(), n, 1, None) == 0  # in place
        torch.cuda.synchronize()
        assert torch.allclose(xf.double(), want, rtol=1e-4, atol=1e-3), n


@pytest.mark.gpu
@pytest.mark.slow
def test_gemm_sm90_matches_and_is_timed_against_torch_matmul(build_dir):
    torch = pytest.importorskip("torch")
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the sm_90a GEMM needs a Hopper GPU (compute capability 9.0)")
    lib = _lib("gemm_sm90", build_dir)
    lib.kp_gemm_bf16_sm90.argtypes = [ctypes.c_int] * 3 + [ctypes.c_void_p] * 4
    stream = torch.cuda.current_stream().cuda_stream

    def gemm(a, bt, d):
        return lib.kp_gemm_bf16_sm90(a.shape[0], bt.shape[0], a.shape[1], a.data_ptr(), bt.data_ptr(),
                                     d.data_ptr(), stream)

    for m, n, k in ((520, 264, 136), (4096, 4096, 4096)):
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        bt = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        d = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        assert gemm(a, bt, d) == 0
        ref = torch.matmul(a.float(), bt.float().t())
        err = ((d.float() - ref).norm() / ref.norm()).item()
        assert err < 1e-2, f"{m}x{n}x{k}: relative error {err}"
    assert gemm(a[:, :100], bt[:, :100], d) != 0  # k = 100 is not a multiple of 8: refused, not wrong

    # the general form (what the optimizer's host launchers call): row-major B, a batch, alpha and beta; at sizes
    # the tensor cores refuse (k = 100, n = 37), the block's plain kernel gives the same answer
    lib.kp_gemm_sm90_rr.argtypes = [ctypes.c_int] * 4 + [ctypes.c_void_p] * 3 + [ctypes.c_float] * 2
    lib.kp_gemm_sm90_cc.argtypes = [ctypes.c_int] * 3 + [ctypes.c_void_p] * 3
    for m, n, k, l in ((264, 136, 520, 3), (96, 37, 100, 2)):
        ga = torch.randn(l, m, k, device="cuda", dtype=torch.bfloat16)
        gb = torch.randn(l, k, n, device="cuda", dtype=torch.bfloat16)
        gc = torch.randn(l, m, n, device="cuda", dtype=torch.bfloat16)
        ref = 0.5 * torch.matmul(ga.float(), gb.float()) - 2.0 * gc.float()
        assert lib.kp_gemm_sm90_rr(m, n, k, l, ga.data_ptr(), gb.data_ptr(), gc.data_ptr(), 0.5, -2.0) == 0
        torch.cuda.synchronize()
        err = ((gc.float() - ref).norm() / ref.norm()).item()
        assert err < 1e-2, f"{m}x{n}x{k}x{l}: relative error {err}"
    gat = torch.randn(512, 256, device="cuda", dtype=torch.float16)  # A^T: k x m
    gbt = torch.randn(384, 512, device="cuda", dtype=torch.float16)  # B^T: n x k
    gc = torch.zeros(256, 384, device="cuda", dtype=torch.float32)
    assert lib.kp_gemm_sm90_cc(256, 384, 512, gat.data_ptr(), gbt.data_ptr(), gc.data_ptr()) == 0
    torch.cuda.synchronize()
    ref = torch.matmul(gat.float().t(), gbt.float().t())
    assert ((gc - ref).norm() / ref.norm()).item() < 1e-3

    # fp32 operands in TF32 (the form a TF32-admitting candidate takes): right within TF32's error, on the tensor
    # cores at an aligned size (the fallback would be right too, but slow: the flag says which path ran)
    tf32 = _lib("gemm_sm90_tf32", build_dir)
    tf32.kp_gemm_sm90_tf32_rr.argtypes = [ctypes.c_int] * 3 + [ctypes.c_void_p] * 3 + [ctypes.c_float] * 2
    tf32.kp_gemm_sm90_last_tc.restype = ctypes.c_int
    for (m, n, k), tc in (((1024, 1024, 1024), 1), ((1024, 1000, 1001), 0)):
        fa = torch.randn(m, k, device="cuda")
        fb = torch.randn(k, n, device="cuda")
        fc = torch.randn(m, n, device="cuda")
        ref = 0.5 * torch.matmul(fa.double(), fb.double()) + 2.0 * fc.double()
        assert tf32.kp_gemm_sm90_tf32_rr(m, n, k, fa.data_ptr(), fb.data_ptr(), fc.data_ptr(), 0.5, 2.0) == 0
        torch.cuda.synchronize()
        assert tf32.kp_gemm_sm90_last_tc() == tc, f"{m}x{n}x{k}: tensor cores {'expected' if tc else 'not expected'}"
        err = ((fc.double() - ref).norm() / ref.norm()).item()
        assert err < 5e-3, f"tf32 {m}x{n}x{k}: relative error {err}"

    def timed(fn, reps=15, per=10):
        """Median over reps of the mean of `per` back-to-back calls (ms): the host work of
        each call (CUTLASS builds its TMA descriptors per call) overlaps the previous one."""
        for _ in range(5):
            fn()
        times = []
        for _ in range(reps):
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
            for _ in range(per):
                fn()
            e1.record()
            e1.synchronize()
            times.append(e0.elapsed_time(e1) / per)
        return sorted(times)[len(times) // 2]

    out = torch.empty_like(d)
    ours = timed(lambda: gemm(a, bt, out))
    theirs = timed(lambda: torch.matmul(a, bt.t()))
    flop = 2 * 4096 ** 3
    result = {"ours_ms": ours, "torch_ms": theirs, "ours_tflops": flop / ours / 1e9,
              "torch_tflops": flop / theirs / 1e9, "fraction_of_torch": theirs / ours,
              "device": torch.cuda.get_device_name(), "when": time.strftime("%Y-%m-%d %H:%M:%S")}
    print(f"\ngemm_bf16_sm90 4096^3: {result['ours_tflops']:.0f} TFLOP/s ({ours:.3f} ms); torch.matmul "
          f"{result['torch_tflops']:.0f} TFLOP/s ({theirs:.3f} ms); fraction of torch.matmul "
          f"{result['fraction_of_torch']:.3f}")
    if os.environ.get("KERNELPRO_GPU_RESULTS"):
        Path(os.environ["KERNELPRO_GPU_RESULTS"], "gemm_sm90.json").write_text(json.dumps(result, indent=2))
