// launch: grid cdiv(N, 16) block 16
// sizes: N=4000
// expect: stencil-tile
// OLCF cuda-training exercise 1 stencil_1d, naive variant (no shared memory): radius-3 sum over a padded int array
#include <stdio.h>
#include <algorithm>

using namespace std;

#define N 4000
#define RADIUS 3
#define BLOCK_SIZE 16

__global__ void stencil_1d(int *in, int *out) {
    int gindex = threadIdx.x + blockIdx.x * blockDim.x;

    // Apply the stencil
    int result = 0;
    for (int offset = -RADIUS ; offset <= RADIUS ; offset++)
        result += in[gindex + RADIUS + offset];

    // Store the result
    out[gindex + RADIUS] = result;
}

void fill_ints(int *x, int n) {
    fill_n(x, n, 1);
}

int main(void) {
    int *in, *out; // host copies of a, b, c
    int *d_in, *d_out; // device copies of a, b, c

    // Alloc space for host copies and setup values
    int size = (N + 2*RADIUS) * sizeof(int);
    in = (int *)malloc(size); fill_ints(in, N + 2*RADIUS);
    out = (int *)malloc(size); fill_ints(out, N + 2*RADIUS);

    // Alloc space for device copies
    cudaMalloc((void **)&d_in, size);
    cudaMalloc((void **)&d_out, size);

    // Copy to device
    cudaMemcpy(d_in, in, size, cudaMemcpyHostToDevice);
    cudaMemcpy(d_out, out, size, cudaMemcpyHostToDevice);

    // Launch stencil_1d() kernel on GPU
    stencil_1d<<<N/BLOCK_SIZE,BLOCK_SIZE>>>(d_in, d_out);

    // Copy result back to host
    cudaMemcpy(out, d_out, size, cudaMemcpyDeviceToHost);

    // Error Checking
    for (int i = 0; i < N + 2*RADIUS; i++) {
        if (i<RADIUS || i>=N+RADIUS){
            if (out[i] != 1)
                printf("Mismatch at index %d, was: %d, should be: %d\n", i, out[i], 1);
        } else {
            if (out[i] != 1 + 2*RADIUS)
                printf("Mismatch at index %d, was: %d, should be: %d\n", i, out[i], 1 + 2*RADIUS);
        }
    }

    // Cleanup
    free(in); free(out);
    cudaFree(d_in); cudaFree(d_out);
    printf("Success!\n");
    return 0;
}
