// style: coupled-cluster (CCSD, spin-orbital) particle-particle ladder term R2(i,j,a,b) += 1/2 * sum_{e,f} <ab||ef> * tau(i,j,e,f), ported from nested Fortran-style loops: 4-index arrays behind TAU/VVVV/R2 index macros with nocc/nvir, one thread per (ab, ij) pair (ab on x, ij on y, split back with / and %), the contraction over the composite index ef written as two nested loops e and f, double precision, result added into R2 in global memory after a register sum
// launch: grid cdiv(nvir*nvir, 32), cdiv(nocc*nocc, 8) block 32, 8
// sizes: nocc=5 nvir=9
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

// tau (nocc, nocc, nvir, nvir), vvvv = <ab||ef> (nvir, nvir, nvir, nvir), r2 (nocc, nocc, nvir, nvir), all C order
#define TAU(i, j, e, f)  tau [(((i) * nocc + (j)) * nvir + (e)) * nvir + (f)]
#define VVVV(a, b, e, f) vvvv[(((a) * nvir + (b)) * nvir + (e)) * nvir + (f)]
#define R2(i, j, a, b)   r2  [(((i) * nocc + (j)) * nvir + (a)) * nvir + (b)]

__global__ void ccsd_ladder_pp_kernel(const double* __restrict__ tau,
                                      const double* __restrict__ vvvv,
                                      double* __restrict__ r2,
                                      int nocc, int nvir)
{
    const int ab = blockIdx.x * blockDim.x + threadIdx.x;
    const int ij = blockIdx.y * blockDim.y + threadIdx.y;
    if (ab >= nvir * nvir || ij >= nocc * nocc) return;

    const int a = ab / nvir, b = ab % nvir;
    const int i = ij / nocc, j = ij % nocc;

    double s = 0.0;
    for (int e = 0; e < nvir; ++e) {
        for (int f = 0; f < nvir; ++f) {
            s += VVVV(a, b, e, f) * TAU(i, j, e, f);
        }
    }
    R2(i, j, a, b) += 0.5 * s;
}

// host side: called once per CC iteration after tau = t2 + P(ij) t1 t1 has been built
void ccsd_ladder_pp(const double* d_tau, const double* d_vvvv, double* d_r2, int nocc, int nvir, cudaStream_t s)
{
    dim3 block(32, 8);
    dim3 grid((nvir * nvir + 31) / 32, (nocc * nocc + 7) / 8);
    ccsd_ladder_pp_kernel<<<grid, block, 0, s>>>(d_tau, d_vvvv, d_r2, nocc, nvir);
}
