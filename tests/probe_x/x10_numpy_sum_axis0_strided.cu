// style: NumPy-port spelling of np.sum(a, axis=0) - npy_intp (ptrdiff_t) shape0/shape1 plus an element stride0 for a row-padded view, one thread per output column walking a pointer down the rows (p += stride0) in a comma-expression for loop, float64 in and out; host main with CPU check
// launch: grid cdiv(shape1, 128) block 128
// sizes: shape0=73 shape1=57 stride0=61
// expect: column
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <math.h>
#include <cuda_runtime.h>

typedef ptrdiff_t npy_intp;

#define NPY_THREADS 128

/* out[j] = sum_i a[i, j]  (a viewed with strides (stride0, 1) in elements) */
__global__ void sum_axis0_kernel(const double* __restrict__ a,
                                 double* __restrict__ out,
                                 npy_intp shape0, npy_intp shape1,
                                 npy_intp stride0)
{
    npy_intp j = (npy_intp)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= shape1) {
        return;
    }
    const double* p = a + j;
    double acc = 0.0;
    npy_intp i;
    for (i = 0; i < shape0; ++i, p += stride0) {
        acc += *p;
    }
    out[j] = acc;
}

int main(void)
{
    npy_intp shape0 = 73, shape1 = 57, stride0 = 61;
    size_t nbytes = (size_t)(shape0 * stride0) * sizeof(double);
    double* a = (double*)malloc(nbytes);
    double* out = (double*)malloc(shape1 * sizeof(double));
    for (npy_intp i = 0; i < shape0 * stride0; i++) a[i] = (double)((i * 37) % 101) - 50.0;

    double *d_a, *d_out;
    cudaMalloc(&d_a, nbytes);
    cudaMalloc(&d_out, shape1 * sizeof(double));
    cudaMemcpy(d_a, a, nbytes, cudaMemcpyHostToDevice);

    int blocks = (int)((shape1 + NPY_THREADS - 1) / NPY_THREADS);
    sum_axis0_kernel<<<blocks, NPY_THREADS>>>(d_a, d_out, shape0, shape1, stride0);
    cudaMemcpy(out, d_out, shape1 * sizeof(double), cudaMemcpyDeviceToHost);

    int bad = 0;
    for (npy_intp j = 0; j < shape1; j++) {
        double ref = 0.0;
        for (npy_intp i = 0; i < shape0; i++) ref += a[i * stride0 + j];
        if (fabs(ref - out[j]) > 1e-9) bad++;
    }
    printf("%s\n", bad ? "FAIL" : "PASS");
    cudaFree(d_a); cudaFree(d_out); free(a); free(out);
    return bad != 0;
}
