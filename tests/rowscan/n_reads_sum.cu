// launch: grid cdiv(rows, 64) block 64
// sizes: rows=37 cols=101
// expect:
// the running sum decides the next step (a decay that reads it): not a scan
__global__ void decay_rows(const float* in, float* out, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.f;
    for (int c = 0; c < cols; ++c) {
        acc += in[r * cols + c] * (acc > 1.f ? 0.5f : 1.f);
        out[r * cols + c] = acc;
    }
}
