"""Each source a launch-spec inference reads, on its own (issue 28): the index under its guards, the
loops, early exits, strides (2-D, 3-D, row pointers, offsets), element types (typedefs, templates),
reads and writes, host code (cudaMalloc, launches, dim3, #defines, argv defaults, wrappers, an
including .cu), the thread mapping where there is no launch, defaults; then the snapshot that does not
move, the new `spec check` errors, and the command lines."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernelpro.profilers.runtime.infer import infer_spec, write_spec
from kernelpro.profilers.runtime.spec import load_spec
from kernelpro.profilers.runtime.speccheck import check_spec

HERE = Path(__file__).resolve().parent


def plan_of(tmp_path: Path, text: str, kernel: str | None = None, name: str = "k.cu", files: dict | None = None):
    for rel, body in (files or {}).items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(body)
    cu = tmp_path / name
    cu.parent.mkdir(parents=True, exist_ok=True)
    cu.write_text(text)
    return infer_spec(cu, kernel)


def arg(plan, name):
    return next(a for a in plan.args if a.name == name)


def shape(plan, name):
    return arg(plan, name).shape.value


# --- the kernel: indices, guards, loops --------------------------------------------------------------
def test_index_under_a_guard_and_a_loop_gives_rows_and_columns(tmp_path):
    p = plan_of(tmp_path, """
__global__ void rowsum(const float* A, float* out, int M, int K) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < M) { float s = 0; for (int i = 0; i < K; ++i) s += A[x * K + i]; out[x] = s; }
}""")
    assert shape(p, "A") == ["M", "K"] and shape(p, "out") == ["M"]
    why = arg(p, "A").shape.why
    assert "`A[x * K + i]`" in why and "`x < M`" in why and "`i < K`" in why and not arg(p, "A").shape.guess


def test_early_exit_ternary_and_short_circuit_guards(tmp_path):
    p = plan_of(tmp_path, """
__global__ void g(const float* a, const float* b, float* y, float* z, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || m < 1) return;
  y[i] = a[i] > 0 && i + 1 < n ? b[i + 1] : 0.0f;
  z[i] = a[i];
}""")
    assert shape(p, "b") == ["n"]  # b[i + 1] only under i + 1 < n
    assert shape(p, "y") == ["n"] and "`i < n`" in arg(p, "y").shape.why  # `i >= n || m < 1` negated


def test_three_dimensional_index_and_offsets(tmp_path):
    p = plan_of(tmp_path, """
__global__ void k3(const float* u, float* v, int nx, int ny, int nz, int off) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz) v[(z * ny + y) * nx + x] = u[off + (z * ny + y) * nx + x];
}""")
    assert shape(p, "v") == ["nz", "ny", "nx"]
    assert shape(p, "u") == ["nx * ny * nz + off"]  # an offset: flat
    assert p.block.value == [8, 8, 4]


def test_row_pointers_and_a_strided_column(tmp_path):
    p = plan_of(tmp_path, """
__global__ void rows(float* y, const float* x, const float* w, int R, int C) {
  int r = blockIdx.x;
  if (r >= R) return;
  const float* xr = x + r * C;
  float* yr = y + r * C;
  for (int c = threadIdx.x; c < C; c += blockDim.x) yr[c] = xr[c] * w[c * 3];
}""")
    assert shape(p, "x") == ["R", "C"] == shape(p, "y")
    assert shape(p, "w") == ["C", "3"]  # the last element read is w[3 * (C - 1)]: C rows of 3, rounded up
    assert p.grid.value == ["R"]  # a block per row, from `r >= R`


def test_reads_and_writes_make_inputs_outputs_and_in_out_buffers(tmp_path):
    p = plan_of(tmp_path, """
__global__ void roles(const float* a, float* b, float* c, float* d, int* hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { b[i] = a[i]; c[i] += a[i]; d[i] = 0; d[i] += 1; atomicAdd(&hist[i % 8], 1); }
}""")
    roles = {a.name: a.role.value for a in p.args if a.buffer}
    assert roles == {"a": "input", "b": "output", "c": "inout", "d": "output", "hist": "inout"}
    assert shape(p, "hist") == ["8"] or shape(p, "hist") == ["min(8, n)"] or shape(p, "hist")[0] in ("8",)
    assert arg(p, "a").fill.value == "randn" and arg(p, "hist").fill.value.startswith("randint")


def test_element_types_through_typedefs_macros_and_vectors(tmp_path):
    p = plan_of(tmp_path, """
#include <cuda_fp16.h>
typedef double real;
using half_t = __half;
#define IDX long long
__global__ void t(real* y, const half_t* h, const float4* v, IDX n) {
  IDX i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = (double)__half2float(h[i]) + v[i].x;
}""")
    assert arg(p, "y").dtype.value == "float64" and "`real` is double" in arg(p, "y").dtype.why
    assert arg(p, "h").dtype.value == "float16"
    assert shape(p, "v") == ["n", "4"]  # float4: a trailing dimension of 4
    assert arg(p, "n").dtype.value == "int64"  # the spec needs the dtype of a typedef'd scalar


def test_template_arguments_from_the_launch_and_from_the_pointers(tmp_path):
    text = """
template <typename T, int B> __global__ void t(T* y, const T* x, int n) {
  int i = blockIdx.x * B + threadIdx.x;
  if (i < n) y[i] = x[i];
}
template <typename T> __global__ void d(T* y, const T* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
void go(int n) {
  double *a, *b; float *c, *e;
  t<double, 128><<<(n + 127) / 128, 128>>>(a, b, n);
  d<<<(n + 63) / 64, 64>>>(c, e, n);
}"""
    p = plan_of(tmp_path, text, "t")
    assert p.instantiation == "t<double, 128>" and arg(p, "y").dtype.value == "float64"
    q = plan_of(tmp_path, text, "d")
    assert q.instantiation == "d<float>" and arg(q, "x").dtype.value == "float32"
    r = plan_of(tmp_path, text.split("void go")[0], "d")  # no instantiation: said, float guessed
    assert any("no instantiation" in n for n in r.notes) and "GUESS" in r.toml()


def test_an_index_the_analysis_cannot_bound_is_said_and_guessed(tmp_path):
    p = plan_of(tmp_path, """
__global__ void u(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i * i];
}""")
    assert arg(p, "x").shape.guess and any("x:" in n and "GUESS" in n for n in p.notes)
    assert not arg(p, "y").shape.guess


def test_an_index_behind_a_one_expression_helper_is_read_through_it(tmp_path):
    p = plan_of(tmp_path, """
__device__ __forceinline__ float pick(const float* x, int r, int c, int ld) { return x[r * ld + c]; }
__global__ void u(float* y, const float* x, int m, int n) {
  int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < m && c < n) y[r * n + c] = 2.0f * pick(x, r, c, n);
}""")
    assert arg(p, "x").shape.value == ["m", "n"] and not arg(p, "x").shape.guess
    assert "pick" in (tmp_path / "k.cu").read_text()  # the file as written is not touched


# --- host code ---------------------------------------------------------------------------------------
HOST = """
#include <cuda_runtime.h>
#define BLOCK 128
#define N (1 << 14)
__global__ void gather(float* y, const float* table, const int* idx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = table[idx[i]];
}
int main() {
  float *y, *table; int* idx;
  cudaMalloc(&y, N * sizeof(float));
  cudaMalloc((void**)&table, 1000 * sizeof(float));
  cudaMalloc(&idx, sizeof(int) * N);
  dim3 block(BLOCK);
  dim3 grid((N + block.x - 1) / block.x);
  gather<<<grid, block>>>(y, table, idx, N);
}
"""


def test_host_launch_defines_dim3_and_malloc_byte_counts(tmp_path):
    p = plan_of(tmp_path, HOST)
    assert p.host and p.grid.value == ["cdiv(N, 128)"] and p.block.value == ["128"]  # BLOCK fixed: the block's
    assert "N" in p.variables and p.variables["N"].value == 16384 and "#define N" in p.variables["N"].why
    # a gather: the ids' range is a size of its own (V), 1000 from the table's cudaMalloc, the ids filled below it
    assert shape(p, "table") == ["V"] and p.variables["V"].value == 1000 and "cudaMalloc at k.cu:12" in p.variables["V"].why
    assert arg(p, "idx").fill.value == f"randint:0:{min(env['V'] for env in p.sizes.values())}"
    assert shape(p, "y") == ["N"] and "cudaMalloc" in arg(p, "y").shape.why
    assert p.sizes["host"] == {"N": 16384, "V": 1000} and "small" in p.sizes


def test_a_define_the_kernel_uses_itself_is_fixed(tmp_path):
    p = plan_of(tmp_path, """
#define W 48
__global__ void f(float* y, const float* x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < W) y[i] = x[i];
}
void go(float* y, const float* x) { f<<<1, 64>>>(y, x); }
""")
    assert shape(p, "y") == ["48"] and list(p.sizes) == ["fixed"] and p.off_by_one.value is False


def test_argv_defaults_wrappers_and_size_loops(tmp_path):
    text = """
__global__ void s(float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 1; }
void launch(float* y, int count) { s<<<(count + 255) / 256, 256>>>(y, count); }
int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 3000;
  float* y;
  launch(y, n);
}"""
    p = plan_of(tmp_path, text)
    assert p.variables["n"].value == 3000 and "its default" in p.variables["n"].why and p.sizes["host"] == {"n": 3000}
    q = plan_of(tmp_path, text.split("void launch")[0] + """
void sweep(float* y) { for (int m = 512; m <= 4096; m *= 2) s<<<(m + 255) / 256, 256>>>(y, m); }""")
    assert q.variables["m"].value == 512 and "loop" in q.variables["m"].why


def test_a_header_kernel_takes_its_sizes_from_the_including_file(tmp_path):
    p = plan_of(tmp_path, """
#pragma once
__global__ void hk(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * 2;
}""", name="inc/hk.cuh", files={"main.cu": """
#include "inc/hk.cuh"
int main() { int n = 777; float *x, *y; cudaMalloc(&x, n * 4); cudaMalloc(&y, n * 4);
  hk<<<(n + 63) / 64, 64>>>(y, x, n); }"""})
    assert p.host and p.sizes["host"] == {"n": 777} and p.block.value == ["64"]
    assert p.spec_path.name == "hk.hk.kernelpro.toml" and 'source = "hk.cuh"' in p.toml()


# --- no launch: the thread mapping and defaults ------------------------------------------------------
def test_without_a_launch_the_grid_follows_the_elements_per_thread(tmp_path):
    p = plan_of(tmp_path, """
__global__ void four(float* y, const float* x, int n) {
  int i = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
  for (int j = 0; j < 4; ++j) if (i + j < n) y[i + j] = x[i + j];
}""")
    assert p.grid.value == ["cdiv(n, 1024)"] and p.block.value == [256] and p.block.guess
    q = plan_of(tmp_path, """
__global__ void warps(float* y, const float* x, int N, int C) {
  int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (w >= N) return;
  for (int c = lane; c < C; c += 32) y[w * C + c] = x[w * C + c];
}""")
    assert q.grid.value == ["cdiv(32 * N, 256)"] and shape(q, "y") == ["N", "C"]


def test_the_dynamic_shared_memory_follows_pointers_cut_from_the_extern_array(tmp_path):
    """`float* Bs = smem + T * T;` then `Bs[ty * T + tx]`: the block's bytes reach the second tile's end."""
    body = (HERE / "probe26" / "dyn_shared.cu").read_text()  # (a probe header above the kernel)
    p = plan_of(tmp_path, body)
    assert p.shared.value == "2048" and not p.shared.guess, (p.shared.value, p.shared.why)
    moved = plan_of(tmp_path, body.replace("float acc = 0.0f;", "float acc = 0.0f; Bs += 1;"))
    assert moved.shared.value != "2048" or moved.shared.guess  # a view moved later is not followed as if fixed


def test_default_sizes_small_for_checking_large_for_timing(tmp_path):
    p = plan_of(tmp_path, """
__global__ void mm(const float* A, const float* B, float* C, int M, int N, int K) {
  int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < M && c < N) { float s = 0; for (int k = 0; k < K; ++k) s += A[r * K + k] * B[k * N + c]; C[r * N + c] = s; }
}""")
    small, large = p.sizes["small"], p.sizes["large"]
    assert len(set(small.values())) == 3 and all(v < 100 for v in small.values())  # distinct, cheap
    assert all(v >= 256 for v in large.values()) and "GUESS" in p.size_why["large"]
    assert all(g.guess for g in p.variables.values()) and p.off_by_one.value is True


def test_an_unguarded_kernel_gets_multiples_and_no_off_by_one_sizes(tmp_path):
    p = plan_of(tmp_path, """
__global__ void sq(float* a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; a[i] *= a[i]; }""")
    assert shape(p, "a") == ["n"] and p.grid.value == ["cdiv(n, 256)"]
    assert all(env["n"] % 256 == 0 for env in p.sizes.values())
    assert p.off_by_one.value is False and "n = 255" in p.off_by_one.why and "reaches element 255" in p.off_by_one.why


# --- the snapshot ------------------------------------------------------------------------------------
KERNEL = """
__global__ void add(float* c, const float* a, const float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
"""


@pytest.mark.slow
def test_editing_the_kernel_after_the_snapshot_does_not_move_the_reference(tmp_path):
    sys.path.insert(0, str(HERE))
    from spec_emu import SpecRun, SpecRuns

    cu = tmp_path / "add.cu"
    cu.write_text(KERNEL)
    plan = infer_spec(cu)
    write_spec(plan)
    snapshot = tmp_path / "add.add.reference.cu"
    assert plan.snapshot == snapshot and snapshot.read_text() == KERNEL
    cu.write_text(KERNEL.replace("a[i] + b[i]", "a[i] - b[i]"))  # the kernel under test changes ...
    spec = load_spec(plan.spec_path)
    assert spec.reference["file"] == snapshot and snapshot.read_text() == KERNEL  # ... the reference does not
    runs = SpecRuns([SpecRun(spec, "add")], str(tmp_path))
    chk, got, want = runs.check(runs.runs[0], "small")
    assert not chk.ok and "expected" in chk.reason  # the edited kernel is caught against the snapshot
    cu.write_text(KERNEL)
    spec = load_spec(plan.spec_path)
    runs = SpecRuns([SpecRun(spec, "add")], str(tmp_path))
    assert runs.check(runs.runs[0], "small")[0].ok


def test_a_python_reference_wins_when_given(tmp_path):
    cu = tmp_path / "add.cu"
    cu.write_text(KERNEL)
    (tmp_path / "ref.py").write_text("def reference(inputs, sizes):\n    return {'c': inputs['a'] + inputs['b']}\n")
    plan = infer_spec(cu, python_reference="ref.py:reference")
    write_spec(plan)
    spec = load_spec(plan.spec_path)
    assert spec.reference["python"] == tmp_path / "ref.py" and not plan.snapshot.exists()
    text = plan.spec_path.read_text().replace('python = "ref.py:reference"',
                                              'python = "ref.py:reference"\nkernel = "add"')
    plan.spec_path.write_text(text)  # both given: Python wins, and the spec says so
    spec = load_spec(plan.spec_path)
    assert "python" in spec.reference and any("Python reference is used" in w for w in spec.warnings)


# --- spec check --------------------------------------------------------------------------------------
def _written(tmp_path: Path, text: str = KERNEL, name: str = "add.cu"):
    cu = tmp_path / name
    cu.write_text(text)
    plan = infer_spec(cu)
    write_spec(plan)
    return plan.spec_path


def test_spec_check_finds_a_missing_reference_function(tmp_path):
    spec_path = _written(tmp_path)
    (tmp_path / "ref.py").write_text("def other(inputs, sizes):\n    return {}\n")
    spec_path.write_text(spec_path.read_text().split("[reference]")[0].rsplit("#", 0)[0]
                         + '[reference]\npython = "ref.py:reference"\n')
    errors, _ = check_spec(load_spec(spec_path))
    assert any("has no function 'reference'" in e and "other" in e for e in errors), errors


def test_spec_check_finds_buffers_over_the_device_memory(tmp_path):
    spec_path = _written(tmp_path)
    text = spec_path.read_text()
    large = next(line for line in text.splitlines() if line.startswith("large = "))
    text = text.replace(large, "large = { n = 1125899906842624 }")  # 4 PiB a buffer
    spec_path.write_text(text.replace('grid = ["cdiv(n, 256)"]', 'grid = ["min(cdiv(n, 256), 65535)"]'))
    errors, _ = check_spec(load_spec(spec_path))
    assert any("size large" in e and "GiB" in e and "more than the device" in e for e in errors), errors


def test_spec_check_finds_a_proven_read_past_and_a_grid_that_leaves_outputs_unwritten(tmp_path):
    spec_path = _written(tmp_path)
    good = spec_path.read_text()
    assert check_spec(load_spec(spec_path)) == ([], [])
    spec_path.write_text(good.replace('shape = ["n"]  # from the index `a[i]`', 'shape = ["n - 5"]  # `a[i]`'))
    errors, _ = check_spec(load_spec(spec_path))
    assert any("`a[i]`" in e and "reaches element" in e and "proves" in e for e in errors), errors
    spec_path.write_text(good.replace('grid = ["cdiv(n, 256)"]  #', 'grid = ["cdiv(n, 512)"]  #'))
    errors, _ = check_spec(load_spec(spec_path))
    assert any("unwritten" in e and "c" in e for e in errors), errors


def test_a_bound_on_one_coordinate_serves_every_term_it_appears_in(tmp_path):
    """llm.c's attention_value_kernel1 reads `att_bth[t2]` with att_bth = att + ... + t * T under `t2 <= t`: the
    index holds t twice (t * T and, through t2, t), so `t <= T - 1` bounds both terms; att is B NH T T."""
    import math

    p = plan_of(tmp_path, (HERE / "probe26" / "llmc_attn_v.cu").read_text())
    att = arg(p, "att")
    assert not att.shape.guess, att.shape.why
    env = {"B": 2, "NH": 3, "T": 5, "C": 12}
    from kernelpro.profilers.runtime.expr import evaluate
    assert math.prod(evaluate(str(d), env) for d in att.shape.value) == 2 * 3 * 5 * 5, att.shape.value


def test_a_bound_whose_parts_share_the_thread_index_is_not_called_proven(tmp_path):
    """llm.c's permute: `inp` indexed by the digits of the flat index (b = idx / (NH N d), ...) and the index
    itself; a bound written with both `idx` and `idx / (N NH d)` cannot reach every part's limit at once, so a
    right shape (3 B N NH d) is never refused as a proven read past (it was: element 3361656 of 3331665)."""
    cu = tmp_path / "permute.cu"
    cu.write_text((HERE / "probe27" / "llmc_permute.cu").read_text())
    spec = tmp_path / "permute.kernelpro.toml"
    spec.write_text('''kernel = "permute_kernel"
[sizes]
small = { B = 37, N = 45, NH = 29, d = 23 }
[[args]]
name = "q"
dtype = "float32"
shape = ["B * N * NH * d"]
output = true
[[args]]
name = "k"
dtype = "float32"
shape = ["B * N * NH * d"]
output = true
[[args]]
name = "v"
dtype = "float32"
shape = ["B * N * NH * d"]
output = true
[[args]]
name = "inp"
dtype = "float32"
shape = ["B", "N", 3, "NH", "d"]
fill = "randn"
[[args]]
name = "B"
value = "B"
[[args]]
name = "N"
value = "N"
[[args]]
name = "NH"
value = "NH"
[[args]]
name = "d"
value = "d"
[launch]
grid = ["cdiv(B * N * NH * d, 256)"]
block = [256]
[reference]
kernel = "permute_kernel"
''')
    errors, warnings = check_spec(load_spec(spec))
    assert not errors, errors


# --- the command lines -------------------------------------------------------------------------------
def kp(*args, cwd=None, env=None):
    return subprocess.run([sys.executable, "-m", "kernelpro.profilers.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env={**os.environ, **(env or {})}, timeout=300)


def test_cli_spec_init_json_reports_where_each_value_came_from(tmp_path):
    cu = tmp_path / "add.cu"
    cu.write_text(KERNEL)
    r = kp("spec", "init", str(cu), "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["written"] and Path(data["spec"]).is_file() and Path(data["snapshot"]).read_text() == KERNEL
    c = next(a for a in data["args"] if a["name"] == "c")
    assert c["shape"]["value"] == ["n"] and "c[i]" in c["shape"]["from"] and c["role"]["value"] == "output"
    assert data["launch"]["grid"]["from"] and data["guessed"] and data["reference"]["kernel"] == "add"
    r = kp("spec", "init", str(cu))
    assert r.returncode == 2 and "exists" in r.stderr
    r = kp("spec", "check", data["spec"])
    assert r.returncode == 0 and "OK" in r.stdout


def test_cli_spec_check_exits_1_on_the_new_errors(tmp_path):
    spec_path = _written(tmp_path)
    spec_path.write_text(spec_path.read_text().replace('grid = ["cdiv(n, 256)"]  #', 'grid = [1]  #'))
    r = kp("spec", "check", str(spec_path))
    assert r.returncode == 1 and "error:" in r.stderr and "unwritten" in r.stderr
    r = kp("spec", "check", str(spec_path), "--json")
    assert r.returncode == 1 and not json.loads(r.stdout)["ok"]


def _repo(tmp_path: Path) -> Path:
    cu = tmp_path / "add.cu"
    cu.write_text(KERNEL)
    for cmd in (["init", "-q"], ["add", "add.cu"], ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "k"]):
        subprocess.run(["git", *cmd], cwd=tmp_path, check=True, capture_output=True)
    return cu


def test_cli_optimize_without_a_spec_says_what_it_would_infer_and_needs_infer_spec(tmp_path):
    cu = _repo(tmp_path)
    r = kp("optimize", str(cu), env={"KERNELPRO_NO_GPU": "1"})
    assert r.returncode == 2 and "give --kernel K" in r.stderr and "--infer-spec to infer one for its kernel add" in r.stderr
    r = kp("optimize", str(cu), "--kernel", "add", env={"KERNELPRO_NO_GPU": "1"})
    assert r.returncode == 2 and "--infer-spec" in r.stderr and "a launch spec for add, inferred" in r.stderr
    assert "c: float32 [n] output" in r.stderr and not list(tmp_path.glob("*.kernelpro.toml"))
    r = kp("optimize", str(cu), "--infer-spec", "--budget", "1", env={"KERNELPRO_NO_GPU": "1"})
    assert "inferred a launch spec (--infer-spec)" in r.stderr and (tmp_path / "add.kernelpro.toml").is_file()
    assert r.returncode == 2 and "no GPU" in r.stderr  # the spec is written; without a GPU nothing runs
    assert load_spec(tmp_path / "add.kernelpro.toml").reference["kernel"] == "add"


COLMATVEC = """__global__ void colmatvec(float* y, const float* A, const float* x, int M, int N) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < N) {
    float sum = 0.0f;
    for (int i = 0; i < M; i++) sum += A[i * N + j] * x[i];
    y[j] = sum;
  }
}
"""


def test_propose_only_with_infer_spec_proposes_launch_changes_from_the_inferred_spec_and_writes_nothing(tmp_path):
    cu = tmp_path / "cm.cu"
    cu.write_text(COLMATVEC)
    from kernelpro.optimizer.propose import propose_only
    from kernelpro.profilers.compile import CompileOptions
    plain = propose_only(cu, "colmatvec", CompileOptions(arch="sm_90"))  # no spec: no launch changes
    assert any("no launch spec" in n for n in plain.notes)
    assert plain.proposed and not any(p.candidate.kind == "structural" for p in plain.proposed)
    inferred = kp("optimize", str(cu), "--kernel", "colmatvec", "--propose-only", "--json", "--infer-spec")
    assert inferred.returncode == 0, inferred.stderr
    b = json.loads(inferred.stdout)
    assert any(n.startswith("launch spec inferred (--infer-spec; not written") for n in b["notes"])
    assert [c["origin"] for c in b["candidates"] if c["kind"] == "structural"] == ["builtin:column"]
    assert not list(tmp_path.glob("*.kernelpro.toml")) and not list(tmp_path.glob("*.reference.cu"))


def test_the_large_size_grows_a_loop_s_bound_with_the_thread_count(tmp_path):
    """A column kernel (one thread per column, a loop down the rows): the timed size is square, as the
    hand-written spec's 16384 x 16384, not 512 rows under a quarter million threads where the naive
    kernel is already coalesced and short."""
    cu = tmp_path / "cm.cu"
    cu.write_text("""__global__ void colsum(float* y, const float* A, int M, int N) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < N) { float s = 0.0f; for (int i = 0; i < M; i++) s += A[i * N + j]; y[j] = s; }
}
""")
    sizes = infer_spec(cu).sizes
    assert sizes["large"]["M"] == sizes["large"]["N"] >= 4096
    assert sizes["small"]["M"] < sizes["small"]["N"]  # small: the loop a third of the threads (cheap to emulate)


def test_a_double_buffered_scan_gets_both_halves_of_its_shared_memory(tmp_path):
    """GPU Gems' naive scan: `temp[pout * n + thid]` with pout toggled between 0 and 1 reaches two blocks' worth."""
    body = (HERE / "probe27" / "scan_block_hs_dbl.cu").read_text()
    p = plan_of(tmp_path, body)
    assert p.block.value == [256] and p.shared.value == "2048", (p.shared.value, p.shared.why)
    stepped = plan_of(tmp_path, body.replace("pout = 1 - pout;", "pout = pout + 1;"))
    assert stepped.shared.value == "1024" and stepped.shared.guess  # unbounded: the one index it follows, said


def test_launches_in_templates_casts_that_truncate_and_run_time_block_sizes(tmp_path):
    """A launch `k<T>` in a method of `template <class T> class S` used as `S<float>` (SHOC), or in a function
    template instantiated `template void run<float>(...)`; PolyBench's `(size_t)(ceil((float)M) / (float)256) + 1`
    truncated (`M // 256 + 1`, not a fraction); llm.c's `dim3 block(sqrt_block_size, sqrt_block_size)` with the
    size a run-time parameter: one default in the block and the grid alike."""
    kern = ("template <class T> __global__ void k(const T* a, T* b, int n) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) b[i] = a[i] * 2; }\n")
    cls = kern + ("template <class T> class S { public: void operator()(T* a, T* b, int n) {\n"
                  "  k<T><<<(n + 255) / 256, 256>>>(a, b, n); } };\n"
                  "int main() { S<float> s; float *a, *b; s(a, b, 1000); }\n")
    assert plan_of(tmp_path / "c", cls, "k").instantiation == "k<float>"
    fn = kern + ("template <typename T> void run(const T* a, T* b, int n, cudaStream_t st) {\n"
                 "  k<T><<<(n + 255) / 256, 256, 0, st>>>(a, b, n); }\n"
                 "template void run<double>(const double*, double*, int, cudaStream_t);\n")
    p = plan_of(tmp_path / "f", fn, "k")
    assert p.instantiation == "k<double>" and arg(p, "a").dtype.value == "float64"
    pb = ("#define BX 256\n__global__ void m(int M, float* x) { int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
          "  if (j < M) x[j] = 0; }\n"
          "void run(int M, float* x) { dim3 block(BX, 1); dim3 grid((size_t)(ceil((float)(M)) / ((float)BX)) + 1, 1);\n"
          "  m<<<grid, block>>>(M, x); }\n")
    p = plan_of(tmp_path / "p", pb, "m")
    assert [str(g) for g in p.grid.value] == ["(M // 256) + 1", "1"], p.grid.value
    llm = ("__global__ void mm(float* out, const float* a, int R, int C) {\n"
           "  int r = blockIdx.x * blockDim.x + threadIdx.x; int c = blockIdx.y * blockDim.y + threadIdx.y;\n"
           "  if (r < R && c < C) out[r * C + c] = a[r * C + c]; }\n"
           "void run(float* out, const float* a, int R, int C, int sqrt_block_size) {\n"
           "  dim3 g((R + sqrt_block_size - 1) / sqrt_block_size, (C + sqrt_block_size - 1) / sqrt_block_size);\n"
           "  dim3 b(sqrt_block_size, sqrt_block_size); mm<<<g, b>>>(out, a, R, C); }\n")
    p = plan_of(tmp_path / "l", llm, "mm")
    assert [int(b) for b in p.block.value] == [16, 16] and p.grid.value == ["cdiv(R, 16)", "cdiv(C, 16)"]
    assert "sqrt_block_size" not in p.variables


def test_a_launch_only_host_name_is_kept_at_its_value_but_a_grid_of_the_problem_s_size_stays_a_size(tmp_path):
    """`per_block = 2 * threads` beside n in `<<<(n + per_block - 1) / per_block, threads, per_block * 4>>>` (GPU
    Gems' prescan, blind round N) is the launch's shape: kept at 256 at every size, the shared memory with it (the
    small size once made it 45 and the block overran its 180 bytes); `<<<rows, 256>>>` with `row = blockIdx.x` is the
    problem's size and stays one."""
    scan = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "probe_n", "n19_blelloch.cu")).read()
    plan = plan_of(tmp_path, scan)
    assert plan.grid.value == ["cdiv(n, 256)"] and str(plan.shared.value) == "1024"
    assert all(set(env) == {"n"} for env in plan.sizes.values()) and "per_block = 256" in " ".join(plan.notes)
    rows = ("__global__ void rowscale(float* x, const float* s, int cols) {\n  int row = blockIdx.x;\n"
            "  for (int c = threadIdx.x; c < cols; c += blockDim.x) x[row * cols + c] *= s[row];\n}\n"
            "int main() {\n  int rows = 4096, cols = 1000;\n  float *x, *s;\n"
            "  cudaMalloc(&x, rows * cols * sizeof(float)); cudaMalloc(&s, rows * sizeof(float));\n"
            "  rowscale<<<rows, 256>>>(x, s, cols);\n  return 0;\n}\n")
    plan = plan_of(tmp_path / "rows", rows)
    assert plan.grid.value == ["rows"] and all("rows" in env for env in plan.sizes.values())
