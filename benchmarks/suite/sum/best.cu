// Sum of an array, hand-written: one wave of blocks (grid = 8 x 132 SMs at most), each thread a
// grid-stride slice of float4 with U independent streaming loads in flight (__ldcs: read once),
// four float accumulators per thread; the block's sum by warp shuffles and one pass over the
// warps' sums in shared memory; one atomicAdd per block. The last n % 4 values (after the float4
// part) are added by the first block's first threads.
#define TPB 256
#define U 4

__global__ void __launch_bounds__(TPB) sum(float* __restrict__ out, const float* __restrict__ inp, int n) {
  __shared__ float warp_sums[TPB / 32];
  const int n4 = n >> 2;
  const float4* in4 = reinterpret_cast<const float4*>(inp);
  const int stride = gridDim.x * TPB;
  int i = blockIdx.x * TPB + threadIdx.x;
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  for (; i + (U - 1) * stride < n4; i += U * stride) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = __ldcs(in4 + i + u * stride);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      acc.x += v[u].x;
      acc.y += v[u].y;
      acc.z += v[u].z;
      acc.w += v[u].w;
    }
  }
  for (; i < n4; i += stride) {
    const float4 v = __ldcs(in4 + i);
    acc.x += v.x;
    acc.y += v.y;
    acc.z += v.z;
    acc.w += v.w;
  }
  float s = (acc.x + acc.y) + (acc.z + acc.w);
  if (blockIdx.x == 0 && threadIdx.x < (n & 3)) s += inp[4 * n4 + threadIdx.x];
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  if (lane == 0) warp_sums[w] = s;
  __syncthreads();
  if (w == 0) {
    s = lane < TPB / 32 ? warp_sums[lane] : 0.f;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) atomicAdd(out, s);
  }
}
