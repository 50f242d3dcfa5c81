// style: medical-imaging volume smoothing, 3x3x3 mean (27-point box) on a float CT volume with dims dimx/dimy/dimz, 3-D grid of 8x8x4 blocks, VOX(x,y,z) macro with long long math, triple dz/dy/dx loop that skips out-of-volume voxels and divides by the count, CHECK macro host main
// launch: grid cdiv(dimx, 8), cdiv(dimy, 8), cdiv(dimz, 4) block 8, 8, 4
// sizes: dimx=67 dimy=45 dimz=37
// expect: stencil-tile|stencil-window|stencil-march
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(e) do { cudaError_t err__ = (e); if (err__ != cudaSuccess) { \
    fprintf(stderr, "CUDA: %s (%s:%d)\n", cudaGetErrorString(err__), __FILE__, __LINE__); exit(EXIT_FAILURE); } } while (0)

#define VOX(x, y, z) (((long long)(z) * dimy + (y)) * dimx + (x))

__global__ void box3x3x3(const float *vol_in, float *vol_out, int dimx, int dimy, int dimz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= dimx || y >= dimy || z >= dimz) return;

    float acc = 0.0f;
    int cnt = 0;
    for (int dz = -1; dz <= 1; dz++) {
        int zz = z + dz;
        if (zz < 0 || zz >= dimz) continue;
        for (int dy = -1; dy <= 1; dy++) {
            int yy = y + dy;
            if (yy < 0 || yy >= dimy) continue;
            for (int dx = -1; dx <= 1; dx++) {
                int xx = x + dx;
                if (xx < 0 || xx >= dimx) continue;
                acc += vol_in[VOX(xx, yy, zz)];
                cnt++;
            }
        }
    }
    vol_out[VOX(x, y, z)] = acc / (float)cnt;
}

int main()
{
    const int dimx = 67, dimy = 45, dimz = 37;
    const size_t nvox = (size_t)dimx * dimy * dimz;
    float *h_vol = (float *)malloc(nvox * sizeof(float));
    for (size_t i = 0; i < nvox; i++) h_vol[i] = (float)(rand() % 4096) - 1024.0f;   // HU-like

    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, nvox * sizeof(float)));
    CHECK(cudaMalloc(&d_out, nvox * sizeof(float)));
    CHECK(cudaMemcpy(d_in, h_vol, nvox * sizeof(float), cudaMemcpyHostToDevice));

    dim3 block(8, 8, 4);
    dim3 grid((dimx + 7) / 8, (dimy + 7) / 8, (dimz + 3) / 4);
    box3x3x3<<<grid, block>>>(d_in, d_out, dimx, dimy, dimz);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_vol, d_out, nvox * sizeof(float), cudaMemcpyDeviceToHost));
    printf("smoothed corner voxel: %f\n", h_vol[0]);

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    free(h_vol);
    return 0;
}
