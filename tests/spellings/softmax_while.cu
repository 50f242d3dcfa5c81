// launch: grid cdiv(N, 128) block 128
// expect: online max and sum
#include <stdint.h>
__global__ void softmax_forward(float* out, const float* inp, int N, int C) {
    int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row < N) {
        const float* in_row = inp + row * C;
        float* out_row = out + row * C;
        float maxval = -INFINITY;
        int64_t i = 0;
        while (i < C) {
            maxval = fmaxf(maxval, in_row[i]);
            i++;
        }
        float sum = 0.0f;
        i = 0;
        while (i < C) {
            out_row[i] = expf(in_row[i] - maxval);
            sum += out_row[i];
            i++;
        }
        i = 0;
        while (i < C) {
            out_row[i] *= 1.0f / sum;
            i++;
        }
    }
}
