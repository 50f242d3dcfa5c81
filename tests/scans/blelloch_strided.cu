// Work-efficient exclusive scan of 2 * THREADS ints per block, each thread loading a value from each
// half; the block's total saved before the down-sweep clears it.
#define THREADS 128

__global__ void block_prescan(int *out, const int *in, int *block_totals, int n)
{
    __shared__ int sh[2 * THREADS];
    const int t = threadIdx.x;
    const int base = 2 * THREADS * blockIdx.x;
    sh[t] = (base + t < n) ? in[base + t] : 0;
    sh[t + THREADS] = (base + t + THREADS < n) ? in[base + t + THREADS] : 0;
    int stride = 1;
    for (int d = THREADS; d > 0; d /= 2) {
        __syncthreads();
        if (t < d) {
            int i = stride * (2 * t + 1) - 1;
            int j = stride * (2 * t + 2) - 1;
            sh[j] += sh[i];
        }
        stride *= 2;
    }
    if (t == 0) {
        block_totals[blockIdx.x] = sh[2 * THREADS - 1];
        sh[2 * THREADS - 1] = 0;
    }
    for (int d = 1; d <= THREADS; d *= 2) {
        stride /= 2;
        __syncthreads();
        if (t < d) {
            int i = stride * (2 * t + 1) - 1;
            int j = stride * (2 * t + 2) - 1;
            int tmp = sh[i];
            sh[i] = sh[j];
            sh[j] += tmp;
        }
    }
    __syncthreads();
    if (base + t < n) out[base + t] = sh[t];
    if (base + t + THREADS < n) out[base + t + THREADS] = sh[t + THREADS];
}
