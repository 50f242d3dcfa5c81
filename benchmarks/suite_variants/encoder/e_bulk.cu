// launch: {"grid": ["cdiv(B * T, 8)"], "block": [256], "shared_bytes": "32 * C + 16"}
// Token + position embeddings with Hopper's bulk copies (TMA, cp.async.bulk): a block takes 8 tokens;
// lanes 0-7 of warp 0 each copy one wte row and one wpe row into shared memory (no registers held
// per byte in flight, 16 KB of wte per block at C 1024), one mbarrier counts the bytes; the block
// adds in shared memory and the same lanes write the rows back with bulk stores. C % 8 != 0 (rows
// not 16-byte multiples): element by element. sm_90 only: not run in the CPU emulator.
#include <cuda_bf16.h>
typedef __nv_bfloat16 floatX;
struct alignas(16) pack8 { floatX v[8]; };
#define R 8  // tokens per block

__device__ __forceinline__ unsigned smem_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

__global__ void __launch_bounds__(256) encoder_forward(floatX* __restrict__ out, const int* __restrict__ tokens,
                                                       const floatX* __restrict__ wte, const floatX* __restrict__ wpe,
                                                       int B, int T, int C) {
  const int bt0 = blockIdx.x * R;
  const int rows = min(R, B * T - bt0);
  if (C % 8 != 0) {
    for (int i = threadIdx.x; i < rows * C; i += blockDim.x) {
      const int bt = bt0 + i / C, c = i % C;
      out[(size_t)bt * C + c] = __float2bfloat16(__bfloat162float(wte[(size_t)tokens[bt] * C + c]) +
                                                 __bfloat162float(wpe[(size_t)(bt % T) * C + c]));
    }
    return;
  }
  extern __shared__ __align__(16) unsigned char smem[];
  unsigned long long* bar = reinterpret_cast<unsigned long long*>(smem);
  floatX* se = reinterpret_cast<floatX*>(smem + 16);  // R rows of wte, then the result
  floatX* sp = se + R * C;                            // R rows of wpe
  const unsigned row_bytes = (unsigned)C * 2;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(bar)));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (warp == 0) {
    if (lane == 0)  // one arrival, and the bytes every copy will bring
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
                   "r"(2u * row_bytes * (unsigned)rows) : "memory");
    __syncwarp();
    if (lane < rows) {
      const int bt = bt0 + lane;
      const floatX* e = wte + (size_t)tokens[bt] * C;
      const floatX* p = wpe + (size_t)(bt % T) * C;
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                   ::"r"(smem_addr(se + lane * C)), "l"(e), "r"(row_bytes), "r"(smem_addr(bar)) : "memory");
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                   ::"r"(smem_addr(sp + lane * C)), "l"(p), "r"(row_bytes), "r"(smem_addr(bar)) : "memory");
    }
  }
  // wait for phase 0 of the barrier (a trap rather than a hang if the bytes never come)
  unsigned done = 0;
  const long long start = clock64();
  while (true) {
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done) : "r"(smem_addr(bar)) : "memory");
    if (done) break;
    if (clock64() - start > (1ll << 32)) __trap();  // about 2 s
  }
  const int packs = rows * C / 8;
  for (int i = threadIdx.x; i < packs; i += blockDim.x) {
    const pack8 a = reinterpret_cast<const pack8*>(se)[i];
    const pack8 q = reinterpret_cast<const pack8*>(sp)[i];
    pack8 r;
#pragma unroll
    for (int k = 0; k < 8; ++k) r.v[k] = __float2bfloat16(__bfloat162float(a.v[k]) + __bfloat162float(q.v[k]));
    reinterpret_cast<pack8*>(se)[i] = r;
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // the adds, visible to the bulk stores
  __syncthreads();
  if (warp == 0 && lane < rows) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                 ::"l"(out + (size_t)(bt0 + lane) * C), "r"(smem_addr(se + lane * C)), "r"(row_bytes) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");  // shared memory read before the block ends
  }
}
