// launch: grid cdiv(D0 * D1 * D2, 256) block 256
// sizes: D0=40 D1=50 D2=60
// expect: transpose-tile
// 3-D permute (2, 1, 0) with the remainder reassigned as it is peeled
__global__ void permute210(const float* in, float* out, int D0, int D1, int D2)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < D0 * D1 * D2) {
        int r = t;
        int i0 = r / (D1 * D2);
        r = r % (D1 * D2);
        int i1 = r / D2;
        int i2 = r % D2;
        out[(i2 * D1 + i1) * D0 + i0] = in[t];
    }
}
