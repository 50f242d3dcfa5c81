// style: Caffe-ish / course-homework "NT" product C = A * B^T with a real_t typedef, __restrict__ row pointers and a while (k--) countdown over k
// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=67 N=129 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
typedef float real_t;

__global__ void matmul_nt_kernel(const real_t* __restrict__ A,   // M x K
                                 const real_t* __restrict__ B,   // N x K, used transposed
                                 real_t* __restrict__ C,         // M x N
                                 const int M, const int N, const int K)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;

    if (row < M && col < N) {
        const real_t* a_row = A + row * K;
        const real_t* b_row = B + col * K;
        real_t acc = 0;
        int k = K;
        while (k--) {
            acc += a_row[k] * b_row[k];
        }
        C[row * N + col] = acc;
    }
}
