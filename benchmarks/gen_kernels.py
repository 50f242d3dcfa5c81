"""Generate a realistic ~300-line .cu file with 8 kernels (shared by the latency benchmarks)."""
from __future__ import annotations

KERNELS = [
    ("scale_{i}", """__global__ void scale_{i}(float* out, const float* in, float a, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {{
        float v = in[i];
        v = v * a + 1.0f;
        out[i] = v;
    }}
}}"""),
    ("transpose_{i}", """__global__ void transpose_{i}(float* out, const float* in, int w, int h) {{
    __shared__ float tile[32][32];
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}}"""),
    ("reduce_{i}", """__global__ void reduce_{i}(float* out, const float* in, int n) {{
    __shared__ float s[256];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
    float v = 0.0f;
    if (i < n) v = in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    s[tid] = v;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {{
        if (tid < k) s[tid] += s[tid + k];
        __syncthreads();
    }}
    if (tid == 0) atomicAdd(out, s[0]);
}}"""),
    ("softmax_{i}", """__global__ void softmax_{i}(float* out, const float* in, int rows, int cols) {{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* x = in + (size_t)r * cols;
    float m = -1e30f;
    for (int c = 0; c < cols; ++c) m = fmaxf(m, x[c]);
    float sum = 0.0f;
    for (int c = 0; c < cols; ++c) sum += expf(x[c] - m);
    for (int c = 0; c < cols; ++c) out[(size_t)r * cols + c] = expf(x[c] - m) / sum;
}}"""),
    ("matmul_{i}", """__global__ void matmul_{i}(float* C, const float* A, const float* B, int N) {{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < N && col < N) {{
        float acc = 0.0f;
        for (int k = 0; k < N; ++k) acc += A[row * N + k] * B[k * N + col];
        C[row * N + col] = acc;
    }}
}}"""),
    ("stencil_{i}", """__global__ void stencil_{i}(float* out, const float* in, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 3 || i >= n - 3) return;
    float acc = 0.0f;
    #pragma unroll
    for (int k = -3; k <= 3; ++k) acc += in[i + k] * (0.1f * (k + 4));
    out[i] = acc;
}}"""),
    ("hist_{i}", """__global__ void hist_{i}(unsigned* bins, const unsigned char* data, int n) {{
    __shared__ unsigned local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}}"""),
    ("poly_{i}", """__global__ void poly_{i}(float* y, const float* x, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {{
        float v = x[i];
        float r = 0.0f;
        for (int k = 0; k < 16; ++k) r = r * v + (float)(k + 1);
        y[i] = r;
    }}
}}"""),
]


def generate(lines: int = 300) -> str:
    out = ["// generated benchmark file: 8 kernels", "#include <cuda_runtime.h>", ""]
    for i, (_, body) in enumerate(KERNELS):
        out += [f"// kernel {i}", body.format(i=i), ""]
    helper = 0
    while len("\n".join(out).split("\n")) < lines - 4:
        out += [f"__device__ __forceinline__ float helper_{helper}(float v) {{", f"    return v * {helper + 1}.0f + 0.5f;", "}", ""]
        helper += 1
    out += ["void launch_all(float* a, const float* b, int n) {", "    scale_0<<<(n + 255) / 256, 256>>>(a, b, 2.0f, n);", "}"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    import sys

    sys.stdout.write(generate())


def generate_many(n: int) -> str:
    """`n` trivial kernels in one file, each launched once (the scale benchmark)."""
    out = ["// generated benchmark file: many trivial kernels", ""]
    for i in range(n):
        out += [f"__global__ void k{i}(float* __restrict__ out, const float* __restrict__ in, int n) {{",
                "    int i = blockIdx.x * blockDim.x + threadIdx.x;",
                f"    if (i < n) out[i] = in[i] * {i + 1}.0f;", "}", ""]
    out.append("void launch_all(float* a, const float* b, int n) {")
    out += [f"    k{i}<<<(n + 255) / 256, 256>>>(a, b, n);" for i in range(n)]
    out.append("}")
    return "\n".join(out) + "\n"
