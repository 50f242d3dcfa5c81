// launch: {"grid": ["cdiv(W, 128)", "cdiv(H, 32)"], "block": [128, 1]}
// 3x3 convolution (one channel, zero padding), one thread per output point.
static __device__ __forceinline__ bool kp_march_conv3x3(float* out, const float* inp, int H, int W, int kp_vx, int kp_vy, const float* const* kp_pa, const float* kp_pv, float* kp_val, const float** kp_addr, float*& kp_dst, float& kp_out)
{
  kp_addr[0] = nullptr; kp_addr[1] = nullptr; kp_addr[2] = nullptr; kp_addr[3] = nullptr; kp_addr[4] = nullptr; kp_addr[5] = nullptr; kp_addr[6] = nullptr; kp_addr[7] = nullptr; kp_addr[8] = nullptr;
  const float w[3][3] = {{0.0625f, 0.125f, -0.0625f},
                         {0.25f, 0.5f, 0.125f},
                         {-0.125f, 0.25f, 0.0625f}};
  int x = blockIdx.x * 128u + kp_vx;
  int y = blockIdx.y * 32u + kp_vy;
  if (x < W && y < H) {
    float sum = 0.0f;
    {
{ const int dy = -1; {
      {
{ const int dx_kp_tap3 = -1; {
        int yy_kp_tap0_kp_tap3 = y + (-1); int xx_kp_tap0_kp_tap3 = x + (-1);
        if (yy_kp_tap0_kp_tap3 >= 0 && yy_kp_tap0_kp_tap3 < H && xx_kp_tap0_kp_tap3 >= 0 && xx_kp_tap0_kp_tap3 < W) {
          sum += w[(0)][(0)] * (kp_val[0] = (kp_pa[3] == (kp_addr[0] = &(inp[yy_kp_tap0_kp_tap3 * W + xx_kp_tap0_kp_tap3])) ? kp_pv[3] : *kp_addr[0]));
        }
      } }
{ const int dx_kp_tap3 = 0; {
        int yy_kp_tap1_kp_tap3 = y + (-1); int xx_kp_tap1_kp_tap3 = x + (0);
        if (yy_kp_tap1_kp_tap3 >= 0 && yy_kp_tap1_kp_tap3 < H && xx_kp_tap1_kp_tap3 >= 0 && xx_kp_tap1_kp_tap3 < W) {
          sum += w[(0)][(1)] * (kp_val[1] = (kp_pa[4] == (kp_addr[1] = &(inp[yy_kp_tap1_kp_tap3 * W + xx_kp_tap1_kp_tap3])) ? kp_pv[4] : *kp_addr[1]));
        }
      } }
{ const int dx_kp_tap3 = 1; {
        int yy_kp_tap2_kp_tap3 = y + (-1); int xx_kp_tap2_kp_tap3 = x + (1);
        if (yy_kp_tap2_kp_tap3 >= 0 && yy_kp_tap2_kp_tap3 < H && xx_kp_tap2_kp_tap3 >= 0 && xx_kp_tap2_kp_tap3 < W) {
          sum += w[(0)][(2)] * (kp_val[2] = (kp_pa[5] == (kp_addr[2] = &(inp[yy_kp_tap2_kp_tap3 * W + xx_kp_tap2_kp_tap3])) ? kp_pv[5] : *kp_addr[2]));
        }
      } }
}
    } }
{ const int dy = 0; {
      {
{ const int dx_kp_tap4 = -1; {
        int yy_kp_tap0_kp_tap4 = y + (0); int xx_kp_tap0_kp_tap4 = x + (-1);
        if (yy_kp_tap0_kp_tap4 >= 0 && yy_kp_tap0_kp_tap4 < H && xx_kp_tap0_kp_tap4 >= 0 && xx_kp_tap0_kp_tap4 < W) {
          sum += w[(1)][(0)] * (kp_val[3] = (kp_pa[6] == (kp_addr[3] = &(inp[yy_kp_tap0_kp_tap4 * W + xx_kp_tap0_kp_tap4])) ? kp_pv[6] : *kp_addr[3]));
        }
      } }
{ const int dx_kp_tap4 = 0; {
        int yy_kp_tap1_kp_tap4 = y + (0); int xx_kp_tap1_kp_tap4 = x + (0);
        if (yy_kp_tap1_kp_tap4 >= 0 && yy_kp_tap1_kp_tap4 < H && xx_kp_tap1_kp_tap4 >= 0 && xx_kp_tap1_kp_tap4 < W) {
          sum += w[(1)][(1)] * (kp_val[4] = (kp_pa[7] == (kp_addr[4] = &(inp[yy_kp_tap1_kp_tap4 * W + xx_kp_tap1_kp_tap4])) ? kp_pv[7] : *kp_addr[4]));
        }
      } }
{ const int dx_kp_tap4 = 1; {
        int yy_kp_tap2_kp_tap4 = y + (0); int xx_kp_tap2_kp_tap4 = x + (1);
        if (yy_kp_tap2_kp_tap4 >= 0 && yy_kp_tap2_kp_tap4 < H && xx_kp_tap2_kp_tap4 >= 0 && xx_kp_tap2_kp_tap4 < W) {
          sum += w[(1)][(2)] * (kp_val[5] = (kp_pa[8] == (kp_addr[5] = &(inp[yy_kp_tap2_kp_tap4 * W + xx_kp_tap2_kp_tap4])) ? kp_pv[8] : *kp_addr[5]));
        }
      } }
}
    } }
{ const int dy = 1; {
      {
{ const int dx_kp_tap5 = -1; {
        int yy_kp_tap0_kp_tap5 = y + (1); int xx_kp_tap0_kp_tap5 = x + (-1);
        if (yy_kp_tap0_kp_tap5 >= 0 && yy_kp_tap0_kp_tap5 < H && xx_kp_tap0_kp_tap5 >= 0 && xx_kp_tap0_kp_tap5 < W) {
          sum += w[(2)][(0)] * (kp_val[6] = *(kp_addr[6] = &(inp[yy_kp_tap0_kp_tap5 * W + xx_kp_tap0_kp_tap5])));
        }
      } }
{ const int dx_kp_tap5 = 0; {
        int yy_kp_tap1_kp_tap5 = y + (1); int xx_kp_tap1_kp_tap5 = x + (0);
        if (yy_kp_tap1_kp_tap5 >= 0 && yy_kp_tap1_kp_tap5 < H && xx_kp_tap1_kp_tap5 >= 0 && xx_kp_tap1_kp_tap5 < W) {
          sum += w[(2)][(1)] * (kp_val[7] = *(kp_addr[7] = &(inp[yy_kp_tap1_kp_tap5 * W + xx_kp_tap1_kp_tap5])));
        }
      } }
{ const int dx_kp_tap5 = 1; {
        int yy_kp_tap2_kp_tap5 = y + (1); int xx_kp_tap2_kp_tap5 = x + (1);
        if (yy_kp_tap2_kp_tap5 >= 0 && yy_kp_tap2_kp_tap5 < H && xx_kp_tap2_kp_tap5 >= 0 && xx_kp_tap2_kp_tap5 < W) {
          sum += w[(2)][(2)] * (kp_val[8] = *(kp_addr[8] = &(inp[yy_kp_tap2_kp_tap5 * W + xx_kp_tap2_kp_tap5])));
        }
      } }
}
    } }
}
    { kp_dst = &(out[y * W + x]); kp_out = sum; return true; }
  }
  return false;
}

__global__ void conv3x3(float* out, const float* inp, int H, int W) {
  // a register march: each thread 32 consecutive rows of the old threads at its x; a neighbour that the
  // row before read at the same address is taken from its registers
  float kp_val[9];
  const float* kp_addr[9];
  const float* kp_pa[9];
  float kp_pv[9];
  float* kp_dst;
  float kp_out;
#pragma unroll
  for (int kp_j = 0; kp_j < 9; ++kp_j) { kp_pa[kp_j] = nullptr; kp_pv[kp_j] = kp_val[kp_j] = float(); }
  const int kp_y0 = threadIdx.y * 32;
#pragma unroll 1
  for (int kp_r = 0; kp_r < 32; ++kp_r) {
    if (kp_march_conv3x3(out, inp, H, W, threadIdx.x, kp_y0 + kp_r, kp_pa, kp_pv, kp_val, kp_addr, kp_dst, kp_out)) *kp_dst = kp_out;
#pragma unroll
    for (int kp_j = 0; kp_j < 9; ++kp_j) { kp_pa[kp_j] = kp_addr[kp_j]; kp_pv[kp_j] = kp_val[kp_j]; }
  }
}
