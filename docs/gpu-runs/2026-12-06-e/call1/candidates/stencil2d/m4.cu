// launch: {"grid": ["cdiv(W, 32)", "cdiv(H, 128)"], "block": [32, 4]}
// 5-point stencil, one thread per grid point with 2-D thread indices; the boundary is not written.
static __device__ __forceinline__ bool kp_march_stencil2d(float* out, const float* inp, int H, int W, int kp_vx, int kp_vy, const float* const* kp_pa, const float* kp_pv, float* kp_val, const float** kp_addr, float*& kp_dst, float& kp_out)
{
  kp_addr[0] = nullptr; kp_addr[1] = nullptr; kp_addr[2] = nullptr; kp_addr[3] = nullptr; kp_addr[4] = nullptr;
  int j = blockIdx.x * 32u + kp_vx;
  int i = blockIdx.y * 128u + kp_vy;
  if (i > 0 && i < H - 1 && j > 0 && j < W - 1) {
    { kp_dst = &(out[i * W + j]); kp_out = 0.6f * (kp_val[0] = (kp_pa[2] == (kp_addr[0] = &(inp[i * W + j])) ? kp_pv[2] : *kp_addr[0])) +
                     0.1f * ((kp_val[1] = (kp_pa[0] == (kp_addr[1] = &(inp[(i - 1) * W + j])) ? kp_pv[0] : *kp_addr[1])) + (kp_val[2] = *(kp_addr[2] = &(inp[(i + 1) * W + j]))) + (kp_val[3] = *(kp_addr[3] = &(inp[i * W + j - 1]))) + (kp_val[4] = *(kp_addr[4] = &(inp[i * W + j + 1])))); return true; }
  }
  return false;
}

__global__ void stencil2d(float* out, const float* inp, int H, int W) {
  // a register march: each thread 32 consecutive rows of the old threads at its x; a neighbour that the
  // row before read at the same address is taken from its registers
  float kp_val[5];
  const float* kp_addr[5];
  const float* kp_pa[5];
  float kp_pv[5];
  float* kp_dst;
  float kp_out;
#pragma unroll
  for (int kp_j = 0; kp_j < 5; ++kp_j) { kp_pa[kp_j] = nullptr; kp_pv[kp_j] = kp_val[kp_j] = float(); }
  const int kp_y0 = threadIdx.y * 32;
#pragma unroll 4
  for (int kp_r = 0; kp_r < 32; ++kp_r) {
    if (kp_march_stencil2d(out, inp, H, W, threadIdx.x, kp_y0 + kp_r, kp_pa, kp_pv, kp_val, kp_addr, kp_dst, kp_out)) *kp_dst = kp_out;
#pragma unroll
    for (int kp_j = 0; kp_j < 5; ++kp_j) { kp_pa[kp_j] = kp_addr[kp_j]; kp_pv[kp_j] = kp_val[kp_j]; }
  }
}
