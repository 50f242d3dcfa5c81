// launch: grid cdiv(F, 128) block 128
// sizes: Nb=2000 F=300 eps=0.00001
// expect: column
// batch-norm style column normalisation: per-feature mean and variance over the batch, then y = gamma*(x-mean)/sqrt(var+eps)+beta, one thread per feature (from-scratch BatchNorm1d forward)
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define THREADS 128

__global__ void batchnorm_forward(const float *x, float *y, const float *gamma, const float *beta,
                                  float *mean_out, float *var_out, int Nb, int F, float eps)
{
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f < F) {
        float mean = 0.0f;
        for (int n = 0; n < Nb; n++)
            mean += x[n * F + f];
        mean /= Nb;

        float var = 0.0f;
        for (int n = 0; n < Nb; n++) {
            float d = x[n * F + f] - mean;
            var += d * d;
        }
        var /= Nb;

        float inv_std = rsqrtf(var + eps);
        for (int n = 0; n < Nb; n++)
            y[n * F + f] = gamma[f] * (x[n * F + f] - mean) * inv_std + beta[f];

        mean_out[f] = mean;
        var_out[f] = var;
    }
}

int main()
{
    const int Nb = 2000, F = 300;
    const float eps = 1e-5f;

    float *h_x = (float *)malloc(Nb * F * sizeof(float));
    float *h_g = (float *)malloc(F * sizeof(float));
    float *h_b = (float *)malloc(F * sizeof(float));
    for (int i = 0; i < Nb * F; i++) h_x[i] = rand() / (float)RAND_MAX;
    for (int f = 0; f < F; f++) { h_g[f] = 1.0f; h_b[f] = 0.0f; }

    float *d_x, *d_y, *d_g, *d_b, *d_mean, *d_var;
    cudaMalloc(&d_x, Nb * F * sizeof(float));
    cudaMalloc(&d_y, Nb * F * sizeof(float));
    cudaMalloc(&d_g, F * sizeof(float));
    cudaMalloc(&d_b, F * sizeof(float));
    cudaMalloc(&d_mean, F * sizeof(float));
    cudaMalloc(&d_var, F * sizeof(float));
    cudaMemcpy(d_x, h_x, Nb * F * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_g, h_g, F * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, h_b, F * sizeof(float), cudaMemcpyHostToDevice);

    int blocks = (F + THREADS - 1) / THREADS;
    batchnorm_forward<<<blocks, THREADS>>>(d_x, d_y, d_g, d_b, d_mean, d_var, Nb, F, eps);
    cudaDeviceSynchronize();

    float h_y0;
    cudaMemcpy(&h_y0, d_y, sizeof(float), cudaMemcpyDeviceToHost);
    printf("y[0] = %f\n", h_y0);

    cudaFree(d_x); cudaFree(d_y); cudaFree(d_g); cudaFree(d_b);
    cudaFree(d_mean); cudaFree(d_var);
    free(h_x); free(h_g); free(h_b);
    return 0;
}
