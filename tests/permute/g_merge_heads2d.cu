// (B, NH, T, hs) -> (B, T, NH * hs) in double: a row of the output per blockIdx.y (b * T + t)
__global__ void merge_heads(double* out, const double* in, int B, int T, int NH, int hs)
{
    int bt = blockIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col < NH * hs) {
        int b = bt / T, t = bt % T;
        int h = col / hs, k = col % hs;
        out[bt * NH * hs + col] = in[((b * NH + h) * T + t) * hs + k];
    }
}
