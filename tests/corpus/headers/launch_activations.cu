// corpus: a .cu that only launches kernels defined in its header
// absent: sync-in-divergent-branch, register-spill, local-memory, uncoalesced-access, missing-restrict
#include "activations.cuh"

void run_gelu(const float* x, float* y, const __half* xh, __half* yh, int n) {
    gelu<float><<<(n + 255) / 256, 256>>>(x, y, n);
    gelu<__half><<<(n + 255) / 256, 256>>>(xh, yh, n);
    silu_inplace<<<264, 256>>>(y, n);
}
