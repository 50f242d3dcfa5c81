// style: Harris "Optimizing Parallel Reduction" reduce4/5 turned into a max; template<unsigned int blockSize>, first fmaxf during the load of two elements, volatile warp tail (with __syncwarp for Volta+), per-block partials finished on the host
// launch: grid cdiv(n, 512) block 256
// sizes: n=200003
// template: 256
// expect: block-tree
#include <cfloat>
#include <cstdio>
#include <cstdlib>

template <unsigned int blockSize>
__device__ void warpReduceMax(volatile float* sdata, unsigned int tid)
{
    float v = sdata[tid];
    if (blockSize >= 64) { v = fmaxf(v, sdata[tid + 32]); __syncwarp(); sdata[tid] = v; __syncwarp(); }
    if (blockSize >= 32) { v = fmaxf(v, sdata[tid + 16]); __syncwarp(); sdata[tid] = v; __syncwarp(); }
    if (blockSize >= 16) { v = fmaxf(v, sdata[tid +  8]); __syncwarp(); sdata[tid] = v; __syncwarp(); }
    if (blockSize >=  8) { v = fmaxf(v, sdata[tid +  4]); __syncwarp(); sdata[tid] = v; __syncwarp(); }
    if (blockSize >=  4) { v = fmaxf(v, sdata[tid +  2]); __syncwarp(); sdata[tid] = v; __syncwarp(); }
    if (blockSize >=  2) { v = fmaxf(v, sdata[tid +  1]); __syncwarp(); sdata[tid] = v; }
}

template <unsigned int blockSize>
__global__ void reduce4max(const float *g_idata, float *g_odata, unsigned int n)
{
    __shared__ float sdata[blockSize];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockSize * 2) + threadIdx.x;

    float m = (i < n) ? g_idata[i] : -FLT_MAX;
    if (i + blockSize < n) m = fmaxf(m, g_idata[i + blockSize]);
    sdata[tid] = m;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] = fmaxf(sdata[tid], sdata[tid + s]);
        __syncthreads();
    }

    if (tid < 32) warpReduceMax<blockSize>(sdata, tid);
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

int main()
{
    const unsigned int n = 200003;
    const unsigned int threads = 256;
    const unsigned int blocks = (n + threads * 2 - 1) / (threads * 2);
    float *h_in = (float *)malloc(n * sizeof(float));
    float *h_part = (float *)malloc(blocks * sizeof(float));
    for (unsigned int k = 0; k < n; k++) h_in[k] = (float)(k % 9973);

    float *d_in, *d_part;
    cudaMalloc((void **)&d_in, n * sizeof(float));
    cudaMalloc((void **)&d_part, blocks * sizeof(float));
    cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);

    reduce4max<256><<<blocks, threads>>>(d_in, d_part, n);

    cudaMemcpy(h_part, d_part, blocks * sizeof(float), cudaMemcpyDeviceToHost);
    float mx = -FLT_MAX;
    for (unsigned int b = 0; b < blocks; b++) mx = fmaxf(mx, h_part[b]);
    printf("max = %f\n", mx);
    cudaFree(d_in); cudaFree(d_part);
    free(h_in); free(h_part);
    return 0;
}
