// style: HPL / right-looking blocked LU trailing-matrix update A22 := A22 - A21 * A12 done in place inside ONE column-major matrix (lda), panel offset j and block size nb as arguments, Mptr()-style pointer macro from HPL, the three operands are sub-blocks of the same buffer, k loop over the panel hand-unrolled by 4 with a remainder loop, every step subtracting straight into A22 in global memory (no register accumulator), row on threadIdx.x
// launch: grid cdiv(n - j - nb, 16), cdiv(n - j - nb, 16) block 16, 16
// sizes: n=83 lda=85 j=16 nb=19
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

/* HPL: #define Mptr( a_, i_, j_, lda_ ) ( (a_) + (size_t)(i_) + (size_t)(j_)*(size_t)(lda_) ) */
#define Mptr(a_, i_, j_, lda_) ((a_) + (size_t)(i_) + (size_t)(j_) * (size_t)(lda_))

/*
 * After factoring the panel A(j:n, j:j+nb) and solving the row block A(j:j+nb, j+nb:n),
 * update the trailing matrix:
 *     A(j+nb:n, j+nb:n) -= A(j+nb:n, j:j+nb) * A(j:j+nb, j+nb:n)
 */
__global__ void HPL_dupdate_trailing(double *A, const int lda, const int n, const int j, const int nb)
{
    const int jj = j + nb;                       /* first row / column of A22 */
    const int ii = jj + blockIdx.x * blockDim.x + threadIdx.x;   /* global row    */
    const int cc = jj + blockIdx.y * blockDim.y + threadIdx.y;   /* global column */
    if (ii >= n || cc >= n) return;

    double *c = Mptr(A, ii, cc, lda);
    const double *l21 = Mptr(A, ii, j, lda);     /* row ii of the L21 panel, stride lda */
    const double *u12 = Mptr(A, j, cc, lda);     /* column cc of U12, contiguous      */

    int k = 0;
    for (; k + 3 < nb; k += 4) {
        *c -= l21[(size_t)(k    ) * lda] * u12[k    ];
        *c -= l21[(size_t)(k + 1) * lda] * u12[k + 1];
        *c -= l21[(size_t)(k + 2) * lda] * u12[k + 2];
        *c -= l21[(size_t)(k + 3) * lda] * u12[k + 3];
    }
    for (; k < nb; ++k)
        *c -= l21[(size_t)k * lda] * u12[k];
}

void HPL_pdupdate_gpu(double *dA, int lda, int n, int j, int nb, cudaStream_t stream)
{
    const int mt = n - j - nb;
    if (mt <= 0) return;
    dim3 threads(16, 16);
    dim3 blocks((mt + 15) / 16, (mt + 15) / 16);
    HPL_dupdate_trailing<<<blocks, threads, 0, stream>>>(dA, lda, n, j, nb);
}
