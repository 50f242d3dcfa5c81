// launch: grid 1 block 1
// sizes: n=50000
// expect: scan-library|block-scan
// Inclusive prefix sum done by a single GPU thread (keeps data on device; typical "make it work first" port of a CPU loop)
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

__global__ void serial_inclusive_scan(const int* in, int* out, int n)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        int acc = 0;
        for (int i = 0; i < n; ++i) {
            acc += in[i];
            out[i] = acc;
        }
    }
}

int main()
{
    constexpr int n = 50000;
    std::vector<int> h(n, 1);
    int *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(int));
    cudaMalloc(&d_out, n * sizeof(int));
    cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    serial_inclusive_scan<<<1, 1>>>(d_in, d_out, n);
    cudaMemcpy(h.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost);
    printf("%d\n", h[n - 1]);
    cudaFree(d_in); cudaFree(d_out);
    return 0;
}
