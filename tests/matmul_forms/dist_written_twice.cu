// the difference written out twice, the sum in double, the query on threadIdx.x (out is queries x refs, so the
// output's rows are the queries: uncoalesced as written)
__global__ void knn_dist(const float* q, const float* ref, double* out, int nq, int nr, int dim) {
    int a = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y * blockDim.y + threadIdx.y;
    if (a < nq && b < nr) {
        double acc = 0.0;
        for (int k = 0; k < dim; ++k)
            acc += (double)(q[a * dim + k] - ref[b * dim + k]) * (q[a * dim + k] - ref[b * dim + k]);
        out[a * nr + b] = acc;
    }
}
