// Hillis-Steele through two shared arrays swapped by pointer, the pointers declared first and the values stored
// through one of them (found by a second reading: with several old threads per thread the fill through the
// pointer was taken for the epilogue and run again after the scan, over the prefixes).
__global__ void fill_by_pointer(const float* g_in, float* g_out, int n)
{
    __shared__ float ping[256];
    __shared__ float pong[256];
    const int tid = threadIdx.x;
    const int gid = blockIdx.x * 256 + tid;
    float* src = ping;
    float* dst = pong;
    src[tid] = gid < n ? g_in[gid] : 0.0f;
    __syncthreads();
    for (int off = 1; off < 256; off *= 2) {
        float v = src[tid];
        if (tid >= off) v += src[tid - off];
        dst[tid] = v;
        __syncthreads();
        float* t = src;
        src = dst;
        dst = t;
    }
    if (gid < n) g_out[gid] = src[tid];
}
