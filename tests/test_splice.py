"""Splicing a model's device code into the user's file (optimizer/llm/splice.py)."""
from kernelpro.optimizer.llm.splice import drop_copied_host_code, splice
from kernelpro.profilers.compile import compile_cuda

PARENT = """#include <cstdio>
#define TILE 16
__device__ float sq(float x) { return x * x; }
__global__ void k(float* a, int n) { int i = threadIdx.x; if (i < n) a[i] = sq(a[i]) * TILE; }
void launch(float* a, int n) { k<<<1, 256>>>(a, n); }
"""


def compiles(tmp_path, text):
    p = tmp_path / "k.cu"
    p.write_text(text)
    art = compile_cuda(p, use_cache=False)
    return art.ok, [d.message for d in art.diagnostics]


def test_new_helper_that_calls_a_file_helper_is_placed_after_it(tmp_path):
    answer = """__device__ float cube(float x) { return sq(x) * x; }
__global__ void k(float* a, int n) { int i = threadIdx.x; if (i < n) a[i] = cube(a[i]) * TILE; }
"""
    out = splice(PARENT, answer)
    assert out.index("float sq(") < out.index("float cube(") < out.index("void k(")
    assert "void launch(float* a, int n) { k<<<1, 256>>>(a, n); }" in out
    ok, diags = compiles(tmp_path, out)
    assert ok, diags


def test_renamed_helper_is_defined_before_the_kernel(tmp_path):
    answer = """__device__ float sq_fast(float x) { return __fmul_rn(x, x); }
__global__ void k(float* a, int n) { int i = threadIdx.x; if (i < n) a[i] = sq_fast(a[i]) * TILE; }
"""
    out = splice(PARENT, answer)
    assert out.index("sq_fast(float x)") < out.index("void k(")
    assert compiles(tmp_path, out)[0]


def test_a_new_kernel_after_the_kernel_stays_after_it():
    answer = """__global__ void k(float* a, int n) { a[0] = sq(1.0f); }
__global__ void k2(float* a) { a[1] = 2; }
"""
    out = splice(PARENT, answer)
    assert out.index("void k(") < out.index("void k2(") < out.index("void launch(")


def test_changed_define_replaces_the_files_own():
    answer = """#define TILE 32
#include <cstdint>
__global__ void k(float* a, int n) { int i = threadIdx.x; if (i < n) a[i] = sq(a[i]) * TILE; }
"""
    out = splice(PARENT, answer)
    assert "#define TILE 32" in out and "#define TILE 16" not in out
    assert out.count("#define TILE") == 1
    assert out.index("#include <cstdint>") < out.index("#define TILE 32")


def test_extern_c_and_namespaced_kernels_are_replaced():
    parent = 'extern "C" __global__ void k(float* a) { a[0] = 1; }\nvoid run(float* a) { k<<<1, 1>>>(a); }\n'
    out = splice(parent, 'extern "C" __global__ void k(float* a) { a[0] = 2; }\n')
    assert "a[0] = 2" in out and "a[0] = 1" not in out and "void run(" in out
    parent = "namespace ns {\n__global__ void k(float* a) { a[0] = 1; }\n}\n"
    out = splice(parent, "namespace ns {\n__global__ void k(float* a) { a[0] = 2; }\n}\n")
    assert "a[0] = 2" in out and "a[0] = 1" not in out and out.startswith("namespace ns {")


def test_template_kernel_replaced_and_rewritten_launcher_kept_as_written():
    parent = "template <int B>\n__global__ void k(float* a) { a[0] = B; }\nvoid l(float* a) { k<256><<<1, 256>>>(a); }\n"
    answer = ("template <int B>\n__global__ void k(float* a) { a[threadIdx.x] = B; }\n"
              "void l(float* a) { k<128><<<1, 128>>>(a); }\n")
    out = splice(parent, answer)
    assert "a[threadIdx.x] = B" in out and "k<256><<<1, 256>>>" in out and "k<128>" not in out
    assert out.count("template <int B>") == 1


def test_copied_host_code_dropped_changed_host_code_kept():
    copied = "__global__ void k(float* a, int n) { a[0] = 0; }\nvoid launch(float* a, int n) { k<<<1, 256>>>(a, n); }\n"
    assert "void launch" not in drop_copied_host_code(copied, PARENT)
    changed = copied.replace("<<<1, 256>>>", "<<<2, 128>>>")
    assert "void launch" in drop_copied_host_code(changed, PARENT)


def test_top_level_device_variables_are_kept_and_compile(tmp_path):
    """A model answer that declares __device__ state lost it in the splice and failed to compile."""
    answer = """__device__ unsigned int calls;
__device__ float scale[2] = {2.0f, 3.0f};
static __device__ unsigned long long last = 0;
__global__ void k(float* a, int n) {
  int i = threadIdx.x;
  if (i == 0) { atomicAdd(&calls, 1u); last = (unsigned long long)a; }
  if (i < n) a[i] = sq(a[i]) * TILE * scale[0];
}
"""
    out = splice(PARENT, answer)
    for decl in ("__device__ unsigned int calls;", "__device__ float scale[2] = {2.0f, 3.0f};",
                 "static __device__ unsigned long long last = 0;"):
        assert out.count(decl) == 1 and out.index(decl) < out.index("void k(")
    assert "void launch(float* a, int n) { k<<<1, 256>>>(a, n); }" in out
    ok, diags = compiles(tmp_path, out)
    assert ok, diags


def test_a_changed_declaration_replaces_the_files_own_and_an_unchanged_one_is_not_repeated(tmp_path):
    parent = "struct Pair { float a, b; };\n__constant__ float coef[2];\n" + PARENT
    answer = """struct Pair { float a, b, c; };
__constant__ float coef[2];
__global__ void k(float* a, int n) { Pair p{1.f, 2.f, 3.f}; if (threadIdx.x < n) a[threadIdx.x] = p.c + coef[0]; }
"""
    out = splice(parent, answer)
    assert "struct Pair { float a, b, c; };" in out and "struct Pair { float a, b; };" not in out
    assert out.count("__constant__ float coef[2];") == 1
    assert compiles(tmp_path, out)[0]
