// style: GPU port of a correlation matrix (data already centred/scaled, 2-D grid over feature pairs, divide by n-1)
// launch: grid cdiv(n_features, 16), cdiv(n_features, 16) block 16, 16
// sizes: n_samples=239 n_features=157
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void corr_matrix_kernel(const float *data, float *corr, int n_samples, int n_features)
{
    int j1 = blockIdx.y * blockDim.y + threadIdx.y;
    int j2 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 < n_features && j2 < n_features) {
        float s = 0.0f;
        for (int i = 0; i < n_samples; ++i)
            s += data[i * n_features + j1] * data[i * n_features + j2];
        corr[j1 * n_features + j2] = s / (float)(n_samples - 1);
    }
}

int main(int argc, char **argv)
{
    int n_samples = 239, n_features = 157;
    size_t dbytes = sizeof(float) * n_samples * n_features;
    size_t cbytes = sizeof(float) * n_features * n_features;
    float *h_data = (float *)malloc(dbytes);
    float *h_corr = (float *)malloc(cbytes);
    for (int i = 0; i < n_samples * n_features; ++i) h_data[i] = (rand() % 1000) / 1000.0f - 0.5f;

    float *d_data, *d_corr;
    cudaMalloc(&d_data, dbytes);
    cudaMalloc(&d_corr, cbytes);
    cudaMemcpy(d_data, h_data, dbytes, cudaMemcpyHostToDevice);

    dim3 block(16, 16);
    dim3 grid((n_features + block.x - 1) / block.x, (n_features + block.y - 1) / block.y);
    corr_matrix_kernel<<<grid, block>>>(d_data, d_corr, n_samples, n_features);
    cudaMemcpy(h_corr, d_corr, cbytes, cudaMemcpyDeviceToHost);
    printf("corr[0][0] = %f\n", h_corr[0]);

    cudaFree(d_data); cudaFree(d_corr);
    free(h_data); free(h_corr);
    return 0;
}
