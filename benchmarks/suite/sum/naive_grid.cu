// Sum of an array: each thread accumulates a grid-stride slice, then adds it to the total.
__global__ void sum(float* out, const float* inp, int n) {
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    acc += inp[i];
  }
  atomicAdd(out, acc);
}
