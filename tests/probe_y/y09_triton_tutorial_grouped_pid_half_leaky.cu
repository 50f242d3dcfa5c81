// style: CUDA transcription of the Triton "Matrix Multiplication" tutorial kernel: 1-D launch of num_pid_m*num_pid_n programs re-ordered with the GROUP_SIZE_M super-grouping (pid_m / pid_n from group_id, first_pid_m, group_size_m), BLOCK_SIZE_M/N macros, Triton argument names a_ptr/b_ptr/c_ptr with stride_am/stride_ak/stride_bk/stride_bn/stride_cm/stride_cn (B passed as a transposed view: stride_bk=1), fp16 inputs, fp32 accumulator, optional leaky_relu applied before the cast back to fp16; one output element per thread (no tiling)
// launch: grid cdiv(M, 16)*cdiv(N, 16) block 16, 16
// sizes: M=75 N=53 K=67 stride_am=67 stride_ak=1 stride_bk=1 stride_bn=69 stride_cm=53 stride_cn=1 ACTIVATION=1
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_fp16.h>

#define BLOCK_SIZE_M 16
#define BLOCK_SIZE_N 16
#define GROUP_SIZE_M 4

__device__ __forceinline__ int cdiv(int a, int b) { return (a + b - 1) / b; }

__device__ __forceinline__ float leaky_relu(float x) {
    return x >= 0.0f ? x : 0.01f * x;
}

__global__ void matmul_kernel(
        // Pointers to matrices
        const __half* a_ptr, const __half* b_ptr, __half* c_ptr,
        // Matrix dimensions
        int M, int N, int K,
        // The stride variables represent how much to increase the ptr by when moving by 1
        // element in a particular dimension.
        int stride_am, int stride_ak,
        int stride_bk, int stride_bn,
        int stride_cm, int stride_cn,
        int ACTIVATION) {
    // -----------------------------------------------------------
    // Map program ids `pid` to the block of C it should compute.
    // This is done in a grouped ordering to promote L2 data reuse.
    const int pid = blockIdx.x;
    const int num_pid_m = cdiv(M, BLOCK_SIZE_M);
    const int num_pid_n = cdiv(N, BLOCK_SIZE_N);
    const int num_pid_in_group = GROUP_SIZE_M * num_pid_n;
    const int group_id = pid / num_pid_in_group;
    const int first_pid_m = group_id * GROUP_SIZE_M;
    const int group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M);
    const int pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m);
    const int pid_n = (pid % num_pid_in_group) / group_size_m;

    // -----------------------------------------------------------
    // offs_am / offs_bn: the row of A and the column of B this thread owns
    const int offs_am = pid_m * BLOCK_SIZE_M + threadIdx.y;
    const int offs_bn = pid_n * BLOCK_SIZE_N + threadIdx.x;
    if (offs_am >= M || offs_bn >= N) return;

    const __half* a_ptrs = a_ptr + offs_am * stride_am;
    const __half* b_ptrs = b_ptr + offs_bn * stride_bn;

    // -----------------------------------------------------------
    // Iterate over K, accumulating in fp32
    float accumulator = 0.0f;
    for (int k = 0; k < K; ++k) {
        accumulator += __half2float(a_ptrs[k * stride_ak]) * __half2float(b_ptrs[k * stride_bk]);
    }
    // You can fuse arbitrary activation functions here
    // while the accumulator is still in FP32!
    if (ACTIVATION == 1) {
        accumulator = leaky_relu(accumulator);
    }
    c_ptr[offs_am * stride_cm + offs_bn * stride_cn] = __float2half(accumulator);
}

// c = a @ b, a: (M, K) row-major, b: (K, N) given as b_t.T where b_t is (N, ldbt) row-major
void matmul(const __half* a, const __half* b_t, __half* c, int M, int N, int K, int ldbt, bool leaky) {
    dim3 block(BLOCK_SIZE_N, BLOCK_SIZE_M);
    int grid = ((M + BLOCK_SIZE_M - 1) / BLOCK_SIZE_M) * ((N + BLOCK_SIZE_N - 1) / BLOCK_SIZE_N);
    matmul_kernel<<<grid, block>>>(a, b_t, c, M, N, K,
                                   K, 1,
                                   1, ldbt,
                                   N, 1,
                                   leaky ? 1 : 0);
}
