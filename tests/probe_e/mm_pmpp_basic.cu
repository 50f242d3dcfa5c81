// style: PMPP (Kirk & Hwu) ch.3 MatrixMulKernel, square Width, Row on y / Col on x, with host main
// launch: grid cdiv(Width, 16), cdiv(Width, 16) block 16, 16
// sizes: Width=277
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void MatrixMulKernel(float* M, float* N, float* P, int Width) {
    // Calculate the row index of the P element and M
    int Row = blockIdx.y*blockDim.y+threadIdx.y;
    // Calculate the column index of P and N
    int Col = blockIdx.x*blockDim.x+threadIdx.x;
    if ((Row < Width) && (Col < Width)) {
        float Pvalue = 0;
        // each thread computes one element of the block sub-matrix
        for (int k = 0; k < Width; ++k) {
            Pvalue += M[Row*Width+k]*N[k*Width+Col];
        }
        P[Row*Width+Col] = Pvalue;
    }
}

int main() {
    int Width = 277;
    size_t bytes = (size_t)Width * Width * sizeof(float);
    float *h_M = (float*)malloc(bytes), *h_N = (float*)malloc(bytes), *h_P = (float*)malloc(bytes);
    for (int i = 0; i < Width * Width; ++i) { h_M[i] = rand() / (float)RAND_MAX; h_N[i] = rand() / (float)RAND_MAX; }
    float *d_M, *d_N, *d_P;
    cudaMalloc((void**)&d_M, bytes);
    cudaMalloc((void**)&d_N, bytes);
    cudaMalloc((void**)&d_P, bytes);
    cudaMemcpy(d_M, h_M, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_N, h_N, bytes, cudaMemcpyHostToDevice);
    dim3 dimBlock(16, 16, 1);
    dim3 dimGrid((Width + 15) / 16, (Width + 15) / 16, 1);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(d_M, d_N, d_P, Width);
    cudaMemcpy(h_P, d_P, bytes, cudaMemcpyDeviceToHost);
    printf("P[0] = %f\n", h_P[0]);
    cudaFree(d_M); cudaFree(d_N); cudaFree(d_P);
    free(h_M); free(h_N); free(h_P);
    return 0;
}
