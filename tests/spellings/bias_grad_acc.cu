// launch: grid OC block 512 shared 512*4
// expect: lifted to one thread per column
__global__ void bias_backward(float* dbias, const float* dout, int N, int OC) {
    extern __shared__ float shared[];
    int o = blockIdx.x;
    int tid = threadIdx.x;
    int block_size = blockDim.x;
    const float* x = dout + o;
    double sum = 0.0;
    for (int i = tid; i < N; i += block_size) {
        sum += x[i * OC];
    }
    shared[tid] = (float) sum;
    __syncthreads();
    for (int stride = block_size / 2; stride >= 1; stride /= 2) {
        __syncthreads();
        if (tid < stride) {
            shared[tid] += shared[tid + stride];
        }
    }
    if (tid == 0) {
        dbias[o] += shared[0];
    }
}
