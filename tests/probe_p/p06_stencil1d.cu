// style: NVIDIA "CUDA C/C++ Basics" stencil_1d with the shared tile removed; RADIUS #define, input padded by RADIUS on both sides, size_t grid-stride for-loop, int data, main()
// launch: grid cdiv(n, 256) block 256
// sizes: n=100003
// expect: stencil-tile|stencil-window
#include <cstdio>
#include <cstdlib>

#define RADIUS 3
#define BLOCK_SIZE 256

// in holds n + 2*RADIUS ints, out holds n ints.
__global__ void stencil_1d(const int *in, int *out, size_t n)
{
    for (size_t gindex = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
         gindex < n;
         gindex += (size_t)blockDim.x * gridDim.x) {
        int result = 0;
        for (int offset = -RADIUS; offset <= RADIUS; offset++)
            result += in[gindex + (RADIUS + offset)];
        out[gindex] = result;
    }
}

int main(void)
{
    const size_t n = 100003;
    size_t in_bytes = (n + 2 * RADIUS) * sizeof(int);
    size_t out_bytes = n * sizeof(int);
    int *h_in = (int *)malloc(in_bytes), *h_out = (int *)malloc(out_bytes);
    for (size_t i = 0; i < n + 2 * RADIUS; i++) h_in[i] = 1;

    int *d_in, *d_out;
    cudaMalloc((void **)&d_in, in_bytes);
    cudaMalloc((void **)&d_out, out_bytes);
    cudaMemcpy(d_in, h_in, in_bytes, cudaMemcpyHostToDevice);

    stencil_1d<<<(n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(d_in, d_out, n);

    cudaMemcpy(h_out, d_out, out_bytes, cudaMemcpyDeviceToHost);
    printf("out[0]=%d (expect %d)\n", h_out[0], 2 * RADIUS + 1);
    cudaFree(d_in); cudaFree(d_out);
    free(h_in); free(h_out);
    return 0;
}
