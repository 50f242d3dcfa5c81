// style: OpenCL kernel ported to CUDA by a compatibility header (__kernel, __global, __local, get_global_id / get_local_id / get_group_id macros, barrier(CLK_LOCAL_MEM_FENCE) as __syncthreads): shared-memory tiled C = A * B^T in double (A is M x K, B is N x K, both row-major, as in a kernel-matrix / Gram code), TS x TS local tiles with a +1 pad, zero-filled tails, one output per work-item (no register tile), get_global_id(0) = column
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=45 K=77
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

/* ---- tiny OpenCL -> CUDA shim ---------------------------------------------------- */
#define __kernel extern "C" __global__
#define __global
#define __local __shared__
#define CLK_LOCAL_MEM_FENCE 0
#define barrier(flags) __syncthreads()
__device__ __forceinline__ int get_global_id(int d) {
    return d == 0 ? (int)(blockIdx.x * blockDim.x + threadIdx.x)
         : d == 1 ? (int)(blockIdx.y * blockDim.y + threadIdx.y)
                  : (int)(blockIdx.z * blockDim.z + threadIdx.z);
}
__device__ __forceinline__ int get_local_id(int d) {
    return d == 0 ? (int)threadIdx.x : d == 1 ? (int)threadIdx.y : (int)threadIdx.z;
}
__device__ __forceinline__ int get_group_id(int d) {
    return d == 0 ? (int)blockIdx.x : d == 1 ? (int)blockIdx.y : (int)blockIdx.z;
}
/* ----------------------------------------------------------------------------------- */

#define TS 16

__kernel void gemm_nt_tiled(const int M, const int N, const int K,
                            const __global double* A,
                            const __global double* B,
                            __global double* C)
{
    const int col  = get_global_id(0);     /* 0 .. N-1 */
    const int row  = get_global_id(1);     /* 0 .. M-1 */
    const int lcol = get_local_id(0);
    const int lrow = get_local_id(1);
    const int col0 = get_group_id(0) * TS;

    __local double Asub[TS][TS + 1];
    __local double Bsub[TS][TS + 1];

    double acc = 0.0;
    const int numTiles = (K + TS - 1) / TS;
    for (int t = 0; t < numTiles; t++) {
        const int tk = t * TS + lcol;
        /* A(row, tk) */
        Asub[lrow][lcol] = (row < M && tk < K) ? A[row * K + tk] : 0.0;
        /* B(col0 + lrow, tk): rows of B are the columns of C */
        Bsub[lrow][lcol] = (col0 + lrow < N && tk < K) ? B[(col0 + lrow) * K + tk] : 0.0;
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int k = 0; k < TS; k++)
            acc += Asub[lrow][k] * Bsub[lcol][k];
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (row < M && col < N)
        C[row * N + col] = acc;
}
