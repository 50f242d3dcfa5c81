// launch: grid cdiv(out_f, 32), cdiv(batch, 8) block 32, 8
// sizes: batch=64 in_f=100 out_f=120
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// a fully connected layer with bias and ReLU, weights [out_f, in_f] (PyTorch's layout)
__global__ void fc_relu(const float* x, const float* W, const float* b, float* y, int batch, int in_f, int out_f) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  int n = blockIdx.y * blockDim.y + threadIdx.y;
  if (n < batch && o < out_f) {
    float z = b[o];
    for (int i = 0; i < in_f; i++) z += x[n * in_f + i] * W[o * in_f + i];
    y[n * out_f + o] = z > 0.f ? z : 0.f;
  }
}
