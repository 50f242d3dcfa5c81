// launch: {"grid": ["cdiv(W, 32)", "cdiv(H, 8)", "max(cdiv(D, 32), 1)"], "block": [32, 8, 1]}
// 7-point stencil, one thread per grid point with 3-D thread indices; the boundary is not written.
static __device__ __forceinline__ bool kp_march_stencil3d(float* out, const float* inp, int D, int H, int W, int kp_vx, int kp_vy, int kp_vz, const float* const* kp_pa, const float* kp_pv, float* kp_val, const float** kp_addr, float*& kp_dst, float& kp_out)
{
  kp_addr[0] = nullptr; kp_addr[1] = nullptr; kp_addr[2] = nullptr; kp_addr[3] = nullptr; kp_addr[4] = nullptr; kp_addr[5] = nullptr; kp_addr[6] = nullptr;
  int x = blockIdx.x * blockDim.x + kp_vx;
  int y = blockIdx.y * blockDim.y + kp_vy;
  int z = kp_vz;
  if (x > 0 && x < W - 1 && y > 0 && y < H - 1 && z > 0 && z < D - 1) {
    int i = (z * H + y) * W + x;
    { kp_dst = &(out[i]); kp_out = 0.4f * (kp_val[0] = (kp_pa[6] == (kp_addr[0] = &(inp[i])) ? kp_pv[6] : *kp_addr[0])) + 0.1f * ((kp_val[1] = *(kp_addr[1] = &(inp[i - 1]))) + (kp_val[2] = *(kp_addr[2] = &(inp[i + 1]))) + (kp_val[3] = *(kp_addr[3] = &(inp[i - W]))) + (kp_val[4] = *(kp_addr[4] = &(inp[i + W]))) + (kp_val[5] = (kp_pa[0] == (kp_addr[5] = &(inp[i - H * W])) ? kp_pv[0] : *kp_addr[5])) + (kp_val[6] = *(kp_addr[6] = &(inp[i + H * W])))); return true; }
  }
  return false;
}

__global__ void stencil3d(float* out, const float* inp, int D, int H, int W) {
  // a register window along z: each thread its own (x, y) through 32 planes; a neighbour that the plane
  // before read at the same address is taken from its registers
  float kp_val[7];
  const float* kp_addr[7];
  const float* kp_pa[7];
  float kp_pv[7];
  float* kp_dst;
  float kp_out;
#pragma unroll
  for (int kp_j = 0; kp_j < 7; ++kp_j) { kp_pa[kp_j] = nullptr; kp_pv[kp_j] = kp_val[kp_j] = float(); }
  if (!((unsigned long long)blockIdx.x * 32 + (threadIdx.x) < (unsigned long long)(W) && (unsigned long long)blockIdx.y * 8 + (threadIdx.y) < (unsigned long long)(H))) return;
  const long long kp_zs = (long long)(0), kp_ze = (long long)((unsigned long long)(D));
  const long long kp_z0 = kp_zs + (long long)blockIdx.z * 32;
  const long long kp_z1 = kp_z0 + 32 < kp_ze ? kp_z0 + 32 : kp_ze;
  for (long long kp_z = kp_z0; kp_z < kp_z1; ++kp_z) {
    if (kp_march_stencil3d(out, inp, D, H, W, threadIdx.x, threadIdx.y, (int)kp_z, kp_pa, kp_pv, kp_val, kp_addr, kp_dst, kp_out)) *kp_dst = kp_out;
#pragma unroll
    for (int kp_j = 0; kp_j < 7; ++kp_j) { kp_pa[kp_j] = kp_addr[kp_j]; kp_pv[kp_j] = kp_val[kp_j]; }
  }
}
