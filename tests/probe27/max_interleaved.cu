// launch: grid cdiv(n, 128) block 128
// sizes: n=50000
// expect: block-tree
// block maxima with the interleaved tree a course assignment starts from
__global__ void block_max(float *in, float *out, int n)
{
    __shared__ float s[128];
    unsigned int t = threadIdx.x;
    unsigned int gi = blockIdx.x * blockDim.x + t;
    if (gi < n) s[t] = in[gi];
    else s[t] = -3.402823466e38f;
    __syncthreads();
    for (unsigned int stride = 1; stride < blockDim.x; stride <<= 1) {
        if (t % (2 * stride) == 0)
            s[t] = fmaxf(s[t], s[t + stride]);
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
