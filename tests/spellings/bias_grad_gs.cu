// launch: grid 8 block 256
// expect: made one thread per column
__global__ void bias_backward(float* dbias, const float* dout, int N, int OC) {
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < OC; c += blockDim.x * gridDim.x) {
        float total = 0.0f;
        for (int r = 0; r < N; r++) total += dout[r * OC + c];
        dbias[c] = total;
    }
}
