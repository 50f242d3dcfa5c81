// style: SHOC Stencil2D spelling - template<class T> kernel with host launcher DoStencil<T> explicitly instantiated for float and double, 9-point weights passed as wCenter/wCardinal/wDiagonal scalars, rows padded to a pitch (idx = gRow * pitch + gCol, neighbours at idx +- pitch +- 1), naive global-memory version in which halo cells are copied through unchanged
// launch: grid cdiv(nCols, 32), cdiv(nRows, 8) block 32, 8
// sizes: nRows=67 nCols=53 pitch=55 wCenter=0.25 wCardinal=0.15 wDiagonal=0.05
// template: float
// expect: stencil-tile|stencil-window|stencil-march
#include <cuda_runtime.h>

// Stencil2D: new(i,j) = wCenter * old(i,j)
//                     + wCardinal * (old(i-1,j) + old(i+1,j) + old(i,j-1) + old(i,j+1))
//                     + wDiagonal * (old(i-1,j-1) + old(i-1,j+1) + old(i+1,j-1) + old(i+1,j+1))
template<class T>
__global__
void
StencilKernel( const T* data,
               T* newData,
               int nRows,
               int nCols,
               int pitch,
               T wCenter,
               T wCardinal,
               T wDiagonal )
{
    int gRow = blockIdx.y * blockDim.y + threadIdx.y;
    int gCol = blockIdx.x * blockDim.x + threadIdx.x;

    if( (gRow >= nRows) || (gCol >= nCols) )
    {
        return;
    }

    int idx = gRow * pitch + gCol;

    // halo: copy the old value through
    if( (gRow == 0) || (gRow == nRows - 1) || (gCol == 0) || (gCol == nCols - 1) )
    {
        newData[idx] = data[idx];
        return;
    }

    T cardinal = data[idx - pitch]
               + data[idx + pitch]
               + data[idx - 1]
               + data[idx + 1];

    T diagonal = data[idx - pitch - 1]
               + data[idx - pitch + 1]
               + data[idx + pitch - 1]
               + data[idx + pitch + 1];

    newData[idx] = wCenter * data[idx]
                 + wCardinal * cardinal
                 + wDiagonal * diagonal;
}

// host-side launcher (SHOC drives the kernel from a templated RunTest<T>)
template<class T>
void
DoStencil( const T* dData, T* dNewData, int nRows, int nCols, int pitch,
           T wCenter, T wCardinal, T wDiagonal, cudaStream_t stream )
{
    dim3 block( 32, 8 );
    dim3 grid( (nCols + block.x - 1) / block.x, (nRows + block.y - 1) / block.y );
    StencilKernel<T><<<grid, block, 0, stream>>>( dData, dNewData, nRows, nCols, pitch,
                                                 wCenter, wCardinal, wDiagonal );
}

template void DoStencil<float>( const float*, float*, int, int, int, float, float, float, cudaStream_t );
template void DoStencil<double>( const double*, double*, int, int, int, double, double, double, cudaStream_t );
