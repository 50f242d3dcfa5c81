// style: deep-learning framework helper (Caffe/ONNX-runtime-ish) NCHW -> NHWC layout permute, one thread per output element, 4-D index (n,h,w,c) recovered with div/mod
// launch: grid cdiv(N * C * H * W, 256) block 256
// sizes: N=3 C=37 H=29 W=31
// expect: transpose-tile
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(x) do { cudaError_t st = (x); if (st != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(st)); std::exit(1);} } while (0)

__global__ void nchw_to_nhwc_kernel(const float *in, float *out, int N, int C, int H, int W)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total = N * C * H * W;
    if (idx >= total) return;

    // output is laid out [n][h][w][c]
    int c = idx % C;
    int w = (idx / C) % W;
    int h = (idx / (C * W)) % H;
    int n = idx / (C * W * H);

    out[idx] = in[((n * C + c) * H + h) * W + w];
}

int main()
{
    const int N = 3, C = 37, H = 29, W = 31;
    const int total = N * C * H * W;
    const size_t bytes = sizeof(float) * total;

    std::vector<float> h_in(total), h_out(total);
    for (int i = 0; i < total; ++i) h_in[i] = static_cast<float>(i % 1000) * 0.5f;

    float *d_in = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), bytes, cudaMemcpyHostToDevice));

    const int threads = 256;
    const int blocks = (total + threads - 1) / threads;
    nchw_to_nhwc_kernel<<<blocks, threads>>>(d_in, d_out, N, C, H, W);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_out.data(), d_out, bytes, cudaMemcpyDeviceToHost));

    int errors = 0;
    for (int n = 0; n < N; ++n)
        for (int c = 0; c < C; ++c)
            for (int h = 0; h < H; ++h)
                for (int w = 0; w < W; ++w) {
                    float ref = h_in[((n * C + c) * H + h) * W + w];
                    if (h_out[((n * H + h) * W + w) * C + c] != ref) ++errors;
                }
    printf("errors: %d\n", errors);

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    return errors != 0;
}
