// y = x A (A row-major M x N), hand-written: a column split. Every thread of a warp reading down
// its own column (the naive kernels) keeps a single load in flight per thread and leaves the
// columns' parallelism to a few blocks; here block (x, y) owns CW * 4 columns (one float4 per
// thread) and a contiguous strip of the rows, its RY thread rows taking every RY-th row of the
// strip. Each thread keeps U streaming float4 loads of A in flight (__ldcs: A is read once) with
// the matching x[i] (the same address across the warp: a broadcast), the RY partial sums meet in
// shared memory, and each strip's sums are added into y with atomicAdd (y is zeroed by the
// launch sequence's memset). N not a multiple of 4 (no 16-byte alignment): the same split with
// scalar loads.
#define CW 64  // threads along the columns (float4 each): 256 columns per block
#define RY 4   // thread rows
#define U 8    // float4 loads in flight per thread

__global__ void __launch_bounds__(CW * RY) colmatvec(float* __restrict__ y, const float* __restrict__ A,
                                                     const float* __restrict__ x, int M, int N) {
  __shared__ float4 red[RY][CW];
  const int tx = threadIdx.x, ry = threadIdx.y;
  const int col = (blockIdx.x * CW + tx) * 4;
  const int rs = (M + gridDim.y - 1) / gridDim.y;  // rows per strip
  const int r0 = min(M, (int)blockIdx.y * rs), r1 = min(M, r0 + rs);
  const int n = r1 - r0 - ry > 0 ? (r1 - r0 - ry + RY - 1) / RY : 0;  // rows of this thread
  const size_t step = (size_t)RY * N;
  const float* p = A + (size_t)(r0 + ry) * N + col;
  const float* xs = x + r0 + ry;
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  if (col < N) {
    if ((N & 3) == 0) {
      int k = 0;
      for (; k + U <= n; k += U) {
        float4 v[U];
        float w[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = __ldcs(reinterpret_cast<const float4*>(p + (k + u) * step));
#pragma unroll
        for (int u = 0; u < U; ++u) w[u] = __ldg(xs + (k + u) * RY);
#pragma unroll
        for (int u = 0; u < U; ++u) {
          acc.x += v[u].x * w[u];
          acc.y += v[u].y * w[u];
          acc.z += v[u].z * w[u];
          acc.w += v[u].w * w[u];
        }
      }
      if (k < n) {  // the last rows, also at once (predicated)
        float4 v[U];
        float w[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          v[u] = make_float4(0.f, 0.f, 0.f, 0.f);
          w[u] = 0.f;
          if (k + u < n) {
            v[u] = __ldcs(reinterpret_cast<const float4*>(p + (k + u) * step));
            w[u] = __ldg(xs + (k + u) * RY);
          }
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
          acc.x += v[u].x * w[u];
          acc.y += v[u].y * w[u];
          acc.z += v[u].z * w[u];
          acc.w += v[u].w * w[u];
        }
      }
    } else {
      for (int k = 0; k < n; ++k) {
        const float* q = p + k * step;
        const float w = __ldg(xs + k * RY);
        acc.x += q[0] * w;
        if (col + 1 < N) acc.y += q[1] * w;
        if (col + 2 < N) acc.z += q[2] * w;
        if (col + 3 < N) acc.w += q[3] * w;
      }
    }
  }
  red[ry][tx] = acc;
  __syncthreads();
  if (ry == 0 && col < N) {
#pragma unroll
    for (int k = 1; k < RY; ++k) {
      const float4 v = red[k][tx];
      acc.x += v.x;
      acc.y += v.y;
      acc.z += v.z;
      acc.w += v.w;
    }
    atomicAdd(y + col, acc.x);
    if (col + 1 < N) atomicAdd(y + col + 1, acc.y);
    if (col + 2 < N) atomicAdd(y + col + 2, acc.z);
    if (col + 3 < N) atomicAdd(y + col + 3, acc.w);
  }
}
