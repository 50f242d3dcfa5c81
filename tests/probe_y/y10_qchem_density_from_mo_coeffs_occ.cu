// style: quantum-chemistry SCF code (PySCF/Psi4-like make_rdm1 ported to CUDA): density matrix D(mu,nu) = sum_i occ(i) * C(mu,i) * C(nu,i) over the occupied orbitals, double precision, Fortran column-major MO coefficients C(nbf, nmo) with ldc and D with ldd, basis-function indices mu on threadIdx.x / nu on y, #pragma unroll 4 on the orbital loop, occupation numbers from an array; host main with a closed-shell (occ = 2) check
// launch: grid cdiv(nbf, 32), cdiv(nbf, 8) block 32, 8
// sizes: nbf=67 nocc=21 ldc=69 ldd=67
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

#define CUDA_SAFE_CALL(call) do {                                            \
    cudaError_t err__ = (call);                                              \
    if (err__ != cudaSuccess) {                                              \
        std::fprintf(stderr, "%s(%d): %s\n", __FILE__, __LINE__,             \
                     cudaGetErrorString(err__));                             \
        std::exit(EXIT_FAILURE);                                             \
    }                                                                        \
} while (0)

// D = C_occ * diag(occ) * C_occ^T   (one-particle reduced density matrix in the AO basis)
__global__ void make_rdm1_kernel(int nbf, int nocc,
                                 const double* __restrict__ mo_coeff, int ldc,
                                 const double* __restrict__ mo_occ,
                                 double* __restrict__ dm, int ldd)
{
    const int mu = blockIdx.x * blockDim.x + threadIdx.x;
    const int nu = blockIdx.y * blockDim.y + threadIdx.y;
    if (mu >= nbf || nu >= nbf) return;

    double d = 0.0;
#pragma unroll 4
    for (int i = 0; i < nocc; ++i) {
        d += mo_occ[i] * mo_coeff[mu + (size_t)i * ldc] * mo_coeff[nu + (size_t)i * ldc];
    }
    dm[mu + (size_t)nu * ldd] = d;
}

int main()
{
    const int nbf = 67, nmo = 67, nocc = 21, ldc = 69, ldd = 67;

    std::vector<double> C((size_t)ldc * nmo), occ(nocc, 2.0), D((size_t)ldd * nbf);
    for (int i = 0; i < nmo; ++i)
        for (int mu = 0; mu < ldc; ++mu)
            C[mu + (size_t)i * ldc] = (mu < nbf) ? std::sin(0.37 * (mu + 1) * (i + 1)) / std::sqrt((double)nbf) : 0.0;

    double *d_C, *d_occ, *d_D;
    CUDA_SAFE_CALL(cudaMalloc(&d_C, C.size() * sizeof(double)));
    CUDA_SAFE_CALL(cudaMalloc(&d_occ, occ.size() * sizeof(double)));
    CUDA_SAFE_CALL(cudaMalloc(&d_D, D.size() * sizeof(double)));
    CUDA_SAFE_CALL(cudaMemcpy(d_C, C.data(), C.size() * sizeof(double), cudaMemcpyHostToDevice));
    CUDA_SAFE_CALL(cudaMemcpy(d_occ, occ.data(), occ.size() * sizeof(double), cudaMemcpyHostToDevice));

    dim3 block(32, 8);
    dim3 grid((nbf + block.x - 1) / block.x, (nbf + block.y - 1) / block.y);
    make_rdm1_kernel<<<grid, block>>>(nbf, nocc, d_C, ldc, d_occ, d_D, ldd);
    CUDA_SAFE_CALL(cudaGetLastError());
    CUDA_SAFE_CALL(cudaMemcpy(D.data(), d_D, D.size() * sizeof(double), cudaMemcpyDeviceToHost));

    double maxerr = 0.0, asym = 0.0;
    for (int nu = 0; nu < nbf; ++nu)
        for (int mu = 0; mu < nbf; ++mu) {
            double ref = 0.0;
            for (int i = 0; i < nocc; ++i) ref += occ[i] * C[mu + (size_t)i * ldc] * C[nu + (size_t)i * ldc];
            maxerr = std::fmax(maxerr, std::fabs(ref - D[mu + (size_t)nu * ldd]));
            asym = std::fmax(asym, std::fabs(D[mu + (size_t)nu * ldd] - D[nu + (size_t)mu * ldd]));
        }
    std::printf("max |D - D_ref| = %.3e, max |D - D^T| = %.3e\n", maxerr, asym);

    cudaFree(d_C); cudaFree(d_occ); cudaFree(d_D);
    return (maxerr < 1e-10) ? 0 : 1;
}
