// style: BLAS-like out-of-place transpose with leading dimensions (cudaMallocPitch-ish row pitch in elements); in is m x n with ld_in >= n, out is n x m with ld_out >= m
// launch: grid cdiv(n, 32), cdiv(m, 8) block 32, 8
// sizes: m=187 n=141 ld_in=160 ld_out=192
// expect: transpose-tile
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__global__ void transpose_ld(int m, int n, const float *in, int ld_in, float *out, int ld_out)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;   // column of in
    int i = blockIdx.y * blockDim.y + threadIdx.y;   // row of in
    if (i < m && j < n)
        out[j * ld_out + i] = in[i * ld_in + j];
}

int main()
{
    const int m = 187, n = 141;
    const int ld_in = 160, ld_out = 192;   // padded rows
    size_t in_bytes  = (size_t)m * ld_in  * sizeof(float);
    size_t out_bytes = (size_t)n * ld_out * sizeof(float);

    float *h_in  = (float *)malloc(in_bytes);
    float *h_out = (float *)malloc(out_bytes);
    memset(h_in, 0, in_bytes);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            h_in[i * ld_in + j] = (float)(i * 1000 + j);

    float *d_in, *d_out;
    cudaMalloc((void **)&d_in, in_bytes);
    cudaMalloc((void **)&d_out, out_bytes);
    cudaMemcpy(d_in, h_in, in_bytes, cudaMemcpyHostToDevice);
    cudaMemset(d_out, 0, out_bytes);

    dim3 block(32, 8);
    dim3 grid((n + block.x - 1) / block.x, (m + block.y - 1) / block.y);
    transpose_ld<<<grid, block>>>(m, n, d_in, ld_in, d_out, ld_out);
    cudaDeviceSynchronize();
    cudaMemcpy(h_out, d_out, out_bytes, cudaMemcpyDeviceToHost);

    int nerr = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            if (h_out[j * ld_out + i] != h_in[i * ld_in + j]) nerr++;
    printf("nerr = %d\n", nerr);

    cudaFree(d_in); cudaFree(d_out);
    free(h_in); free(h_out);
    return 0;
}
