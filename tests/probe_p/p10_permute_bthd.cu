// style: llm.c dev/cuda attention permute_kernel; flat idx peeled into b, nh_, t, hs_ with rest = idx % ..., __ldcs streaming load, cudaCheck macro and a permute_forward launcher with cudaMalloc
// launch: grid cdiv(B * NH * T * HS, 256) block 256
// sizes: B=2 T=37 NH=3 HS=24
// expect: gather
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define cudaCheck(err) do { cudaError_t e_ = (err); if (e_ != cudaSuccess) { \
    printf("[CUDA ERROR] %s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(EXIT_FAILURE); } } while (0)

// inp is (B, T, NH, HS); out is (B, NH, T, HS)
__global__ void permute_kernel(float* out, const float* inp, int B, int T, int NH, int HS) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    // out[b][nh_][t][hs_] = inp[b][t][nh_][hs_]
    if (idx < B * NH * T * HS) {
        int b = idx / (NH * T * HS);
        int rest = idx % (NH * T * HS);
        int nh_ = rest / (T * HS);
        rest = rest % (T * HS);
        int t = rest / HS;
        int hs_ = rest % HS;

        int inp_idx = (b * T * NH * HS) + (t * NH * HS) + (nh_ * HS) + hs_;
        out[idx] = __ldcs(&inp[inp_idx]);
    }
}

void permute_forward(float* h_out, const float* h_inp, int B, int T, int NH, int HS) {
    size_t bytes = (size_t)B * T * NH * HS * sizeof(float);
    float *d_inp, *d_out;
    cudaCheck(cudaMalloc(&d_inp, bytes));
    cudaCheck(cudaMalloc(&d_out, bytes));
    cudaCheck(cudaMemcpy(d_inp, h_inp, bytes, cudaMemcpyHostToDevice));
    int total_threads = B * NH * T * HS;
    int block_size = 256;
    int num_blocks = (total_threads + block_size - 1) / block_size;
    permute_kernel<<<num_blocks, block_size>>>(d_out, d_inp, B, T, NH, HS);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
    cudaCheck(cudaFree(d_inp));
    cudaCheck(cudaFree(d_out));
}
