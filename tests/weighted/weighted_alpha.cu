// style: a weighted Gram matrix scaled by a parameter (found by a second reading: the tiles' replay had dropped alpha)
// launch: grid cdiv(nbf, 32), cdiv(nbf, 8) block 32, 8
// sizes: nbf=37 nocc=21 ldc=39 ldd=37 alpha=2.5
// expect: matmul-tiles
__global__ void rdm_scaled(int nbf, int nocc, const float* __restrict__ C, int ldc, const float* __restrict__ occ,
                           float* __restrict__ D, int ldd, float alpha)
{
    const int mu = blockIdx.x * blockDim.x + threadIdx.x;
    const int nu = blockIdx.y * blockDim.y + threadIdx.y;
    if (mu >= nbf || nu >= nbf) return;
    float d = 0.0f;
    for (int i = 0; i < nocc; ++i)
        d += alpha * occ[i] * C[mu + i * ldc] * C[nu + i * ldc];
    D[mu + nu * ldd] = d;
}
