// style: course homework A^T * B (A stored K x M, B stored K x N), thread x mapped to the output row i (uncoalesced C store)
// launch: grid cdiv(M, 16), cdiv(N, 16) block 16, 16
// sizes: M=187 N=141 K=223
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-coalesce|matmul-library
__global__ void gemm_tn(float *C, const float *A, const float *B, int M, int N, int K)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    int j = threadIdx.y + blockIdx.y * blockDim.y;

    if (i < M && j < N)
    {
        float c = 0;
        for (int k = 0; k != K; ++k)
            c += A[k * M + i] * B[k * N + j];
        C[i * N + j] = c;
    }
}
