// style: "warp-synchronous" inclusive block scan in the CUB/ModernGPU idiom written by hand - lane = threadIdx.x & 31, warp id = threadIdx.x >> 5, Hillis-Steele inside each warp with __shfl_up_sync and `if (lane >= offset)`, warp totals parked in a small __shared__ array and scanned by warp 0 with the same shuffle loop, added back to the later warps; int data, zero-padded tail, last thread writes the block total; second kernel adds the (host-)scanned block offsets; host main with CPU check
// kernel: block_inclusive_scan_shfl
// launch: grid cdiv(n, 256) block 256
// sizes: n=4093
// expect: block-scan|scan-library|row-scan
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define SCAN_BLOCK 256
#define WARP_SIZE 32
#define NUM_WARPS (SCAN_BLOCK / WARP_SIZE)
#define FULL_MASK 0xffffffffu

__global__ void block_inclusive_scan_shfl(const int *in, int *out, int *block_sums, int n)
{
    __shared__ int warp_sums[NUM_WARPS];

    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & (WARP_SIZE - 1);
    int wid = threadIdx.x >> 5;

    int v = (gid < n) ? in[gid] : 0;

    // inclusive scan inside the warp
    for (int offset = 1; offset < WARP_SIZE; offset <<= 1) {
        int t = __shfl_up_sync(FULL_MASK, v, offset);
        if (lane >= offset) v += t;
    }

    if (lane == WARP_SIZE - 1) warp_sums[wid] = v;
    __syncthreads();

    // warp 0 scans the per-warp totals
    if (wid == 0) {
        int w = (lane < NUM_WARPS) ? warp_sums[lane] : 0;
        for (int offset = 1; offset < WARP_SIZE; offset <<= 1) {
            int t = __shfl_up_sync(FULL_MASK, w, offset);
            if (lane >= offset) w += t;
        }
        if (lane < NUM_WARPS) warp_sums[lane] = w;
    }
    __syncthreads();

    if (wid > 0) v += warp_sums[wid - 1];

    if (gid < n) out[gid] = v;
    if (threadIdx.x == blockDim.x - 1) block_sums[blockIdx.x] = v;
}

// block_offsets[b] = sum of block_sums[0 .. b-1]
__global__ void add_block_offsets(int *out, const int *block_offsets, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < n) out[gid] += block_offsets[blockIdx.x];
}

int main()
{
    const int n = 4093;
    const int blocks = (n + SCAN_BLOCK - 1) / SCAN_BLOCK;
    std::vector<int> h_in(n), h_out(n), h_sums(blocks), h_offs(blocks);
    for (int i = 0; i < n; i++) h_in[i] = rand() % 7 - 3;

    int *d_in, *d_out, *d_sums, *d_offs;
    cudaMalloc(&d_in, n * sizeof(int));
    cudaMalloc(&d_out, n * sizeof(int));
    cudaMalloc(&d_sums, blocks * sizeof(int));
    cudaMalloc(&d_offs, blocks * sizeof(int));
    cudaMemcpy(d_in, h_in.data(), n * sizeof(int), cudaMemcpyHostToDevice);

    block_inclusive_scan_shfl<<<blocks, SCAN_BLOCK>>>(d_in, d_out, d_sums, n);
    cudaMemcpy(h_sums.data(), d_sums, blocks * sizeof(int), cudaMemcpyDeviceToHost);
    int run = 0;
    for (int b = 0; b < blocks; b++) { h_offs[b] = run; run += h_sums[b]; }
    cudaMemcpy(d_offs, h_offs.data(), blocks * sizeof(int), cudaMemcpyHostToDevice);
    add_block_offsets<<<blocks, SCAN_BLOCK>>>(d_out, d_offs, n);
    cudaMemcpy(h_out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost);

    int acc = 0, bad = 0;
    for (int i = 0; i < n; i++) { acc += h_in[i]; if (h_out[i] != acc) bad++; }
    printf("%s (%d mismatches)\n", bad ? "FAIL" : "PASS", bad);
    cudaFree(d_in); cudaFree(d_out); cudaFree(d_sums); cudaFree(d_offs);
    return bad != 0;
}
