// launch: grid cdiv(OC, 64) block 64
// expect: split the column reduction
#define IDX(r, c, ld) ((size_t)(r) * (ld) + (c))
__global__ void bias_backward(float* dbias, const float* dout, int N, int OC) {
    const int oc = blockIdx.x * blockDim.x + threadIdx.x;
    if (oc < OC) {
        float sum = 0.0f;
        for (int n = 0; n < N; ++n) {
            sum += dout[IDX(n, oc, OC)];
        }
        dbias[oc] = sum;
    }
}
