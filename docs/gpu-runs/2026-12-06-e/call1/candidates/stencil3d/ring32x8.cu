// launch: {"grid": ["cdiv(W, 32)", "cdiv(H, 8)", "max(cdiv(D, 32), 1)"], "block": [32, 8, 1]}
// 7-point stencil, one thread per grid point with 3-D thread indices; the boundary is not written.
static __device__ __forceinline__ bool kp_roles_stencil3d(float* out, const float* inp, int D, int H, int W, int kp_vx, int kp_vy, int kp_vz, bool kp_phase, const float* kp_val, const float** kp_addr, float*& kp_dst, float& kp_out)
{
  kp_addr[0] = nullptr; kp_addr[1] = nullptr; kp_addr[2] = nullptr; kp_addr[3] = nullptr; kp_addr[4] = nullptr; kp_addr[5] = nullptr; kp_addr[6] = nullptr;
  int x = blockIdx.x * blockDim.x + kp_vx;
  int y = blockIdx.y * blockDim.y + kp_vy;
  int z = kp_vz;
  if (x > 0 && x < W - 1 && y > 0 && y < H - 1 && z > 0 && z < D - 1) {
    int i = (z * H + y) * W + x;
    { kp_addr[0] = &(inp[i]); kp_addr[1] = &(inp[i - 1]); kp_addr[2] = &(inp[i + 1]); kp_addr[3] = &(inp[i - W]); kp_addr[4] = &(inp[i + W]); kp_addr[5] = &(inp[i - H * W]); kp_addr[6] = &(inp[i + H * W]); kp_dst = &(out[i]); if (kp_phase) kp_out = 0.4f * kp_val[0] + 0.1f * (kp_val[1] + kp_val[2] + kp_val[3] + kp_val[4] + kp_val[5] + kp_val[6]); return true; }
  }
  return false;
}

__global__ void stencil3d(float* out, const float* inp, int D, int H, int W) {
  // 2.5-D blocking: a 32 x 8 tile of (x, y) marching along z through 32 planes; the loads at the
  // thread's own (x, y) in a register window of 3 planes, the planes with x or y neighbours in a ring of 1 shared tiles with a halo of 1/1 elements and 1/1 rows
  __shared__ float kp_ring[1][10][34];
  float kp_val[7];
  const float* kp_addr[7];
  float* kp_dst;
  float kp_out;
  float kp_w[3];
  const float* kp_wa[3];
  for (int kp_j = 0; kp_j < 3; ++kp_j) { kp_w[kp_j] = float(); kp_wa[kp_j] = nullptr; }
  const long long kp_zs = (long long)(0), kp_ze = (long long)((unsigned long long)(D));
  const long long kp_z0 = kp_zs + (long long)blockIdx.z * 32;
  const long long kp_z1 = kp_z0 + 32 < kp_ze ? kp_z0 + 32 : kp_ze;
  for (long long kp_z = kp_z0; kp_z < kp_z1; ++kp_z) {
    const bool kp_ok = kp_z >= kp_zs && kp_z < kp_ze && ((unsigned long long)blockIdx.x * 32 + (threadIdx.x) < (unsigned long long)(W) && (unsigned long long)blockIdx.y * 8 + (threadIdx.y) < (unsigned long long)(H)) && kp_roles_stencil3d(out, inp, D, H, W, threadIdx.x, threadIdx.y, (int)kp_z, false, kp_val, kp_addr, kp_dst, kp_out);
    { const float* kp_a = kp_ok ? kp_addr[5] : nullptr; if (kp_a) kp_w[0] = kp_wa[1] == kp_a ? kp_w[1] : *kp_a; kp_wa[0] = kp_a; }
    { const float* kp_a = kp_ok ? kp_addr[0] : nullptr; if (kp_a) kp_w[1] = kp_wa[2] == kp_a ? kp_w[2] : *kp_a; kp_wa[1] = kp_a; }
    { const float* kp_a = kp_ok ? kp_addr[6] : nullptr; if (kp_a) kp_w[2] = *kp_a; kp_wa[2] = kp_a; }
    __syncthreads();  // the tile this step overwrites was last read in the step before
    {
      const long long kp_p = kp_z + (0);  // the plane staged now
      float (*kp_t)[34] = kp_ring[(kp_p - kp_z0 - (0)) % 1];
      {
        const int kp_px = threadIdx.x, kp_py = threadIdx.y;
        if (kp_ok && kp_wa[1]) kp_t[threadIdx.y + 1][threadIdx.x + 1] = kp_w[1];
      else {
        if (kp_px - (0) >= 0 && kp_px - (0) < 32 && kp_py - (0) >= 0 && kp_py - (0) < 8 && kp_p - (0) >= kp_zs && kp_p - (0) < kp_ze && ((unsigned long long)blockIdx.x * 32 + (kp_px - (0)) < (unsigned long long)(W) && (unsigned long long)blockIdx.y * 8 + (kp_py - (0)) < (unsigned long long)(H)) && kp_roles_stencil3d(out, inp, D, H, W, kp_px - (0), kp_py - (0), (int)(kp_p - (0)), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[0]) kp_t[kp_py + 1][kp_px + 1] = *kp_addr[0];
        else if (kp_px - (-1) >= 0 && kp_px - (-1) < 32 && kp_py - (0) >= 0 && kp_py - (0) < 8 && kp_p - (0) >= kp_zs && kp_p - (0) < kp_ze && ((unsigned long long)blockIdx.x * 32 + (kp_px - (-1)) < (unsigned long long)(W) && (unsigned long long)blockIdx.y * 8 + (kp_py - (0)) < (unsigned long long)(H)) && kp_roles_stencil3d(out, inp, D, H, W, kp_px - (-1), kp_py - (0), (int)(kp_p - (0)), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[1]) kp_t[kp_py + 1][kp_px + 1] = *kp_addr[1];
        else if (kp_px - (1) >= 0 && kp_px - (1) < 32 && kp_py - (0) >= 0 && kp_py - (0) < 8 && kp_p - (0) >= kp_zs && kp_p - (0) < kp_ze && ((unsigned long long)blockIdx.x * 32 + (kp_px - (1)) < (unsigned long long)(W) && (unsigned long long)blockIdx.y * 8 + (kp_py - (0)) < (unsigned long long)(H)) && kp_roles_stencil3d(out, inp, D, H, W, kp_px - (1), kp_py - (0), (int)(kp_p - (0)), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[2]) kp_t[kp_py + 1][kp_px + 1] = *kp_addr[2];
        else if (kp_px - (0) >= 0 && kp_px - (0) < 32 && kp_py - (-1) >= 0 && kp_py - (-1) < 8 && kp_p - (0) >= kp_zs && kp_p - (0) < kp_ze && ((unsigned long long)blockIdx.x * 32 + (kp_px - (0)) < (unsigned long long)(W) && (unsigned long long)blockIdx.y * 8 + (kp_py - (-1)) < (unsigned long long)(H)) && kp_roles_stencil3d(out, inp, D, H, W, kp_px - (0), kp_py - (-1), (int)(kp_p - (0)), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[3]) kp_t[kp_py + 1][kp_px + 1] = *kp_addr[3];
        else if (kp_px - (0) >= 0 && kp_px - (0) < 32 && kp_py - (1) >= 0 && kp_py - (1) < 8 && kp_p - (0) >= kp_zs && kp_p - (0) < kp_ze && ((unsigned long long)blockIdx.x * 32 + (kp_px - (0)) < (unsigned long long)(W) && (unsigned long long)blockIdx.y * 8 + (kp_py - (1)) < (unsigned long long)(H)) && kp_roles_stencil3d(out, inp, D, H, W, kp_px - (0), kp_py - (1), (int)(kp_p - (0)), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[4]) kp_t[kp_py + 1][kp_px + 1] = *kp_addr[4];
        else if (kp_px - (0) >= 0 && kp_px - (0) < 32 && kp_py - (0) >= 0 && kp_py - (0) < 8 && kp_p - (-1) >= kp_zs && kp_p - (-1) < kp_ze && ((unsigned long long)blockIdx.x * 32 + (kp_px - (0)) < (unsigned long long)(W) && (unsigned long long)blockIdx.y * 8 + (kp_py - (0)) < (unsigned long long)(H)) && kp_roles_stencil3d(out, inp, D, H, W, kp_px - (0), kp_py - (0), (int)(kp_p - (-1)), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[5]) kp_t[kp_py + 1][kp_px + 1] = *kp_addr[5];
        else if (kp_px - (0) >= 0 && kp_px - (0) < 32 && kp_py - (0) >= 0 && kp_py - (0) < 8 && kp_p - (1) >= kp_zs && kp_p - (1) < kp_ze && ((unsigned long long)blockIdx.x * 32 + (kp_px - (0)) < (unsigned long long)(W) && (unsigned long long)blockIdx.y * 8 + (kp_py - (0)) < (unsigned long long)(H)) && kp_roles_stencil3d(out, inp, D, H, W, kp_px - (0), kp_py - (0), (int)(kp_p - (1)), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[6]) kp_t[kp_py + 1][kp_px + 1] = *kp_addr[6];
        }
      }
      for (int kp_h = threadIdx.x + 32 * threadIdx.y; kp_h < 84; kp_h += 256) {
        int kp_px, kp_py;
        if (kp_h < 34) { kp_px = kp_h % 34 - 1; kp_py = kp_h / 34 - 1; }
        else if (kp_h < 68) { kp_px = (kp_h - 34) % 34 - 1; kp_py = 8 + (kp_h - 34) / 34; }
        else { const int kp_c = (kp_h - 68) % 2; kp_px = kp_c < 1 ? kp_c - 1 : 32 + kp_c - 1; kp_py = (kp_h - 68) / 2; }
        if (kp_px - (0) >= 0 && kp_px - (0) < 32 && kp_py - (0) >= 0 && kp_py - (0) < 8 && kp_p - (0) >= kp_zs && kp_p - (0) < kp_ze && ((unsigned long long)blockIdx.x * 32 + (kp_px - (0)) < (unsigned long long)(W) && (unsigned long long)blockIdx.y * 8 + (kp_py - (0)) < (unsigned long long)(H)) && kp_roles_stencil3d(out, inp, D, H, W, kp_px - (0), kp_py - (0), (int)(kp_p - (0)), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[0]) kp_t[kp_py + 1][kp_px + 1] = *kp_addr[0];
        else if (kp_px - (-1) >= 0 && kp_px - (-1) < 32 && kp_py - (0) >= 0 && kp_py - (0) < 8 && kp_p - (0) >= kp_zs && kp_p - (0) < kp_ze && ((unsigned long long)blockIdx.x * 32 + (kp_px - (-1)) < (unsigned long long)(W) && (unsigned long long)blockIdx.y * 8 + (kp_py - (0)) < (unsigned long long)(H)) && kp_roles_stencil3d(out, inp, D, H, W, kp_px - (-1), kp_py - (0), (int)(kp_p - (0)), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[1]) kp_t[kp_py + 1][kp_px + 1] = *kp_addr[1];
        else if (kp_px - (1) >= 0 && kp_px - (1) < 32 && kp_py - (0) >= 0 && kp_py - (0) < 8 && kp_p - (0) >= kp_zs && kp_p - (0) < kp_ze && ((unsigned long long)blockIdx.x * 32 + (kp_px - (1)) < (unsigned long long)(W) && (unsigned long long)blockIdx.y * 8 + (kp_py - (0)) < (unsigned long long)(H)) && kp_roles_stencil3d(out, inp, D, H, W, kp_px - (1), kp_py - (0), (int)(kp_p - (0)), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[2]) kp_t[kp_py + 1][kp_px + 1] = *kp_addr[2];
        else if (kp_px - (0) >= 0 && kp_px - (0) < 32 && kp_py - (-1) >= 0 && kp_py - (-1) < 8 && kp_p - (0) >= kp_zs && kp_p - (0) < kp_ze && ((unsigned long long)blockIdx.x * 32 + (kp_px - (0)) < (unsigned long long)(W) && (unsigned long long)blockIdx.y * 8 + (kp_py - (-1)) < (unsigned long long)(H)) && kp_roles_stencil3d(out, inp, D, H, W, kp_px - (0), kp_py - (-1), (int)(kp_p - (0)), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[3]) kp_t[kp_py + 1][kp_px + 1] = *kp_addr[3];
        else if (kp_px - (0) >= 0 && kp_px - (0) < 32 && kp_py - (1) >= 0 && kp_py - (1) < 8 && kp_p - (0) >= kp_zs && kp_p - (0) < kp_ze && ((unsigned long long)blockIdx.x * 32 + (kp_px - (0)) < (unsigned long long)(W) && (unsigned long long)blockIdx.y * 8 + (kp_py - (1)) < (unsigned long long)(H)) && kp_roles_stencil3d(out, inp, D, H, W, kp_px - (0), kp_py - (1), (int)(kp_p - (0)), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[4]) kp_t[kp_py + 1][kp_px + 1] = *kp_addr[4];
        else if (kp_px - (0) >= 0 && kp_px - (0) < 32 && kp_py - (0) >= 0 && kp_py - (0) < 8 && kp_p - (-1) >= kp_zs && kp_p - (-1) < kp_ze && ((unsigned long long)blockIdx.x * 32 + (kp_px - (0)) < (unsigned long long)(W) && (unsigned long long)blockIdx.y * 8 + (kp_py - (0)) < (unsigned long long)(H)) && kp_roles_stencil3d(out, inp, D, H, W, kp_px - (0), kp_py - (0), (int)(kp_p - (-1)), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[5]) kp_t[kp_py + 1][kp_px + 1] = *kp_addr[5];
        else if (kp_px - (0) >= 0 && kp_px - (0) < 32 && kp_py - (0) >= 0 && kp_py - (0) < 8 && kp_p - (1) >= kp_zs && kp_p - (1) < kp_ze && ((unsigned long long)blockIdx.x * 32 + (kp_px - (0)) < (unsigned long long)(W) && (unsigned long long)blockIdx.y * 8 + (kp_py - (0)) < (unsigned long long)(H)) && kp_roles_stencil3d(out, inp, D, H, W, kp_px - (0), kp_py - (0), (int)(kp_p - (1)), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[6]) kp_t[kp_py + 1][kp_px + 1] = *kp_addr[6];
      }
    }
    __syncthreads();
    if (kp_z >= kp_z0 && kp_ok) {
      kp_val[0] = kp_w[1];
      kp_val[1] = kp_ring[(kp_z + (0) - kp_z0 - (0)) % 1][threadIdx.y + 1][threadIdx.x + 0];
      kp_val[2] = kp_ring[(kp_z + (0) - kp_z0 - (0)) % 1][threadIdx.y + 1][threadIdx.x + 2];
      kp_val[3] = kp_ring[(kp_z + (0) - kp_z0 - (0)) % 1][threadIdx.y + 0][threadIdx.x + 1];
      kp_val[4] = kp_ring[(kp_z + (0) - kp_z0 - (0)) % 1][threadIdx.y + 2][threadIdx.x + 1];
      kp_val[5] = kp_w[0];
      kp_val[6] = kp_w[2];
      if (kp_roles_stencil3d(out, inp, D, H, W, threadIdx.x, threadIdx.y, (int)kp_z, true, kp_val, kp_addr, kp_dst, kp_out)) *kp_dst = kp_out;
    }
  }
}
