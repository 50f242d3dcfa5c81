// a 3x3 box filter over an interleaved RGB image: neighbouring threads read pixels `ch` floats apart
__global__ void box_rgb(const float* img, float* out, int w, int h, int ch) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.z;
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
    float s = img[((y - 1) * w + x) * ch + c] + img[(y * w + x - 1) * ch + c] + img[(y * w + x) * ch + c]
            + img[(y * w + x + 1) * ch + c] + img[((y + 1) * w + x) * ch + c];
    out[(y * w + x) * ch + c] = s * 0.2f;
}
