// style: GPU Gems 3 ch.39-derived Hillis-Steele scan made inclusive: static shared temp[2][BLOCK] ping-pong with pout/pin, per-block totals emitted for a second pass, plus a uniform-add kernel in the same file
// launch: grid cdiv(n, 512) block 512
// sizes: n=100003
// kernel: scan_block_inclusive
// expect: block-scan|scan-library|row-scan
#define BLOCK 512

__global__ void scan_block_inclusive(const float *in, float *out, float *block_sums, int n)
{
    __shared__ float temp[2][BLOCK];
    int tid = threadIdx.x;
    int gid = blockIdx.x * BLOCK + tid;
    int pout = 0, pin = 1;

    temp[pout][tid] = (gid < n) ? in[gid] : 0.0f;
    __syncthreads();

    for (int offset = 1; offset < BLOCK; offset <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (tid >= offset)
            temp[pout][tid] = temp[pin][tid] + temp[pin][tid - offset];
        else
            temp[pout][tid] = temp[pin][tid];
        __syncthreads();
    }

    if (gid < n) out[gid] = temp[pout][tid];
    if (tid == BLOCK - 1) block_sums[blockIdx.x] = temp[pout][tid];
}

// second pass: block b adds the inclusive-scanned total of blocks 0..b-1
__global__ void add_block_offsets(float *out, const float *scanned_sums, int n)
{
    int gid = blockIdx.x * BLOCK + threadIdx.x;
    if (blockIdx.x == 0 || gid >= n) return;
    out[gid] += scanned_sums[blockIdx.x - 1];
}
