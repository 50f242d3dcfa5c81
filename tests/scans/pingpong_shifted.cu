// Hillis-Steele in a flat ping-pong buffer (pout ^= 1), the exclusive result read one to the left.
__global__ void exclusive_scan_kernel(const int* __restrict__ d_in, int* __restrict__ d_out, int len)
{
    __shared__ int tmp[2 * 256];
    int tid = threadIdx.x;
    int idx = blockIdx.x * 256 + tid;
    int pout = 0;
    tmp[tid] = idx < len ? d_in[idx] : 0;
    __syncthreads();
    for (int off = 1; off < 256; off <<= 1) {
        pout ^= 1;
        int pin = pout ^ 1;
        int v = tmp[pin * 256 + tid];
        if (tid >= off) v += tmp[pin * 256 + tid - off];
        tmp[pout * 256 + tid] = v;
        __syncthreads();
    }
    if (idx < len) d_out[idx] = tid > 0 ? tmp[pout * 256 + tid - 1] : 0;
}
