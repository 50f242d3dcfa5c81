// style: Thrust-flavoured generic "matrix inner_product" in a C++ header: template<typename T, typename BinaryFunction1, typename BinaryFunction2> kernel taking an init value and two functor objects by value (thrust::plus / thrust::multiplies give the ordinary product), acc = plus(acc, times(a, b)) in the k loop, buffers owned by thrust::device_vector and passed with thrust::raw_pointer_cast, host main
// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=37 N=45 K=67 init=0.0
// template: float, thrust::plus<float>, thrust::multiplies<float>
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/functional.h>
#include <cstdio>
#include <cmath>

// C[i][j] = init (+) sum_k A[i][k] (*) B[k][j]   (row-major A: M x K, B: K x N, C: M x N)
template <typename T, typename BinaryFunction1, typename BinaryFunction2>
__global__ void matrix_inner_product_kernel(const T* A, const T* B, T* C,
                                            int M, int N, int K,
                                            T init,
                                            BinaryFunction1 binary_op1,
                                            BinaryFunction2 binary_op2)
{
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < M && j < N) {
        T acc = init;
        for (int k = 0; k < K; ++k)
            acc = binary_op1(acc, binary_op2(A[i * K + k], B[k * N + j]));
        C[i * N + j] = acc;
    }
}

template <typename T, typename BinaryFunction1, typename BinaryFunction2>
void matrix_inner_product(const thrust::device_vector<T>& A, const thrust::device_vector<T>& B,
                          thrust::device_vector<T>& C, int M, int N, int K, T init,
                          BinaryFunction1 binary_op1, BinaryFunction2 binary_op2)
{
    dim3 block(32, 8);
    dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
    matrix_inner_product_kernel<<<grid, block>>>(thrust::raw_pointer_cast(A.data()),
                                                 thrust::raw_pointer_cast(B.data()),
                                                 thrust::raw_pointer_cast(C.data()),
                                                 M, N, K, init, binary_op1, binary_op2);
}

int main()
{
    const int M = 37, N = 45, K = 67;
    thrust::host_vector<float> hA(M * K), hB(K * N);
    for (int t = 0; t < M * K; ++t) hA[t] = (float)((t * 3) % 17) / 17.0f - 0.5f;
    for (int t = 0; t < K * N; ++t) hB[t] = (float)((t * 5) % 13) / 13.0f - 0.5f;

    thrust::device_vector<float> A = hA, B = hB, C(M * N);
    matrix_inner_product(A, B, C, M, N, K, 0.0f, thrust::plus<float>(), thrust::multiplies<float>());
    cudaDeviceSynchronize();

    thrust::host_vector<float> hC = C;
    double maxerr = 0.0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double s = 0.0;
            for (int k = 0; k < K; ++k) s += (double)hA[i * K + k] * hB[k * N + j];
            maxerr = fmax(maxerr, fabs(s - hC[i * N + j]));
        }
    printf("max error = %g\n", maxerr);
    return maxerr < 1e-4 ? 0 : 1;
}
