// launch: grid 120 block 128
// expect: start the max at its seed; online max and sum
__global__ void softmax_forward(float* __restrict__ out, const float* __restrict__ inp, int N, int C) {
    for (int row = blockIdx.x * blockDim.x + threadIdx.x; row < N; row += gridDim.x * blockDim.x) {
        const float* x = inp + (long)row * C;
        float* y = out + (long)row * C;
        float mx = x[0];
        #pragma unroll 4
        for (int j = 1; j < C; j = j + 1) mx = fmaxf(mx, x[j]);
        float sum = 0.0f;
        #pragma unroll 4
        for (int j = 0; j < C; j += 1) {
            float e = expf(x[j] - mx);
            y[j] = e;
            sum += e;
        }
        float inv = 1.0f / sum;
        for (int j = 0; j < C; j++) y[j] *= inv;
    }
}
