// launch: grid cdiv(OC, 128) block 128
// expect: the column's sum held in a register, then split the column reduction of line 9
__global__ void bias_backward(float* dbias, const float* dout, int N, int OC) {
    int tid = threadIdx.x;
    int bid = blockIdx.x;
    int o = bid * blockDim.x + tid;
    if (o < OC) {
        dbias[o] = 0.0f;
        for (int i = 0; i < N; i++) {
            dbias[o] += dout[i * OC + o];
        }
    }
}
