"""The CPU emulator's bf16 and half pairs (`__nv_bfloat162`, `__half2`, tests/emu/kp_emu.h): a kernel in
the pairs-per-thread style (a pointer re-cast to pairs, `i = 2 * gid`, a scalar tail) compiles with nvcc
against CUDA's own headers and, emulated, gives numpy's result with each lane rounded once as the
hardware does. (Kernels of this style are a restructuring gap, docs/restructure-gaps.md; their spellings
need these types in the emulator.)"""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from emu_run import emulate

from kernelpro.profilers.runtime.inputs import bf16_bits, bf16_decode

SRC = r"""
#include <cuda_bf16.h>
#include <cuda_fp16.h>
// out = a * b + c, two bf16 per thread; the odd last element alone
__global__ void fma_pairs(__nv_bfloat16* out, const __nv_bfloat16* a, const __nv_bfloat16* b,
                          const __nv_bfloat16* c, int n) {
  int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
  if (i + 1 < n) {
    const __nv_bfloat162 x = reinterpret_cast<const __nv_bfloat162*>(a)[i / 2];
    const __nv_bfloat162 y = reinterpret_cast<const __nv_bfloat162*>(b)[i / 2];
    const __nv_bfloat162 z = reinterpret_cast<const __nv_bfloat162*>(c)[i / 2];
    reinterpret_cast<__nv_bfloat162*>(out)[i / 2] = __hfma2(x, y, z);
  } else if (i < n) {
    out[i] = __hfma(a[i], b[i], c[i]);
  }
}
// out = (a + b) in float through the pair conversions, as float pairs
__global__ void add_pairs_f32(float* out, const __nv_bfloat16* a, const __nv_bfloat16* b, int n) {
  int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
  if (i + 1 < n) {
    const float2 x = __bfloat1622float2(reinterpret_cast<const __nv_bfloat162*>(a)[i / 2]);
    const __nv_bfloat162 yb = reinterpret_cast<const __nv_bfloat162*>(b)[i / 2];
    reinterpret_cast<float2*>(out)[i / 2] = make_float2(x.x + __low2float(yb), x.y + __high2float(yb));
  } else if (i < n) {
    out[i] = __bfloat162float(a[i]) + __bfloat162float(b[i]);
  }
}
// half pairs to float and back: out = round_half(2 * x)
__global__ void twice_half(__half* out, const __half* x, int n) {
  int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
  if (i + 1 < n) {
    const float2 f = __half22float2(reinterpret_cast<const __half2*>(x)[i / 2]);
    reinterpret_cast<__half2*>(out)[i / 2] = __floats2half2_rn(2.0f * f.x, 2.0f * f.y);
  } else if (i < n) {
    out[i] = __float2half(2.0f * __half2float(x[i]));
  }
}
"""


def test_pair_kernels_compile_with_cuda_headers(tmp_path):
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("no nvcc on PATH")
    (tmp_path / "pairs.cu").write_text(SRC)
    res = subprocess.run([nvcc, "-arch=sm_90", "-cubin", "-o", str(tmp_path / "pairs.cubin"), str(tmp_path / "pairs.cu")],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


def _emu_source() -> str:
    return "\n".join(line for line in SRC.splitlines() if not line.startswith("#include"))


@pytest.mark.parametrize("n", [1001, 1000])  # an odd tail and none
def test_bf16_pairs_emulated_match_numpy(n):
    rng = np.random.default_rng(n)
    a, b, c = (bf16_bits(rng.standard_normal(n).astype(np.float32)) for _ in range(3))
    out = np.zeros(n, np.uint16)
    got = emulate(_emu_source(), "fma_pairs", [out, a, b, c, n], (4, 1, 1), (128, 1, 1))[0]
    f64 = [bf16_decode(v).astype(np.float64) for v in (a, b, c)]
    want = bf16_bits((f64[0] * f64[1] + f64[2]).astype(np.float32))  # exact, then rounded to bf16
    close = np.abs(bf16_decode(got) - bf16_decode(want)) <= 1e-2 * np.abs(bf16_decode(want)) + 1e-6
    assert close.all(), np.nonzero(~close)[0][:5]
    out32 = np.zeros(n, np.float32)
    got32 = emulate(_emu_source(), "add_pairs_f32", [out32, a, b, n], (4, 1, 1), (128, 1, 1))[0]
    np.testing.assert_array_equal(got32, bf16_decode(a) + bf16_decode(b))


def test_half_pairs_emulated_match_numpy():
    n = 777
    x = np.random.default_rng(1).standard_normal(n).astype(np.float16)
    out = np.zeros(n, np.float16)
    got = emulate(_emu_source(), "twice_half", [out, x, n], (4, 1, 1), (128, 1, 1))[0]
    np.testing.assert_array_equal(got, (2 * x.astype(np.float32)).astype(np.float16))
