// Row softmax, hand-written: a block per row. Pass 1 reads the row once with float4 loads and
// keeps a running max and a rescaled sum per thread (online softmax), merged across the block;
// pass 2 reads the row again and writes exp(x - max) / sum with float4 stores. Rows of an odd
// length start at any 4-byte boundary, so each row peels a head to reach 16-byte alignment.
#include <cfloat>

struct ms {
  float m, s;
};

__device__ __forceinline__ ms merge(ms a, ms b) {
  const float m = fmaxf(a.m, b.m);
  if (m == -INFINITY) return {m, 0.0f};
  return {m, a.s * __expf(a.m - m) + b.s * __expf(b.m - m)};
}

__device__ __forceinline__ void add(ms& a, float v) {
  if (v > a.m) {
    a.s = a.s * __expf(a.m - v) + 1.0f;
    a.m = v;
  } else {
    a.s += __expf(v - a.m);
  }
}

__global__ void __launch_bounds__(1024) softmax_forward(float* __restrict__ out, const float* __restrict__ inp,
                                                        int N, int C) {
  __shared__ ms part[32];
  const int row = blockIdx.x;
  if (row >= N) return;
  const float* x = inp + (size_t)row * C;
  float* y = out + (size_t)row * C;
  const int head = min(C, (int)((16 - ((size_t)x & 15)) & 15) / 4);
  const int nvec = (C - head) / 4;
  const int tail = head + nvec * 4;
  const float4* xv = reinterpret_cast<const float4*>(x + head);

  ms acc = {-INFINITY, 0.0f};
  for (int i = threadIdx.x; i < nvec; i += blockDim.x) {
    const float4 v = xv[i];
    add(acc, v.x);
    add(acc, v.y);
    add(acc, v.z);
    add(acc, v.w);
  }
  if ((int)threadIdx.x < head) add(acc, x[threadIdx.x]);
  for (int i = tail + threadIdx.x; i < C; i += blockDim.x) add(acc, x[i]);

  for (int o = 16; o > 0; o >>= 1) {
    ms other = {__shfl_xor_sync(0xffffffffu, acc.m, o), __shfl_xor_sync(0xffffffffu, acc.s, o)};
    acc = merge(acc, other);
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) part[warp] = acc;
  __syncthreads();
  acc = lane < (int)(blockDim.x / 32) ? part[lane] : ms{-INFINITY, 0.0f};
  for (int o = 16; o > 0; o >>= 1) {
    ms other = {__shfl_xor_sync(0xffffffffu, acc.m, o), __shfl_xor_sync(0xffffffffu, acc.s, o)};
    acc = merge(acc, other);
  }
  const float m = acc.m, inv = 1.0f / acc.s;

  float4* yv = reinterpret_cast<float4*>(y + head);
  for (int i = threadIdx.x; i < nvec; i += blockDim.x) {
    const float4 v = xv[i];
    yv[i] = make_float4(__expf(v.x - m) * inv, __expf(v.y - m) * inv, __expf(v.z - m) * inv, __expf(v.w - m) * inv);
  }
  if ((int)threadIdx.x < head) y[threadIdx.x] = __expf(x[threadIdx.x] - m) * inv;
  for (int i = tail + threadIdx.x; i < C; i += blockDim.x) y[i] = __expf(x[i] - m) * inv;
}
