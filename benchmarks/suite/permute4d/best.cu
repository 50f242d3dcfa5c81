// (B, N, H, d) -> (B, H, N, d), hand-written. The innermost dimension d is contiguous in both
// layouts, so the permute moves whole rows of d floats and needs no shared memory: for d = 64 a row
// is 256 bytes, read and written by 16 lanes as float4, fully used sectors on both sides. Block
// (x, y): blockIdx.y is one (b, h) pair, whose output plane (N rows of d) is contiguous;
// blockIdx.x a chunk of CH floats of that plane. Each thread moves V float4 (strided by the block,
// so a warp's accesses are consecutive), all V loads in flight before the stores; the row n and
// column of each float4 cost one division. d not a multiple of 4: the same chunks element by
// element.
#define TPB 256
#define V 4                  // float4 per thread
#define CH (TPB * V * 4)     // floats per block: 4096

__global__ void __launch_bounds__(TPB) permute4d(float* __restrict__ out, const float* __restrict__ inp, int B, int N,
                                                 int H, int d) {
  const int b = blockIdx.y / H, h = blockIdx.y % H;
  const size_t plane = (size_t)N * d;                          // floats of one (b, h) plane of out
  float* __restrict__ dst = out + ((size_t)b * H + h) * plane;  // out[b][h][0][0]
  const float* __restrict__ src = inp + ((size_t)b * N * H + h) * d;  // inp[b][0][h][0]; row n at n * H * d
  const size_t rs = (size_t)H * d;                             // input stride between rows n
  const int p0 = blockIdx.x * CH;                              // this block's first float of the plane
  if ((d & 3) == 0) {
    const int d4 = d >> 2, total4 = (int)(plane >> 2);
    float4 v[V];
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const int p4 = (p0 >> 2) + threadIdx.x + k * TPB;  // float4 index within the plane
      if (p4 < total4) {
        const int n = p4 / d4, q = p4 - n * d4;
        v[k] = __ldg(reinterpret_cast<const float4*>(src + n * rs) + q);
      }
    }
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const int p4 = (p0 >> 2) + threadIdx.x + k * TPB;
      if (p4 < total4) reinterpret_cast<float4*>(dst)[p4] = v[k];
    }
  } else {
    const int total = (int)plane;
#pragma unroll
    for (int k = 0; k < 4 * V; ++k) {
      const int p = p0 + threadIdx.x + k * TPB;
      if (p < total) {
        const int n = p / d, c = p - n * d;
        dst[p] = src[n * rs + c];
      }
    }
  }
}
