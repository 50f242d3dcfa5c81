// style: small tensor-network / einsum backend: a generic two-operand contraction kernel "contract_ik_kj" that takes every operand stride as a long long (a_si, a_sk, b_sk, b_sj, c_si, c_sj), so the subscripts are fixed but the layouts are not; here driven as einsum("ki,jk->ij") i.e. C = A^T B^T with A stored K x I (padded rows) and B stored J x K (padded rows), float operands accumulated in double, j on threadIdx.x; host main builds the strides from the subscript string like the Python front end would
// launch: grid cdiv(J, 32), cdiv(I, 8) block 32, 8
// sizes: I=37 J=45 K=67 a_si=1 a_sk=40 b_sk=1 b_sj=70 c_si=45 c_sj=1
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

// C[i, j] = sum_k A[i, k] * B[k, j] with arbitrary element strides for each logical index
__global__ void contract_ik_kj(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                               int I, int J, int K,
                               long long a_si, long long a_sk,
                               long long b_sk, long long b_sj,
                               long long c_si, long long c_sj)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= I || j >= J) return;

    const float* a = A + i * a_si;
    const float* b = B + j * b_sj;
    double acc = 0.0;
    for (int k = 0; k < K; ++k)
        acc += (double)a[k * a_sk] * (double)b[k * b_sk];
    C[i * c_si + j * c_sj] = (float)acc;
}

struct Operand {
    const char* subs;            // e.g. "ki"
    int ndim;
    long long strides[2];        // element strides of the stored array, per subscript position
};

// stride of logical index `c` inside an operand (0 if the operand does not carry it)
static long long stride_of(const Operand& op, char c) {
    for (int d = 0; d < op.ndim; ++d) if (op.subs[d] == c) return op.strides[d];
    return 0;
}

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(e)); exit(1); } } while (0)

int main() {
    const int I = 37, J = 45, K = 67;
    const int ldA = 40;   // A: K rows of ldA (>= I)
    const int ldB = 70;   // B: J rows of ldB (>= K)

    // einsum("ki,jk->ij", A, B)
    Operand opA = {"ki", 2, {ldA, 1}};
    Operand opB = {"jk", 2, {ldB, 1}};
    Operand opC = {"ij", 2, {J, 1}};

    long long a_si = stride_of(opA, 'i'), a_sk = stride_of(opA, 'k');
    long long b_sk = stride_of(opB, 'k'), b_sj = stride_of(opB, 'j');
    long long c_si = stride_of(opC, 'i'), c_sj = stride_of(opC, 'j');

    std::vector<float> hA((size_t)K * ldA, 0.f), hB((size_t)J * ldB, 0.f), hC((size_t)I * J);
    for (int k = 0; k < K; ++k) for (int i = 0; i < I; ++i) hA[(size_t)k * ldA + i] = std::sin(0.1f * (k * I + i));
    for (int j = 0; j < J; ++j) for (int k = 0; k < K; ++k) hB[(size_t)j * ldB + k] = std::cos(0.07f * (j * K + k));

    float *dA, *dB, *dC;
    CK(cudaMalloc(&dA, hA.size() * sizeof(float)));
    CK(cudaMalloc(&dB, hB.size() * sizeof(float)));
    CK(cudaMalloc(&dC, hC.size() * sizeof(float)));
    CK(cudaMemcpy(dA, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, hB.data(), hB.size() * sizeof(float), cudaMemcpyHostToDevice));

    dim3 block(32, 8);
    dim3 grid((J + 31) / 32, (I + 7) / 8);
    contract_ik_kj<<<grid, block>>>(dA, dB, dC, I, J, K, a_si, a_sk, b_sk, b_sj, c_si, c_sj);
    CK(cudaGetLastError());
    CK(cudaMemcpy(hC.data(), dC, hC.size() * sizeof(float), cudaMemcpyDeviceToHost));

    double maxerr = 0.0;
    for (int i = 0; i < I; ++i)
        for (int j = 0; j < J; ++j) {
            double s = 0.0;
            for (int k = 0; k < K; ++k) s += (double)hA[(size_t)k * ldA + i] * hB[(size_t)j * ldB + k];
            maxerr = std::fmax(maxerr, std::fabs(s - hC[(size_t)i * J + j]));
        }
    printf("einsum ki,jk->ij max error %g\n", maxerr);
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    return maxerr < 1e-4 ? 0 : 1;
}
