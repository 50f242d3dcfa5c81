// launch: grid cdiv(N * C * H * W, 256) block 256
// sizes: N=2 C=60 H=30 W=34
// expect: transpose-tile
// Layout conversion NCHW -> NHWC, one thread per output element with div/mod index decomposition (inference-engine style)
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

__global__ void nchw_to_nhwc(const float* __restrict__ in, float* __restrict__ out,
                             int N, int C, int H, int W)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int total = N * C * H * W;
    if (tid >= total) return;

    // output index order: n, h, w, c  (c fastest)
    int c = tid % C;
    int t = tid / C;
    int w = t % W;
    t /= W;
    int h = t % H;
    int n = t / H;

    out[tid] = in[((n * C + c) * H + h) * W + w];
}

int main(int argc, char** argv)
{
    int N = 2, C = 60, H = 30, W = 34;
    int total = N * C * H * W;
    float* h = (float*)malloc(total * sizeof(float));
    for (int i = 0; i < total; ++i) h[i] = (float)i;
    float *d_in, *d_out;
    cudaMalloc(&d_in, total * sizeof(float));
    cudaMalloc(&d_out, total * sizeof(float));
    cudaMemcpy(d_in, h, total * sizeof(float), cudaMemcpyHostToDevice);
    int threads = 256;
    int blocks = (total + threads - 1) / threads;
    nchw_to_nhwc<<<blocks, threads>>>(d_in, d_out, N, C, H, W);
    cudaMemcpy(h, d_out, total * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%f %f\n", h[0], h[1]);
    cudaFree(d_in); cudaFree(d_out); free(h);
    return 0;
}
