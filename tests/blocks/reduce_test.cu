// Test harness for kernelpro/warp_reduce.cuh and kernelpro/block_reduce.cuh (called through ctypes).
#include <kernelpro/block_reduce.cuh>
#include <kernelpro/warp_reduce.cuh>

// out[w] = sum/max/min of x[32 w .. 32 w + 31]; every lane's result is checked against lane 0's.
__global__ void warp_kernel(const float* __restrict__ x, float* __restrict__ out, int op, int* mismatches) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  float r = op == 0 ? kernelpro::warp_reduce_sum(v) : op == 1 ? kernelpro::warp_reduce_max(v) : kernelpro::warp_reduce_min(v);
  if (r != __shfl_sync(kernelpro::kFullWarpMask, r, 0)) atomicAdd(mismatches, 1);
  if (threadIdx.x % 32 == 0) out[i / 32] = r;
}

__global__ void warp_int_kernel(const int* __restrict__ x, int* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int r = kernelpro::warp_reduce_sum<16>(x[i]);  // half-warps
  if (threadIdx.x % 16 == 0) out[i / 16] = r;
}

template <int B>
__global__ void __launch_bounds__(B) block_kernel(const float* __restrict__ x, float* __restrict__ out, int* mismatches) {
  const float v = x[blockIdx.x * B + threadIdx.x];
  const float s = kernelpro::block_reduce_sum<B>(v);
  const float m = kernelpro::block_reduce_max<B>(v);  // a second call in the same kernel
  const float first = __shfl_sync(kernelpro::kFullWarpMask, s, 0);
  if (s != first) atomicAdd(mismatches, 1);
  if (threadIdx.x == 0) { out[2 * blockIdx.x] = s; out[2 * blockIdx.x + 1] = m; }
}

extern "C" int kp_warp_reduce(const float* x, float* out, int n, int op, int* mismatches) {
  warp_kernel<<<n / 256, 256>>>(x, out, op, mismatches);
  return cudaGetLastError();
}

extern "C" int kp_warp_reduce_int16(const int* x, int* out, int n) {
  warp_int_kernel<<<n / 128, 128>>>(x, out);
  return cudaGetLastError();
}

// blocks of `threads` threads (32, 96, 256 or 1024); out gets (sum, max) per block
extern "C" int kp_block_reduce(const float* x, float* out, int blocks, int threads, int* mismatches) {
  switch (threads) {
    case 32: block_kernel<32><<<blocks, 32>>>(x, out, mismatches); break;
    case 96: block_kernel<96><<<blocks, 96>>>(x, out, mismatches); break;
    case 256: block_kernel<256><<<blocks, 256>>>(x, out, mismatches); break;
    case 1024: block_kernel<1024><<<blocks, 1024>>>(x, out, mismatches); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}
