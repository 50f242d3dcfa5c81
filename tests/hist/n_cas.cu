// negative: a double histogram through an atomicCAS loop
__global__ void hist_cas(const unsigned char* v, const double* w, unsigned long long* bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned long long* addr = &bins[v[i]];
        unsigned long long old = *addr, assumed;
        do {
            assumed = old;
            old = atomicCAS(addr, assumed, __double_as_longlong(w[i] + __longlong_as_double(assumed)));
        } while (assumed != old);
    }
}
