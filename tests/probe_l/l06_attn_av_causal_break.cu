// style: minGPT/nanoGPT port of y = att @ v with heads already split, att (BH, T, T) and v (BH, T, hs) contiguous, one output per thread (d on x, t on y, bh on z), causal bound written as `if (s > t) break;` inside a full-length s loop, __ldg loads, host launcher + main
// launch: grid cdiv(hs, 32), cdiv(T, 4), BH block 32, 4
// sizes: BH=6 T=67 hs=37
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

// y[bh, t, d] = sum_{s <= t} att[bh, t, s] * v[bh, s, d]
__global__ void att_times_v(const float *att, const float *v, float *y, int BH, int T, int hs)
{
    const int d = blockIdx.x * blockDim.x + threadIdx.x;
    const int t = blockIdx.y * blockDim.y + threadIdx.y;
    const int bh = blockIdx.z;
    if (d >= hs || t >= T || bh >= BH) return;

    const float *att_row = att + ((size_t)bh * T + t) * T;
    const float *v_head = v + (size_t)bh * T * hs;

    float acc = 0.f;
    for (int s = 0; s < T; ++s) {
        if (s > t) break;          // causal: future positions have zero probability
        acc += __ldg(att_row + s) * __ldg(v_head + (size_t)s * hs + d);
    }
    y[((size_t)bh * T + t) * hs + d] = acc;
}

static void launch_att_v(const float *att, const float *v, float *y, int BH, int T, int hs,
                         cudaStream_t stream)
{
    dim3 block(32, 4, 1);
    dim3 grid((hs + 31) / 32, (T + 3) / 4, BH);
    att_times_v<<<grid, block, 0, stream>>>(att, v, y, BH, T, hs);
}

int main()
{
    const int BH = 6, T = 67, hs = 37;
    size_t n_att = (size_t)BH * T * T, n_v = (size_t)BH * T * hs;

    float *h_att = (float *)malloc(n_att * sizeof(float));
    float *h_v = (float *)malloc(n_v * sizeof(float));
    // a valid causal softmax: uniform over the allowed prefix
    for (int bh = 0; bh < BH; ++bh)
        for (int t = 0; t < T; ++t)
            for (int s = 0; s < T; ++s)
                h_att[((size_t)bh * T + t) * T + s] = (s <= t) ? 1.0f / (t + 1) : 0.0f;
    for (size_t i = 0; i < n_v; ++i) h_v[i] = (float)(i % 23) / 23.0f;

    float *d_att, *d_v, *d_y;
    cudaMalloc(&d_att, n_att * sizeof(float));
    cudaMalloc(&d_v, n_v * sizeof(float));
    cudaMalloc(&d_y, n_v * sizeof(float));
    cudaMemcpy(d_att, h_att, n_att * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_v, h_v, n_v * sizeof(float), cudaMemcpyHostToDevice);

    launch_att_v(d_att, d_v, d_y, BH, T, hs, 0);
    cudaDeviceSynchronize();
    printf("launch: %s\n", cudaGetErrorString(cudaGetLastError()));

    cudaFree(d_att); cudaFree(d_v); cudaFree(d_y);
    free(h_att); free(h_v);
    return 0;
}
