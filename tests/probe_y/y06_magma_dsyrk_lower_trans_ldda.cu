// style: MAGMA magmablas-style reference DSYRK (uplo = MagmaLower, trans = MagmaTrans): C = alpha*A^T*A + beta*C, column-major with MAGMA's dA(i_, j_) / dC(i_, j_) pointer macros, magma_int_t sizes, ldda/lddc leading dimensions, BLK_X/BLK_Y constants, tx/bx naming, only the lower triangle (i >= j) written, MAGMA_D_ZERO beta branch, magma_ceildiv launcher with a queue argument
// launch: grid cdiv(n, 16), cdiv(n, 16) block 16, 16
// sizes: n=45 k=37 ldda=40 lddc=48 alpha=1.5 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

typedef int magma_int_t;
typedef cudaStream_t magma_queue_t;

#define MAGMA_D_ZERO 0.0
#define MAGMA_D_EQUAL(a, b) ((a) == (b))

static inline magma_int_t magma_ceildiv(magma_int_t x, magma_int_t y) { return (x + y - 1) / y; }

#define BLK_X 16
#define BLK_Y 16

#define dA(i_, j_) (dA + (i_) + (j_)*ldda)
#define dC(i_, j_) (dC + (i_) + (j_)*lddc)

/******************************************************************************/
/*
    Lower triangle of C := alpha * A**T * A + beta * C,
    A is k-by-n (ldda >= k), C is n-by-n (lddc >= n).
    Thread (tx, ty) of block (bx, by) owns C(i, j) with i = bx*BLK_X + tx, j = by*BLK_Y + ty.
*/
__global__ void
dsyrk_lt_reference_kernel(
    magma_int_t n, magma_int_t k,
    double alpha,
    const double * __restrict__ dA, magma_int_t ldda,
    double beta,
    double       *              dC, magma_int_t lddc )
{
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int bx = blockIdx.x;
    const int by = blockIdx.y;

    const int i = bx*BLK_X + tx;
    const int j = by*BLK_Y + ty;

    if ( i < n && j < n && i >= j ) {
        double rC = MAGMA_D_ZERO;
        for( int l = 0; l < k; ++l ) {
            rC += *dA(l, i) * *dA(l, j);
        }
        if ( MAGMA_D_EQUAL( beta, MAGMA_D_ZERO ) ) {
            *dC(i, j) = alpha * rC;
        }
        else {
            *dC(i, j) = alpha * rC + beta * *dC(i, j);
        }
    }
}

/******************************************************************************/
extern "C" void
magmablas_dsyrk_lt_reference(
    magma_int_t n, magma_int_t k,
    double alpha,
    const double *dA, magma_int_t ldda,
    double beta,
    double       *dC, magma_int_t lddc,
    magma_queue_t queue )
{
    if ( n <= 0 || ((alpha == MAGMA_D_ZERO || k == 0) && beta == 1.0) )
        return;

    dim3 threads( BLK_X, BLK_Y );
    dim3 grid( magma_ceildiv( n, BLK_X ), magma_ceildiv( n, BLK_Y ) );
    dsyrk_lt_reference_kernel<<< grid, threads, 0, queue >>>
        ( n, k, alpha, dA, ldda, beta, dC, lddc );
}

#undef dA
#undef dC
