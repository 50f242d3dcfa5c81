// style: ggml-cuda / llama.cpp naive quantised mul_mat: block_q8_0 structs (half d + int8_t qs[QK8_0]) for the weights dequantised on the fly (d * qs[j]) against f32 activations, ggml argument names ncols_x / nrows_x / nrows_y / nrows_dst, row of x on threadIdx.x and token row of y on y, #pragma unroll over the 32 quants of a block, dst = y * x^T written with row stride nrows_dst
// launch: grid cdiv(nrows_x, 32), cdiv(nrows_y, 4) block 32, 4
// sizes: ncols_x=96 nrows_x=45 nrows_y=37 nrows_dst=47
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_fp16.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

#define QK8_0 32
typedef struct {
    half    d;              // delta
    int8_t  qs[QK8_0];      // quants
} block_q8_0;
static_assert(sizeof(block_q8_0) == sizeof(half) + QK8_0, "wrong q8_0 block size/padding");

#define CUDA_CHECK(err)                                                         \
    do {                                                                        \
        cudaError_t err_ = (err);                                               \
        if (err_ != cudaSuccess) {                                              \
            fprintf(stderr, "CUDA error %d at %s:%d: %s\n", err_, __FILE__,     \
                    __LINE__, cudaGetErrorString(err_));                        \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

// dst[row_y*nrows_dst + row_x] = sum_i dequant(x[row_x, i]) * y[row_y, i]
// x: nrows_x rows of ncols_x/QK8_0 q8_0 blocks, y: nrows_y rows of ncols_x floats
static __global__ void mul_mat_q8_0_f32_naive(const void * __restrict__ vx, const float * __restrict__ y, float * __restrict__ dst,
                                              const int ncols_x, const int nrows_x, const int nrows_y, const int nrows_dst) {
    const int row_x = blockIdx.x*blockDim.x + threadIdx.x;
    const int row_y = blockIdx.y*blockDim.y + threadIdx.y;

    if (row_x >= nrows_x || row_y >= nrows_y) {
        return;
    }

    const int blocks_per_row = ncols_x / QK8_0;
    const block_q8_0 * x = (const block_q8_0 *) vx + row_x*blocks_per_row;
    const float * yr = y + row_y*ncols_x;

    float tmp = 0.0f;
    for (int ib = 0; ib < blocks_per_row; ++ib) {
        const float d = __half2float(x[ib].d);
        float sumi = 0.0f;
#pragma unroll
        for (int j = 0; j < QK8_0; ++j) {
            sumi += (float) x[ib].qs[j] * yr[ib*QK8_0 + j];
        }
        tmp += d*sumi;
    }

    dst[row_y*nrows_dst + row_x] = tmp;
}

static void ggml_cuda_op_mul_mat_q8_0_naive(const void * vx, const float * y, float * dst,
                                            int ncols_x, int nrows_x, int nrows_y, int nrows_dst, cudaStream_t stream) {
    if (ncols_x % QK8_0 != 0) { fprintf(stderr, "ncols_x %% QK8_0 != 0\n"); abort(); }
    const dim3 block_dims(32, 4, 1);
    const dim3 block_nums((nrows_x + block_dims.x - 1)/block_dims.x, (nrows_y + block_dims.y - 1)/block_dims.y, 1);
    mul_mat_q8_0_f32_naive<<<block_nums, block_dims, 0, stream>>>(vx, y, dst, ncols_x, nrows_x, nrows_y, nrows_dst);
}

int main() {
    const int ncols_x = 96, nrows_x = 45, nrows_y = 37, nrows_dst = 47;
    const int nb = ncols_x / QK8_0;

    std::vector<block_q8_0> hx(nrows_x*nb);
    std::vector<float> wref(nrows_x*ncols_x);
    for (int r = 0; r < nrows_x; ++r) {
        for (int ib = 0; ib < nb; ++ib) {
            const float d = 0.01f*(1 + (r + ib) % 5);
            hx[r*nb + ib].d = __float2half(d);
            const float dq = __half2float(hx[r*nb + ib].d);
            for (int j = 0; j < QK8_0; ++j) {
                const int8_t q = (int8_t)((r*7 + ib*13 + j*3) % 255 - 127);
                hx[r*nb + ib].qs[j] = q;
                wref[r*ncols_x + ib*QK8_0 + j] = dq*q;
            }
        }
    }
    std::vector<float> hy(nrows_y*ncols_x);
    for (size_t i = 0; i < hy.size(); ++i) hy[i] = (float)((int)(i % 23) - 11)/11.0f;

    void * dx; float * dy; float * ddst;
    CUDA_CHECK(cudaMalloc(&dx, hx.size()*sizeof(block_q8_0)));
    CUDA_CHECK(cudaMalloc(&dy, hy.size()*sizeof(float)));
    CUDA_CHECK(cudaMalloc(&ddst, (size_t)nrows_y*nrows_dst*sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dx, hx.data(), hx.size()*sizeof(block_q8_0), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dy, hy.data(), hy.size()*sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(ddst, 0, (size_t)nrows_y*nrows_dst*sizeof(float)));

    ggml_cuda_op_mul_mat_q8_0_naive(dx, dy, ddst, ncols_x, nrows_x, nrows_y, nrows_dst, 0);
    CUDA_CHECK(cudaDeviceSynchronize());

    std::vector<float> hdst((size_t)nrows_y*nrows_dst);
    CUDA_CHECK(cudaMemcpy(hdst.data(), ddst, hdst.size()*sizeof(float), cudaMemcpyDeviceToHost));
    double max_err = 0.0;
    for (int ry = 0; ry < nrows_y; ++ry) {
        for (int rx = 0; rx < nrows_x; ++rx) {
            double ref = 0.0;
            for (int i = 0; i < ncols_x; ++i) ref += (double)wref[rx*ncols_x + i]*hy[ry*ncols_x + i];
            const double err = fabs(ref - hdst[ry*nrows_dst + rx]);
            if (err > max_err) max_err = err;
        }
    }
    printf("max_err = %g\n", max_err);
    cudaFree(dx); cudaFree(dy); cudaFree(ddst);
    return max_err < 1e-3 ? 0 : 1;
}
