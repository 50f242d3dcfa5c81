// negative: the last writer's value per slot (atomicExch is not a commutative update)
__global__ void last_seen(const int* ids, int* slot, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicExch(&slot[ids[i] & 255], i);
}
