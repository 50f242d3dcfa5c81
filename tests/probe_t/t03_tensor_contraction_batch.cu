// style: computational-physics tensor contraction (einsum "bik,kj->bij") ported from nested C loops; flat 3-D indexing A[(b*I + i)*Kd + k], the batch is an outer for-loop inside each thread sharing one B, sizes named nb/I/J/Kd, host main with cudaMalloc/cudaMemcpy and a CHECK macro
// launch: grid cdiv(J, 16), cdiv(I, 16) block 16, 16
// sizes: nb=3 I=67 J=93 Kd=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                        \
    do {                                                                   \
        cudaError_t err_ = (call);                                         \
        if (err_ != cudaSuccess) {                                         \
            fprintf(stderr, "CUDA error %s at %s:%d\n",                    \
                    cudaGetErrorString(err_), __FILE__, __LINE__);         \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

// C[b][i][j] = sum_k A[b][i][k] * B[k][j]
__global__ void contract_bik_kj(const float *A, const float *B, float *C,
                                int nb, int I, int J, int Kd)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= I || j >= J) return;

    for (int b = 0; b < nb; ++b) {
        float acc = 0.0f;
        for (int k = 0; k < Kd; ++k) {
            acc += A[(b * I + i) * Kd + k] * B[k * J + j];
        }
        C[(b * I + i) * J + j] = acc;
    }
}

int main()
{
    const int nb = 3, I = 67, J = 93, Kd = 45;
    std::vector<float> hA(nb * I * Kd), hB(Kd * J), hC(nb * I * J);
    for (size_t t = 0; t < hA.size(); ++t) hA[t] = 0.01f * (float)(t % 13);
    for (size_t t = 0; t < hB.size(); ++t) hB[t] = 0.02f * (float)(t % 7) - 0.05f;

    float *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, hA.size() * sizeof(float)));
    CHECK(cudaMalloc(&dB, hB.size() * sizeof(float)));
    CHECK(cudaMalloc(&dC, hC.size() * sizeof(float)));
    CHECK(cudaMemcpy(dA, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, hB.data(), hB.size() * sizeof(float), cudaMemcpyHostToDevice));

    dim3 block(16, 16);
    dim3 grid((J + 15) / 16, (I + 15) / 16);
    contract_bik_kj<<<grid, block>>>(dA, dB, dC, nb, I, J, Kd);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hC.data(), dC, hC.size() * sizeof(float), cudaMemcpyDeviceToHost));

    printf("C[0][0][0]=%f C[last]=%f\n", hC[0], hC[hC.size() - 1]);
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    return 0;
}
