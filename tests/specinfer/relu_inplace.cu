// ReLU in place: the buffer is read and written (in/out), int sizes as unsigned.
// expect: x [n] inout
__global__ void relu_inplace(float* x, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = fmaxf(x[i], 0.0f);
}
