// launch: {"grid": ["cdiv(n, 8192)"], "block": [512]}
// Inclusive scan, scan_redux (best.cu with a look-back round of two votes and one redux) with tiles of
// 8192 values: blocks of 512 threads x 16 values (int4 loads), 16 warp totals added in shared memory.
// Half the tiles (8192 at 2^26), so half the look-back rounds, state words and counter atomics per value,
// and a window of 32 predecessors spans 262144 values. The state buffer (cdiv(n, 4096) + 1 words) is
// used up to cdiv(n, 8192) + 1. __launch_bounds__(512, 3): 3 blocks (1536 threads, 96 KB of loads) per
// SM, as best.cu's 6 blocks of 256.
#define TPB 512
#define IPT 16               // values per thread
#define TILE (TPB * IPT)     // 8192 values per tile
#define FLAG_AGG 1ull        // the tile's own total is published
#define FLAG_PREFIX 2ull     // its inclusive prefix (everything up to its end) is published

__device__ __forceinline__ void scan_publish(unsigned long long* word, unsigned long long flag, int value) {
  *reinterpret_cast<volatile unsigned long long*>(word) = (flag << 32) | (unsigned)value;
}

__global__ void __launch_bounds__(TPB, 3) scan(int* __restrict__ out, const int* __restrict__ inp,
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
        const unsigned flag = (unsigned)(word >> 32);
        const unsigned pre = __ballot_sync(0xffffffffu, flag == (unsigned)FLAG_PREFIX);  // inclusive prefixes
        const unsigned none = __ballot_sync(0xffffffffu, flag == 0u);                    // nothing published
        const unsigned upto = pre ? pre ^ (pre - 1) : 0xffffffffu;  // lanes up to the nearest prefix (or all)
        if (none & upto) continue;  // a tile nearer than the nearest prefix has published nothing yet: again
        excl += __reduce_add_sync(0xffffffffu, (upto >> lane) & 1u ? (int)(unsigned)word : 0);
        if (pre) break;
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
