// launch: grid cdiv(N, 128) block 128
// expect: online max+sum combined
__global__ void crossentropy_forward(float* losses, const float* logits, const int* targets, int N, int V) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    const float* z = logits + i * V;
    float m = -INFINITY, s = 0.0f;
    for (int v = 0; v < V; ++v) {
        float zv = z[v];
        if (zv > m) {
            s = s * expf(m - zv) + 1.0f;
            m = zv;
        } else {
            s += expf(zv - m);
        }
    }
    losses[i] = m + logf(s) - z[targets[i]];
}
