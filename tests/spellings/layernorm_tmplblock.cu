// launch: grid N block 128
// expect: over a block per row
// block-size template parameter, one loop for sum and sum of squares, two trees at once
template <typename T, int BLOCK = 128>
__global__ void layernorm_forward(T* out, T* mean, T* rstd, const T* inp,
                                  const T* weight, const T* bias, int N, int C) {
    __shared__ T s_sum[BLOCK];
    __shared__ T s_sq[BLOCK];
    const int row = blockIdx.x;
    const int t = threadIdx.x;
    const T* x = inp + row * C;
    T a = 0, b = 0;
    for (int i = t; i < C; i += BLOCK) {
        T v = x[i];
        a += v;
        b += v * v;
    }
    s_sum[t] = a;
    s_sq[t] = b;
    __syncthreads();
    #pragma unroll
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k) {
            s_sum[t] += s_sum[t + k];
            s_sq[t] += s_sq[t + k];
        }
        __syncthreads();
    }
    T mu = s_sum[0] / C;
    T var = s_sq[0] / C - mu * mu;
    T r = rsqrtf(var + 1e-5f);
    for (int i = t; i < C; i += BLOCK) out[row * C + i] = (x[i] - mu) * r * weight[i] + bias[i];
    if (t == 0) {
        mean[row] = mu;
        rstd[row] = r;
    }
}
template __global__ void layernorm_forward<float>(float*, float*, float*, const float*, const float*, const float*, int, int);
