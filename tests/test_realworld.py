"""Static tools on the shapes real CUDA code takes (issue 11): templates, headers, paths,
code switched off by the preprocessor, register-tiled kernels, read-only pointers."""
from __future__ import annotations

import shutil
from pathlib import Path

from kernelpro.profilers.profile import profile_file

EX = Path(__file__).resolve().parent.parent / "examples"


def rules(rep) -> set[str]:
    return {a.rule for a in rep.advice}


def test_non_ascii_folder_keeps_the_sass_rules(tmp_path):
    # nvdisasm writes the path with octal escapes ("\303\274"): every SASS line must still match
    d = tmp_path / "ü 中文"
    d.mkdir()
    shutil.copy(EX / "a_slow_math.cu", d / "a_slow_math.cu")
    rep = profile_file(d / "a_slow_math.cu")
    assert rep.ok
    slow = [a for a in rep.advice if a.rule == "slow-math-in-loop"]
    assert slow and all(a.file == str((d / "a_slow_math.cu").resolve()) for a in slow)


TEMPLATE_REDUCE = """\
template <typename T, unsigned BLOCK>
__global__ void reduce(const T* __restrict__ in, T* __restrict__ out, int n) {
    __shared__ T sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * BLOCK + tid;
    sdata[tid] = (i < n) ? in[i] * 0.1 : T(0);
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

void run(const float* a, float* b, const double* c, double* d, int n) {
    reduce<float, 256><<<(n + 255) / 256, 256>>>(a, b, n);
    reduce<double, 256><<<(n + 255) / 256, 256>>>(c, d, n);
}
"""


def test_template_instantiations_are_judged_apart(tmp_path):
    p = tmp_path / "reduce.cu"
    p.write_text(TEMPLATE_REDUCE)
    rep = profile_file(p)
    assert rep.ok and rep.analysed
    rows = {k.instantiation: k for k in rep.kernels}
    assert set(rows) == {"reduce<float, 256>", "reduce<double, 256>"}
    assert rows["reduce<double, 256>"].shared_bytes == 2 * rows["reduce<float, 256>"].shared_bytes
    fp64 = [a for a in rep.advice if a.rule == "fp64-in-float-kernel"]
    # the 0.1 promotes the float instantiation; the double one computes in double on purpose
    assert fp64 and {a.instantiation for a in fp64} == {"reduce<float, 256>"}
    assert all(a.line == 6 for a in fp64)
    assert not any("double" in a.message.split("float kernel")[-1].split("(")[0] for a in fp64)
    # a finding both instantiations share is reported once, under the template's name
    red = [a for a in rep.advice if a.rule == "block-reduction-barriers"]
    assert len(red) == 1 and red[0].instantiation is None and "reduce<" not in red[0].message


def test_double_kernel_through_a_typedef_is_not_a_float_kernel(tmp_path):
    p = tmp_path / "typedef.cu"
    p.write_text("typedef double real;\n"
                 "__global__ void k(real* y, const real* x, int n) {\n"
                 "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "    if (i < n) y[i] = x[i] * 0.1 + 1.0;\n}\n")
    rep = profile_file(p)
    assert rep.ok and "fp64-in-float-kernel" not in rules(rep)


HEADER = """\
#pragma once
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * 0.1;
}
template <typename T>
__global__ void axpy(T* y, const T* x, T a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i] * 0.5;
}
"""

LAUNCHER = """\
#include "kernels.cuh"
void go(float* a, const float* b, int n) {
    scale<<<(n + 127) / 128, 128>>>(a, b, n);
    axpy<float><<<(n + 255) / 256, 256>>>(a, b, 2.0f, n);
}
"""


def test_kernels_in_a_project_header_are_followed(tmp_path):
    (tmp_path / "kernels.cuh").write_text(HEADER)
    (tmp_path / "main.cu").write_text(LAUNCHER)
    rep = profile_file(tmp_path / "main.cu")
    assert rep.ok and rep.analysed
    header = str((tmp_path / "kernels.cuh").resolve())
    assert {(k.name, k.file, k.line) for k in rep.kernels} == {("scale", header, 2), ("axpy", header, 7)}
    blocks = {k.name: (k.block, k.block_origin) for k in rep.kernels}
    assert blocks["scale"] == (128, "launch site line 3 of main.cu")
    fp64 = sorted((a.file, a.line, a.instantiation) for a in rep.advice if a.rule == "fp64-in-float-kernel")
    assert fp64 == [(header, 4, None), (header, 9, "axpy<float>")]
    assert not any("no __global__ kernels" in n for n in rep.notes)


def test_template_header_alone_says_nothing_was_compiled(tmp_path):
    p = tmp_path / "only.cuh"
    p.write_text(HEADER.split("template")[0].replace("scale", "unused_scale").split("__global__")[0]
                 + "template" + HEADER.split("template")[1])
    rep = profile_file(p)
    assert rep.ok and not rep.analysed
    assert any("axpy" in n and "never instantiates" in n for n in rep.notes)
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "kernelpro.profilers.cli", "profile", str(p)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 3 and "never instantiates" in r.stdout and "no findings" not in r.stdout


def test_code_switched_off_by_the_preprocessor_gets_no_finding(tmp_path):
    p = tmp_path / "pp.cu"
    p.write_text("#define USE_FAST 1\n"
                 "__global__ void k(float* __restrict__ out, const float* __restrict__ in, int n) {\n"
                 "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "#if USE_FAST\n"
                 "    out[i] = in[i] * 2.0f;\n"
                 "#else\n"
                 "    out[i * n] = powf(in[i * n], 2.5) * 0.5;\n"
                 "#endif\n"
                 "}\n"
                 "#if 0\n"
                 "__global__ void dead(float* out, float* in, int n) {\n"
                 "    out[threadIdx.x * n] = in[threadIdx.x * n] * 0.5;\n"
                 "}\n"
                 "#endif\n")
    rep = profile_file(p)
    assert rep.ok
    assert [k.name for k in rep.kernels] == ["k"]
    assert not [a for a in rep.advice if a.line >= 6], [a.text() for a in rep.advice]
    assert any("dead" in n and "switched off by the preprocessor" in n for n in rep.notes)


CORPUS = Path(__file__).resolve().parent / "corpus"


def many_registers(n: int = 90, bounds: str = "__launch_bounds__(256) ") -> str:
    """A kernel that keeps n values live across a loop: register-limited occupancy."""
    loads = " ".join(f"float v{j} = in[i + {j} * n];" for j in range(n))
    steps = "\n".join(f"        v{j} = v{j} * s + v{(j * 7 + 3) % n};" for j in range(n))
    total = " + ".join(f"v{j} * v{(j + 1) % n}" for j in range(n))
    return (f"__global__ void {bounds}many_regs(const float* __restrict__ in, float* __restrict__ out, int n) {{\n"
            f"    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    {loads}\n"
            f"    for (int it = 0; it < n; ++it) {{\n        float s = in[it];\n{steps}\n    }}\n"
            f"    out[i] = {total};\n}}\n"
            "void go(const float* a, float* b, int n) { many_regs<<<n / 256, 256>>>(a, b, n); }\n")


def test_register_cap_that_spills_is_not_offered_and_never_doubles_the_attribute(tmp_path):
    p = tmp_path / "regs.cu"
    p.write_text(many_registers())
    rep = profile_file(p)
    (low,) = [a for a in rep.advice if a.rule == "low-occupancy"]
    assert low.fix is None
    assert "spill" in low.remedy and "no cap is offered" in low.remedy
    trial = [e for e in low.evidence if e.name.startswith("compiled with __launch_bounds__(256, ")]
    assert trial and "spill" in str(trial[0].value)


def test_register_tiled_kernel_is_register_bound_by_design():
    rep = profile_file(CORPUS / "matmul" / "m5_register_tiled.cu")
    (low,) = [a for a in rep.advice if a.rule == "low-occupancy"]
    assert low.fix is None and low.severity.value == "hint"
    assert "register tile of 64 values" in low.message and "by design" in low.message
    assert "__launch_bounds__(" not in low.remedy


def test_missing_restrict_only_where_the_sass_shows_it_matters(tmp_path):
    # one load per thread before the only store: restrict would change nothing
    stream = tmp_path / "stream.cu"
    stream.write_text("__global__ void saxpy(float* y, const float* x, float a, int n) {\n"
                      "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "    if (i < n) y[i] = a * x[i] + y[i];\n}\n"
                      "__global__ void copy(float* out, float* in, int n) {\n"
                      "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "    if (i < n) out[i] = in[i];\n}\n")
    rep = profile_file(stream)
    assert rep.ok and "missing-restrict" not in rules(rep)
    # a loop that stores and reloads: the compiler must assume out[] changed w[] and in[]
    loop = tmp_path / "loop.cu"
    loop.write_text("__global__ void fir(float* out, float* in, float* w, int n, int taps) {\n"
                    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "    if (i >= n) return;\n"
                    "    out[i] = 0.0f;\n"
                    "    for (int t = 0; t < taps; ++t) out[i] += w[t] * in[i + t];\n}\n")
    rep = profile_file(loop)
    (a,) = [a for a in rep.advice if a.rule == "missing-restrict"]
    assert "`in`" in a.message and "`w`" in a.message
    assert rules(profile_file(EX / "a_missing_restrict.cu")) >= {"missing-restrict"}


CG_BASE = """\
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void bsum(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float a[256];
  cg::thread_block block = cg::this_thread_block();
  unsigned tid = threadIdx.x;
  a[tid] = in[blockIdx.x * 256 + tid];
  block.sync();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) a[tid] += a[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = a[0];
}
void go(const float* i, float* o, int n) { bsum<<<n / 256, 256>>>(i, o, n); }
"""


def _matches(text: str) -> int:
    from kernelpro.profilers.rules import reduction
    from kernelpro.profilers.source import parse_source

    src = parse_source(text)
    return len(reduction.find(src, src.kernels[0]))


import pytest  # noqa: E402


@pytest.mark.parametrize("old, new", [
    ("    __syncthreads();\n  }", "    cg::sync(block);\n  }"),
    ("    __syncthreads();\n  }", "    block.sync();\n  }"),
    ("    __syncthreads();\n  }", "    cg::this_thread_block().sync();\n  }"),
    ("    if (tid < s) a[tid] += a[tid + s];\n    __syncthreads();", "    __syncthreads();\n    if (tid < s) a[tid] += a[tid + s];"),
    ("unsigned tid = threadIdx.x;", "unsigned tid = block.thread_rank();"),
])
def test_tree_reduction_spellings_are_recognised(old, new):
    assert CG_BASE.count(old) == 1 and _matches(CG_BASE) == 1
    assert _matches(CG_BASE.replace(old, new)) == 1


def test_a_tile_barrier_is_not_a_block_barrier():
    text = CG_BASE.replace("    __syncthreads();\n  }", "    tile.sync();\n  }").replace(
        "  unsigned tid", "  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);\n  unsigned tid")
    assert _matches(text) == 0


def test_barrier_first_rewrite_keeps_a_barrier_before_the_warp_and_compiles(tmp_path):
    text = CG_BASE.replace("    if (tid < s) a[tid] += a[tid + s];\n    __syncthreads();",
                           "    block.sync();\n    if (tid < s) a[tid] += a[tid + s];")
    p = tmp_path / "top.cu"
    p.write_text(text)
    rep = profile_file(p)
    (adv,) = [a for a in rep.advice if a.rule == "block-reduction-barriers"]
    assert "opening with block.sync()" in adv.message
    from test_rules_b import apply_edits

    fixed = apply_edits(text, adv.fix["edits"])
    warp = fixed[fixed.index("if (s == 32"):]
    assert warp.index("__syncthreads();") < warp.index("if (tid < 32)")
    q = tmp_path / "fixed.cu"
    q.write_text(fixed)
    from kernelpro.profilers.compile import compile_cuda

    art = compile_cuda(q)
    assert art.ok and any(i.base == "SHFL" for b in art.kernels for i in b.sass)


@pytest.mark.gpu
def test_barrier_first_rewrite_is_bit_identical_on_the_gpu(tmp_path):
    import numpy as np
    from test_rules_b import apply_edits
    from test_transforms import _gpu_runner

    r = _gpu_runner()
    if r is None:
        pytest.skip("neither cupy nor pycuda imports")
    lib, xp, launch = r
    text = CG_BASE.replace("    if (tid < s) a[tid] += a[tid + s];\n    __syncthreads();",
                           "    block.sync();\n    if (tid < s) a[tid] += a[tid + s];")
    p = tmp_path / "top.cu"
    p.write_text(text)
    (adv,) = [a for a in profile_file(p).advice if a.rule == "block-reduction-barriers"]
    fixed = apply_edits(text, adv.fix["edits"])
    text, fixed = (t[:t.index("void go(")] for t in (text, fixed))  # device code only (NVRTC)
    blocks = 4096
    host = np.random.default_rng(11).standard_normal(blocks * 256).astype(np.float32)

    def run(src):
        x, out = xp.asarray(host), xp.asarray(np.zeros(blocks, np.float32))
        args = (x, out, np.int32(host.size)) if lib == "cupy" else (x.gpudata, out.gpudata, np.int32(host.size))
        launch(src, "bsum", args, [blocks], [256])
        return xp.asnumpy(out)

    np.testing.assert_array_equal(run(fixed), run(text))
