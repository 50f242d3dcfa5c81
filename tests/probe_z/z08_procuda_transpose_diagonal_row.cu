// style: "Professional CUDA C Programming" (Cheng/Grossman/McKercher) ch.4 transposeDiagonalRow - block coordinates remapped to a diagonal order (blk_y = blockIdx.x, blk_x = (blockIdx.x + blockIdx.y) % gridDim.x) to spread DRAM partitions, unsigned int ix/iy compared against const int nx/ny, reads in[iy*nx + ix] by rows and writes out[ix*ny + iy] strided; the remap needs a square grid, so the host sizes both grid dimensions from the larger extent; book-style host main with initialData/checkResult and a CPU transposeHost
// launch: grid cdiv(ny, 16), cdiv(ny, 16) block 16, 16
// sizes: nx=45 ny=67
// expect: transpose-tile
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define CHECK(call)                                                            \
{                                                                              \
    const cudaError_t error = call;                                            \
    if (error != cudaSuccess)                                                  \
    {                                                                          \
        fprintf(stderr, "Error: %s:%d, ", __FILE__, __LINE__);                 \
        fprintf(stderr, "code: %d, reason: %s\n", error,                       \
                cudaGetErrorString(error));                                    \
        exit(1);                                                               \
    }                                                                          \
}

void initialData(float *in,  const int size)
{
    for (int i = 0; i < size; i++)
    {
        in[i] = (float)( rand() & 0xFF ) / 10.0f;
    }
}

void transposeHost(float *out, float *in, const int nx, const int ny)
{
    for( int iy = 0; iy < ny; ++iy)
    {
        for( int ix = 0; ix < nx; ++ix)
        {
            out[ix * ny + iy] = in[iy * nx + ix];
        }
    }
}

void checkResult(float *hostRef, float *gpuRef, const int size)
{
    double epsilon = 1.0E-8;
    bool match = 1;

    for (int i = 0; i < size; i++)
    {
        if (fabs(hostRef[i] - gpuRef[i]) > epsilon)
        {
            match = 0;
            printf("different on %dth element: host %f gpu %f\n", i, hostRef[i],
                    gpuRef[i]);
            break;
        }
    }

    if (!match)  printf("Arrays do not match.\n\n");
    else         printf("Arrays match.\n\n");
}

/*
 * case 6: transpose kernel: read in rows and write in columns + diagonal coordinate
 * transform
 */
__global__ void transposeDiagonalRow(float *out, float *in, const int nx,
                                     const int ny)
{
    unsigned int blk_y = blockIdx.x;
    unsigned int blk_x = (blockIdx.x + blockIdx.y) % gridDim.x;

    unsigned int ix = blockDim.x * blk_x + threadIdx.x;
    unsigned int iy = blockDim.y * blk_y + threadIdx.y;

    if (ix < nx && iy < ny)
    {
        out[ix * ny + iy] = in[iy * nx + ix];
    }
}

int main(int argc, char **argv)
{
    // set up array size (rectangular on purpose)
    int nx = 45;
    int ny = 67;

    int blockx = 16;
    int blocky = 16;

    size_t nBytes = nx * ny * sizeof(float);

    // diagonal ordering needs gridDim.x == gridDim.y
    int gx = (nx + blockx - 1) / blockx;
    int gy = (ny + blocky - 1) / blocky;
    int g = gx > gy ? gx : gy;
    dim3 block (blockx, blocky);
    dim3 grid  (g, g);

    float *h_A = (float *)malloc(nBytes);
    float *hostRef = (float *)malloc(nBytes);
    float *gpuRef  = (float *)malloc(nBytes);

    initialData(h_A, nx * ny);
    transposeHost(hostRef, h_A, nx, ny);

    float *d_A, *d_C;
    CHECK(cudaMalloc((float**)&d_A, nBytes));
    CHECK(cudaMalloc((float**)&d_C, nBytes));
    CHECK(cudaMemcpy(d_A, h_A, nBytes, cudaMemcpyHostToDevice));

    transposeDiagonalRow<<<grid, block>>>(d_C, d_A, nx, ny);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(gpuRef, d_C, nBytes, cudaMemcpyDeviceToHost));

    printf("transposeDiagonalRow <<< grid (%d,%d) block (%d,%d)>>>\n", grid.x, grid.y, block.x, block.y);
    checkResult(hostRef, gpuRef, nx * ny);

    CHECK(cudaFree(d_A));
    CHECK(cudaFree(d_C));
    free(h_A);
    free(hostRef);
    free(gpuRef);

    CHECK(cudaDeviceReset());
    return EXIT_SUCCESS;
}
