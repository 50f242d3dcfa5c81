// launch: grid cdiv(OC, 256) block 256
// expect: split the column reduction
__global__ void bias_backward(float* dbias, const float* dout, int N, int OC) {
    unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= OC) return;
    const float* p = dout + col;
    float acc = 0.0f;
    for (int r = 0; r < N; ++r) {
        acc += *p;
        p += OC;
    }
    dbias[col] = acc;
}
