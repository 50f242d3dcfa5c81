// Scores per batch and head, one per thread, the batch split around the row and column: the head the
// flat index's lowest digit, the batch its highest (llm.c's (b, t, h) order with the key position inside).
__global__ void scores_bh(float* out, const float* q, const float* k, int B, int NH, int n, int d) {
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    const int total = B * NH * n * n;
    if (g < total) {
        const int h = g % NH;
        const int col = (g / NH) % n;
        const int row = (g / (NH * n)) % n;
        const int b = g / (NH * n * n);
        const float* qr = q + ((b * NH + h) * n + row) * d;
        const float* kc = k + ((b * NH + h) * n + col) * d;
        float acc = 0.f;
        for (int e = 0; e < d; ++e) acc += qr[e] * kc[e];
        out[((b * NH + h) * n + row) * n + col] = acc;
    }
}
