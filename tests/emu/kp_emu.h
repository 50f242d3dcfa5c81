// kp_emu.h -- run CUDA kernels on the CPU for tests: one std::thread per CUDA thread.
//
// Blocks run one after another; the threads of a block run at once, so __syncthreads,
// __syncwarp and the warp shuffles are real barriers (std::barrier) between real threads.
// A thread that returns drops out of its block's and warp's barriers, as on the GPU.
// Covered: what KernelPro's restructured kernels and the test kernels use (thread/block
// indices, barriers, shuffles, float/double/int math, __nv_bfloat16 and __half as storage
// types with float arithmetic, atomicAdd). Not a CUDA implementation: a test harness.
#pragma once
#include <atomic>
#include <barrier>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <fstream>
#include <iterator>
#include <thread>
#include <type_traits>
#include <vector>
#include <algorithm>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __shared__ static
#define __constant__ static
#define __align__(n) alignas(n)
#define __cluster_dims__(...)

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
using uint3 = dim3;
typedef unsigned int uint;

inline thread_local dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
static const int warpSize = 32;

// ------------------------------------------------------------------ bf16 / half as storage
struct __nv_bfloat16 {
  uint16_t bits;
  __nv_bfloat16() = default;
  __nv_bfloat16(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) { bits = 0x7fc0; return; }
    u += 0x7fffu + ((u >> 16) & 1u);
    bits = (uint16_t)(u >> 16);
  }
  __nv_bfloat16(double d) : __nv_bfloat16((float)d) {}
  __nv_bfloat16(int i) : __nv_bfloat16((float)i) {}
  operator float() const {
    uint32_t u = (uint32_t)bits << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};
typedef __nv_bfloat16 nv_bfloat16;
inline float __bfloat162float(__nv_bfloat16 v) { return (float)v; }
inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
// bf16 arithmetic intrinsics: computed in float and rounded once, as the hardware does
inline __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16((float)a + (float)b); }
inline __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16((float)a * (float)b); }
inline __nv_bfloat16 __hsub(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16((float)a - (float)b); }
inline __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) {
  return __nv_bfloat16(std::fma((float)a, (float)b, (float)c));
}

struct __half {
  _Float16 h;
  __half() = default;
  __half(float f) : h((_Float16)f) {}
  __half(double d) : h((_Float16)d) {}
  __half(int i) : h((_Float16)i) {}
  operator float() const { return (float)h; }
};
typedef __half half;
inline float __half2float(__half v) { return (float)v; }
inline __half __float2half(float f) { return __half(f); }

// ------------------------------------------------------------------ vector types
struct alignas(8) float2 { float x, y; };
inline float2 make_float2(float x, float y);

// bf16 and half pairs (cuda_bf16.h / cuda_fp16.h): storage, conversions and the pairwise
// arithmetic, each lane computed in float and rounded once, as the single-value intrinsics above
struct alignas(4) __nv_bfloat162 {
  __nv_bfloat16 x, y;
  __nv_bfloat162() = default;
  __nv_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) : x(a), y(b) {}
};
typedef __nv_bfloat162 nv_bfloat162;
inline __nv_bfloat162 make_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return {a, b}; }
inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return {a, b}; }
inline __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a) { return {a, a}; }
inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return {__nv_bfloat16(a), __nv_bfloat16(b)}; }
inline __nv_bfloat162 __float2bfloat162_rn(float a) { return {__nv_bfloat16(a), __nv_bfloat16(a)}; }
inline __nv_bfloat162 __float22bfloat162_rn(float2 f) { return {__nv_bfloat16(f.x), __nv_bfloat16(f.y)}; }
inline float2 __bfloat1622float2(__nv_bfloat162 v) { return make_float2((float)v.x, (float)v.y); }
inline float __low2float(__nv_bfloat162 v) { return (float)v.x; }
inline float __high2float(__nv_bfloat162 v) { return (float)v.y; }
inline __nv_bfloat16 __low2bfloat16(__nv_bfloat162 v) { return v.x; }
inline __nv_bfloat16 __high2bfloat16(__nv_bfloat162 v) { return v.y; }
inline __nv_bfloat162 __hadd2(__nv_bfloat162 a, __nv_bfloat162 b) { return {__hadd(a.x, b.x), __hadd(a.y, b.y)}; }
inline __nv_bfloat162 __hsub2(__nv_bfloat162 a, __nv_bfloat162 b) { return {__hsub(a.x, b.x), __hsub(a.y, b.y)}; }
inline __nv_bfloat162 __hmul2(__nv_bfloat162 a, __nv_bfloat162 b) { return {__hmul(a.x, b.x), __hmul(a.y, b.y)}; }
inline __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {
  return {__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)};
}

struct alignas(4) __half2 {
  __half x, y;
  __half2() = default;
  __half2(__half a, __half b) : x(a), y(b) {}
};
typedef __half2 half2;
inline __half2 __floats2half2_rn(float a, float b) { return {__half(a), __half(b)}; }
inline __half2 __float22half2_rn(float2 f) { return {__half(f.x), __half(f.y)}; }
inline float2 __half22float2(__half2 v) { return make_float2((float)v.x, (float)v.y); }
inline float __low2float(__half2 v) { return (float)v.x; }
inline float __high2float(__half2 v) { return (float)v.y; }
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(8) int2 { int x, y; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(16) double2 { double x, y; };
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }

// ------------------------------------------------------------------ math
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float __saturatef(float x) { return x < 0 ? 0.f : (x > 1 ? 1.f : x); }
template <class A, class B> inline auto max(A a, B b) {
  using C = std::common_type_t<A, B>;
  return (C)a > (C)b ? (C)a : (C)b;
}
template <class A, class B> inline auto min(A a, B b) {
  using C = std::common_type_t<A, B>;
  return (C)a < (C)b ? (C)a : (C)b;
}
template <class T> inline T __ldg(const T* p) { return *p; }
template <class T> inline T __ldcs(const T* p) { return *p; }
template <class T> inline T __ldcg(const T* p) { return *p; }
template <class T> inline void __stcs(T* p, T v) { *p = v; }
template <class T> inline void __stcg(T* p, T v) { *p = v; }

// ------------------------------------------------------------------ block state
struct KpWarp {
  std::unique_ptr<std::barrier<>> bar;
  alignas(16) unsigned char slot[32][16];
};
struct KpBlock {
  std::unique_ptr<std::barrier<>> bar;
  std::vector<KpWarp> warps;
};
inline KpBlock* kp_block = nullptr;
inline std::vector<unsigned char> kp_dynamic_shared;  // extern __shared__ arrays (the launch's shared bytes)
inline size_t kp_shared_bytes = 0;
template <class T> inline T* kp_dyn_shared() { return reinterpret_cast<T*>(kp_dynamic_shared.data()); }
// the restructuring prelude's dynamic shared memory helpers, on the emulator's buffer
#define KP_EMULATOR_HOOKS
inline unsigned kp_dynamic_smem_bytes() { return (unsigned)kp_shared_bytes; }
template <class P> inline P* kp_row_cache() { return kp_dyn_shared<P>(); }
inline thread_local int kp_tid = 0;

inline void __syncthreads() { kp_block->bar->arrive_and_wait(); }
inline void __syncwarp(unsigned = 0xffffffffu) { kp_block->warps[kp_tid / 32].bar->arrive_and_wait(); }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }

template <class T> inline T kp_exchange(T v, int src_lane) {
  static_assert(sizeof(T) <= 16, "shuffle of a type over 16 bytes");
  KpWarp& w = kp_block->warps[kp_tid / 32];
  const int lane = kp_tid % 32;
  std::memcpy(w.slot[lane], &v, sizeof(T));
  w.bar->arrive_and_wait();
  T r;
  std::memcpy(&r, w.slot[src_lane & 31], sizeof(T));
  w.bar->arrive_and_wait();
  return r;
}
template <class T> inline T __shfl_xor_sync(unsigned, T v, int m, int width = 32) {
  const int lane = kp_tid % 32;
  return kp_exchange(v, (lane & ~(width - 1)) | ((lane ^ m) & (width - 1)));
}
template <class T> inline T __shfl_down_sync(unsigned, T v, unsigned d, int width = 32) {
  const int lane = kp_tid % 32, base = lane & ~(width - 1);
  const int src = (lane - base) + (int)d < width ? lane + (int)d : lane;
  return kp_exchange(v, src);
}
template <class T> inline T __shfl_up_sync(unsigned, T v, unsigned d, int width = 32) {
  const int lane = kp_tid % 32, base = lane & ~(width - 1);
  const int src = (lane - base) - (int)d >= 0 ? lane - (int)d : lane;
  return kp_exchange(v, src);
}
template <class T> inline T __shfl_sync(unsigned, T v, int src, int width = 32) {
  const int lane = kp_tid % 32;
  return kp_exchange(v, (lane & ~(width - 1)) + (src % width));
}

template <class T> inline T atomicAdd(T* p, T v) {
  static std::mutex m;
  std::lock_guard<std::mutex> g(m);
  T old = *p;
  *p = old + v;
  return old;
}

// ------------------------------------------------------------------ launch
template <class F, class... A> void kp_launch(F kernel, dim3 grid, dim3 block, A... args) {
  gridDim = grid;
  blockDim = block;
  const int n = (int)(block.x * block.y * block.z);
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        KpBlock b;
        b.bar = std::make_unique<std::barrier<>>(n);
        const int nw = (n + 31) / 32;
        b.warps.resize(nw);
        for (int w = 0; w < nw; ++w) b.warps[w].bar = std::make_unique<std::barrier<>>(std::min(32, n - 32 * w));
        kp_block = &b;
        kp_dynamic_shared.assign(kp_shared_bytes + 16, 0xFF);  // garbage until written, as on the GPU
        std::vector<std::thread> ts;
        ts.reserve(n);
        for (int t = 0; t < n; ++t) {
          ts.emplace_back([&, t] {
            kp_tid = t;
            threadIdx = dim3(t % block.x, (t / block.x) % block.y, t / (block.x * block.y));
            blockIdx = dim3(bx, by, bz);
            kernel(args...);
            kp_block->warps[t / 32].bar->arrive_and_drop();
            kp_block->bar->arrive_and_drop();
          });
        }
        for (auto& t : ts) t.join();
        kp_block = nullptr;
      }
}

// ------------------------------------------------------------------ the test driver's calls
// argv: gx gy gz bx by bz shared_bytes, then one word per kernel parameter: @FILE[+OFFSET] for a buffer
// (read, passed, written back) or a number for a scalar.
struct KpBuf { std::string path; std::vector<char> data; };
inline std::vector<KpBuf*> kp_bufs;
template <class P> P kp_arg(const char* s) {
  if constexpr (std::is_pointer_v<P>) {
    std::string w(s + 1);
    size_t plus = w.find('+');
    size_t off = plus == std::string::npos ? 0 : std::stoul(w.substr(plus + 1));
    auto* b = new KpBuf{w.substr(0, plus), {}};
    std::ifstream f(b->path, std::ios::binary);
    b->data.assign(std::istreambuf_iterator<char>(f), {});
    b->data.resize(b->data.size() + 64);
    kp_bufs.push_back(b);
    return (P)(void*)(b->data.data() + off);
  } else if constexpr (std::is_floating_point_v<P>) {
    return (P)std::strtod(s, nullptr);
  } else {
    return (P)std::strtoll(s, nullptr, 0);
  }
}
template <class... P, size_t... I>
void kp_call_impl(void (*k)(P...), dim3 g, dim3 b, char** a, std::index_sequence<I...>) {
  kp_launch(k, g, b, kp_arg<P>(a[I])...);
}
template <class... P> int kp_main(void (*k)(P...), int argc, char** argv) {
  if (argc != 8 + (int)sizeof...(P)) { std::fprintf(stderr, "kp_emu: %d words for %d parameters\n", argc - 8, (int)sizeof...(P)); return 2; }
  dim3 g(std::atoi(argv[1]), std::atoi(argv[2]), std::atoi(argv[3]));
  dim3 b(std::atoi(argv[4]), std::atoi(argv[5]), std::atoi(argv[6]));
  kp_shared_bytes = (size_t)std::atoll(argv[7]);
  kp_call_impl(k, g, b, argv + 8, std::index_sequence_for<P...>{});
  for (auto* buf : kp_bufs) {
    std::ofstream f(buf->path, std::ios::binary);
    f.write(buf->data.data(), buf->data.size() - 64);
  }
  return 0;
}

// headers a kernel file may include, included here once at global scope (the emulator's
// stubs): a batch of kernel files compiled in namespaces then finds them all
#include <cooperative_groups.h>
#include <mma.h>
