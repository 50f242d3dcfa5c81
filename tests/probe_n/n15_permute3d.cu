// style: deep-learning framework permute op -- size_t grid-stride loop over the OUTPUT index, coordinates recovered with / and %
// launch: grid cdiv(d0 * d1 * d2, 256) block 256
// sizes: d0=37 d1=29 d2=23
// expect: transpose-tile|gather
#include <cstddef>
#include <cuda_runtime.h>

// in: [d0][d1][d2]  ->  out: [d2][d0][d1]
__global__ void permute_120(const float *__restrict__ in, float *__restrict__ out,
                            size_t d0, size_t d1, size_t d2)
{
    const size_t total = d0 * d1 * d2;
    for (size_t o = blockIdx.x * (size_t)blockDim.x + threadIdx.x; o < total;
         o += (size_t)gridDim.x * blockDim.x) {
        size_t j = o % d1;          // innermost of out
        size_t i = (o / d1) % d0;
        size_t k = o / (d1 * d0);   // outermost of out
        out[o] = in[(i * d1 + j) * d2 + k];
    }
}
