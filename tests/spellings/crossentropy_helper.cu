// launch: grid cdiv(N, 256) block 256
// expect: online max and sum
__device__ float row_max(const float* p, int n) {
    float m = -INFINITY;
    for (int j = 0; j < n; j++) m = fmaxf(m, p[j]);
    return m;
}
__global__ void crossentropy_forward(float* losses, const float* logits, const int* targets, int N, int V) {
    size_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    const float* row = logits + i * V;
    float maxval = row_max(row, V);
    float sum = 0.0f;
    for (int j = 0; j < V; j++) sum += expf(row[j] - maxval);
    float lse = logf(sum) + maxval;
    losses[i] = lse - row[targets[i]];
}
