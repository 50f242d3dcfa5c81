// launch: grid 96 block 256
// expect: packed 4-element loads and stores of inp1, inp2, out
// The textbook grid-stride loop: its step a local computed once before it.
__global__ void residual_forward(float* out, const float* inp1, const float* inp2, int N) {
    int index = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;
    for (int i = index; i < N; i += stride) {
        out[i] = inp1[i] + inp2[i];
    }
}
