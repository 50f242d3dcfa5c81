// Hillis-Steele through two shared arrays swapped by pointer after each step, 128 values: 7 steps, so the
// prefixes end in the second buffer and the epilogue reads them through the pointer left there.
__global__ void swap_scan(const int* in, int* out, int n)
{
    __shared__ int a[128];
    __shared__ int b[128];
    const int tid = threadIdx.x;
    const int i = blockIdx.x * 128 + tid;
    a[tid] = i < n ? in[i] : 0;
    __syncthreads();
    int* cur = a;
    int* nxt = b;
    for (int d = 1; d < 128; d *= 2) {
        int v = cur[tid];
        if (tid >= d) v += cur[tid - d];
        nxt[tid] = v;
        __syncthreads();
        int* t = cur;
        cur = nxt;
        nxt = t;
    }
    if (i < n) out[i] = cur[tid];
}
