// count the elements above a threshold: a conditional atomic on an int, an early return
__global__ void count_above(const float* x, int* count, float t, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (x[i] > t) atomicAdd(count, 1);
}
