// style: pygcn-style GraphConvolution forward in raw CUDA (support = X @ W, then output = adj @ support + bias, ReLU): chain of two dense products, target gcn_aggregate_kernel reads the support temporary; its k loop walks row/column pointers with `a += 1; s += out_features;` instead of indexing, bias plus ReLU in the epilogue
// kernel: gcn_aggregate_kernel
// launch: grid cdiv(out_features, 32), cdiv(num_nodes, 8) block 32, 8
// sizes: num_nodes=97 out_features=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

// support[num_nodes, out_features] = features[num_nodes, in_features] @ weight[in_features, out_features]
__global__ void gcn_support_kernel(const float* __restrict__ features,
                                   const float* __restrict__ weight,
                                   float* __restrict__ support,
                                   int num_nodes, int in_features, int out_features)
{
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    int v = blockIdx.y * blockDim.y + threadIdx.y;
    if (v >= num_nodes || f >= out_features) return;
    float acc = 0.0f;
    for (int k = 0; k < in_features; ++k)
        acc += features[v * in_features + k] * weight[k * out_features + f];
    support[v * out_features + f] = acc;
}

// output[num_nodes, out_features] = relu(adj[num_nodes, num_nodes] @ support + bias)
__global__ void gcn_aggregate_kernel(const float* __restrict__ adj,
                                     const float* __restrict__ support,
                                     const float* __restrict__ bias,
                                     float* __restrict__ output,
                                     int num_nodes, int out_features)
{
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    int v = blockIdx.y * blockDim.y + threadIdx.y;
    if (v >= num_nodes || f >= out_features) return;

    const float* a = adj + (size_t)v * num_nodes;   // row v of the normalized adjacency
    const float* s = support + f;                   // column f of support
    float acc = 0.0f;
    for (int u = 0; u < num_nodes; ++u) {
        acc += (*a) * (*s);
        a += 1;
        s += out_features;
    }
    acc += bias[f];
    output[(size_t)v * out_features + f] = acc > 0.0f ? acc : 0.0f;
}

void gcn_layer_forward(const float* adj, const float* features, const float* weight, const float* bias,
                       float* support, float* output, int num_nodes, int in_features, int out_features)
{
    dim3 block(32, 8);
    dim3 grid((out_features + block.x - 1) / block.x, (num_nodes + block.y - 1) / block.y);
    gcn_support_kernel<<<grid, block>>>(features, weight, support, num_nodes, in_features, out_features);
    gcn_aggregate_kernel<<<grid, block>>>(adj, support, bias, output, num_nodes, out_features);
}
