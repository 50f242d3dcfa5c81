// b_spill.cu -- two kernels that lose registers to local memory.
// Defect 1 (bucket_counts): the per-thread array hist[16] is indexed with a value known
// only at run time (keys[i] & 15), so it lives in local memory (a 64-byte stack frame,
// LDL/STL in the loop) although ptxas reports no spills.
// Found by: local-memory (kernelpro.profilers.rules.spills).
// Defect 2 (sort_segments): __launch_bounds__(256, 8) caps the kernel at 32 registers a
// thread, too few for the 16 values it sorts in registers: ptxas spills to local memory.
// Found by: register-spill (kernelpro.profilers.rules.spills).
// Fixed twin: b_spill_fixed.cu (a shared-memory histogram; __launch_bounds__(256, 4)).
#define SEG 16

__global__ void bucket_counts(const int* __restrict__ keys, int* __restrict__ counts, int n) {
  int hist[16];
  for (int b = 0; b < 16; ++b) hist[b] = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    hist[keys[i] & 15] += 1;
  }
  for (int b = 0; b < 16; ++b) atomicAdd(&counts[b], hist[b]);
}

__global__ void __launch_bounds__(256, 8) sort_segments(float* __restrict__ data, int segments) {
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
