// launch: grid cdiv(OC, 128) block 128
// sizes: BT=2048 OC=768
// expect: column
// llm.c-style bias gradient: dbias[o] += sum over B*T rows of dout[bt, o]
__global__ void matmul_backward_bias_kernel(float* dbias, const float* dout, int BT, int OC)
{
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o < OC) {
        double sum = 0.0;
        for (int bt = 0; bt < BT; bt++) {
            sum += dout[bt * OC + o];
        }
        dbias[o] += sum;
    }
}
