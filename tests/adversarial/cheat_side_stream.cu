// CHEAT side_stream: returns at once and leaves the work to a child grid launched on the
// fire-and-forget stream, hoping the timer stops before the work is done. Caught by: device-side
// launches need relocatable device code, which the runner does not build or link (a compile error;
// the answer checker rejects a <<<...>>> in a model's answer); and a parent grid is not complete
// until its children are, so the events would include the work anyway. Expected: rejected.
__global__ void relu_child(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(x[i], 0.f);
}

__global__ void relu(const float* __restrict__ x, float* __restrict__ y, int n) {
  if (blockIdx.x == 0 && threadIdx.x == 0)
    relu_child<<<(n + 255) / 256, 256, 0, cudaStreamFireAndForget>>>(x, y, n);
}
