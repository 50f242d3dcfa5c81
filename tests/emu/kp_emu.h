// kp_emu.h -- run CUDA kernels on the CPU for tests: each CUDA thread a fiber (or an OS thread).
//
// Blocks run one after another; the threads of a block run as fibers that wait for each other at
// __syncthreads, __syncwarp, the warp shuffles, ballots and votes (see "block state" below; with
// KP_EMU_THREADS=1 each is a std::thread and the barriers are std::barriers). A thread that returns
// drops out of its block's and warp's barriers, as on the GPU.
// Covered: what KernelPro's restructured kernels and the test kernels use (thread/block indices,
// barriers, shuffles and votes with their masks, float/double/int math and bit intrinsics,
// __nv_bfloat16 and __half as storage types with float arithmetic, CUDA's atomics on their types),
// <cooperative_groups.h> for one block, <mma.h> and <cuda_pipeline.h> (include/). Not a CUDA implementation: a test harness.
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
#include <list>
#include <condition_variable>
#include <bit>
#include <cstdlib>
#include <deque>
#include <sys/mman.h>
#include <ucontext.h>
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
inline __half __float2half_rn(float f) { return __half(f); }
// fp16 arithmetic intrinsics: computed in float and rounded once to half, as the hardware does
inline __half __hadd(__half a, __half b) { return __half((float)a + (float)b); }
inline __half __hmul(__half a, __half b) { return __half((float)a * (float)b); }
inline __half __hsub(__half a, __half b) { return __half((float)a - (float)b); }
inline __half __hfma(__half a, __half b, __half c) { return __half(std::fma((float)a, (float)b, (float)c)); }

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
struct uchar3 { unsigned char x, y, z; };
struct alignas(4) uchar4 { unsigned char x, y, z, w; };
inline uchar4 make_uchar4(unsigned char x, unsigned char y, unsigned char z, unsigned char w) { return {x, y, z, w}; }
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
struct float3 { float x, y, z; };
struct int3 { int x, y, z; };
inline float3 make_float3(float x, float y, float z) { return {x, y, z}; }
inline int3 make_int3(int x, int y, int z) { return {x, y, z}; }
inline int2 make_int2(int x, int y) { return {x, y}; }
typedef struct KpStream* cudaStream_t;  // (host launchers are blanked; a kernel file may still name the type)

// ------------------------------------------------------------------ math
using std::isnan; using std::isinf; using std::isfinite;  // (CUDA's math API declares them unqualified)
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __fdividef(float a, float b) { return a / b; }
// round-to-nearest arithmetic (g++ -O1 on x86-64 does not contract a * b + c into an FMA either)
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline double __dmul_rn(double a, double b) { return a * b; }
// fused multiply-add rounded to nearest (the other roundings are not modelled: they are read as round-to-nearest)
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline int __float2int_rn(float x) { return (int)nearbyintf(x); }  // (the default rounding: to nearest even)
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

// ------------------------------------------------------------------ bits and reinterpretations
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline unsigned long long __brevll(unsigned long long x) {
  return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
// dot products of packed bytes and halves (int8 GEMMs): c + the signed (or unsigned) lanes' products
inline int __dp4a(int a, int b, int c) {
  for (int i = 0; i < 4; ++i) c += (int)(signed char)(a >> (8 * i)) * (int)(signed char)(b >> (8 * i));
  return c;
}
inline unsigned __dp4a(unsigned a, unsigned b, unsigned c) {
  for (int i = 0; i < 4; ++i) c += ((a >> (8 * i)) & 0xFFu) * ((b >> (8 * i)) & 0xFFu);
  return c;
}
inline int __dp2a_lo(int a, int b, int c) {
  for (int i = 0; i < 2; ++i) c += (int)(short)(a >> (16 * i)) * (int)(signed char)(b >> (8 * i));
  return c;
}
inline int __dp2a_hi(int a, int b, int c) {
  for (int i = 0; i < 2; ++i) c += (int)(short)(a >> (16 * i)) * (int)(signed char)(b >> (8 * (i + 2)));
  return c;
}
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
inline int __mul24(int a, int b) {
  const long long x = (long long)((int)((unsigned)a << 8) >> 8), y = (long long)((int)((unsigned)b << 8) >> 8);
  return (int)(unsigned)(x * y);
}
inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
  return (unsigned)((((unsigned long long)hi << 32) | lo) << (s & 31) >> 32);
}
inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned s) {
  return s >= 32 ? lo : __funnelshift_l(lo, hi, s);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
  return (unsigned)((((unsigned long long)hi << 32) | lo) >> (s & 31));
}
inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned s) {
  return s >= 32 ? hi : __funnelshift_r(lo, hi, s);
}
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const unsigned long long b = ((unsigned long long)y << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= (unsigned)((b >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return r;
}
template <class To, class From> inline To kp_bits(From f) {
  static_assert(sizeof(To) == sizeof(From));
  To t;
  std::memcpy(&t, &f, sizeof(To));
  return t;
}
inline int __float_as_int(float f) { return kp_bits<int>(f); }
inline unsigned __float_as_uint(float f) { return kp_bits<unsigned>(f); }
inline float __int_as_float(int i) { return kp_bits<float>(i); }
inline float __uint_as_float(unsigned u) { return kp_bits<float>(u); }
inline long long __double_as_longlong(double d) { return kp_bits<long long>(d); }
inline double __longlong_as_double(long long l) { return kp_bits<double>(l); }
inline int __double2hiint(double d) { return (int)(kp_bits<unsigned long long>(d) >> 32); }
inline int __double2loint(double d) { return (int)kp_bits<unsigned long long>(d); }
inline double __hiloint2double(int hi, int lo) {
  return kp_bits<double>(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo);
}

// what the emulator refuses, at compile time (a call instantiates the template and fails there)
template <class T> inline constexpr bool kp_unsupported = false;

// ------------------------------------------------------------------ block state
// A block's threads run in one of two ways, with the same semantics:
//  - as fibers (the default): each CUDA thread of the block is a fiber with its own stack on the
//    launching OS thread; a fiber runs until it waits (a barrier, a warp meet) or returns, then the
//    next ready fiber runs, in thread order. No OS thread per CUDA thread, so a launch costs little
//    more than the kernel's own work; runs are deterministic, and a block whose threads all wait
//    with none left to release them stops the run with a message (a deadlock) instead of hanging.
//  - as OS threads (KP_EMU_THREADS=1 in the environment, or kp_fibers = false, which emu_run.py
//    sets for kernel files with thread_local state): one std::thread per CUDA thread, the block's
//    and warps' std::barriers, and mutex-guarded meets for masks of part of a warp.
// A warp meets (shuffles, ballots, __syncwarp) in a KpMeet of the mask it names (with OS threads a
// mask naming every lane of the warp meets on the warp's std::barrier instead). The lanes taking
// part are those of the mask that have not returned; each leaves its bytes in a slot and reads the
// others' once all have come.
struct KpMeet {
  unsigned mask = 0, arrived = 0, who = 0;
  int readers = 0;
  bool done = false;
  std::vector<int> waiters;  // fibers
  alignas(16) unsigned char slot[32][16];
};
struct KpWarp {
  std::unique_ptr<std::barrier<>> bar;  // the whole warp (OS threads)
  alignas(16) unsigned char slot[32][16];
  unsigned lanes = 0;               // the lanes this warp has (fewer than 32 in a block's last warp)
  std::atomic<unsigned> alive{0};   // ... that have not returned
  std::mutex mu;                    // the meets (OS threads)
  std::condition_variable cv;
  std::list<KpMeet> meets, spare;
};
// a thread's cp.async copies (<cuda_pipeline.h>): the open group and the committed ones, oldest first;
// a copy lands when a wait covers its group, not before (as late as the GPU may make it land)
struct KpCopy { void* dst; const void* src; size_t size, zfill; };
struct KpPipe { std::vector<KpCopy> open; std::deque<std::vector<KpCopy>> groups; };
struct KpBlock {
  std::vector<KpPipe> pipes;            // one per thread
  std::atomic<bool> piped{false};       // some thread copied asynchronously
  std::unique_ptr<std::barrier<>> bar;  // OS threads
  int live = 0, arrived = 0;            // fibers: threads that have not returned, those at the barrier
  std::vector<int> waiting;
  std::vector<std::unique_ptr<KpWarp>> warps;
  std::atomic<int> count[3] = {0, 0, 0};  // __syncthreads_count/and/or, one per call, reused every third
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
inline thread_local unsigned kp_count_calls = 0;

// ------------------------------------------------------------------ fibers
// A fiber's context is its stack pointer: kp_ctx_switch pushes the callee-saved registers and the
// x87/SSE control words on the running stack, saves the stack pointer, loads the other and pops
// them (x86-64 System V; elsewhere ucontext's swapcontext, which also saves the signal mask).
#if defined(__x86_64__)
#if !defined(KP_EMU_SEPARATE_RUNTIME) || defined(KP_EMU_DEFINE_RUNTIME)  // one definition: in kp_emu_rt.o
asm(R"(
  .text
  .globl kp_ctx_switch
  .type kp_ctx_switch, @function
kp_ctx_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $16, %rsp
  stmxcsr 8(%rsp)
  fnstcw (%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  fldcw (%rsp)
  ldmxcsr 8(%rsp)
  addq $16, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size kp_ctx_switch, .-kp_ctx_switch
)");
#endif
extern "C" void kp_ctx_switch(void** save_sp, void* load_sp);
struct KpContext {
  void* sp = nullptr;
};
inline void kp_switch(KpContext& from, KpContext& to) { kp_ctx_switch(&from.sp, to.sp); }
// a context that starts in fn on the stack [lo, lo + bytes)
inline void kp_context_start(KpContext& c, char* lo, size_t bytes, void (*fn)()) {
  uintptr_t top = ((uintptr_t)(lo + bytes)) & ~(uintptr_t)15;
  auto* p = reinterpret_cast<uint64_t*>(top);
  p[-1] = 0;                           // fn's return address (it never returns): fn starts as if called
  p[-2] = (uint64_t)(uintptr_t)fn;     // where kp_ctx_switch's ret goes
  for (int r = 3; r <= 8; ++r) p[-r] = 0;  // rbp rbx r12 r13 r14 r15
  p[-10] = 0x037F;                     // x87 control word (the default), then MXCSR (the default)
  reinterpret_cast<uint32_t*>(&p[-9])[0] = 0x1F80;
  c.sp = &p[-10];
}
#else
struct KpContext {
  ucontext_t uc;
};
inline void kp_switch(KpContext& from, KpContext& to) { swapcontext(&from.uc, &to.uc); }
inline void kp_context_start(KpContext& c, char* lo, size_t bytes, void (*fn)()) {
  getcontext(&c.uc);
  c.uc.uc_stack.ss_sp = lo;
  c.uc.uc_stack.ss_size = bytes;
  c.uc.uc_link = nullptr;
  makecontext(&c.uc, fn, 0);
}
#endif

inline bool kp_fibers = true;
struct KpFiber {
  KpContext ctx;
  char* stack = nullptr;
  bool done = false;
  unsigned count_calls = 0;
  const char* at = nullptr;  // what it waits at
  unsigned mask = 0;
};
struct KpSched {
  KpContext main;
  std::vector<KpFiber> fibers;
  std::deque<int> ready;
  int cur = -1;
  std::function<void()> body;
};
inline KpSched* kp_sched = nullptr;
inline size_t kp_fiber_stack_bytes() {
  const char* kb = std::getenv("KP_EMU_STACK_KB");
  return (kb ? (size_t)std::atoll(kb) : 2048) * 1024;
}
// the running fiber waits (until kp_fiber_ready puts it back in the queue)
inline void kp_fiber_wait(const char* at, unsigned mask = 0) {
  KpFiber& f = kp_sched->fibers[kp_sched->cur];
  f.at = at;
  f.mask = mask;
  kp_switch(f.ctx, kp_sched->main);
  f.at = nullptr;
}
inline void kp_fiber_ready(int f) { kp_sched->ready.push_back(f); }
// every thread of the block at the barrier: all go on, in the order they came
inline void kp_fiber_release_block(KpBlock& b) {
  if (b.arrived == 0 || b.arrived != b.live) return;
  b.arrived = 0;
  for (int f : b.waiting) kp_fiber_ready(f);
  b.waiting.clear();
}

inline void __syncthreads() {
  if (!kp_fibers) return kp_block->bar->arrive_and_wait();
  KpBlock& b = *kp_block;
  b.waiting.push_back(kp_sched->cur);
  ++b.arrived;
  kp_fiber_release_block(b);
  kp_fiber_wait("__syncthreads");
}
// a barrier that also counts the threads whose predicate is non-zero
inline int kp_syncthreads_count(int pred) {
  const unsigned n = kp_count_calls++;
  std::atomic<int>* c = kp_block->count;
  if (pred) c[n % 3].fetch_add(1);
  __syncthreads();
  const int r = c[n % 3].load();
  c[(n + 2) % 3].store(0);  // the counter of the call before: every thread has read it
  return r;
}
inline int __syncthreads_count(int pred) { return kp_syncthreads_count(pred); }
inline int __syncthreads_or(int pred) { return kp_syncthreads_count(pred) != 0; }
// threads that have returned do not count against it
inline int __syncthreads_and(int pred) { return kp_syncthreads_count(!pred) == 0; }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }

inline void kp_meet_check(KpWarp& w, KpMeet& m) {
  const unsigned need = m.mask & w.lanes & w.alive.load();
  if (!m.done && (m.arrived & need) == need) {
    m.done = true;
    m.who = m.arrived;
    m.readers = __builtin_popcount(m.arrived);
    if (kp_fibers) {
      for (int f : m.waiters) kp_fiber_ready(f);
    } else {
      w.cv.notify_all();
    }
  }
}
// The calling lane leaves n (<= 16) bytes at `mine`; once every lane of `mask` that the warp has
// and that has not returned did the same, read(slot, who) runs in each: who, the lanes that came.
template <class R> inline void kp_warp_meet(unsigned mask, const void* mine, unsigned n, R&& read) {
  KpWarp& w = *kp_block->warps[kp_tid / 32];
  const int lane = kp_tid % 32;
  mask |= 1u << lane;
  if (!kp_fibers && (mask & w.lanes) == w.lanes) {
    if (n) std::memcpy(w.slot[lane], mine, n);
    w.bar->arrive_and_wait();
    read(w.slot, w.alive.load() & w.lanes);
    w.bar->arrive_and_wait();
    return;
  }
  std::unique_lock<std::mutex> lk(w.mu, std::defer_lock);
  if (!kp_fibers) lk.lock();  // fibers never hold it across a wait
  auto it = w.meets.begin();
  while (it != w.meets.end() && (it->mask != mask || it->done)) ++it;
  if (it == w.meets.end()) {  // a new meet, from the spare ones where there are
    if (w.spare.empty()) {
      it = w.meets.emplace(w.meets.end());
    } else {
      w.meets.splice(w.meets.end(), w.spare, w.spare.begin());
      it = std::prev(w.meets.end());
      it->arrived = 0;
      it->done = false;
      it->waiters.clear();
    }
    it->mask = mask;
  }
  KpMeet& m = *it;
  if (n) std::memcpy(m.slot[lane], mine, n);
  m.arrived |= 1u << lane;
  if (kp_fibers) {
    m.waiters.push_back(kp_sched->cur);
    kp_meet_check(w, m);
    kp_fiber_wait("a warp meet", mask);
  } else {
    kp_meet_check(w, m);
    w.cv.wait(lk, [&] { return m.done; });
  }
  read(m.slot, m.who);
  if (--m.readers == 0) w.spare.splice(w.spare.begin(), w.meets, it);
}
// a returning thread: out of its warp's meets and barriers and its block's barrier
inline void kp_thread_exit() {
  KpWarp& w = *kp_block->warps[kp_tid / 32];
  if (kp_fibers) {
    w.alive.fetch_and(~(1u << (kp_tid % 32)));
    for (auto& m : w.meets) kp_meet_check(w, m);
    --kp_block->live;
    kp_fiber_release_block(*kp_block);
    return;
  }
  {
    std::lock_guard<std::mutex> lk(w.mu);
    w.alive.fetch_and(~(1u << (kp_tid % 32)));
    for (auto& m : w.meets) kp_meet_check(w, m);
  }
  w.bar->arrive_and_drop();
  kp_block->bar->arrive_and_drop();
}

inline void __syncwarp(unsigned mask = 0xffffffffu) {
  kp_warp_meet(mask, nullptr, 0, [](const unsigned char (*)[16], unsigned) {});
}
// value of lane `src` of the warp (any trivially copyable type, 16 bytes per meet)
template <class T> inline T kp_shfl(unsigned mask, const T& v, int src) {
  static_assert(std::is_trivially_copyable_v<T>, "kp_emu: a shuffle of a type that is not trivially copyable");
  unsigned char out[sizeof(T)];
  const unsigned char* in = reinterpret_cast<const unsigned char*>(&v);
  for (size_t off = 0; off < sizeof(T); off += 16) {
    const unsigned n = (unsigned)std::min<size_t>(16, sizeof(T) - off);
    kp_warp_meet(mask, in + off, n, [&](const unsigned char (*slot)[16], unsigned) { std::memcpy(out + off, slot[src & 31], n); });
  }
  T r;
  std::memcpy(&r, out, sizeof(T));
  return r;
}
template <class T> inline T kp_exchange(T v, int src_lane) { return kp_shfl(0xffffffffu, v, src_lane); }
template <class T> inline T __shfl_xor_sync(unsigned mask, T v, int m, int width = 32) {
  const int lane = kp_tid % 32;
  return kp_shfl(mask, v, (lane & ~(width - 1)) | ((lane ^ m) & (width - 1)));
}
template <class T> inline T __shfl_down_sync(unsigned mask, T v, unsigned d, int width = 32) {
  const int lane = kp_tid % 32, base = lane & ~(width - 1);
  const int src = (lane - base) + (int)d < width ? lane + (int)d : lane;
  return kp_shfl(mask, v, src);
}
template <class T> inline T __shfl_up_sync(unsigned mask, T v, unsigned d, int width = 32) {
  const int lane = kp_tid % 32, base = lane & ~(width - 1);
  const int src = (lane - base) - (int)d >= 0 ? lane - (int)d : lane;
  return kp_shfl(mask, v, src);
}
template <class T> inline T __shfl_sync(unsigned mask, T v, int src, int width = 32) {
  const int lane = kp_tid % 32;
  return kp_shfl(mask, v, (lane & ~(width - 1)) + (src & (width - 1)));
}
// the predicates of the lanes that came (as bits), and which came
inline unsigned kp_ballot(unsigned mask, int pred, unsigned* came = nullptr) {
  const unsigned char p = pred != 0;
  unsigned r = 0, w = 0;
  kp_warp_meet(mask, &p, 1, [&](const unsigned char (*slot)[16], unsigned who) {
    w = who & (mask | (1u << (kp_tid % 32)));
    for (int l = 0; l < 32; ++l)
      if ((w >> l & 1u) && slot[l][0]) r |= 1u << l;
  });
  if (came) *came = w;
  return r;
}
inline unsigned __ballot_sync(unsigned mask, int pred) { return kp_ballot(mask, pred); }
inline int __any_sync(unsigned mask, int pred) { return kp_ballot(mask, pred) != 0; }
inline int __all_sync(unsigned mask, int pred) {
  unsigned came;
  return kp_ballot(mask, pred, &came) == came;
}
template <class T> inline unsigned __match_any_sync(unsigned mask, T v) {
  static_assert(std::is_integral_v<T> || std::is_floating_point_v<T>, "kp_emu: __match_any_sync of a non-arithmetic type");
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "__match_any_sync takes 32- and 64-bit values");
  unsigned r = 0;
  kp_warp_meet(mask, &v, sizeof(T), [&](const unsigned char (*slot)[16], unsigned who) {
    for (int l = 0; l < 32; ++l)
      if ((who >> l & 1u) && (mask >> l & 1u) && std::memcmp(slot[l], &v, sizeof(T)) == 0) r |= 1u << l;
  });
  return r;
}
template <class T> inline unsigned __match_all_sync(unsigned mask, T v, int* pred) {
  static_assert(std::is_integral_v<T> || std::is_floating_point_v<T>, "kp_emu: __match_all_sync of a non-arithmetic type");
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "__match_all_sync takes 32- and 64-bit values");
  bool same = true;
  kp_warp_meet(mask, &v, sizeof(T), [&](const unsigned char (*slot)[16], unsigned who) {
    for (int l = 0; l < 32; ++l)
      if ((who >> l & 1u) && (mask >> l & 1u) && std::memcmp(slot[l], &v, sizeof(T)) != 0) same = false;
  });
  *pred = same;
  return same ? mask : 0u;
}
// __reduce_*_sync (sm_80): the lanes that came, folded in lane order
template <class T, class F> inline T kp_warp_fold(unsigned mask, T v, F f) {
  T r{};
  kp_warp_meet(mask, &v, sizeof(T), [&](const unsigned char (*slot)[16], unsigned who) {
    bool first = true;
    for (int l = 0; l < 32; ++l)
      if ((who >> l & 1u) && (mask >> l & 1u || l == kp_tid % 32)) {
        T x;
        std::memcpy(&x, slot[l], sizeof(T));
        r = first ? x : f(r, x);
        first = false;
      }
  });
  return r;
}
inline unsigned __reduce_add_sync(unsigned m, unsigned v) { return kp_warp_fold(m, v, [](unsigned a, unsigned b) { return a + b; }); }
inline int __reduce_add_sync(unsigned m, int v) { return (int)__reduce_add_sync(m, (unsigned)v); }
inline unsigned __reduce_min_sync(unsigned m, unsigned v) { return kp_warp_fold(m, v, [](unsigned a, unsigned b) { return b < a ? b : a; }); }
inline int __reduce_min_sync(unsigned m, int v) { return kp_warp_fold(m, v, [](int a, int b) { return b < a ? b : a; }); }
inline unsigned __reduce_max_sync(unsigned m, unsigned v) { return kp_warp_fold(m, v, [](unsigned a, unsigned b) { return a < b ? b : a; }); }
inline int __reduce_max_sync(unsigned m, int v) { return kp_warp_fold(m, v, [](int a, int b) { return a < b ? b : a; }); }
inline unsigned __reduce_and_sync(unsigned m, unsigned v) { return kp_warp_fold(m, v, [](unsigned a, unsigned b) { return a & b; }); }
inline unsigned __reduce_or_sync(unsigned m, unsigned v) { return kp_warp_fold(m, v, [](unsigned a, unsigned b) { return a | b; }); }
inline unsigned __reduce_xor_sync(unsigned m, unsigned v) { return kp_warp_fold(m, v, [](unsigned a, unsigned b) { return a ^ b; }); }
// which lanes run together at a point is up to the GPU's scheduler; the emulator does not model it
template <class T = void> inline unsigned __activemask() {
  static_assert(kp_unsupported<T>, "kp_emu: __activemask() is not emulated (the emulator does not model which lanes "
                                   "run together); name the lanes with a mask, e.g. __ballot_sync(0xffffffff, pred)");
  return 0;
}

// ------------------------------------------------------------------ atomics
// CUDA's overloads (sm_90), each a std::atomic_ref operation, so atomic across the emulated
// threads; _block and _system are the same operations.
template <class T> inline std::atomic_ref<T> kp_atomic(T* p) { return std::atomic_ref<T>(*p); }
template <class T, class F> inline T kp_atomic_update(T* p, F f) {
  std::atomic_ref<T> r(*p);
  T old = r.load();
  while (!r.compare_exchange_weak(old, f(old))) {
  }
  return old;
}
template <class T> inline T kp_atomic_cas(T* p, T compare, T val) {
  kp_atomic(p).compare_exchange_strong(compare, val);
  return compare;  // the old value, whether or not it was replaced
}
#define KP_ATOMIC(RET, NAME, PARAMS, ...)             \
  inline RET NAME PARAMS { __VA_ARGS__ }              \
  inline RET NAME##_block PARAMS { __VA_ARGS__ }      \
  inline RET NAME##_system PARAMS { __VA_ARGS__ }
#define KP_ATOMIC_INT(NAME, T, ...) KP_ATOMIC(T, NAME, (T * p, T v), __VA_ARGS__)
KP_ATOMIC_INT(atomicAdd, int, return kp_atomic(p).fetch_add(v);)
KP_ATOMIC_INT(atomicAdd, unsigned int, return kp_atomic(p).fetch_add(v);)
KP_ATOMIC_INT(atomicAdd, unsigned long long int, return kp_atomic(p).fetch_add(v);)
KP_ATOMIC_INT(atomicAdd, float, return kp_atomic(p).fetch_add(v);)
KP_ATOMIC_INT(atomicAdd, double, return kp_atomic(p).fetch_add(v);)
KP_ATOMIC_INT(atomicAdd, __half, return kp_atomic_update(p, [v](__half o) { return __half((float)o + (float)v); });)
KP_ATOMIC_INT(atomicAdd, __nv_bfloat16, return kp_atomic_update(p, [v](__nv_bfloat16 o) { return __hadd(o, v); });)
KP_ATOMIC_INT(atomicAdd, __half2,
              return kp_atomic_update(p, [v](__half2 o) { return __half2(__half((float)o.x + (float)v.x), __half((float)o.y + (float)v.y)); });)
KP_ATOMIC_INT(atomicAdd, __nv_bfloat162, return kp_atomic_update(p, [v](__nv_bfloat162 o) { return __hadd2(o, v); });)
// sm_90 vector adds: atomic per element
KP_ATOMIC_INT(atomicAdd, float2, return make_float2(kp_atomic(&p->x).fetch_add(v.x), kp_atomic(&p->y).fetch_add(v.y));)
KP_ATOMIC_INT(atomicAdd, float4,
              return make_float4(kp_atomic(&p->x).fetch_add(v.x), kp_atomic(&p->y).fetch_add(v.y),
                                 kp_atomic(&p->z).fetch_add(v.z), kp_atomic(&p->w).fetch_add(v.w));)
KP_ATOMIC_INT(atomicSub, int, return kp_atomic(p).fetch_sub(v);)
KP_ATOMIC_INT(atomicSub, unsigned int, return kp_atomic(p).fetch_sub(v);)
KP_ATOMIC_INT(atomicExch, int, return kp_atomic(p).exchange(v);)
KP_ATOMIC_INT(atomicExch, unsigned int, return kp_atomic(p).exchange(v);)
KP_ATOMIC_INT(atomicExch, unsigned long long int, return kp_atomic(p).exchange(v);)
KP_ATOMIC_INT(atomicExch, float, return kp_atomic(p).exchange(v);)
KP_ATOMIC_INT(atomicMin, int, return kp_atomic_update(p, [v](int o) { return v < o ? v : o; });)
KP_ATOMIC_INT(atomicMin, unsigned int, return kp_atomic_update(p, [v](unsigned o) { return v < o ? v : o; });)
KP_ATOMIC_INT(atomicMin, unsigned long long int, return kp_atomic_update(p, [v](unsigned long long o) { return v < o ? v : o; });)
KP_ATOMIC_INT(atomicMin, long long int, return kp_atomic_update(p, [v](long long o) { return v < o ? v : o; });)
KP_ATOMIC_INT(atomicMax, int, return kp_atomic_update(p, [v](int o) { return o < v ? v : o; });)
KP_ATOMIC_INT(atomicMax, unsigned int, return kp_atomic_update(p, [v](unsigned o) { return o < v ? v : o; });)
KP_ATOMIC_INT(atomicMax, unsigned long long int, return kp_atomic_update(p, [v](unsigned long long o) { return o < v ? v : o; });)
KP_ATOMIC_INT(atomicMax, long long int, return kp_atomic_update(p, [v](long long o) { return o < v ? v : o; });)
// ((old >= v) ? 0 : old + 1) and (((old == 0) || (old > v)) ? v : old - 1), as CUDA defines them
KP_ATOMIC_INT(atomicInc, unsigned int, return kp_atomic_update(p, [v](unsigned o) { return o >= v ? 0u : o + 1; });)
KP_ATOMIC_INT(atomicDec, unsigned int, return kp_atomic_update(p, [v](unsigned o) { return (o == 0 || o > v) ? v : o - 1; });)
KP_ATOMIC_INT(atomicAnd, int, return kp_atomic(p).fetch_and(v);)
KP_ATOMIC_INT(atomicAnd, unsigned int, return kp_atomic(p).fetch_and(v);)
KP_ATOMIC_INT(atomicAnd, unsigned long long int, return kp_atomic(p).fetch_and(v);)
KP_ATOMIC_INT(atomicAnd, long long int, return kp_atomic(p).fetch_and(v);)
KP_ATOMIC_INT(atomicOr, int, return kp_atomic(p).fetch_or(v);)
KP_ATOMIC_INT(atomicOr, unsigned int, return kp_atomic(p).fetch_or(v);)
KP_ATOMIC_INT(atomicOr, unsigned long long int, return kp_atomic(p).fetch_or(v);)
KP_ATOMIC_INT(atomicOr, long long int, return kp_atomic(p).fetch_or(v);)
KP_ATOMIC_INT(atomicXor, int, return kp_atomic(p).fetch_xor(v);)
KP_ATOMIC_INT(atomicXor, unsigned int, return kp_atomic(p).fetch_xor(v);)
KP_ATOMIC_INT(atomicXor, unsigned long long int, return kp_atomic(p).fetch_xor(v);)
KP_ATOMIC_INT(atomicXor, long long int, return kp_atomic(p).fetch_xor(v);)
KP_ATOMIC(int, atomicCAS, (int* p, int c, int v), return kp_atomic_cas(p, c, v);)
KP_ATOMIC(unsigned int, atomicCAS, (unsigned int* p, unsigned int c, unsigned int v), return kp_atomic_cas(p, c, v);)
KP_ATOMIC(unsigned long long int, atomicCAS, (unsigned long long int* p, unsigned long long int c, unsigned long long int v),
          return kp_atomic_cas(p, c, v);)
KP_ATOMIC(unsigned short int, atomicCAS, (unsigned short int* p, unsigned short int c, unsigned short int v),
          return kp_atomic_cas(p, c, v);)
#undef KP_ATOMIC_INT
#undef KP_ATOMIC

// ------------------------------------------------------------------ launch
inline void kp_fiber_entry() {
  KpSched& s = *kp_sched;
  s.body();
  kp_thread_exit();
  s.fibers[s.cur].done = true;
  kp_switch(s.fibers[s.cur].ctx, s.main);  // never resumed
  std::abort();
}

// runs the block's n threads as fibers until all have returned; false, after saying which threads
// wait where, when some wait with none left to release them
inline bool kp_fiber_block(KpSched& s, int n, dim3 block, dim3 bidx, size_t stack_bytes) {
  for (int t = 0; t < n; ++t) {
    KpFiber& f = s.fibers[t];
    kp_context_start(f.ctx, f.stack, stack_bytes, kp_fiber_entry);
    f.done = false;
    f.count_calls = 0;
    f.at = nullptr;
    s.ready.push_back(t);
  }
  blockIdx = bidx;
  while (!s.ready.empty()) {
    const int t = s.ready.front();
    s.ready.pop_front();
    KpFiber& f = s.fibers[t];
    s.cur = t;
    kp_tid = t;
    kp_count_calls = f.count_calls;
    threadIdx = dim3(t % block.x, (t / block.x) % block.y, t / (block.x * block.y));
    kp_switch(s.main, f.ctx);
    f.count_calls = kp_count_calls;
  }
  // the threads still waiting, in runs of neighbours waiting at the same place
  std::string stuck;
  int waiting = 0, runs = 0;
  for (int t = 0; t < n;) {
    const KpFiber& f = s.fibers[t];
    int e = t + 1;
    if (f.done) {
      t = e;
      continue;
    }
    while (e < n && !s.fibers[e].done && s.fibers[e].at == f.at && s.fibers[e].mask == f.mask &&
           (!f.mask || e / 32 == t / 32))
      ++e;
    waiting += e - t;
    if (runs++ < 8) {
      char line[200];
      const int k = std::snprintf(line, sizeof line, "%s%s %d", stuck.empty() ? "" : "; ", e - t > 1 ? "threads" : "thread", t);
      if (e - t > 1) std::snprintf(line + k, sizeof line - k, "-%d", e - 1);
      stuck += line;
      if (f.mask)
        std::snprintf(line, sizeof line, " (warp %d) at %s of mask 0x%08x", t / 32, f.at ? f.at : "?", f.mask);
      else
        std::snprintf(line, sizeof line, " at %s", f.at ? f.at : "?");
      stuck += line;
    }
    t = e;
  }
  if (!waiting) return true;
  std::fprintf(stderr, "kp_emu: deadlock in block (%u, %u, %u): %d of its %d threads wait with none left to release "
               "them (the others returned): %s%s\n", bidx.x, bidx.y, bidx.z, waiting, n, stuck.c_str(),
               runs > 8 ? "; ..." : "");
  return false;
}

// The launch machinery is one function of the kernel's body, not a template of its parameter types: built
// once (tests/emu_run.py compiles it into kp_emu_rt.o with KP_EMU_SEPARATE_RUNTIME) instead of in every program.
#if defined(KP_EMU_SEPARATE_RUNTIME) && !defined(KP_EMU_DEFINE_RUNTIME)
void kp_launch_body(const std::function<void()>& body, dim3 grid, dim3 block);
#else
#if !defined(KP_EMU_DEFINE_RUNTIME)
inline
#endif
void kp_launch_body(const std::function<void()>& body, dim3 grid, dim3 block) {
  gridDim = grid;
  blockDim = block;
  const int n = (int)(block.x * block.y * block.z);
  KpSched sched;
  const size_t stack_bytes = kp_fiber_stack_bytes(), guard = 4096;
  if (kp_fibers) {
    sched.fibers.resize(n);
    for (auto& f : sched.fibers) {
      void* p = mmap(nullptr, stack_bytes + guard, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
      if (p == MAP_FAILED) {
        std::perror("kp_emu: a fiber's stack");
        std::exit(4);
      }
      mprotect(p, guard, PROT_NONE);  // an overflow faults here instead of writing over another stack
      f.stack = (char*)p + guard;
    }
    sched.body = body;
    kp_sched = &sched;
  }
  KpBlock b;  // the state of the block that runs, set again for each block
  b.pipes.resize(n);
  const int nw = (n + 31) / 32;
  for (int w = 0; w < nw; ++w) {
    b.warps.push_back(std::make_unique<KpWarp>());
    const int lanes = std::min(32, n - 32 * w);
    b.warps.back()->lanes = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
  }
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        b.live = n;
        b.arrived = 0;
        b.waiting.clear();
        if (b.piped.exchange(false))  // copies a thread left unwaited do not reach the next block
          for (auto& p : b.pipes) p = KpPipe{};
        for (auto& c : b.count) c = 0;
        if (!kp_fibers) b.bar = std::make_unique<std::barrier<>>(n);
        for (auto& warp : b.warps) {
          warp->alive = warp->lanes;
          warp->meets.clear();  // none: every meet of a block that finished is over
          if (!kp_fibers) warp->bar = std::make_unique<std::barrier<>>(__builtin_popcount(warp->lanes));
        }
        kp_block = &b;
        kp_dynamic_shared.assign(kp_shared_bytes + 16, 0xFF);  // garbage until written, as on the GPU
        if (kp_fibers) {
          if (!kp_fiber_block(sched, n, block, dim3(bx, by, bz), stack_bytes)) std::exit(3);
          continue;
        }
        std::vector<std::thread> ts;
        ts.reserve(n);
        for (int t = 0; t < n; ++t) {
          ts.emplace_back([&, t] {
            kp_tid = t;
            kp_count_calls = 0;
            threadIdx = dim3(t % block.x, (t / block.x) % block.y, t / (block.x * block.y));
            blockIdx = dim3(bx, by, bz);
            body();
            kp_thread_exit();
          });
        }
        for (auto& t : ts) t.join();
        kp_block = nullptr;
      }
  kp_block = nullptr;
  kp_sched = nullptr;
  for (auto& f : sched.fibers) munmap(f.stack - guard, stack_bytes + guard);
}
#endif
template <class F, class... A> void kp_launch(F kernel, dim3 grid, dim3 block, A... args) {
  kp_launch_body([&] { kernel(args...); }, grid, block);
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
  if (const char* e = std::getenv("KP_EMU_THREADS"); e && *e && *e != '0') kp_fibers = false;
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
#include <cooperative_groups/reduce.h>
#include <mma.h>
#include <cuda_pipeline.h>
#include <cuComplex.h>
