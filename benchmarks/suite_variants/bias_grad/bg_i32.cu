// launch: {"grid": ["cdiv(OC, 256)", "cdiv(264, cdiv(OC, 256))"], "block": [64, 8]}
// Bias gradient, best.cu with 32-bit element offsets where the matrix has fewer than 2^32 elements
// (a 64-bit path otherwise): each load's address is one IMAD.WIDE.U32 from the base (best.cu: a 64-bit
// pointer per row in flight, stepped by 64-bit adds), fewer registers and instructions per load for
// the same 8 streaming float4 loads in flight per thread.
#define CW 64          // float4 columns per block (blockDim.x)
#define RY 8           // row groups per block (blockDim.y)
#define U 8            // loads in flight per thread
#define LOAD(p) __ldcs(p)  // streaming: read once, evict first
#define PART_CAP (1 << 20)  // floats of partial sums (gridDim.y * OC)
#define MAX_GROUPS 4096

__device__ float4 bg_part[PART_CAP / 4];
__device__ unsigned bg_count[MAX_GROUPS];

// the sum of n rows of 4 columns from dout[off], a row every step elements; I: the offsets' type
template <class I>
__device__ __forceinline__ float4 strip_sum(const float* __restrict__ dout, I off, I step, int n, int col, int OC,
                                            bool vec) {
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  if (vec) {
    int k = 0;
    for (; k + U <= n; k += U, off += U * step) {  // U rows at once
      float4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = LOAD(reinterpret_cast<const float4*>(dout + (off + (I)u * step)));
#pragma unroll
      for (int u = 0; u < U; ++u) { acc.x += v[u].x; acc.y += v[u].y; acc.z += v[u].z; acc.w += v[u].w; }
    }
    if (k < n) {  // the last rows, also at once (predicated)
      float4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        v[u] = make_float4(0.f, 0.f, 0.f, 0.f);
        if (k + u < n) v[u] = LOAD(reinterpret_cast<const float4*>(dout + (off + (I)u * step)));
      }
#pragma unroll
      for (int u = 0; u < U; ++u) { acc.x += v[u].x; acc.y += v[u].y; acc.z += v[u].z; acc.w += v[u].w; }
    }
  } else {
    for (int k = 0; k < n; ++k, off += step) {
      const float* p = dout + off;
      acc.x += p[0];
      if (col + 1 < OC) acc.y += p[1];
      if (col + 2 < OC) acc.z += p[2];
      if (col + 3 < OC) acc.w += p[3];
    }
  }
  return acc;
}

__global__ void __launch_bounds__(CW * RY, 2)
bias_backward(float* __restrict__ dbias, const float* __restrict__ dout, int N, int OC) {
  __shared__ float4 red[RY][CW];
  __shared__ bool last;
  const int tx = threadIdx.x, ry = threadIdx.y;
  const int col = (blockIdx.x * CW + tx) * 4;
  const int strips = gridDim.y, s = blockIdx.y;
  const bool vec = OC % 4 == 0;
  const bool fits = (long long)strips * OC <= PART_CAP && gridDim.x <= MAX_GROUPS;
  // rows of this block: a contiguous strip (every row in one block when the buffer is too small)
  int r0 = 0, r1 = N;
  if (fits) {
    const int rs = (N + strips - 1) / strips;
    r0 = min(N, s * rs);
    r1 = min(N, r0 + rs);
  } else if (s != 0) {
    return;  // uniform over the grid: only the first strip's blocks run, each over all rows
  }
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  if (col < OC) {
    const int n = r1 - r0 - ry > 0 ? (r1 - r0 - ry + RY - 1) / RY : 0;  // rows of this thread
    if ((unsigned long long)N * OC < (1ull << 32))
      acc = strip_sum<unsigned>(dout, (unsigned)(r0 + ry) * OC + col, (unsigned)RY * OC, n, col, OC, vec);
    else
      acc = strip_sum<size_t>(dout, (size_t)(r0 + ry) * OC + col, (size_t)RY * OC, n, col, OC, vec);
  }
  red[ry][tx] = acc;
  __syncthreads();
  if (ry == 0) {
#pragma unroll
    for (int k = 1; k < RY; ++k) {
      const float4 v = red[k][tx];
      acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    }
  }
  if (!fits) {  // every row summed here
    if (ry == 0 && col < OC) {
      dbias[col] = acc.x;
      if (col + 1 < OC) dbias[col + 1] = acc.y;
      if (col + 2 < OC) dbias[col + 2] = acc.z;
      if (col + 3 < OC) dbias[col + 3] = acc.w;
    }
    return;
  }
  float* part = reinterpret_cast<float*>(bg_part);
  if (ry == 0 && col < OC) {
    float* q = part + (size_t)s * OC + col;
    if (vec) {
      *reinterpret_cast<float4*>(q) = acc;
    } else {
      q[0] = acc.x;
      if (col + 1 < OC) q[1] = acc.y;
      if (col + 2 < OC) q[2] = acc.z;
      if (col + 3 < OC) q[3] = acc.w;
    }
  }
  __threadfence();
  __syncthreads();
  if (tx == 0 && ry == 0) last = atomicAdd(&bg_count[blockIdx.x], 1u) == (unsigned)strips - 1;
  __syncthreads();
  if (!last) return;
  // the last block of this column group: the strips' sums in strip order (from L2: __ldcg)
  __threadfence();
  acc = make_float4(0.f, 0.f, 0.f, 0.f);
  if (col < OC) {
    for (int k = ry; k < strips; k += RY) {
      const float* q = part + (size_t)k * OC + col;
      if (vec) {
        const float4 v = __ldcg(reinterpret_cast<const float4*>(q));
        acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
      } else {
        acc.x += __ldcg(q);
        if (col + 1 < OC) acc.y += __ldcg(q + 1);
        if (col + 2 < OC) acc.z += __ldcg(q + 2);
        if (col + 3 < OC) acc.w += __ldcg(q + 3);
      }
    }
  }
  red[ry][tx] = acc;
  __syncthreads();
  if (ry == 0 && col < OC) {
#pragma unroll
    for (int k = 1; k < RY; ++k) {
      const float4 v = red[k][tx];
      acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    }
    if (vec) {
      *reinterpret_cast<float4*>(dbias + col) = acc;
    } else {
      dbias[col] = acc.x;
      if (col + 1 < OC) dbias[col + 1] = acc.y;
      if (col + 2 < OC) dbias[col + 2] = acc.z;
      if (col + 3 < OC) dbias[col + 3] = acc.w;
    }
  }
  if (tx == 0 && ry == 0) bg_count[blockIdx.x] = 0;  // ready for the next launch
}
