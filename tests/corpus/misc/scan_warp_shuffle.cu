// corpus: inclusive scan of each warp's values with shuffles, block totals through shared memory
// absent: fp64-in-float-kernel, sync-in-divergent-branch, register-spill, local-memory, shared-bank-conflict, uncoalesced-access
__global__ void scan_warps(const int* __restrict__ in, int* __restrict__ out, int* __restrict__ block_sums, int n) {
    __shared__ int warp_totals[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int v = i < n ? in[i] : 0;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        int t = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o) v += t;
    }
    if (lane == 31) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int w = lane < (blockDim.x >> 5) ? warp_totals[lane] : 0;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            int t = __shfl_up_sync(0xffffffffu, w, o);
            if (lane >= o) w += t;
        }
        warp_totals[lane] = w;
    }
    __syncthreads();
    if (warp > 0) v += warp_totals[warp - 1];
    if (i < n) out[i] = v;
    if (threadIdx.x == blockDim.x - 1) block_sums[blockIdx.x] = v;
}

void launch_scan(const int* in, int* out, int* sums, int n) {
    scan_warps<<<(n + 1023) / 1024, 1024>>>(in, out, sums, n);
}
