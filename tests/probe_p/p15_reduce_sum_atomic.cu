// style: GitHub student "sumReduction" after Harris reduce2; extern __shared__ buffer, unsigned tid/gid, sequential addressing starting at blockDim.x/2, block result folded with one atomicAdd
// launch: grid cdiv(n, 256) block 256 shared 1024
// sizes: n=100003
// expect: block-tree|block-atomic|warp-atomic

// *out must be zeroed before launch.
__global__ void reduceSum(const float* in, float* out, int n)
{
    extern __shared__ float sdata[];

    unsigned int tid = threadIdx.x;
    unsigned int gid = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = (gid < (unsigned int)n) ? in[gid] : 0.0f;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid == 0)
        atomicAdd(out, sdata[0]);
}
