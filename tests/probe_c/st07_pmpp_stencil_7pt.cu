// launch: grid cdiv(N, 8), cdiv(N, 8), cdiv(N, 8) block 8, 8, 8
// sizes: N=70
// expect: stencil-march|stencil-tile
// 3-D seven-point stencil, one output per thread with interior guards (PMPP 4th ed. ch. 8 basic stencil_kernel)
#define c0 0.4f
#define c1 0.1f
#define c2 0.1f
#define c3 0.1f
#define c4 0.1f
#define c5 0.1f
#define c6 0.1f

__global__ void stencil_kernel(float* in, float* out, unsigned int N) {
    unsigned int i = blockIdx.z*blockDim.z + threadIdx.z;
    unsigned int j = blockIdx.y*blockDim.y + threadIdx.y;
    unsigned int k = blockIdx.x*blockDim.x + threadIdx.x;
    if (i >= 1 && i < N - 1 && j >= 1 && j < N - 1 && k >= 1 && k < N - 1) {
        out[i*N*N + j*N + k] = c0*in[i*N*N + j*N + k]
                             + c1*in[i*N*N + j*N + (k - 1)]
                             + c2*in[i*N*N + j*N + (k + 1)]
                             + c3*in[i*N*N + (j - 1)*N + k]
                             + c4*in[i*N*N + (j + 1)*N + k]
                             + c5*in[(i - 1)*N*N + j*N + k]
                             + c6*in[(i + 1)*N*N + j*N + k];
    }
}
