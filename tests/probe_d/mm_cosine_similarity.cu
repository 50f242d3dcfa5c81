// launch: grid cdiv(nb, 32), cdiv(na, 8) block 32, 8
// sizes: na=260 nb=310 dim=128 eps=0.00001
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32
// Cosine-similarity matrix between two embedding sets (sentence-embedding / retrieval demo code), norms precomputed by a helper kernel
// kernel: cosine_sim_kernel
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <vector>

__global__ void row_norms_kernel(const float* __restrict__ M, float* __restrict__ norms,
                                 size_t n, size_t dim)
{
    size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (r < n) {
        float s = 0.f;
        for (size_t k = 0; k < dim; ++k) s += M[r * dim + k] * M[r * dim + k];
        norms[r] = sqrtf(s);
    }
}

__global__ void cosine_sim_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                  const float* __restrict__ normA, const float* __restrict__ normB,
                                  float* __restrict__ S, size_t na, size_t nb, size_t dim, float eps)
{
    size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t i = blockIdx.y * (size_t)blockDim.y + threadIdx.y;
    if (i < na && j < nb) {
        float dot = 0.f;
        for (size_t k = 0; k < dim; ++k)
            dot += A[i * dim + k] * B[j * dim + k];
        S[i * nb + j] = dot / fmaxf(normA[i] * normB[j], eps);
    }
}

int main(int argc, char** argv)
{
    size_t na = 260, nb = 310, dim = 128;
    std::vector<float> hA(na * dim), hB(nb * dim);
    for (size_t i = 0; i < hA.size(); ++i) hA[i] = sinf(0.01f * i);
    for (size_t i = 0; i < hB.size(); ++i) hB[i] = cosf(0.02f * i);

    float *dA, *dB, *dNA, *dNB, *dS;
    cudaMalloc(&dA, na * dim * sizeof(float));
    cudaMalloc(&dB, nb * dim * sizeof(float));
    cudaMalloc(&dNA, na * sizeof(float));
    cudaMalloc(&dNB, nb * sizeof(float));
    cudaMalloc(&dS, na * nb * sizeof(float));
    cudaMemcpy(dA, hA.data(), na * dim * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB.data(), nb * dim * sizeof(float), cudaMemcpyHostToDevice);

    row_norms_kernel<<<(na + 255) / 256, 256>>>(dA, dNA, na, dim);
    row_norms_kernel<<<(nb + 255) / 256, 256>>>(dB, dNB, nb, dim);

    dim3 block(32, 8);
    dim3 grid((nb + block.x - 1) / block.x, (na + block.y - 1) / block.y);
    cosine_sim_kernel<<<grid, block>>>(dA, dB, dNA, dNB, dS, na, nb, dim, 1e-5f);

    std::vector<float> hS(na * nb);
    cudaMemcpy(hS.data(), dS, na * nb * sizeof(float), cudaMemcpyDeviceToHost);
    printf("S[0][0] = %f\n", hS[0]);
    cudaFree(dA); cudaFree(dB); cudaFree(dNA); cudaFree(dNB); cudaFree(dS);
    return 0;
}
