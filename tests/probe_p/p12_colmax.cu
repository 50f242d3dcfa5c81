// style: StackOverflow "max of each column" answer; column base pointer mat + col, while-loop over rows with fmaxf, -FLT_MAX seed, early return, main() with a CHECK macro
// launch: grid cdiv(cols, 64) block 64
// sizes: rows=517 cols=203
// expect: column
#include <cfloat>
#include <cstdio>
#include <vector>

#define CHECK(call) { cudaError_t err = call; if (err != cudaSuccess) { \
    fprintf(stderr, "%s at line %d\n", cudaGetErrorString(err), __LINE__); return 1; } }

__global__ void colMaxKernel(const float* mat, float* out, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= cols) return;

    const float* colp = mat + col;
    float m = -FLT_MAX;
    int r = 0;
    while (r < rows) {
        m = fmaxf(m, colp[r * cols]);
        ++r;
    }
    out[col] = m;
}

int main()
{
    const int rows = 517, cols = 203;
    std::vector<float> h(rows * cols), res(cols);
    for (int i = 0; i < rows * cols; ++i) h[i] = (float)((i * 37) % 1009) - 500.0f;

    float *d_mat, *d_out;
    CHECK(cudaMalloc(&d_mat, h.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_out, cols * sizeof(float)));
    CHECK(cudaMemcpy(d_mat, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));

    int threads = 64;
    int blocks = (cols + threads - 1) / threads;
    colMaxKernel<<<blocks, threads>>>(d_mat, d_out, rows, cols);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(res.data(), d_out, cols * sizeof(float), cudaMemcpyDeviceToHost));
    printf("max of column 0 = %f\n", res[0]);
    cudaFree(d_mat);
    cudaFree(d_out);
    return 0;
}
