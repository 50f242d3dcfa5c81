// Scores of every head, one per thread, the head the flat index's lowest digit (consecutive threads take
// consecutive heads, as in llm.c's attention kernels) and the row its highest.
__global__ void scores_hlow(float* out, const float* q, const float* k, int heads, int n, int d) {
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= heads * n * n) return;
    const int h = g % heads, col = (g / heads) % n, row = g / (heads * n);
    float acc = 0.f;
    for (int e = 0; e < d; ++e) acc += q[(h * n + row) * d + e] * k[(h * n + col) * d + e];
    out[(h * n + row) * n + col] = acc;
}
