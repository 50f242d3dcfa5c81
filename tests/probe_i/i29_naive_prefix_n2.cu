// style: "my first prefix sum" homework / SO question: one output per thread, each thread re-sums in[0..i] (O(n^2) work), int data
// launch: grid cdiv(n, 128) block 128
// sizes: n=4099
// expect: scan-library
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

__global__ void naive_prefix_sum(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int sum = 0;
        for (int j = 0; j <= i; j++)
            sum += in[j];
        out[i] = sum;
    }
}

int main()
{
    int n = 4099;
    int *h_in = (int*)malloc(n * sizeof(int));
    int *h_out = (int*)malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) h_in[i] = rand() % 10;

    int *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(int));
    cudaMalloc(&d_out, n * sizeof(int));
    cudaMemcpy(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice);

    int threadsPerBlock = 128;
    int numBlocks = (n + threadsPerBlock - 1) / threadsPerBlock;
    naive_prefix_sum<<<numBlocks, threadsPerBlock>>>(d_in, d_out, n);
    cudaMemcpy(h_out, d_out, n * sizeof(int), cudaMemcpyDeviceToHost);

    int running = 0, ok = 1;
    for (int i = 0; i < n; i++) {
        running += h_in[i];
        if (h_out[i] != running) { printf("mismatch at %d: %d vs %d\n", i, h_out[i], running); ok = 0; break; }
    }
    if (ok) printf("correct! last = %d\n", h_out[n-1]);

    cudaFree(d_in); cudaFree(d_out);
    free(h_in); free(h_out);
    return 0;
}
