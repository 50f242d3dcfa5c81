// style: game/physics-engine particle system (CUDA samples "particles" calcGridPos/calcGridHash naming) counting particles per uniform-grid cell - float4 positions, world origin and cellSize as float scalars, int3 grid position from floorf((p - origin) / cellSize) clamped into [0, gridSize-1] per axis, cell hash (z*gy + y)*gx + x, atomicAdd(&cellCount[hash], 1) straight on global uint bins; uint index = blockIdx.x*blockDim.x + threadIdx.x with an early return, make_float3/make_int3 built from the scalar arguments inside the kernel
// kernel: countParticlesPerCellD
// launch: grid cdiv(numParticles, 128) block 128
// sizes: numParticles=4093 worldOriginX=-1.0 worldOriginY=-1.0 worldOriginZ=-1.0 cellSize=0.25 gridSizeX=8 gridSizeY=8 gridSizeZ=8
// expect: private-bins
#include <cuda_runtime.h>

typedef unsigned int uint;

// calculate position in uniform grid (clamped to the grid bounds)
__device__ int3 calcGridPos(float4 p, float3 worldOrigin, float cellSize, int3 gridSize)
{
    int3 gridPos;
    gridPos.x = (int)floorf((p.x - worldOrigin.x) / cellSize);
    gridPos.y = (int)floorf((p.y - worldOrigin.y) / cellSize);
    gridPos.z = (int)floorf((p.z - worldOrigin.z) / cellSize);
    gridPos.x = max(0, min(gridPos.x, gridSize.x - 1));
    gridPos.y = max(0, min(gridPos.y, gridSize.y - 1));
    gridPos.z = max(0, min(gridPos.z, gridSize.z - 1));
    return gridPos;
}

// calculate address in grid from position
__device__ uint calcGridHash(int3 gridPos, int3 gridSize)
{
    return (uint)((gridPos.z * gridSize.y + gridPos.y) * gridSize.x + gridPos.x);
}

__global__ void countParticlesPerCellD(uint *cellCount,        // output: particles per cell
                                       const float4 *pos,      // input: positions
                                       uint numParticles,
                                       float worldOriginX, float worldOriginY, float worldOriginZ,
                                       float cellSize,
                                       int gridSizeX, int gridSizeY, int gridSizeZ)
{
    uint index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= numParticles) return;

    float3 worldOrigin = make_float3(worldOriginX, worldOriginY, worldOriginZ);
    int3 gridSize = make_int3(gridSizeX, gridSizeY, gridSizeZ);

    float4 p = pos[index];
    int3 gridPos = calcGridPos(p, worldOrigin, cellSize, gridSize);
    uint hash = calcGridHash(gridPos, gridSize);

    atomicAdd(&cellCount[hash], 1u);
}
