__global__ void sum_all(const float* x, float* total, int n) {
    __shared__ float buf[256];
    int t = threadIdx.x;
    int i = blockIdx.x * 256 + t;
    buf[t] = i < n ? x[i] : 0.f;
    __syncthreads();
    for (int s = 128; s > 0; s /= 2) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) atomicAdd(total, buf[0]);
}
