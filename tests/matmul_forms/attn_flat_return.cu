// Causal scores of every head, one per thread: the head is the flat index's high digit (no `%`), the
// bound an early return before the product, the masked half written -inf and returned.
#include <math.h>

__global__ void scores(float* out, const float* q, const float* k, int heads, int n, int d, float s) {
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= heads * n * n) return;
    const int col = g % n, row = (g / n) % n, head = g / (n * n);
    if (col > row) { out[g] = -INFINITY; return; }
    float acc = 0.f;
    for (int e = 0; e < d; ++e) acc += q[(head * n + row) * d + e] * k[(head * n + col) * d + e];
    out[g] = acc * s;
}
