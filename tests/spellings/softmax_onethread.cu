// launch: grid N block 32
// expect: online max and sum
// A block per row where thread 0 does the whole row.
__global__ void softmax_forward(float* out, const float* inp, int N, int C) {
    int row = blockIdx.x;
    if (threadIdx.x != 0 || row >= N) return;
    float maxval = inp[row * C];
    for (int j = 1; j < C; j++)
        if (inp[row * C + j] > maxval) maxval = inp[row * C + j];
    float sum = 0.0f;
    for (int j = 0; j < C; j++) sum += expf(inp[row * C + j] - maxval);
    for (int j = 0; j < C; j++) out[row * C + j] = expf(inp[row * C + j] - maxval) / sum;
}
