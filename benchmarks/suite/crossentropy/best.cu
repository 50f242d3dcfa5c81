// Cross-entropy from logits, hand-written: a block per row reads the row once with float4
// loads, keeping a running max and a rescaled sum of exponentials per thread (online
// softmax), merged across the block; thread 0 writes log(sum) + max - logit[target].
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

__global__ void __launch_bounds__(1024) crossentropy_forward(float* __restrict__ losses,
                                                             const float* __restrict__ logits,
                                                             const int* __restrict__ targets, int N, int V) {
  __shared__ ms part[32];
  const int row = blockIdx.x;
  if (row >= N) return;
  const float* x = logits + (size_t)row * V;
  const int head = min(V, (int)((16 - ((size_t)x & 15)) & 15) / 4);
  const int nvec = (V - head) / 4;
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
  for (int i = tail + threadIdx.x; i < V; i += blockDim.x) add(acc, x[i]);
  for (int o = 16; o > 0; o >>= 1) {
    ms other = {__shfl_xor_sync(0xffffffffu, acc.m, o), __shfl_xor_sync(0xffffffffu, acc.s, o)};
    acc = merge(acc, other);
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) part[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    acc = lane < (int)(blockDim.x / 32) ? part[lane] : ms{-INFINITY, 0.0f};
    for (int o = 16; o > 0; o >>= 1) {
      ms other = {__shfl_xor_sync(0xffffffffu, acc.m, o), __shfl_xor_sync(0xffffffffu, acc.s, o)};
      acc = merge(acc, other);
    }
    if (lane == 0) losses[row] = logf(acc.s) + acc.m - x[targets[row]];
  }
}
