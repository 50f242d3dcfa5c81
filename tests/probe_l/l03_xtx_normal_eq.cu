// style: statistics / regression lecture "normal equations" XtX = X^T X for a row-major nobs x nvar design matrix (syrk-like), reduction index runs down the rows (obs), both operands read as columns X[obs*nvar + a], nested if (a < nvar) { if (b < nvar) ... } guard, double-checked on the host
// launch: grid cdiv(nvar, 32), cdiv(nvar, 8) block 32, 8
// sizes: nobs=129 nvar=67
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

// XtX[a][b] = sum_obs X[obs][a] * X[obs][b]   (nvar x nvar, symmetric)
__global__ void xtx_kernel(const float *X, float *XtX, int nobs, int nvar)
{
    int b = blockIdx.x * blockDim.x + threadIdx.x;   // column of XtX
    int a = blockIdx.y * blockDim.y + threadIdx.y;   // row of XtX

    if (a < nvar) {
        if (b < nvar) {
            float sum = 0.0f;
            for (int obs = 0; obs < nobs; obs++)
                sum += X[obs * nvar + a] * X[obs * nvar + b];
            XtX[a * nvar + b] = sum;
        }
    }
}

int main(void)
{
    int nobs = 129, nvar = 67;
    size_t xbytes = (size_t)nobs * nvar * sizeof(float);
    size_t gbytes = (size_t)nvar * nvar * sizeof(float);

    float *X = (float *)malloc(xbytes);
    float *G = (float *)malloc(gbytes);
    srand(42);
    for (int i = 0; i < nobs * nvar; i++)
        X[i] = (float)rand() / RAND_MAX - 0.5f;

    float *d_X, *d_G;
    cudaMalloc((void **)&d_X, xbytes);
    cudaMalloc((void **)&d_G, gbytes);
    cudaMemcpy(d_X, X, xbytes, cudaMemcpyHostToDevice);

    dim3 block(32, 8);
    dim3 grid((nvar + 31) / 32, (nvar + 7) / 8);
    xtx_kernel<<<grid, block>>>(d_X, d_G, nobs, nvar);
    cudaMemcpy(G, d_G, gbytes, cudaMemcpyDeviceToHost);

    double err = 0.0;
    for (int a = 0; a < nvar; a++)
        for (int b = 0; b < nvar; b++) {
            double s = 0.0;
            for (int o = 0; o < nobs; o++)
                s += (double)X[o * nvar + a] * X[o * nvar + b];
            err = fmax(err, fabs(s - G[a * nvar + b]));
        }
    printf("XtX max error %e\n", err);

    cudaFree(d_X); cudaFree(d_G);
    free(X); free(G);
    return 0;
}
