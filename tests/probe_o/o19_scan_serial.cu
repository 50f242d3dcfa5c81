// style: student first-attempt block scan: thread 0 of each block serially scans the block's chunk (do-while, long long offsets), others idle
// launch: grid cdiv(n, 512) block 512
// sizes: n=100003
// expect: block-scan|scan-library|row-scan

// Phase 1 of a two-phase inclusive scan: y = per-block inclusive prefix sums of x.
// (block totals y[end-1] are added back by a later pass)
__global__ void naive_block_scan(const float *x, float *y, long long n)
{
    if (threadIdx.x != 0)
        return;
    long long begin = (long long)blockIdx.x * blockDim.x;
    if (begin >= n)
        return;
    long long end = begin + blockDim.x;
    if (end > n)
        end = n;

    float running = 0.0f;
    long long i = begin;
    do {
        running += x[i];
        y[i] = running;
    } while (++i < end);
}
