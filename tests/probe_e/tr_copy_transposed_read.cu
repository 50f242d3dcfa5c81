// style: "copy with transposed read" baseline (writes in order, reads a column; x = column of out), with host main
// launch: grid cdiv(n, 32), cdiv(m, 32) block 32, 32
// sizes: m=307 n=269
// expect: transpose-tile
#include <stdio.h>
#include <stdlib.h>

// out is m x n, in is n x m: out[y][x] = in[x][y]
__global__ void copy_transposed_read(float *out, const float *in, int m, int n)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (y < m && x < n)
        out[y * n + x] = in[x * m + y];
}

int main(void)
{
    int m = 307, n = 269;
    float *h_in = (float *)malloc(m * n * sizeof(float));
    float *h_out = (float *)malloc(m * n * sizeof(float));
    for (int i = 0; i < m * n; i++) h_in[i] = (float)i;
    float *d_in, *d_out;
    cudaMalloc(&d_in, m * n * sizeof(float));
    cudaMalloc(&d_out, m * n * sizeof(float));
    cudaMemcpy(d_in, h_in, m * n * sizeof(float), cudaMemcpyHostToDevice);
    dim3 threads(32, 32);
    dim3 blocks((n + 31) / 32, (m + 31) / 32);
    copy_transposed_read<<<blocks, threads>>>(d_out, d_in, m, n);
    cudaMemcpy(h_out, d_out, m * n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%f %f\n", h_out[1], h_in[m]);
    cudaFree(d_in); cudaFree(d_out);
    free(h_in); free(h_out);
    return 0;
}
