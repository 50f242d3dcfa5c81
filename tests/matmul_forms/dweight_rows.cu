// llm.c's weight gradient: two loops (b, t) over row pointers cut inside the loop, one sum (k = b * T + t)
#include <cuda_runtime.h>
#include <assert.h>

#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))

__global__ void matmul_backward_dweight_kernel(float* dweight,
                                               const float* dout, const float* inp,
                                               int B, int T, int C, int OC) {
    // dweight is (OC, C), dout is (B,T,OC), inp is (B,T,C)
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int o = blockIdx.y * blockDim.y + threadIdx.y;
    if (c >= C || o >= OC) { return; }
    float sum = 0.0f;
    for (int b = 0; b < B; b++) {
        for (int t = 0; t < T; t++) {
            const float* dout_bt = dout + b * T * OC + t * OC;
            const float* inp_bt = inp + b * T * C + t * C;
            sum += dout_bt[o] * inp_bt[c];
        }
    }
    dweight[o * C + c] += sum;
}
