// launch: grid cdiv(N, 64) block 64
// expect: over a block per row
__global__ void crossentropy_forward(float* losses, const float* logits, const int* targets, int N, int V) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < N) {
        const float* l = logits + (long)b * V;
        float maxv = l[0];
        for (int v = 1; v < V; v++)
            maxv = l[v] > maxv ? l[v] : maxv;
        double denom = 0.0;
        for (int v = 0; v < V; v++)
            denom += exp((double)(l[v] - maxv));
        int tgt = targets[b];
        losses[b] = -(l[tgt] - maxv - (float)log(denom));
    }
}
