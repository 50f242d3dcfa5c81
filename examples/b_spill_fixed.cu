// b_spill_fixed.cu -- the two kernels of b_spill.cu without local memory.
// bucket_counts: the 16 counters are a shared-memory histogram per block (shared atomics),
// so no per-thread array is indexed at run time. sort_segments: __launch_bounds__(256, 4)
// lets ptxas use the 64 registers the sort needs (50 % occupancy, no spills).
// register-spill and local-memory stay silent here.
#define SEG 16

__global__ void bucket_counts(const int* __restrict__ keys, int* __restrict__ counts, int n) {
  __shared__ int hist[16];
  if (threadIdx.x < 16) hist[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicAdd(&hist[keys[i] & 15], 1);
  }
  __syncthreads();
  if (threadIdx.x < 16) atomicAdd(&counts[threadIdx.x], hist[threadIdx.x]);
}

__global__ void __launch_bounds__(256, 4) sort_segments(float* __restrict__ data, int segments) {
  int seg = blockIdx.x * blockDim.x + threadIdx.x;
  if (seg >= segments) return;
  float v[SEG];
#pragma unroll
  for (int k = 0; k < SEG; ++k) v[k] = data[(size_t)k * segments + seg];  // segment-major: coalesced
  // odd-even transposition sort: SEG rounds of compare-exchange, all in registers
#pragma unroll
  for (int r = 0; r < SEG; ++r) {
#pragma unroll
    for (int k = r & 1; k + 1 < SEG; k += 2) {
      float lo = fminf(v[k], v[k + 1]), hi = fmaxf(v[k], v[k + 1]);
      v[k] = lo;
      v[k + 1] = hi;
    }
  }
#pragma unroll
  for (int k = 0; k < SEG; ++k) data[(size_t)k * segments + seg] = v[k];
}

void launch(const int* keys, int* counts, int n, float* data, int segments) {
  bucket_counts<<<256, 256>>>(keys, counts, n);
  sort_segments<<<(segments + 255) / 256, 256>>>(data, segments);
}
