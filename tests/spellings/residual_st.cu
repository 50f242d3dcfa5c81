// launch: grid cdiv(N, 512) block 512
// expect: packed 4-element loads and stores of inp1, inp2, out
__global__ void residual_forward(float* out, const float* inp1, const float* inp2, int N) {
    for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < N; idx += blockDim.x * gridDim.x) {
        __stcs(out + idx, __ldcs(inp1 + idx) + inp2[idx]);
    }
}
