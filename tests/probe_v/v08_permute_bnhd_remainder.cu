// style: transformer-repo head split, (B,N,H,d) -> (B,H,N,d) scatter from the input index; size_t flat index peeled with a reassigned remainder (r = idx; dd = r % D; r /= D; ...), names B/N/H/D as kernel ints, host main checks against a CPU loop
// launch: grid cdiv(B*N*H*D, 256) block 256
// sizes: B=2 N=29 H=3 D=13
// expect: transpose-tile|gather
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void split_heads(const float *x, float *y, int B, int N, int H, int D)
{
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t total = (size_t)B * N * H * D;
    if (idx >= total) return;

    size_t r = idx;
    int dd = r % D; r /= D;
    int h  = r % H; r /= H;
    int n  = r % N; r /= N;
    int b  = (int)r;

    size_t out = (((size_t)b * H + h) * N + n) * D + dd;
    y[out] = x[idx];
}

int main()
{
    const int B = 2, N = 29, H = 3, D = 13;
    const size_t total = (size_t)B * N * H * D;
    float *hx = (float *)malloc(total * sizeof(float));
    float *hy = (float *)malloc(total * sizeof(float));
    for (size_t i = 0; i < total; i++) hx[i] = (float)i;

    float *dx, *dy;
    cudaMalloc(&dx, total * sizeof(float));
    cudaMalloc(&dy, total * sizeof(float));
    cudaMemcpy(dx, hx, total * sizeof(float), cudaMemcpyHostToDevice);

    int threads = 256;
    int blocks = (int)((total + threads - 1) / threads);
    split_heads<<<blocks, threads>>>(dx, dy, B, N, H, D);
    cudaMemcpy(hy, dy, total * sizeof(float), cudaMemcpyDeviceToHost);

    int bad = 0;
    for (int b = 0; b < B; b++)
        for (int n = 0; n < N; n++)
            for (int h = 0; h < H; h++)
                for (int d = 0; d < D; d++)
                    if (hy[((b * H + h) * N + n) * D + d] != hx[((b * N + n) * H + h) * D + d]) bad++;
    printf("mismatches: %d\n", bad);

    cudaFree(dx); cudaFree(dy); free(hx); free(hy);
    return 0;
}
