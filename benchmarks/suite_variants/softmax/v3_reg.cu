// launch: {"grid": ["8 * N"], "block": [512], "shared_bytes": "0"}
// Row softmax, the row in registers instead of shared memory, one exponential per element: a
// cluster of 8 blocks of 512 threads per row (the largest portable cluster), each thread holding up
// to R = 4 float4 of its block's eighth of the row (8 x 512 x 16 floats = 65536 >= 50257). The R
// loads are issued at once (the last ones predicated, padded with -inf); the max meets across the
// cluster through distributed shared memory (the first 8 lanes of every warp read the 8 ranks'),
// e = exp(x - max) replaces the values in the registers, the sums meet, the write pass stores
// e * (1 / sum). Each sum comes with the max it was taken at and is rescaled to the row's: a factor of
// exactly 1 on the GPU, there for the emulator's cluster, whose recording run answers peer reads
// with the block's own values; every block adds the 8 by the same shuffles (the same sum in each).
// No dynamic shared memory: 40 registers (__launch_bounds__(512, 3)), 3 blocks per SM, 3 x 32 KB of
// loads in flight per SM at once (best.cu: 2 x 32 KB, 4 float4 per thread, while reading). The last
// cluster barrier is split (arrive after the reads, wait before leaving). Rows longer than 8 x 512
// x R float4 read global memory in each pass (the exponential twice). Rows of an odd length peel a
// head to reach 16-byte alignment (rank 0) and a tail (rank 7).
#include <cfloat>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define CL 8    // blocks per row: a cluster
#define NT 512  // threads per block
#define R 4     // float4 per thread kept in registers

__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ float max4(float4 v) { return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)); }

__global__ void __cluster_dims__(CL, 1, 1) __launch_bounds__(NT, 3)
softmax_forward(float* __restrict__ out, const float* __restrict__ inp, int N, int C) {
  __shared__ float pm[NT / 32];
  __shared__ float ps[NT / 32];
  __shared__ float hmax;  // this block's max, read by the cluster
  __shared__ float2 hsum;  // this block's sum and the max it is taken at, read by the cluster
  cg::cluster_group cluster = cg::this_cluster();
  const int row = min((int)blockIdx.x / CL, N - 1), part = (int)cluster.block_rank();
  const bool live = (int)blockIdx.x / CL < N;
  const float* x = inp + (size_t)row * C;
  float* y = out + (size_t)row * C;
  const int head = min(C, (int)((16 - ((size_t)x & 15)) & 15) / 4);
  const int nvec = (C - head) / 4;
  const int tail = head + nvec * 4;
  const float4* xv = reinterpret_cast<const float4*>(x + head);
  const int lo = (int)((long long)nvec * part / CL), hi = (int)((long long)nvec * (part + 1) / CL);
  const bool inreg = hi - lo <= R * NT;
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  // the scalar of the head (rank 0) or tail (rank CL - 1) this thread owns, if any
  int js = -1;
  if (part == 0 && t < head) js = t;
  if (part == CL - 1 && tail + t < C) js = tail + t;
  if (!live) js = -1;
  const float xs = js >= 0 ? x[js] : -INFINITY;
  float4 v[R];
  float m = xs;
  if (live && inreg) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int k = lo + t + r * NT;
      v[r] = k < hi ? __ldcs(xv + k) : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
    }
#pragma unroll
    for (int r = 0; r < R; ++r) m = fmaxf(m, max4(v[r]));
  } else if (live) {
    for (int k = lo + t; k < hi; k += NT) m = fmaxf(m, max4(xv[k]));
  }
  m = warp_max(m);
  if (lane == 0) pm[warp] = m;
  __syncthreads();
  m = warp_max(lane < NT / 32 ? pm[lane] : -INFINITY);
  if (t == 0) hmax = m;
  cluster.sync();
  m = warp_max(lane < CL ? *cluster.map_shared_rank(&hmax, lane) : -INFINITY);
  // one exponential per element, kept in the registers
  float s = js >= 0 ? __expf(xs - m) : 0.0f;
  if (live && inreg) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      v[r] = make_float4(__expf(v[r].x - m), __expf(v[r].y - m), __expf(v[r].z - m), __expf(v[r].w - m));
      s += (v[r].x + v[r].y) + (v[r].z + v[r].w);
    }
  } else if (live) {
    for (int k = lo + t; k < hi; k += NT) {
      const float4 w = xv[k];
      s += (__expf(w.x - m) + __expf(w.y - m)) + (__expf(w.z - m) + __expf(w.w - m));
    }
  }
  s = warp_sum(s);
  if (lane == 0) ps[warp] = s;
  __syncthreads();
  s = warp_sum(lane < NT / 32 ? ps[lane] : 0.0f);
  if (t == 0) hsum = make_float2(m, s);
  cluster.sync();  // also: the cluster has read hmax
  // the 8 sums, each rescaled from the max it was taken at (on the GPU the same max: a factor of
  // exactly 1; the emulator's recording run, whose peer reads return the block's own values, takes
  // each at that rank's own max), added by the same shuffles in every block: the same sum in each
  float2 o = make_float2(-INFINITY, 0.0f);
  if (lane < CL) o = *cluster.map_shared_rank(&hsum, lane);
  s = warp_sum(lane < CL ? o.y * __expf(o.x - m) : 0.0f);
  cluster.barrier_arrive();  // this block has read its peers' shared memory
  if (live) {
    const float inv = 1.0f / s;
    float4* yv = reinterpret_cast<float4*>(y + head);
    if (inreg) {
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const int k = lo + t + r * NT;
        if (k < hi) __stcs(yv + k, make_float4(v[r].x * inv, v[r].y * inv, v[r].z * inv, v[r].w * inv));
      }
    } else {
      for (int k = lo + t; k < hi; k += NT) {
        const float4 w = xv[k];
        __stcs(yv + k, make_float4(__expf(w.x - m) * inv, __expf(w.y - m) * inv, __expf(w.z - m) * inv,
                                   __expf(w.w - m) * inv));
      }
    }
    if (js >= 0) y[js] = __expf(xs - m) * inv;
  }
  cluster.barrier_wait();  // the peers have read this block's shared memory before it leaves
}
