// launch: grid cdiv(N, 32) block 32
// expect: start the max at its seed; online max and sum
__global__ void crossentropy_forward(float* losses, const float* logits, const int* targets, int N, int V) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    const float* row = &logits[i * V];
    const float target_logit = row[targets[i]];
    float m = row[0];
    for (int v = 1; v < V; ++v) m = max(m, row[v]);
    float s = 0.0f;
    for (int v = 0; v < V; ++v) {
        float e = __expf(row[v] - m);
        s += e;
    }
    losses[i] = -(target_logit - m) + logf(s);
}
