// style: cuFFT-adjacent helper, batched conjugate (Hermitian) transpose of cuFloatComplex matrices (nbatch, rows, cols) -> (nbatch, cols, rows), batch on blockIdx.z, a long long `plane` stride, cuConjf on the moved element, host main with cuComplex make/real/imag helpers
// launch: grid cdiv(cols, 32), cdiv(rows, 8), nbatch block 32, 8
// sizes: nbatch=3 rows=67 cols=45
// expect: transpose-tile|gather
#include <cstdio>
#include <cstdlib>
#include <cuComplex.h>
#include <cuda_runtime.h>

__global__ void batched_conj_transpose(const cuFloatComplex *__restrict__ src,
                                       cuFloatComplex *__restrict__ dst,
                                       int nbatch, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int b = blockIdx.z;

    if (b < nbatch && r < rows && c < cols) {
        long long plane = (long long)rows * cols;
        dst[b * plane + (long long)c * rows + r] = cuConjf(src[b * plane + (long long)r * cols + c]);
    }
}

int main()
{
    const int nbatch = 3, rows = 67, cols = 45;
    const size_t count = (size_t)nbatch * rows * cols;

    cuFloatComplex *h_in = (cuFloatComplex *)malloc(count * sizeof(cuFloatComplex));
    cuFloatComplex *h_out = (cuFloatComplex *)malloc(count * sizeof(cuFloatComplex));
    for (size_t i = 0; i < count; ++i)
        h_in[i] = make_cuFloatComplex((float)i, -0.5f * (float)i);

    cuFloatComplex *d_in, *d_out;
    cudaMalloc(&d_in, count * sizeof(cuFloatComplex));
    cudaMalloc(&d_out, count * sizeof(cuFloatComplex));
    cudaMemcpy(d_in, h_in, count * sizeof(cuFloatComplex), cudaMemcpyHostToDevice);

    dim3 block(32, 8);
    dim3 grid((cols + 31) / 32, (rows + 7) / 8, nbatch);
    batched_conj_transpose<<<grid, block>>>(d_in, d_out, nbatch, rows, cols);
    cudaMemcpy(h_out, d_out, count * sizeof(cuFloatComplex), cudaMemcpyDeviceToHost);

    int errors = 0;
    for (int b = 0; b < nbatch; ++b)
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c) {
                cuFloatComplex x = h_in[(size_t)b * rows * cols + r * cols + c];
                cuFloatComplex y = h_out[(size_t)b * rows * cols + c * rows + r];
                if (cuCrealf(x) != cuCrealf(y) || cuCimagf(x) != -cuCimagf(y)) ++errors;
            }
    printf("%d errors\n", errors);

    cudaFree(d_in); cudaFree(d_out);
    free(h_in); free(h_out);
    return 0;
}
