// the largest magnitude of each column, columns strided over the grid's blocks, one thread per column
__global__ void col_absmax(const float* __restrict__ x, float* __restrict__ out, int R, int C)
{
    for (int c = blockIdx.x; c < C; c += gridDim.x) {
        if (threadIdx.x == 0) {
            float m = 0.f;
            for (int r = 0; r < R; ++r) m = fmaxf(m, fabsf(x[(size_t)r * C + c]));
            out[c] = m;
        }
    }
}
