// a template over the element type, the grid's y on the columns
template <typename T>
__global__ void transpose_tmpl(T* out, const T* in, int height, int width) {
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < height && col < width) {
        out[row * width + col] = in[col * height + row];
    }
}
template __global__ void transpose_tmpl<float>(float*, const float*, int, int);
