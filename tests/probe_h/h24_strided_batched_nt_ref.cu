// style: library test-suite reference for gemmStridedBatched, column-major, transA='N' transB='T' (op(B)(l,j) = B[j + l*ldb]), storage type T with float compute, batch in blockIdx.z
// launch: grid cdiv(m, 32), cdiv(n, 8), batch_count block 32, 8
// sizes: m=187 n=141 k=223 alpha=1.5 lda=191 strideA=42600 ldb=149 strideB=33230 beta=0.5 ldc=197 strideC=27780 batch_count=3
// template: float
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library

// For each batch p:
//   C_p (m x n) = alpha * A_p (m x k) * B_p^T + beta * C_p
//   A_p(i, l) = A[p*strideA + i + l*lda]      (lda >= m)
//   B_p stored n x k, B_p(j, l) = B[p*strideB + j + l*ldb]   (ldb >= n)
//   C_p(i, j) = C[p*strideC + i + j*ldc]      (ldc >= m)
template <typename T>
__global__ void gemm_strided_batched_nt_reference(int m, int n, int k,
                                                  float alpha,
                                                  const T *A, int lda, long strideA,
                                                  const T *B, int ldb, long strideB,
                                                  float beta,
                                                  T *C, int ldc, long strideC,
                                                  int batch_count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int p = blockIdx.z;
    if (i >= m || j >= n || p >= batch_count)
        return;

    const T *Ap = A + p * strideA;
    const T *Bp = B + p * strideB;
    T *Cp = C + p * strideC;

    float sum = 0.0f;
    for (int l = 0; l < k; ++l)
        sum += static_cast<float>(Ap[i + (size_t)l * lda]) *
               static_cast<float>(Bp[j + (size_t)l * ldb]);

    const size_t ci = i + (size_t)j * ldc;
    if (beta == 0.0f)
        Cp[ci] = static_cast<T>(alpha * sum);
    else
        Cp[ci] = static_cast<T>(alpha * sum + beta * static_cast<float>(Cp[ci]));
}
