// style: CUDA-course "matVecMul" homework as a template on `real`; thread per row walking A[row*N+col], accumulator initialised with real(0), main() filling with ones
// launch: grid cdiv(M, 256) block 256
// sizes: M=1023 N=771
// template: double
// expect: row-warp|row-block
#include <cstdio>
#include <cstdlib>

template <typename real>
__global__ void matvec_row(const real* A, const real* x, real* y, int M, int N)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M) {
        real sum = real(0);
        for (int col = 0; col < N; ++col)
            sum += A[row * N + col] * x[col];
        y[row] = sum;
    }
}

int main(int argc, char** argv)
{
    const int M = 1023, N = 771;
    double *hA = (double*)malloc(sizeof(double) * M * N);
    double *hx = (double*)malloc(sizeof(double) * N);
    double *hy = (double*)malloc(sizeof(double) * M);
    for (int i = 0; i < M * N; ++i) hA[i] = 1.0;
    for (int j = 0; j < N; ++j) hx[j] = 1.0;

    double *dA, *dx, *dy;
    cudaMalloc((void**)&dA, sizeof(double) * M * N);
    cudaMalloc((void**)&dx, sizeof(double) * N);
    cudaMalloc((void**)&dy, sizeof(double) * M);
    cudaMemcpy(dA, hA, sizeof(double) * M * N, cudaMemcpyHostToDevice);
    cudaMemcpy(dx, hx, sizeof(double) * N, cudaMemcpyHostToDevice);

    matvec_row<double><<<(M + 255) / 256, 256>>>(dA, dx, dy, M, N);

    cudaMemcpy(hy, dy, sizeof(double) * M, cudaMemcpyDeviceToHost);
    printf("y[0] = %.1f (expect %d)\n", hy[0], N);
    cudaFree(dA); cudaFree(dx); cudaFree(dy);
    free(hA); free(hx); free(hy);
    return 0;
}
