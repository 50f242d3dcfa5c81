// launch: grid N block 256 shared 256*4
// expect: over a block per row
__global__ void layernorm_forward(float* out, float* mean, float* rstd, const float* inp,
                                  const float* weight, const float* bias, int N, int C) {
    extern __shared__ float buf[];
    int row = blockIdx.x;
    int tid = threadIdx.x;
    const float* x = inp + row * C;
    float s = 0.0f;
    for (int i = tid; i < C; i += blockDim.x) s += x[i];
    buf[tid] = s;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (tid < stride) buf[tid] += buf[tid + stride];
        __syncthreads();
    }
    float m = buf[0] / C;
    __syncthreads();
    float v = 0.0f;
    for (int i = tid; i < C; i += blockDim.x) {
        float d = x[i] - m;
        v += d * d;
    }
    buf[tid] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (tid < stride) buf[tid] += buf[tid + stride];
        __syncthreads();
    }
    float r = rsqrtf(buf[0] / C + 1e-5f);
    for (int i = tid; i < C; i += blockDim.x) {
        out[row * C + i] = (x[i] - m) * r * weight[i] + bias[i];
    }
    if (tid == 0) {
        mean[row] = m;
        rstd[row] = r;
    }
}
