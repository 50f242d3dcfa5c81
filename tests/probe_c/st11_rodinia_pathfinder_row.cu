// launch: grid cdiv(cols, 256) block 256
// sizes: cols=10000 t=5
// expect: stencil-tile
// one dynamic-programming row of pathfinder: dst[x] = wall[t][x] + min of the three upper neighbours (Rodinia pathfinder, one row per launch without the pyramid)
#include <cuda_runtime.h>

#define IN_RANGE(x, min, max)   ((x)>=(min) && (x)<=(max))
#define MIN(a, b) ((a)<=(b) ? (a) : (b))

__global__ void pathfinder_row(int *wall, int *src, int *dst, int cols, int t)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (!IN_RANGE(x, 0, cols - 1))
        return;

    int shortest = src[x];
    if (x > 0)
        shortest = MIN(shortest, src[x - 1]);
    if (x < cols - 1)
        shortest = MIN(shortest, src[x + 1]);

    dst[x] = wall[t * cols + x] + shortest;
}
