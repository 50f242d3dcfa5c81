// out = inp weight^T + bias, one output per thread as a dot product through row pointers.
__global__ void linear_forward(float* out, const float* inp, const float* weight, const float* bias, int N, int C,
                               int OC) {
  int bt = blockIdx.x * blockDim.x + threadIdx.x;
  int o = blockIdx.y * blockDim.y + threadIdx.y;
  if (bt < N && o < OC) {
    const float* x = inp + bt * C;
    const float* w = weight + o * C;
    float val = (bias != NULL) ? bias[o] : 0.0f;
    for (int i = 0; i < C; i++) {
      val += x[i] * w[i];
    }
    out[bt * OC + o] = val;
  }
}
