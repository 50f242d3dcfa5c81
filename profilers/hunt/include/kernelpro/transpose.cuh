/// \file KernelPro building block: shared-memory tiled matrix transpose.
/// Transpose through a shared-memory tile: the block reads a Tile x Tile tile of the input
/// row by row (coalesced), and writes it to the output row by row (coalesced) reading the
/// tile down its columns. The tile has one padding column (Tile + 1 words per row), so a
/// column read touches 32 different banks instead of one. A naive transpose has either its
/// reads or its writes strided by a whole row, which wastes most of each 32-byte sector.
///
/// Usage:
///   #include <kernelpro/transpose.cuh>
///   kernelpro::transpose(out, in, rows, cols, stream);   // host side: launches the kernel
///   // or inside your own kernel, with blockDim = (Tile, Rows):
///   kernelpro::transpose_tile<32, 8>(out, in, rows, cols);
#pragma once

#include <cuda_runtime.h>

namespace kernelpro {

/// Transpose the tile at (blockIdx.y, blockIdx.x) of the rows x cols row-major matrix `in`
/// into `out` (cols x rows, row-major): out[c * rows + r] = in[r * cols + c]. Launch with
/// blockDim (Tile, Rows) where Rows divides Tile, gridDim (ceil(cols / Tile), ceil(rows / Tile)).
/// Edges are bounds-checked, so any rows and cols work.
template <int Tile = 32, int Rows = 8, class T>
__device__ __forceinline__ void transpose_tile(T* __restrict__ out, const T* __restrict__ in, int rows, int cols) {
  static_assert(Tile % Rows == 0, "Rows must divide Tile");
  __shared__ T tile[Tile][Tile + 1];  // +1: column reads hit distinct banks
  int x = blockIdx.x * Tile + threadIdx.x;
  int y = blockIdx.y * Tile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < Tile; j += Rows) {
    if (x < cols && y + j < rows) {
      tile[threadIdx.y + j][threadIdx.x] = in[size_t(y + j) * cols + x];
    }
  }
  __syncthreads();
  x = blockIdx.y * Tile + threadIdx.x;  // column of the output = row of the input
  y = blockIdx.x * Tile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < Tile; j += Rows) {
    if (x < rows && y + j < cols) {
      out[size_t(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
    }
  }
}

/// A kernel around transpose_tile: one block per tile.
template <int Tile = 32, int Rows = 8, class T>
__global__ void __launch_bounds__(Tile * Rows) transpose_kernel(T* __restrict__ out, const T* __restrict__ in,
                                                                 int rows, int cols) {
  transpose_tile<Tile, Rows>(out, in, rows, cols);
}

/// Host side: transpose the rows x cols row-major matrix `in` into `out` on `stream`.
template <int Tile = 32, int Rows = 8, class T>
cudaError_t transpose(T* out, const T* in, int rows, int cols, cudaStream_t stream = nullptr) {
  if (rows <= 0 || cols <= 0) {
    return rows == 0 || cols == 0 ? cudaSuccess : cudaErrorInvalidValue;
  }
  dim3 block(Tile, Rows);
  dim3 grid((cols + Tile - 1) / Tile, (rows + Tile - 1) / Tile);
  transpose_kernel<Tile, Rows><<<grid, block, 0, stream>>>(out, in, rows, cols);
  return cudaGetLastError();
}

}  // namespace kernelpro
