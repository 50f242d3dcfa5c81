// style: ONNX/TensorRT plugin-style layout converter "NCHW -> NHWC"; one thread per output element from a flat index, four chained div/mod computations c = idx % C, w = (idx / C) % W, h = (idx / (C * W)) % H, n = idx / (C * W * H), gather read from the NCHW input, host main with cudaMalloc/cudaMemcpy and a CPU check
// launch: grid cdiv(N*C*H*W, 256) block 256
// sizes: N=3 C=5 H=13 W=17
// expect: transpose-tile
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void nchw_to_nhwc(const float *in, float *out, int N, int C, int H, int W)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total = N * C * H * W;
    if (idx >= total) return;

    int c = idx % C;
    int w = (idx / C) % W;
    int h = (idx / (C * W)) % H;
    int n = idx / (C * W * H);

    out[idx] = in[((n * C + c) * H + h) * W + w];
}

int main()
{
    const int N = 3, C = 5, H = 13, W = 17;
    const int total = N * C * H * W;
    std::vector<float> h_in(total), h_out(total);
    for (int i = 0; i < total; ++i) h_in[i] = static_cast<float>(i);

    float *d_in = nullptr, *d_out = nullptr;
    cudaMalloc(&d_in, total * sizeof(float));
    cudaMalloc(&d_out, total * sizeof(float));
    cudaMemcpy(d_in, h_in.data(), total * sizeof(float), cudaMemcpyHostToDevice);

    const int threads = 256;
    const int blocks = (total + threads - 1) / threads;
    nchw_to_nhwc<<<blocks, threads>>>(d_in, d_out, N, C, H, W);
    cudaMemcpy(h_out.data(), d_out, total * sizeof(float), cudaMemcpyDeviceToHost);

    int errors = 0;
    for (int n = 0; n < N; ++n)
        for (int h = 0; h < H; ++h)
            for (int w = 0; w < W; ++w)
                for (int c = 0; c < C; ++c)
                    if (h_out[((n * H + h) * W + w) * C + c] != h_in[((n * C + c) * H + h) * W + w])
                        ++errors;
    printf("errors: %d\n", errors);

    cudaFree(d_in);
    cudaFree(d_out);
    return 0;
}
