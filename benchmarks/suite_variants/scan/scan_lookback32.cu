// launch: {"grid": ["cdiv(n, 4096)"], "block": [256]}
// Inclusive scan, hand-written: single pass with decoupled look-back.
// Tiles of TILE = TPB x IPT values, taken in order from a counter (state[0]), so a tile only ever
// waits on tiles already running. A thread scans its IPT consecutive values (int4 loads) serially,
// the warp scans the threads' totals by shuffles, one shared-memory pass adds the warps' totals.
// The tile publishes its aggregate at once, then warp 0 looks back: 32 predecessors at a time, it
// waits until each has published something, adds the aggregates of those nearer than the nearest
// inclusive prefix, and that prefix; then publishes its own inclusive prefix. A tile's state is one
// 64-bit word, flag << 32 | value, written and read whole (volatile), so a flag is never seen
// without its value. The states and the counter are zeroed by the launch sequence's memset.
#define TPB 256
#define IPT 16               // values per thread
#define TILE (TPB * IPT)     // 4096 values per tile
#define FLAG_AGG 1ull        // the tile's own total is published
#define FLAG_PREFIX 2ull     // its inclusive prefix (everything up to its end) is published

__device__ __forceinline__ void scan_publish(unsigned long long* word, unsigned long long flag, int value) {
  *reinterpret_cast<volatile unsigned long long*>(word) = (flag << 32) | (unsigned)value;
}

__device__ __forceinline__ int scan_warp_sum(int v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ int scan_warp_min(int v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ int scan_warp_max(int v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__global__ void __launch_bounds__(TPB) scan(int* __restrict__ out, const int* __restrict__ inp,
                                            unsigned long long* state, int n) {
  __shared__ int warp_tot[TPB / 32];
  __shared__ int tile_s, prefix_s;
  const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
  if (tid == 0) tile_s = (int)atomicAdd(state, 1ull);
  __syncthreads();
  const int t = tile_s;
  unsigned long long* tiles = state + 1;
  const int first = t * TILE + tid * IPT;  // this thread's first value
  const bool full = first + IPT <= n;

  int v[IPT];
  if (full) {
#pragma unroll
    for (int k = 0; k < IPT / 4; ++k) {
      const int4 q = __ldcs(reinterpret_cast<const int4*>(inp + first) + k);
      v[4 * k] = q.x;
      v[4 * k + 1] = q.y;
      v[4 * k + 2] = q.z;
      v[4 * k + 3] = q.w;
    }
  } else {
#pragma unroll
    for (int k = 0; k < IPT; ++k) v[k] = first + k < n ? inp[first + k] : 0;
  }
#pragma unroll
  for (int k = 1; k < IPT; ++k) v[k] += v[k - 1];
  const int own = v[IPT - 1];
  int x = own;  // the warp's inclusive scan of the threads' totals
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const int y = __shfl_up_sync(0xffffffffu, x, o);
    if (lane >= o) x += y;
  }
  if (lane == 31) warp_tot[w] = x;
  __syncthreads();
  int before = 0, agg = 0;  // the warps before this one; the whole tile
#pragma unroll
  for (int k = 0; k < TPB / 32; ++k) {
    const int s = warp_tot[k];
    if (k < w) before += s;
    agg += s;
  }

  if (w == 0) {
    int excl = 0;  // the sum of every tile before t
    if (t == 0) {
      if (lane == 0) scan_publish(tiles, FLAG_PREFIX, agg);
    } else {
      if (lane == 0) scan_publish(tiles + t, FLAG_AGG, agg);
      int nearest = t - 1;  // the window: tiles nearest - 31 .. nearest, lane 0 the nearest
      while (true) {
        const int j = nearest - lane;
        const unsigned long long word =
            j >= 0 ? *reinterpret_cast<volatile unsigned long long*>(tiles + j) : (FLAG_PREFIX << 32);
        const int flag = (int)(word >> 32);
        if (scan_warp_max(flag == 0) != 0) continue;  // someone in the window has published nothing yet
        const int stop = scan_warp_min(flag == (int)FLAG_PREFIX ? lane : 32);  // the nearest inclusive prefix
        excl += scan_warp_sum(lane <= stop ? (int)(unsigned)word : 0);
        if (stop < 32) break;
        nearest -= 32;
      }
      if (lane == 0) scan_publish(tiles + t, FLAG_PREFIX, excl + agg);
    }
    if (lane == 0) prefix_s = excl;
  }
  __syncthreads();
  const int add = prefix_s + before + x - own;  // everything before this thread's first value
  if (full) {
#pragma unroll
    for (int k = 0; k < IPT / 4; ++k)
      reinterpret_cast<int4*>(out + first)[k] =
          make_int4(v[4 * k] + add, v[4 * k + 1] + add, v[4 * k + 2] + add, v[4 * k + 3] + add);
  } else {
#pragma unroll
    for (int k = 0; k < IPT; ++k)
      if (first + k < n) out[first + k] = v[k] + add;
  }
}
