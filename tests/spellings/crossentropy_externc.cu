// launch: grid cdiv(N, 128) block 128
// expect: online max and sum
// extern "C", unsigned index, early return, max() for the max, a double sum
extern "C" __global__ void crossentropy_forward(float* losses, const float* logits, const int* targets, int N, int V) {
    unsigned int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= (unsigned)N) return;
    const float* p = logits + (size_t)r * V;
    float mx = -INFINITY;
    for (int v = 0; v < V; ++v) mx = max(mx, p[v]);
    double acc = 0.0;
    for (int v = 0; v < V; ++v) acc += (double)expf(p[v] - mx);
    losses[r] = (float)(log(acc) + mx) - p[targets[r]];
}
