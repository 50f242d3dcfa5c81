// launch: {"grid": ["cdiv(W, 64)", "cdiv(H, 32)"], "block": [64, 4]}
// 5-point stencil, one thread per grid point with 2-D thread indices; the boundary is not written.
static __device__ __forceinline__ bool kp_roles_stencil2d(float* out, const float* inp, int H, int W, int kp_vx, int kp_vy, bool kp_phase, const float* kp_val, const float** kp_addr, float*& kp_dst, float& kp_out)
{
  kp_addr[0] = nullptr; kp_addr[1] = nullptr; kp_addr[2] = nullptr; kp_addr[3] = nullptr; kp_addr[4] = nullptr;
  int j = blockIdx.x * 64u + kp_vx;
  int i = blockIdx.y * 32u + kp_vy;
  if (i > 0 && i < H - 1 && j > 0 && j < W - 1) {
    { kp_addr[0] = &(inp[i * W + j]); kp_addr[1] = &(inp[(i - 1) * W + j]); kp_addr[2] = &(inp[(i + 1) * W + j]); kp_addr[3] = &(inp[i * W + j - 1]); kp_addr[4] = &(inp[i * W + j + 1]); kp_dst = &(out[i * W + j]); if (kp_phase) kp_out = 0.6f * kp_val[0] +
                     0.1f * (kp_val[1] + kp_val[2] + kp_val[3] + kp_val[4]); return true; }
  }
  return false;
}

__global__ void stencil2d(float* out, const float* inp, int H, int W) {
  // the stencil's neighbours staged once per block: a 64 x 32 tile with a halo of 1/1 elements
  // and 1/1 rows, each element read from global memory once; each thread 8 rows of it
  __shared__ float kp_halo[2244];
  float (*kp_tile)[66] = reinterpret_cast<float (*)[66]>(kp_halo);
  float kp_val[5];
  const float* kp_addr[5];
  float* kp_dst;
  float kp_out;
  #pragma unroll
  for (int kp_r = 0; kp_r < 8; ++kp_r) {
    const int kp_px = threadIdx.x, kp_py = (threadIdx.y + kp_r * 4), kp_s = (kp_py + 1) * 66 + kp_px + 1;
    if (kp_px - (0) >= 0 && kp_px - (0) < 64 && kp_py - (0) >= 0 && kp_py - (0) < 32 && kp_roles_stencil2d(out, inp, H, W, kp_px - (0), kp_py - (0), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[0]) kp_halo[kp_s] = *kp_addr[0];
      else if (kp_px - (0) >= 0 && kp_px - (0) < 64 && kp_py - (-1) >= 0 && kp_py - (-1) < 32 && kp_roles_stencil2d(out, inp, H, W, kp_px - (0), kp_py - (-1), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[1]) kp_halo[kp_s] = *kp_addr[1];
      else if (kp_px - (0) >= 0 && kp_px - (0) < 64 && kp_py - (1) >= 0 && kp_py - (1) < 32 && kp_roles_stencil2d(out, inp, H, W, kp_px - (0), kp_py - (1), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[2]) kp_halo[kp_s] = *kp_addr[2];
      else if (kp_px - (-1) >= 0 && kp_px - (-1) < 64 && kp_py - (0) >= 0 && kp_py - (0) < 32 && kp_roles_stencil2d(out, inp, H, W, kp_px - (-1), kp_py - (0), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[3]) kp_halo[kp_s] = *kp_addr[3];
      else if (kp_px - (1) >= 0 && kp_px - (1) < 64 && kp_py - (0) >= 0 && kp_py - (0) < 32 && kp_roles_stencil2d(out, inp, H, W, kp_px - (1), kp_py - (0), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[4]) kp_halo[kp_s] = *kp_addr[4];
  }
  for (int kp_h = threadIdx.x + 64 * threadIdx.y; kp_h < 196; kp_h += 256) {
    int kp_px, kp_py;
    if (kp_h < 66) { kp_px = kp_h % 66 - 1; kp_py = kp_h / 66 - 1; }
        else if (kp_h < 132) { kp_px = (kp_h - 66) % 66 - 1; kp_py = 32 + (kp_h - 66) / 66; }
        else { const int kp_c = (kp_h - 132) % 2; kp_px = kp_c < 1 ? kp_c - 1 : 64 + kp_c - 1; kp_py = (kp_h - 132) / 2; }
    const int kp_s = (kp_py + 1) * 66 + kp_px + 1;
    if (kp_px - (0) >= 0 && kp_px - (0) < 64 && kp_py - (0) >= 0 && kp_py - (0) < 32 && kp_roles_stencil2d(out, inp, H, W, kp_px - (0), kp_py - (0), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[0]) kp_halo[kp_s] = *kp_addr[0];
      else if (kp_px - (0) >= 0 && kp_px - (0) < 64 && kp_py - (-1) >= 0 && kp_py - (-1) < 32 && kp_roles_stencil2d(out, inp, H, W, kp_px - (0), kp_py - (-1), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[1]) kp_halo[kp_s] = *kp_addr[1];
      else if (kp_px - (0) >= 0 && kp_px - (0) < 64 && kp_py - (1) >= 0 && kp_py - (1) < 32 && kp_roles_stencil2d(out, inp, H, W, kp_px - (0), kp_py - (1), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[2]) kp_halo[kp_s] = *kp_addr[2];
      else if (kp_px - (-1) >= 0 && kp_px - (-1) < 64 && kp_py - (0) >= 0 && kp_py - (0) < 32 && kp_roles_stencil2d(out, inp, H, W, kp_px - (-1), kp_py - (0), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[3]) kp_halo[kp_s] = *kp_addr[3];
      else if (kp_px - (1) >= 0 && kp_px - (1) < 64 && kp_py - (0) >= 0 && kp_py - (0) < 32 && kp_roles_stencil2d(out, inp, H, W, kp_px - (1), kp_py - (0), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[4]) kp_halo[kp_s] = *kp_addr[4];
  }
  __syncthreads();
  #pragma unroll
  for (int kp_r = 0; kp_r < 8; ++kp_r) {
    kp_val[0] = kp_tile[(threadIdx.y + kp_r * 4) + 1][threadIdx.x + 1];
    kp_val[1] = kp_tile[(threadIdx.y + kp_r * 4) + 0][threadIdx.x + 1];
    kp_val[2] = kp_tile[(threadIdx.y + kp_r * 4) + 2][threadIdx.x + 1];
    kp_val[3] = kp_tile[(threadIdx.y + kp_r * 4) + 1][threadIdx.x + 0];
    kp_val[4] = kp_tile[(threadIdx.y + kp_r * 4) + 1][threadIdx.x + 2];
    if (kp_roles_stencil2d(out, inp, H, W, threadIdx.x, (threadIdx.y + kp_r * 4), true, kp_val, kp_addr, kp_dst, kp_out)) *kp_dst = kp_out;
  }
}
