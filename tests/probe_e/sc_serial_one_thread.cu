// style: "get it working first" prefix sum: a single thread walks the whole array (launched <<<1, 1>>>), host main
// launch: grid 1 block 1
// sizes: n=2999
// expect: block-scan|scan-library
#include <stdio.h>
#include <stdlib.h>

__global__ void prefix_sum_serial(const int *in, int *out, int n)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        int acc = 0;
        for (int i = 0; i < n; i++) {
            acc += in[i];
            out[i] = acc;
        }
    }
}

int main()
{
    int n = 2999;
    int *h_in = (int *)malloc(n * sizeof(int));
    int *h_out = (int *)malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) h_in[i] = i % 3;
    int *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(int));
    cudaMalloc(&d_out, n * sizeof(int));
    cudaMemcpy(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice);
    prefix_sum_serial<<<1, 1>>>(d_in, d_out, n);
    cudaMemcpy(h_out, d_out, n * sizeof(int), cudaMemcpyDeviceToHost);
    printf("last = %d\n", h_out[n - 1]);
    cudaFree(d_in); cudaFree(d_out);
    free(h_in); free(h_out);
    return 0;
}
