"""Parsing and policing of a model's answer (optimizer/llm/answer.py)."""
import os

import pytest

from kernelpro.optimizer.llm.answer import BadAnswer, check_expression, extract_answer, global_kernels

KERNEL = """__global__ void saxpy(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}"""
REFERENCE = """__global__ void saxpy(float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}"""


def fenced(code, lang="cuda", before="Here is the kernel.", after=""):
    return f"{before}\n```{lang}\n{code}\n```\n{after}"


def reason(text, **kw):
    with pytest.raises(BadAnswer) as ei:
        extract_answer(text, "saxpy", **kw)
    return ei.value.reason


@pytest.mark.parametrize("lang", ["cuda", "cpp", "c++", "cu", ""])
def test_good_answer_without_launch(lang):
    a = extract_answer(fenced(KERNEL, lang, after="It uses __restrict__."), "saxpy")
    assert "__global__ void saxpy" in a.source and a.source.endswith("}\n")
    assert a.launch is None and a.flags is None
    assert "Here is the kernel." in a.notes and "It uses __restrict__." in a.notes
    assert "__global__" not in a.notes


def test_good_answer_with_launch_json():
    text = fenced(KERNEL) + '```json\n{"block": [256, 1], "grid": "ceil_div(n, 256)", "shared_bytes": 0,' \
                            ' "flags": ["-use_fast_math", "-maxrregcount=64"]}\n```\n'
    a = extract_answer(text, "saxpy", reference_source=REFERENCE)
    assert a.launch == {"block": [256, 1], "grid": "ceil_div(n, 256)", "shared_bytes": 0}
    assert a.flags == ("-use_fast_math", "-maxrregcount=64")


def test_last_block_defining_the_kernel_wins_and_helpers_and_templates_pass():
    draft = KERNEL.replace("a * x[i]", "2 * a * x[i]")
    final = """#include <cuda_fp16.h>
#include <cooperative_groups.h>
#include <cub/block/block_reduce.cuh>
#pragma unroll
namespace cg = cooperative_groups;
template <typename T> __device__ __forceinline__ T fma2(T a, T b, T c) { return a * b + c; }
struct Op { __device__ float operator()(float v) const { return v; } };
constexpr int kBlock = 256;
__host__ __device__ inline int cdiv(int a, int b) { return (a + b - 1) / b; }
__global__ void __launch_bounds__(256) saxpy(const float* __restrict__ x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  auto f = [](float v) { return v; };
  float* scratch = (float*)malloc(4); free(scratch);
  asm volatile("membar.gl;");
  if (i < n) y[i] = fma2(a, f(x[i]), y[i]);
}"""
    a = extract_answer(fenced(draft, before="Draft:") + fenced(final, before="Final:"), "saxpy",
                       reference_source=REFERENCE)
    assert "fma2" in a.source and "2 * a" not in a.source


def test_no_code_block():
    assert reason("Use shared memory tiling and unroll the loop.").startswith("no code block")
    # a fenced block without a kernel is not an answer either
    assert reason("```cuda\n__device__ float f(float x) { return x; }\n```").startswith("no code block")


def test_empty_answer():
    assert reason("   \n") == "empty answer"


def test_renamed_kernel():
    r = reason(fenced(KERNEL.replace("saxpy", "saxpy_v2")))
    assert "kernel 'saxpy' not found" in r and "saxpy_v2" in r


def test_changed_parameters():
    r = reason(fenced(KERNEL.replace("float a, int n", "int n")), reference_source=REFERENCE)
    assert "parameters changed" in r


@pytest.mark.parametrize("extra, word", [
    ("int main() { return 0; }", "host function 'main'"),
    ("void helper(float* p) { p[0] = 1; }", "host function 'helper'"),
    ("struct S { int m() { return 1; } };", "host function 'm'"),
    ("__device__ void d(float* p) { cudaMalloc((void**)&p, 4); }", "host CUDA runtime call 'cudaMalloc'"),
    ("__device__ void d(float* p) { cudaMemcpyAsync(p, p, 4, cudaMemcpyDeviceToDevice); }", "cudaMemcpyAsync"),
    ("__device__ void d() { cudaLaunchKernel(0, 1, 1, 0, 0, 0); }", "cudaLaunchKernel"),
    ("__global__ void other(float* y) { y[0] = 0; }\n__device__ void d(float* y) { other<<<1, 1>>>(y); }",
     "kernel launch <<<...>>>"),
    ("__device__ void d() { system(\"rm -rf /\"); }", "host system call 'system'"),
    ("__device__ void d() { void* f = fopen(\"x\", \"w\"); }", "fopen"),
    ("__device__ void d() { popen(\"ls\", \"r\"); }", "popen"),
    ("__device__ void d() { execvp(\"sh\", 0); }", "execvp"),
    ("__device__ void d() { fork(); }", "fork"),
    ("__device__ void d() { dlopen(\"x.so\", 1); }", "dlopen"),
    ("__device__ void d() { std::thread t; }", "std::thread"),
    ("float* g = (float*)malloc(16);", "malloc() outside device code"),
])
def test_host_code_rejected(extra, word):
    r = reason(fenced(KERNEL + "\n" + extra))
    assert word in r, r


def test_words_in_comments_and_strings_are_not_host_code():
    code = KERNEL + '\n// int main() { system("x"); cudaMalloc(0, 0); }\n__device__ const char* s() { return "fork()"; }'
    extract_answer(fenced(code), "saxpy")
    # __threadfence_system is a device intrinsic, not system()
    extract_answer(fenced(KERNEL.replace("if (i < n)", "__threadfence_system(); if (i < n)")), "saxpy")


@pytest.mark.parametrize("inc, word", [
    ("<stdio.h>", "not an allowed device header"),
    ("<cub/../../../etc/passwd>", "not an allowed device header"),
    ('"../../etc/passwd"', "resolves outside the project"),
    ('"/etc/passwd"', "absolute paths are not allowed"),
    ('"missing.cuh"', "no such file in the project"),
    ("MY_HEADER", "only <header> or \"header\" forms"),
])
def test_includes_rejected(tmp_path, inc, word):
    r = reason(fenced(f"#include {inc}\n" + KERNEL), project_dir=tmp_path)
    assert word in r, r


def test_include_next_rejected():
    assert "#include_next" in reason(fenced("#include_next <cuda_fp16.h>\n" + KERNEL))


def test_project_headers(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "helpers.cuh").write_text("__device__ inline float sq(float x) { return x * x; }\n")
    outside = tmp_path.parent / "outside_secret.h"
    outside.write_text("int x;\n")
    os.symlink(outside, tmp_path / "link.h")
    a = extract_answer(fenced('#include "inc/helpers.cuh"\n#include <cuda_bf16.h>\n' + KERNEL), "saxpy",
                       project_dir=tmp_path)
    assert '#include "inc/helpers.cuh"' in a.source
    assert "resolves outside the project" in reason(fenced('#include "link.h"\n' + KERNEL), project_dir=tmp_path)
    assert "no project directory" in reason(fenced('#include "inc/helpers.cuh"\n' + KERNEL))
    # an include inside a comment does not count
    extract_answer(fenced("// #include <stdio.h>\n" + KERNEL), "saxpy")


def test_enormous_answer():
    text = fenced(KERNEL + "\n// " + "x" * 300_000)
    assert "answer too long" in reason(text)
    assert "answer too long" in reason(fenced(KERNEL), max_chars=50)


@pytest.mark.parametrize("js, word", [
    ('{"block": 256, "stream": 2}', "unknown keys ['stream']"),
    ('{"block": "__import__(\'os\').system(\'x\')"}', "calls something other than"),
    ('{"block": "n.real"}', "only arithmetic"),
    ('{"grid": "open(n)"}', "calls something other than"),
    ('{"grid": [1, 2, 3, 4]}', "1 to 3 dimensions"),
    ('{"block": 1.5}', "must be an integer or an expression string"),
    ('{"block": true}', "must be an integer or an expression string"),
    ('{"block": {"x": 1}}', "must be an integer or an expression string"),
    ('{"shared_bytes": "n ** 99"}', "only arithmetic"),
    ('{"flags": ["-o", "/tmp/x"]}', "compile flag '-o' is not allowed"),
    ('{"flags": "-use_fast_math"}', "list of strings"),
    ('[256]', "must be an object"),
    ('{"block": 256,}', "not valid JSON"),
])
def test_bad_launch_json(js, word):
    r = reason(fenced(KERNEL) + f"```json\n{js}\n```\n")
    assert word in r, r


def test_expressions():
    check_expression("(n + 255) // 256")
    check_expression("max(1, min(m, 65535)) * 2 - -1")
    with pytest.raises(BadAnswer):
        check_expression("n.bit_length()")
    with pytest.raises(BadAnswer):
        check_expression("n if n else 1")


def test_think_blocks_are_ignored():
    text = "<think>\n```cuda\n" + KERNEL.replace("saxpy", "wrong") + "\n```\n</think>\n" + fenced(KERNEL)
    assert "saxpy" in extract_answer(text, "saxpy").source


def test_global_kernels_lists_templates_and_extern_c():
    src = 'template <int B> __global__ void a(int* p) {}\nextern "C" __global__ void b(int* p) {}\n' \
          "__device__ void c() {}"
    assert global_kernels(src) == ["a", "b"]
