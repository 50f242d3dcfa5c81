// style: lecture-notes Hillis-Steele inclusive scan of one block over unsigned int counts (e.g. bucket sizes -> end offsets), __shared__ unsigned int buf[2][MAX_N] with the active half chosen by `cur`, flipped with `cur ^= 1` after each step, for (d = 1; d < blockDim.x; d <<= 1), host main with CPU check
// launch: grid 1 block 512
// sizes: n=389
// expect: block-scan|scan-library|row-scan
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define MAX_N 512   // one block: n <= blockDim.x <= MAX_N

__global__ void hs_inclusive_scan(const unsigned int *in, unsigned int *out, int n)
{
    __shared__ unsigned int buf[2][MAX_N];
    const int t = threadIdx.x;
    int cur = 0;

    buf[cur][t] = (t < n) ? in[t] : 0u;
    __syncthreads();

    for (int d = 1; d < blockDim.x; d <<= 1) {
        unsigned int v = buf[cur][t];
        if (t >= d)
            v += buf[cur][t - d];
        buf[cur ^ 1][t] = v;
        __syncthreads();
        cur ^= 1;
    }

    if (t < n)
        out[t] = buf[cur][t];
}

int main()
{
    const int n = 389;
    unsigned int h_in[n], h_out[n];
    for (int i = 0; i < n; ++i) h_in[i] = (unsigned int)(i % 13);

    unsigned int *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(unsigned int));
    cudaMalloc(&d_out, n * sizeof(unsigned int));
    cudaMemcpy(d_in, h_in, n * sizeof(unsigned int), cudaMemcpyHostToDevice);

    hs_inclusive_scan<<<1, MAX_N>>>(d_in, d_out, n);
    cudaMemcpy(h_out, d_out, n * sizeof(unsigned int), cudaMemcpyDeviceToHost);

    unsigned int run = 0;
    int bad = 0;
    for (int i = 0; i < n; ++i) {
        run += h_in[i];
        if (h_out[i] != run) ++bad;
    }
    printf("scan: %d mismatches, total %u\n", bad, h_out[n - 1]);

    cudaFree(d_in); cudaFree(d_out);
    return 0;
}
