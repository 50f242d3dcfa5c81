// style: PMPP ch.11 Brent_Kung_scan_kernel (Blelloch-style up-sweep/down-sweep, two elements per thread), host main
// launch: grid cdiv(N, 512) block 256
// sizes: N=3001
// expect: block-scan|scan-library
#include <stdio.h>
#include <stdlib.h>

#define SECTION_SIZE 512

__global__ void Brent_Kung_scan_kernel(float *X, float *Y, unsigned int N) {
    __shared__ float XY[SECTION_SIZE];
    unsigned int i = 2*blockIdx.x*blockDim.x + threadIdx.x;
    if (i < N) XY[threadIdx.x] = X[i];
    else XY[threadIdx.x] = 0.0f;
    if (i + blockDim.x < N) XY[threadIdx.x + blockDim.x] = X[i + blockDim.x];
    else XY[threadIdx.x + blockDim.x] = 0.0f;
    // up-sweep (reduction tree)
    for (unsigned int stride = 1; stride <= blockDim.x; stride *= 2) {
        __syncthreads();
        unsigned int index = (threadIdx.x + 1)*2*stride - 1;
        if (index < SECTION_SIZE) {
            XY[index] += XY[index - stride];
        }
    }
    // down-sweep (distribution tree)
    for (int stride = SECTION_SIZE/4; stride > 0; stride /= 2) {
        __syncthreads();
        unsigned int index = (threadIdx.x + 1)*stride*2 - 1;
        if (index + stride < SECTION_SIZE) {
            XY[index + stride] += XY[index];
        }
    }
    __syncthreads();
    if (i < N) Y[i] = XY[threadIdx.x];
    if (i + blockDim.x < N) Y[i + blockDim.x] = XY[threadIdx.x + blockDim.x];
}

int main() {
    unsigned int N = 3001;
    float *h_X = (float*)malloc(N * sizeof(float));
    float *h_Y = (float*)malloc(N * sizeof(float));
    for (unsigned int i = 0; i < N; i++) h_X[i] = 1.0f;
    float *d_X, *d_Y;
    cudaMalloc((void**)&d_X, N * sizeof(float));
    cudaMalloc((void**)&d_Y, N * sizeof(float));
    cudaMemcpy(d_X, h_X, N * sizeof(float), cudaMemcpyHostToDevice);
    Brent_Kung_scan_kernel<<<(N + SECTION_SIZE - 1) / SECTION_SIZE, SECTION_SIZE / 2>>>(d_X, d_Y, N);
    cudaMemcpy(h_Y, d_Y, N * sizeof(float), cudaMemcpyDeviceToHost);
    printf("Y[511] = %f (expect 512)\n", h_Y[511]);
    cudaFree(d_X); cudaFree(d_Y);
    free(h_X); free(h_Y);
    return 0;
}
