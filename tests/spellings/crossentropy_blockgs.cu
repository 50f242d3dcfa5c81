// launch: grid 2 block 128 shared 128*4
// expect: online max and sum
// a block per row over a grid-stride loop of rows, two shared-memory trees, ternary max
__global__ void crossentropy_forward(float* losses, const float* logits, const int* targets, int N, int V) {
    extern __shared__ float red[];
    const int tid = threadIdx.x;
    for (int row = blockIdx.x; row < N; row += gridDim.x) {
        const float* p = logits + (long)row * V;
        float m = -INFINITY;
        for (int j = tid; j < V; j += blockDim.x) m = p[j] > m ? p[j] : m;
        red[tid] = m;
        __syncthreads();
        for (int s = blockDim.x / 2; s > 0; s >>= 1) {
            if (tid < s) red[tid] = red[tid + s] > red[tid] ? red[tid + s] : red[tid];
            __syncthreads();
        }
        float rowmax = red[0];
        __syncthreads();
        float z = 0.0f;
        for (int j = tid; j < V; j += blockDim.x) z += expf(p[j] - rowmax);
        red[tid] = z;
        __syncthreads();
        for (int s = blockDim.x / 2; s > 0; s >>= 1) {
            if (tid < s) red[tid] += red[tid + s];
            __syncthreads();
        }
        if (tid == 0) losses[row] = logf(red[0]) + rowmax - p[targets[row]];
        __syncthreads();
    }
}
