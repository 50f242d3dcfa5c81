// style: OpenCV 2.4 gpu-module filter2D spelling - kernel inside namespace cv_gpu_device::imgproc, __constant__ float c_filter2DKernel uploaded by a loadFilter2DKernel host helper, uchar image addressed through byte steps (src_step/dst_step, ptr(y) idiom), BrdConstant-style functor giving 0 outside the image (zero padding), weights walked with *kernel++, float accumulation and saturate_cast<uchar> via __float2int_rn
// launch: grid cdiv(cols, 16), cdiv(rows, 16) block 16, 16
// sizes: cols=61 rows=45 src_step=67 dst_step=63
// expect: stencil-tile|stencil-window|stencil-march
#include <cstddef>
#include <cuda_runtime.h>

typedef unsigned char uchar;

#define FILTER2D_KSIZE  5
#define FILTER2D_ANCHOR 2

namespace cv_gpu_device
{
    namespace imgproc
    {
        __constant__ float c_filter2DKernel[FILTER2D_KSIZE * FILTER2D_KSIZE];

        template <typename _Tp> __device__ __forceinline__ _Tp saturate_cast(float v);
        template <> __device__ __forceinline__ uchar saturate_cast<uchar>(float v)
        {
            int iv = __float2int_rn(v);
            return (uchar)::min(::max(iv, 0), 255);
        }

        __device__ __forceinline__ const uchar* ptr(const uchar* data, size_t step, int y)
        {
            return (const uchar*)((const char*)data + y * step);
        }

        struct BrdConstant
        {
            __device__ __forceinline__ BrdConstant(int rows_, int cols_, float val_ = 0.f)
                : rows(rows_), cols(cols_), val(val_) {}

            __device__ __forceinline__ float at(int y, int x, const uchar* data, size_t step) const
            {
                return (x >= 0 && x < cols && y >= 0 && y < rows) ? (float)ptr(data, step, y)[x] : val;
            }

            int rows;
            int cols;
            float val;
        };

        __global__ void filter2D(const uchar* src, size_t src_step, uchar* dst, size_t dst_step, int cols, int rows)
        {
            const int x = blockIdx.x * blockDim.x + threadIdx.x;
            const int y = blockIdx.y * blockDim.y + threadIdx.y;

            if (x >= cols || y >= rows)
                return;

            const BrdConstant brd(rows, cols);

            float res = 0.f;

            const int baseX = x - FILTER2D_ANCHOR;
            const int baseY = y - FILTER2D_ANCHOR;

            const float* kernel = c_filter2DKernel;

            for (int i = 0; i < FILTER2D_KSIZE; ++i)
            {
                for (int j = 0; j < FILTER2D_KSIZE; ++j)
                    res += brd.at(baseY + i, baseX + j, src, src_step) * *kernel++;
            }

            uchar* dst_row = (uchar*)((char*)dst + y * dst_step);
            dst_row[x] = saturate_cast<uchar>(res);
        }
    }
}

void loadFilter2DKernel(const float* kernel)
{
    cudaMemcpyToSymbol(cv_gpu_device::imgproc::c_filter2DKernel, kernel,
                       FILTER2D_KSIZE * FILTER2D_KSIZE * sizeof(float));
}

void filter2D_gpu(const uchar* src, size_t src_step, uchar* dst, size_t dst_step, int cols, int rows,
                  cudaStream_t stream)
{
    const dim3 block(16, 16);
    const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);

    cv_gpu_device::imgproc::filter2D<<<grid, block, 0, stream>>>(src, src_step, dst, dst_step, cols, rows);
}
