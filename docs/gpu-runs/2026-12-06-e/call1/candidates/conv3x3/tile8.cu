// launch: {"grid": ["cdiv(W, 32)", "cdiv(H, 64)"], "block": [32, 8]}
// 3x3 convolution (one channel, zero padding), one thread per output point.
static __device__ __forceinline__ bool kp_roles_conv3x3(float* out, const float* inp, int H, int W, int kp_vx, int kp_vy, bool kp_phase, const float* kp_val, const float** kp_addr, float*& kp_dst, float& kp_out)
{
  kp_addr[0] = nullptr; kp_addr[1] = nullptr; kp_addr[2] = nullptr; kp_addr[3] = nullptr; kp_addr[4] = nullptr; kp_addr[5] = nullptr; kp_addr[6] = nullptr; kp_addr[7] = nullptr; kp_addr[8] = nullptr;
  const float w[3][3] = {{0.0625f, 0.125f, -0.0625f},
                         {0.25f, 0.5f, 0.125f},
                         {-0.125f, 0.25f, 0.0625f}};
  int x = blockIdx.x * 32u + kp_vx;
  int y = blockIdx.y * 64u + kp_vy;
  if (x < W && y < H) {
    float sum = 0.0f;
    {
{ const int dy = -1; {
      {
{ const int dx_kp_tap3 = -1; {
        int yy_kp_tap0_kp_tap3 = y + (-1); int xx_kp_tap0_kp_tap3 = x + (-1);
        if (yy_kp_tap0_kp_tap3 >= 0 && yy_kp_tap0_kp_tap3 < H && xx_kp_tap0_kp_tap3 >= 0 && xx_kp_tap0_kp_tap3 < W) {
          sum += w[(0)][(0)] * (kp_phase ? kp_val[0] : (kp_addr[0] = &(inp[yy_kp_tap0_kp_tap3 * W + xx_kp_tap0_kp_tap3]), float()));
        }
      } }
{ const int dx_kp_tap3 = 0; {
        int yy_kp_tap1_kp_tap3 = y + (-1); int xx_kp_tap1_kp_tap3 = x + (0);
        if (yy_kp_tap1_kp_tap3 >= 0 && yy_kp_tap1_kp_tap3 < H && xx_kp_tap1_kp_tap3 >= 0 && xx_kp_tap1_kp_tap3 < W) {
          sum += w[(0)][(1)] * (kp_phase ? kp_val[1] : (kp_addr[1] = &(inp[yy_kp_tap1_kp_tap3 * W + xx_kp_tap1_kp_tap3]), float()));
        }
      } }
{ const int dx_kp_tap3 = 1; {
        int yy_kp_tap2_kp_tap3 = y + (-1); int xx_kp_tap2_kp_tap3 = x + (1);
        if (yy_kp_tap2_kp_tap3 >= 0 && yy_kp_tap2_kp_tap3 < H && xx_kp_tap2_kp_tap3 >= 0 && xx_kp_tap2_kp_tap3 < W) {
          sum += w[(0)][(2)] * (kp_phase ? kp_val[2] : (kp_addr[2] = &(inp[yy_kp_tap2_kp_tap3 * W + xx_kp_tap2_kp_tap3]), float()));
        }
      } }
}
    } }
{ const int dy = 0; {
      {
{ const int dx_kp_tap4 = -1; {
        int yy_kp_tap0_kp_tap4 = y + (0); int xx_kp_tap0_kp_tap4 = x + (-1);
        if (yy_kp_tap0_kp_tap4 >= 0 && yy_kp_tap0_kp_tap4 < H && xx_kp_tap0_kp_tap4 >= 0 && xx_kp_tap0_kp_tap4 < W) {
          sum += w[(1)][(0)] * (kp_phase ? kp_val[3] : (kp_addr[3] = &(inp[yy_kp_tap0_kp_tap4 * W + xx_kp_tap0_kp_tap4]), float()));
        }
      } }
{ const int dx_kp_tap4 = 0; {
        int yy_kp_tap1_kp_tap4 = y + (0); int xx_kp_tap1_kp_tap4 = x + (0);
        if (yy_kp_tap1_kp_tap4 >= 0 && yy_kp_tap1_kp_tap4 < H && xx_kp_tap1_kp_tap4 >= 0 && xx_kp_tap1_kp_tap4 < W) {
          sum += w[(1)][(1)] * (kp_phase ? kp_val[4] : (kp_addr[4] = &(inp[yy_kp_tap1_kp_tap4 * W + xx_kp_tap1_kp_tap4]), float()));
        }
      } }
{ const int dx_kp_tap4 = 1; {
        int yy_kp_tap2_kp_tap4 = y + (0); int xx_kp_tap2_kp_tap4 = x + (1);
        if (yy_kp_tap2_kp_tap4 >= 0 && yy_kp_tap2_kp_tap4 < H && xx_kp_tap2_kp_tap4 >= 0 && xx_kp_tap2_kp_tap4 < W) {
          sum += w[(1)][(2)] * (kp_phase ? kp_val[5] : (kp_addr[5] = &(inp[yy_kp_tap2_kp_tap4 * W + xx_kp_tap2_kp_tap4]), float()));
        }
      } }
}
    } }
{ const int dy = 1; {
      {
{ const int dx_kp_tap5 = -1; {
        int yy_kp_tap0_kp_tap5 = y + (1); int xx_kp_tap0_kp_tap5 = x + (-1);
        if (yy_kp_tap0_kp_tap5 >= 0 && yy_kp_tap0_kp_tap5 < H && xx_kp_tap0_kp_tap5 >= 0 && xx_kp_tap0_kp_tap5 < W) {
          sum += w[(2)][(0)] * (kp_phase ? kp_val[6] : (kp_addr[6] = &(inp[yy_kp_tap0_kp_tap5 * W + xx_kp_tap0_kp_tap5]), float()));
        }
      } }
{ const int dx_kp_tap5 = 0; {
        int yy_kp_tap1_kp_tap5 = y + (1); int xx_kp_tap1_kp_tap5 = x + (0);
        if (yy_kp_tap1_kp_tap5 >= 0 && yy_kp_tap1_kp_tap5 < H && xx_kp_tap1_kp_tap5 >= 0 && xx_kp_tap1_kp_tap5 < W) {
          sum += w[(2)][(1)] * (kp_phase ? kp_val[7] : (kp_addr[7] = &(inp[yy_kp_tap1_kp_tap5 * W + xx_kp_tap1_kp_tap5]), float()));
        }
      } }
{ const int dx_kp_tap5 = 1; {
        int yy_kp_tap2_kp_tap5 = y + (1); int xx_kp_tap2_kp_tap5 = x + (1);
        if (yy_kp_tap2_kp_tap5 >= 0 && yy_kp_tap2_kp_tap5 < H && xx_kp_tap2_kp_tap5 >= 0 && xx_kp_tap2_kp_tap5 < W) {
          sum += w[(2)][(2)] * (kp_phase ? kp_val[8] : (kp_addr[8] = &(inp[yy_kp_tap2_kp_tap5 * W + xx_kp_tap2_kp_tap5]), float()));
        }
      } }
}
    } }
}
    {  kp_dst = &(out[y * W + x]); if (kp_phase) kp_out = sum; return true; }
  }
  return false;
}

__global__ void conv3x3(float* out, const float* inp, int H, int W) {
  // the stencil's neighbours staged once per block: a 32 x 64 tile with a halo of 0/2 elements
  // and 0/2 rows, each element read from global memory once; each thread 8 rows of it
  __shared__ float kp_halo[2244];
  float (*kp_tile)[34] = reinterpret_cast<float (*)[34]>(kp_halo);
  float kp_val[9];
  const float* kp_addr[9];
  float* kp_dst;
  float kp_out;
  #pragma unroll
  for (int kp_r = 0; kp_r < 8; ++kp_r) {
    const int kp_px = threadIdx.x, kp_py = (threadIdx.y + kp_r * 8), kp_s = (kp_py + 0) * 34 + kp_px + 0;
    if (kp_px - (0) >= 0 && kp_px - (0) < 32 && kp_py - (0) >= 0 && kp_py - (0) < 64 && kp_roles_conv3x3(out, inp, H, W, kp_px - (0), kp_py - (0), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[0]) kp_halo[kp_s] = *kp_addr[0];
      else if (kp_px - (1) >= 0 && kp_px - (1) < 32 && kp_py - (0) >= 0 && kp_py - (0) < 64 && kp_roles_conv3x3(out, inp, H, W, kp_px - (1), kp_py - (0), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[1]) kp_halo[kp_s] = *kp_addr[1];
      else if (kp_px - (0) >= 0 && kp_px - (0) < 32 && kp_py - (1) >= 0 && kp_py - (1) < 64 && kp_roles_conv3x3(out, inp, H, W, kp_px - (0), kp_py - (1), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[3]) kp_halo[kp_s] = *kp_addr[3];
      else if (kp_px - (2) >= 0 && kp_px - (2) < 32 && kp_py - (0) >= 0 && kp_py - (0) < 64 && kp_roles_conv3x3(out, inp, H, W, kp_px - (2), kp_py - (0), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[2]) kp_halo[kp_s] = *kp_addr[2];
      else if (kp_px - (1) >= 0 && kp_px - (1) < 32 && kp_py - (1) >= 0 && kp_py - (1) < 64 && kp_roles_conv3x3(out, inp, H, W, kp_px - (1), kp_py - (1), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[4]) kp_halo[kp_s] = *kp_addr[4];
      else if (kp_px - (0) >= 0 && kp_px - (0) < 32 && kp_py - (2) >= 0 && kp_py - (2) < 64 && kp_roles_conv3x3(out, inp, H, W, kp_px - (0), kp_py - (2), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[6]) kp_halo[kp_s] = *kp_addr[6];
      else if (kp_px - (2) >= 0 && kp_px - (2) < 32 && kp_py - (1) >= 0 && kp_py - (1) < 64 && kp_roles_conv3x3(out, inp, H, W, kp_px - (2), kp_py - (1), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[5]) kp_halo[kp_s] = *kp_addr[5];
      else if (kp_px - (1) >= 0 && kp_px - (1) < 32 && kp_py - (2) >= 0 && kp_py - (2) < 64 && kp_roles_conv3x3(out, inp, H, W, kp_px - (1), kp_py - (2), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[7]) kp_halo[kp_s] = *kp_addr[7];
      else if (kp_px - (2) >= 0 && kp_px - (2) < 32 && kp_py - (2) >= 0 && kp_py - (2) < 64 && kp_roles_conv3x3(out, inp, H, W, kp_px - (2), kp_py - (2), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[8]) kp_halo[kp_s] = *kp_addr[8];
  }
  for (int kp_h = threadIdx.x + 32 * threadIdx.y; kp_h < 196; kp_h += 256) {
    int kp_px, kp_py;
    if (kp_h < 0) { kp_px = kp_h % 34 - 0; kp_py = kp_h / 34 - 0; }
        else if (kp_h < 68) { kp_px = (kp_h - 0) % 34 - 0; kp_py = 64 + (kp_h - 0) / 34; }
        else { const int kp_c = (kp_h - 68) % 2; kp_px = kp_c < 0 ? kp_c - 0 : 32 + kp_c - 0; kp_py = (kp_h - 68) / 2; }
    const int kp_s = (kp_py + 0) * 34 + kp_px + 0;
    if (kp_px - (0) >= 0 && kp_px - (0) < 32 && kp_py - (0) >= 0 && kp_py - (0) < 64 && kp_roles_conv3x3(out, inp, H, W, kp_px - (0), kp_py - (0), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[0]) kp_halo[kp_s] = *kp_addr[0];
      else if (kp_px - (1) >= 0 && kp_px - (1) < 32 && kp_py - (0) >= 0 && kp_py - (0) < 64 && kp_roles_conv3x3(out, inp, H, W, kp_px - (1), kp_py - (0), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[1]) kp_halo[kp_s] = *kp_addr[1];
      else if (kp_px - (0) >= 0 && kp_px - (0) < 32 && kp_py - (1) >= 0 && kp_py - (1) < 64 && kp_roles_conv3x3(out, inp, H, W, kp_px - (0), kp_py - (1), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[3]) kp_halo[kp_s] = *kp_addr[3];
      else if (kp_px - (2) >= 0 && kp_px - (2) < 32 && kp_py - (0) >= 0 && kp_py - (0) < 64 && kp_roles_conv3x3(out, inp, H, W, kp_px - (2), kp_py - (0), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[2]) kp_halo[kp_s] = *kp_addr[2];
      else if (kp_px - (1) >= 0 && kp_px - (1) < 32 && kp_py - (1) >= 0 && kp_py - (1) < 64 && kp_roles_conv3x3(out, inp, H, W, kp_px - (1), kp_py - (1), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[4]) kp_halo[kp_s] = *kp_addr[4];
      else if (kp_px - (0) >= 0 && kp_px - (0) < 32 && kp_py - (2) >= 0 && kp_py - (2) < 64 && kp_roles_conv3x3(out, inp, H, W, kp_px - (0), kp_py - (2), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[6]) kp_halo[kp_s] = *kp_addr[6];
      else if (kp_px - (2) >= 0 && kp_px - (2) < 32 && kp_py - (1) >= 0 && kp_py - (1) < 64 && kp_roles_conv3x3(out, inp, H, W, kp_px - (2), kp_py - (1), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[5]) kp_halo[kp_s] = *kp_addr[5];
      else if (kp_px - (1) >= 0 && kp_px - (1) < 32 && kp_py - (2) >= 0 && kp_py - (2) < 64 && kp_roles_conv3x3(out, inp, H, W, kp_px - (1), kp_py - (2), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[7]) kp_halo[kp_s] = *kp_addr[7];
      else if (kp_px - (2) >= 0 && kp_px - (2) < 32 && kp_py - (2) >= 0 && kp_py - (2) < 64 && kp_roles_conv3x3(out, inp, H, W, kp_px - (2), kp_py - (2), false, kp_val, kp_addr, kp_dst, kp_out) && kp_addr[8]) kp_halo[kp_s] = *kp_addr[8];
  }
  __syncthreads();
  #pragma unroll
  for (int kp_r = 0; kp_r < 8; ++kp_r) {
    kp_val[0] = kp_tile[(threadIdx.y + kp_r * 8) + 0][threadIdx.x + 0];
    kp_val[1] = kp_tile[(threadIdx.y + kp_r * 8) + 0][threadIdx.x + 1];
    kp_val[2] = kp_tile[(threadIdx.y + kp_r * 8) + 0][threadIdx.x + 2];
    kp_val[3] = kp_tile[(threadIdx.y + kp_r * 8) + 1][threadIdx.x + 0];
    kp_val[4] = kp_tile[(threadIdx.y + kp_r * 8) + 1][threadIdx.x + 1];
    kp_val[5] = kp_tile[(threadIdx.y + kp_r * 8) + 1][threadIdx.x + 2];
    kp_val[6] = kp_tile[(threadIdx.y + kp_r * 8) + 2][threadIdx.x + 0];
    kp_val[7] = kp_tile[(threadIdx.y + kp_r * 8) + 2][threadIdx.x + 1];
    kp_val[8] = kp_tile[(threadIdx.y + kp_r * 8) + 2][threadIdx.x + 2];
    if (kp_roles_conv3x3(out, inp, H, W, threadIdx.x, (threadIdx.y + kp_r * 8), true, kp_val, kp_addr, kp_dst, kp_out)) *kp_dst = kp_out;
  }
}
