// Bias gradient, a block per output column: the block's threads stride down the rows and
// combine their partial sums with a tree in shared memory.
__global__ void bias_backward(float* dbias, const float* dout, int N, int OC) {
  extern __shared__ float partial[];
  int col = blockIdx.x;
  int tid = threadIdx.x;
  const float* x = dout + col;
  float acc = 0.0f;
  for (int r = tid; r < N; r += blockDim.x) {
    acc += x[r * OC];
  }
  partial[tid] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      partial[tid] += partial[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) {
    dbias[col] = partial[0];
  }
}
