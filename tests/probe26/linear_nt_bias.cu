// launch: grid cdiv(OUT, 16), cdiv(B, 16) block 16, 16
// sizes: B=64 IN=128 OUT=96
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce
// y = x W^T + b, W stored OUT x IN (PyTorch's nn.Linear layout)
__global__ void linear_fwd(const float* x, const float* W, const float* bias, float* y, int B, int IN, int OUT) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  int bi = blockIdx.y * blockDim.y + threadIdx.y;
  if (bi < B && o < OUT) {
    float s = bias ? bias[o] : 0.0f;
    for (int i = 0; i < IN; ++i) s += x[bi * IN + i] * W[o * IN + i];
    y[bi * OUT + o] = s;
  }
}
