"""Grid and block inferred from how the threads map onto the outputs, for kernels with no launch to read:
a 1-D block cut into rows by a quotient of threadIdx.x, a kernel that reads its sizes from the grid in both
dimensions (a square grid), and a TILE x ROWS loop whose counter ends at its last step; each spec passes
`spec check` (no output left unwritten, nothing read past)."""
from __future__ import annotations

import os

from pathlib import Path

from kernelpro.profilers.runtime.infer import infer_spec, write_spec
from kernelpro.profilers.runtime.spec import load_spec
from kernelpro.profilers.runtime.speccheck import check_spec
from kernelpro.profilers.source import parse_source
from kernelpro.profilers.analysis.extents import analyse

TID_ROWS = """__global__ void mm_tid(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * %(T)d + threadIdx.x / %(D)d;
  int col = blockIdx.x * %(D)d + threadIdx.x %% %(D)d;
  if (row < M && col < N) {
    float s = 0.f;
    for (int k = 0; k < K; ++k) s += A[row * K + k] * B[k * N + col];
    C[row * N + col] = s;
  }
}
"""

GRID_SIZED = """const int TILE = 32;
const int ROWS = %(R)d;
__global__ void tr(float *odata, const float *idata) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  int width = gridDim.x * TILE;
  for (int j = 0; j < TILE; j += ROWS)
    odata[x * width + (y + j)] = idata[(y + j) * width + x];
}
"""


def _infer(tmp_path, text, name="k.cu"):
    f = tmp_path / name
    f.write_text(text)
    plan = infer_spec(f)
    write_spec(plan)
    spec = load_spec(plan.spec_path)
    errors = check_spec(spec)[0]
    return plan, spec, errors


def test_a_block_cut_into_rows_by_a_quotient_is_rows_times_their_threads(tmp_path):
    for t, d in ((16, 16), (8, 32), (4, 64)):
        plan, spec, errors = _infer(tmp_path, TID_ROWS % {"T": t, "D": d}, f"k{t}.cu")
        assert plan.block.value == [t * d], plan.block
        assert f"{t} rows of {d} threads" in plan.block.why and not plan.block.guess
        assert plan.grid.value == [f"cdiv(N, {d})", f"cdiv(M, {t})"], plan.grid
        assert not errors, errors


def test_a_kernel_sized_by_its_grid_both_ways_gets_a_square_grid(tmp_path):
    plan, spec, errors = _infer(tmp_path, GRID_SIZED % {"R": 8})
    assert plan.grid.value == ["cdiv(n, 32)", "cdiv(n, 32)"] and "square" in plan.grid.why
    assert plan.block.value == [32, 8]
    assert list(spec.sizes["small"]) == ["n"] and not errors, errors


def test_a_stepped_loop_counter_ends_at_its_last_step():
    for rows, last in ((8, 24), (4, 28), (5, 30), (32, 0)):
        src = parse_source(GRID_SIZED % {"R": rows})
        ks = analyse(src, src.kernels[0])
        ends = {b.u.get((), 0) for p in ks.pointers.values() for u in p.uses for b in u.guards if b.kind == "loop"}
        assert ends == {last}, (rows, ends)
    # a bound that is not a literal keeps the condition's own end
    src = parse_source((GRID_SIZED % {"R": 8}).replace("j < TILE;", "j < n;").replace("const float *idata)",
                                                                                         "const float *idata, int n)"))
    ks = analyse(src, src.kernels[0])
    assert all(b.u != {(): 24} for p in ks.pointers.values() for u in p.uses for b in u.guards)


WALK = """__global__ void col_sum(const float* m, float* s, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const float* p = m + c;
  float acc = 0.f;
  %s
  s[c] = acc;
}
"""


def test_a_pointer_walked_down_a_column_has_the_whole_matrix_as_its_shape(tmp_path):
    for i, loop in enumerate(("for (int r = 0; r < rows; ++r, p += cols) acc += *p;",
                              "for (int r = 0; r < rows; ++r) { acc += *p; p += cols; }",
                              "for (int r = 0; r < rows; r++) { acc += p[0]; p += cols; }")):
        plan, spec, errors = _infer(tmp_path, WALK % loop, f"w{i}.cu")
        m = next(a for a in plan.args if a.name == "m")
        assert m.shape.value == ["rows", "cols"], (loop, m.shape)
        assert not errors, errors
        assert (tmp_path / f"w{i}.cu").read_text() == WALK % loop  # the file and its snapshot as written
        assert loop in Path(plan.snapshot).read_text()


def test_a_section_of_two_elements_per_thread_bounds_the_block_but_a_trees_step_does_not(tmp_path):
    """PMPP's Brent-Kung section `XY[threadIdx.x + blockDim.x]` in 1024 elements: blocks of 512; an unrolled tree's
    `sdata[tid + 128]` under `if (tid < 128)` in 256 elements keeps the 256-thread block it implies."""
    from kernelpro.profilers.analysis.mapping import shared_block

    def block(text):
        src = parse_source(text)
        return shared_block(analyse(src, src.kernels[0]))

    bk = ("#define S 1024\n__global__ void k(const float* x, float* y, int n) {\n  __shared__ float XY[S];\n"
          "  int i = 2 * blockIdx.x * blockDim.x + threadIdx.x;\n  XY[threadIdx.x] = i < n ? x[i] : 0.f;\n"
          "  XY[threadIdx.x + blockDim.x] = i + blockDim.x < n ? x[i + blockDim.x] : 0.f;\n  __syncthreads();\n"
          "  if (i < n) y[i] = XY[threadIdx.x];\n}\n")
    assert block(bk) == (512,)
    tree = ("__global__ void k(const float* x, float* y, int n) {\n  __shared__ float sdata[256];\n"
            "  unsigned tid = threadIdx.x;\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  sdata[threadIdx.x] = i < n ? x[i] : 0.f;\n  __syncthreads();\n"
            "  if (tid < 128) sdata[threadIdx.x] += sdata[threadIdx.x + 128];\n  __syncthreads();\n"
            "  if (tid == 0) y[blockIdx.x] = sdata[0];\n}\n")
    assert block(tree) == (256,)


def test_an_unguarded_second_element_of_a_shared_array_bounds_the_block(tmp_path):
    """GPU Gems' Blelloch scan with `temp[thid]` and `temp[thid + THREADS]` in `__shared__ int temp[2 * THREADS]`
    (blind round P): every thread writes its second element unguarded, so the block is THREADS (128), not the
    array's 256 that `blockIdx.x * ELEMS` also suggests (that block overran the array in the emulator)."""
    from kernelpro.profilers.runtime.infer import infer_spec
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "probe_p", "p20_blelloch_int.cu")
    cu = tmp_path / "scan.cu"
    cu.write_text(open(src).read())
    plan = infer_spec(cu)
    assert plan.block.value == [128] and plan.grid.value == ["cdiv(n, 256)"]


HELPER_TREE = """#define THREADS %(N)d
__device__ float block_sum(float* smem, float v) {
  unsigned int tid = threadIdx.x;
  smem[tid] = v;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) smem[tid] += smem[tid + s];
    __syncthreads();
  }
  return smem[0];
}
__global__ void l1(const float* x, float* result, int n) {
  __shared__ float buf[THREADS];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float t = block_sum(buf, i < n ? fabsf(x[i]) : 0.0f);
  if (threadIdx.x == 0) atomicAdd(result, t);
}
"""


def test_a_shared_array_indexed_by_the_thread_in_a_helper_sizes_the_block(tmp_path):
    for n in (128, 512):
        plan, spec, errors = _infer(tmp_path, HELPER_TREE % {"N": n}, f"h{n}.cu")
        assert plan.block.value == [n] and not plan.block.guess, plan.block
        assert plan.grid.value == [f"cdiv(n, {n})"] and not errors, errors
    # a helper that takes the array but indexes it elsewhere says nothing: the default block stays a guess
    other = (HELPER_TREE % {"N": 128}).replace("smem[tid]", "smem[0]")
    plan, _, _ = _infer(tmp_path, other, "o.cu")
    assert plan.block.guess


def test_a_helper_reading_two_elements_a_thread_or_one_per_warp_does_not_size_the_block(tmp_path):
    two = (HELPER_TREE % {"N": 1024}).replace("smem[tid] = v;", "smem[tid] = v; smem[tid + blockDim.x] = v;")
    plan, _, _ = _infer(tmp_path, two, "two.cu")
    assert plan.block.value != [1024]
    warp = (HELPER_TREE % {"N": 32}).replace("smem[tid] = v;", "if (tid < blockDim.x / 32) smem[tid] = v;")
    plan, _, _ = _infer(tmp_path, warp, "warp.cu")
    assert plan.block.value != [32]


def test_an_atomic_at_a_pointer_plus_an_unfollowed_index_or_through_a_helpers_cast_alias_writes_the_buffer(tmp_path):
    hist = """__global__ void h(unsigned* hist, const unsigned* d, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(hist + ((d[i] >> 2) & 0x3FU), 1U);
}
"""
    plan, _, _ = _infer(tmp_path, hist, "h.cu")
    roles = {a.name: a for a in plan.args}
    assert roles["hist"].role.value in ("output", "inout") and roles["d"].role.value == "input"
    chained = hist.replace("atomicAdd(hist + ((d[i] >> 2) & 0x3FU), 1U)", "atomicAdd(hist + 64 + ((d[i] >> 2) & 0x3FU), 1U)")
    plan, _, _ = _infer(tmp_path, chained, "h2.cu")
    assert {a.name: a for a in plan.args}["hist"].role.value in ("output", "inout")  # a `+` chain
    cas = """__device__ float atomic_max_f(float* address, float v) {
  int* as_int = (int*)address;
  int old = *as_int, assumed;
  do { assumed = old; if (__int_as_float(assumed) >= v) break; old = atomicCAS(as_int, assumed, __float_as_int(v)); }
  while (assumed != old);
  return __int_as_float(old);
}
__global__ void m(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomic_max_f(out, in[i]);
}
"""
    plan, spec, errors = _infer(tmp_path, cas, "m.cu")
    roles = {a.name: a for a in plan.args}
    assert roles["out"].role.value in ("output", "inout") and roles["out"].shape.value == ["1"], roles["out"]
