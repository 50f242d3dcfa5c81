// launch: grid cdiv(grid_cols, 16), cdiv(grid_rows, 16) block 16, 16
// sizes: grid_cols=700 grid_rows=500 Cap=0.5 Rx=1.5 Ry=1.5 Rz=2.0 step=0.01
// expect: stencil-tile
// one explicit thermal step of the chip heat model with clamped borders (Rodinia hotspot single_iteration, ported one cell per thread)
#include <cuda_runtime.h>

#define BLOCK_SIZE 16

/* maximum power density possible (say 300W for a 10mm x 10mm chip)	*/
#define MAX_PD	(3.0e6)
/* required precision in degrees	*/
#define PRECISION	0.001
#define SPEC_HEAT_SI 1.75e6
#define K_SI 100
/* capacitance fitting factor	*/
#define FACTOR_CHIP	0.5

__global__ void hotspot_step(float *power, float *temp_src, float *temp_dst,
                             int grid_cols, int grid_rows,
                             float Cap, float Rx, float Ry, float Rz, float step)
{
    float amb_temp = 80.0;

    int c = blockIdx.x * BLOCK_SIZE + threadIdx.x;
    int r = blockIdx.y * BLOCK_SIZE + threadIdx.y;

    if (r >= grid_rows || c >= grid_cols)
        return;

    float step_div_Cap = step / Cap;
    float Rx_1 = 1 / Rx;
    float Ry_1 = 1 / Ry;
    float Rz_1 = 1 / Rz;

    int N = (r == 0) ? r : r - 1;
    int S = (r == grid_rows - 1) ? r : r + 1;
    int W = (c == 0) ? c : c - 1;
    int E = (c == grid_cols - 1) ? c : c + 1;

    int index = r * grid_cols + c;
    float tc = temp_src[index];

    temp_dst[index] = tc + step_div_Cap * (power[index] +
        (temp_src[S * grid_cols + c] + temp_src[N * grid_cols + c] - 2.0 * tc) * Ry_1 +
        (temp_src[r * grid_cols + E] + temp_src[r * grid_cols + W] - 2.0 * tc) * Rx_1 +
        (amb_temp - tc) * Rz_1);
}
