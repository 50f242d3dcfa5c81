// style: transformer-from-scratch repo head split, template<typename T> permute (B, N, H, D) -> (B, H, N, D), one thread per output element, index unpacked with chained / and %, templated host launcher
// launch: grid cdiv(B * N * H * D, 256) block 256
// sizes: B=2 N=67 H=3 D=37
// template: float
// expect: transpose-tile|gather
#include <cuda_runtime.h>

template <typename T>
__global__ void split_heads(const T *__restrict__ in, T *__restrict__ out,
                            int B, int N, int H, int D)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total = B * N * H * D;
    if (idx < total) {
        // out is (B, H, N, D)
        int d = idx % D;
        int n = (idx / D) % N;
        int h = (idx / (D * N)) % H;
        int b = idx / (D * N * H);
        // in is (B, N, H, D)
        int src = ((b * N + n) * H + h) * D + d;
        out[idx] = in[src];
    }
}

template <typename T>
void launch_split_heads(const T *in, T *out, int B, int N, int H, int D, cudaStream_t s)
{
    int total = B * N * H * D;
    int threads = 256;
    int blocks = (total + threads - 1) / threads;
    split_heads<T><<<blocks, threads, 0, s>>>(in, out, B, N, H, D);
}

template void launch_split_heads<float>(const float *, float *, int, int, int, int, cudaStream_t);
