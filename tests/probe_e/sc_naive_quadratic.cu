// style: naive O(n^2) inclusive scan seen in competitive/LeetGPU first attempts (thread i sums input[0..i])
// launch: grid cdiv(N, 256) block 256
// sizes: N=3001
// expect: block-scan|scan-library
__global__ void prefix_sum_kernel(const float* input, float* output, int N)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        float s = 0.0f;
        for (int j = 0; j <= i; j++)
            s += input[j];
        output[i] = s;
    }
}
