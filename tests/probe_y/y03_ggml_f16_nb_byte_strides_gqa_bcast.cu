// style: ggml-cuda style f16 x f32 mul_mat on non-contiguous tensors: src0/src1/dst passed as const char * with ggml byte strides nb01/nb02/nb11/nb12/nb1/nb2 (size_t) and int64_t ne00/ne01/ne11/ne12, row pointers formed by byte arithmetic and cast back to half/float, GQA-style broadcast of src0 across src1 channels (i02 = i12 / r2) with the channel on blockIdx.z; dst[i12][i11][i01] = sum_k src0[i02][i01][k] * src1[i12][i11][k]
// launch: grid cdiv(ne01, 32), cdiv(ne11, 8), ne12 block 32, 8
// sizes: ne00=77 ne01=45 ne11=37 ne12=4 r2=2 nb01=160 nb02=7200 nb11=308 nb12=11396 nb1=180 nb2=6660
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_fp16.h>
#include <cstdint>
#include <cstddef>

// src0: f16, ne00 x ne01 x ne02 (row = one src0 row of ne00 halves, rows nb01 bytes apart, may be padded)
// src1: f32, ne10 x ne11 x ne12 (ne10 == ne00)
// dst : f32, ne0 x ne1 x ne2 with ne0 == ne01, ne1 == ne11, ne2 == ne12
static __global__ void mul_mat_f16_f32_bcast(
        const char * __restrict__ src0, const char * __restrict__ src1, char * __restrict__ dst,
        const int64_t ne00, const int64_t ne01, const int64_t ne11, const int64_t ne12, const int64_t r2,
        const size_t nb01, const size_t nb02, const size_t nb11, const size_t nb12,
        const size_t nb1,  const size_t nb2) {
    const int64_t i01 = (int64_t) blockIdx.x*blockDim.x + threadIdx.x;
    const int64_t i11 = (int64_t) blockIdx.y*blockDim.y + threadIdx.y;
    const int64_t i12 = blockIdx.z;

    if (i01 >= ne01 || i11 >= ne11 || i12 >= ne12) {
        return;
    }

    // broadcast src0 across src1 (e.g. grouped-query attention: r2 heads of q share one kv head)
    const int64_t i02 = i12 / r2;

    const half  * x = (const half  *) (src0 + i01*nb01 + i02*nb02);
    const float * y = (const float *) (src1 + i11*nb11 + i12*nb12);
    float       * d = (float       *) (dst  + i11*nb1  + i12*nb2);

    float sumf = 0.0f;
    for (int64_t i00 = 0; i00 < ne00; ++i00) {
        sumf += __half2float(x[i00]) * y[i00];
    }

    d[i01] = sumf;
}

void ggml_cuda_mul_mat_f16_f32_bcast(const void * src0_d, const void * src1_d, void * dst_d,
        int64_t ne00, int64_t ne01, int64_t ne02, int64_t ne11, int64_t ne12,
        size_t nb01, size_t nb02, size_t nb11, size_t nb12, size_t nb1, size_t nb2, cudaStream_t stream) {
    const int64_t r2 = ne12 / ne02;
    const dim3 block_dims(32, 8, 1);
    const dim3 block_nums((ne01 + 31)/32, (ne11 + 7)/8, ne12);
    mul_mat_f16_f32_bcast<<<block_nums, block_dims, 0, stream>>>(
        (const char *) src0_d, (const char *) src1_d, (char *) dst_d,
        ne00, ne01, ne11, ne12, r2, nb01, nb02, nb11, nb12, nb1, nb2);
}
