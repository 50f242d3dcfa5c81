// launch: grid cdiv(N, 256) block 256
// expect: online max and sum
#include <float.h>
__global__ void softmax_forward(float* out, const float* inp, int N, int C) {
    int i, j;
    float maxval, sum;
    i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        maxval = -FLT_MAX;
        for (j = 0; j < C; j++) {
            maxval = fmaxf(maxval, inp[i * C + j]);
        }
        sum = 0.0f;
        for (j = 0; j < C; j++) {
            sum += __expf(inp[i * C + j] - maxval);
        }
        for (j = 0; j < C; j++) {
            out[i * C + j] = __fdividef(__expf(inp[i * C + j] - maxval), sum);
        }
    }
}
