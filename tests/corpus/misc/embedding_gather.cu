// corpus: embedding lookup: one block per token, the row of the table copied with float4 loads
// absent: fp64-in-float-kernel, uncoalesced-access, narrow-global-access, sync-in-divergent-branch, missing-restrict, register-spill, local-memory
__global__ void embedding_gather(const long long* __restrict__ ids, const float4* __restrict__ table,
                                 float4* __restrict__ out, int dim4, long long vocab) {
    const long long id = ids[blockIdx.x];
    const float4* row = table + (id < vocab ? id : 0) * dim4;
    float4* dst = out + (size_t)blockIdx.x * dim4;
    for (int c = threadIdx.x; c < dim4; c += blockDim.x) dst[c] = row[c];
}

void launch_embedding(const long long* ids, const float4* table, float4* out, int tokens, int dim, long long vocab) {
    embedding_gather<<<tokens, 128>>>(ids, table, out, dim / 4, vocab);
}
