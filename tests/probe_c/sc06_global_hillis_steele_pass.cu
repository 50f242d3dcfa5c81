// launch: grid cdiv(n, 256) block 256
// sizes: n=100000 offset=64
// expect: scan-library|block-scan
// one pass of a multi-block Hillis-Steele scan in global memory: out[i] = in[i] + in[i-offset], host doubles offset and ping-pongs buffers (course-assignment scan code)
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <cuda_runtime.h>

#define BLOCK_SIZE 256

__global__ void scan_pass(const float *in, float *out, int n, int offset)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (i >= offset)
        out[i] = in[i] + in[i - offset];
    else
        out[i] = in[i];
}

int main(int argc, char **argv)
{
    int n = (argc > 1) ? atoi(argv[1]) : 100000;
    size_t bytes = n * sizeof(float);

    float *h = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) h[i] = 1.0f;

    float *d_a, *d_b;
    cudaMalloc(&d_a, bytes);
    cudaMalloc(&d_b, bytes);
    cudaMemcpy(d_a, h, bytes, cudaMemcpyHostToDevice);

    int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    for (int offset = 1; offset < n; offset <<= 1) {
        scan_pass<<<blocks, BLOCK_SIZE>>>(d_a, d_b, n, offset);
        std::swap(d_a, d_b);
    }
    cudaMemcpy(h, d_a, bytes, cudaMemcpyDeviceToHost);
    printf("last = %f (expected %d)\n", h[n - 1], n);

    cudaFree(d_a);
    cudaFree(d_b);
    free(h);
    return 0;
}
