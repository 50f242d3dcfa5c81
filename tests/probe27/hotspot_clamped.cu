// launch: grid cdiv(cols, 16), cdiv(rows, 16) block 16, 16
// sizes: rows=500 cols=520 Cap=0.5 Rx=0.1 Ry=0.1 Rz=0.2 step=0.001 amb=80.0
// expect: stencil-tile
// Rodinia hotspot, one step without the pyramid: edges clamp to the cell itself
__global__ void hotspot_step(const float *power, const float *temp_src, float *temp_dst,
                             int rows, int cols, float Cap, float Rx, float Ry, float Rz, float step, float amb)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= rows || c >= cols) return;
    int idx = r * cols + c;
    int N = (r == 0) ? idx : idx - cols;
    int S = (r == rows - 1) ? idx : idx + cols;
    int W = (c == 0) ? idx : idx - 1;
    int E = (c == cols - 1) ? idx : idx + 1;
    float t = temp_src[idx];
    temp_dst[idx] = t + (step / Cap) * (power[idx] + (temp_src[S] + temp_src[N] - 2.0f * t) / Ry
                                        + (temp_src[E] + temp_src[W] - 2.0f * t) / Rx + (amb - t) / Rz);
}
