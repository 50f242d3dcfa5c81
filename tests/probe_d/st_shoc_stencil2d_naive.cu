// launch: grid cdiv(nCols, 32), cdiv(nRows, 8) block 32, 8
// sizes: nRows=500 nCols=610 wCenter=0.25 wCardinal=0.15 wDiagonal=0.0375
// expect: stencil-tile
// SHOC Stencil2D 9-point weighted stencil, naive global-memory template version (interior only, borders copied)
#include <cuda_runtime.h>
#include <iostream>

template<class T>
__global__ void
StencilKernelNaive( const T* data, T* newData, int nRows, int nCols,
                    T wCenter, T wCardinal, T wDiagonal )
{
    int gCol = blockIdx.x * blockDim.x + threadIdx.x;
    int gRow = blockIdx.y * blockDim.y + threadIdx.y;
    if( gRow >= nRows || gCol >= nCols )
    {
        return;
    }

    int idx = gRow * nCols + gCol;
    if( gRow == 0 || gCol == 0 || gRow == nRows - 1 || gCol == nCols - 1 )
    {
        newData[idx] = data[idx];
        return;
    }

    T center = data[idx];
    T cardinal = data[idx - nCols] + data[idx + nCols]
               + data[idx - 1] + data[idx + 1];
    T diagonal = data[idx - nCols - 1] + data[idx - nCols + 1]
               + data[idx + nCols - 1] + data[idx + nCols + 1];

    newData[idx] = wCenter * center + wCardinal * cardinal + wDiagonal * diagonal;
}

template<class T>
class CUDAStencil
{
public:
    CUDAStencil( T wCenter, T wCardinal, T wDiagonal, int lRows, int lCols )
        : wCenter( wCenter ), wCardinal( wCardinal ), wDiagonal( wDiagonal ),
          lRows( lRows ), lCols( lCols ) {}

    void operator()( T* dA, T* dB, int nRows, int nCols, unsigned int nIters )
    {
        dim3 block( lCols, lRows );
        dim3 grid( (nCols + lCols - 1) / lCols, (nRows + lRows - 1) / lRows );
        for( unsigned int iter = 0; iter < nIters; iter++ )
        {
            StencilKernelNaive<T><<<grid, block>>>( dA, dB, nRows, nCols,
                                                    wCenter, wCardinal, wDiagonal );
            T* tmp = dA; dA = dB; dB = tmp;
        }
        cudaDeviceSynchronize();
    }

private:
    T wCenter, wCardinal, wDiagonal;
    int lRows, lCols;
};

int main()
{
    const int nRows = 500, nCols = 610;
    float* dA; float* dB;
    cudaMalloc( &dA, nRows * nCols * sizeof(float) );
    cudaMalloc( &dB, nRows * nCols * sizeof(float) );
    cudaMemset( dA, 0, nRows * nCols * sizeof(float) );
    CUDAStencil<float> stencil( 0.25f, 0.15f, 0.0375f, 8, 32 );
    stencil( dA, dB, nRows, nCols, 10 );
    std::cout << "done" << std::endl;
    cudaFree( dA ); cudaFree( dB );
    return 0;
}
