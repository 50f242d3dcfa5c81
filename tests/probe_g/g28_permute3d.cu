// style: 3-D tensor permute (D0,D1,D2) -> (D2,D0,D1) with a 3-D grid (x over the fastest input axis, z over D0), as in small tensor libraries
// launch: grid cdiv(D2, 32), cdiv(D1, 4), D0 block 32, 4
// sizes: D0=23 D1=57 D2=91
// expect: transpose-tile
__global__ void permute_012_to_201(const float *in, float *out, int D0, int D1, int D2)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;   // index along D2
    int j = blockIdx.y * blockDim.y + threadIdx.y;   // index along D1
    int i = blockIdx.z;                              // index along D0
    if (i < D0 && j < D1 && k < D2) {
        int src = (i * D1 + j) * D2 + k;
        int dst = (k * D0 + i) * D1 + j;
        out[dst] = in[src];
    }
}
