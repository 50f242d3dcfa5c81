// launch: {"grid": ["cdiv(n, 4096)"], "block": [256]}
// Inclusive scan, scan_redux (best.cu with a look-back round of two votes and one redux) reading 64
// predecessors per round trip: each lane loads two state words (tiles nearest - lane and nearest - 32 -
// lane) back to back, and the second window of 32 is judged and summed from registers when the first
// holds no inclusive prefix. A tile far from the nearest prefix walks back 64 tiles (262144 values) per
// round trip instead of 32, so the prefixes can advance twice as fast when a round is the limit.
#define TPB 256
#define IPT 16               // values per thread
#define TILE (TPB * IPT)     // 4096 values per tile
#define FLAG_AGG 1ull        // the tile's own total is published
#define FLAG_PREFIX 2ull     // its inclusive prefix (everything up to its end) is published

__device__ __forceinline__ void scan_publish(unsigned long long* word, unsigned long long flag, int value) {
  *reinterpret_cast<volatile unsigned long long*>(word) = (flag << 32) | (unsigned)value;
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
      int nearest = t - 1;  // the windows: a = tiles nearest - 31 .. nearest, b = the 32 before, lane 0 the nearest
      while (true) {
        const int ja = nearest - lane, jb = ja - 32;
        const unsigned long long wa =
            ja >= 0 ? *reinterpret_cast<volatile unsigned long long*>(tiles + ja) : (FLAG_PREFIX << 32);
        const unsigned long long wb =
            jb >= 0 ? *reinterpret_cast<volatile unsigned long long*>(tiles + jb) : (FLAG_PREFIX << 32);
        unsigned pre = __ballot_sync(0xffffffffu, (unsigned)(wa >> 32) == (unsigned)FLAG_PREFIX);
        unsigned none = __ballot_sync(0xffffffffu, (unsigned)(wa >> 32) == 0u);
        unsigned upto = pre ? pre ^ (pre - 1) : 0xffffffffu;  // lanes up to the nearest prefix (or all)
        if (none & upto) continue;  // a tile nearer than the nearest prefix has published nothing yet: again
        excl += __reduce_add_sync(0xffffffffu, (upto >> lane) & 1u ? (int)(unsigned)wa : 0);
        if (pre) break;
        // window a was all aggregates: window b, read in the same round trip
        pre = __ballot_sync(0xffffffffu, (unsigned)(wb >> 32) == (unsigned)FLAG_PREFIX);
        none = __ballot_sync(0xffffffffu, (unsigned)(wb >> 32) == 0u);
        upto = pre ? pre ^ (pre - 1) : 0xffffffffu;
        if (none & upto) {  // (window a is counted) read again from window b
          nearest -= 32;
          continue;
        }
        excl += __reduce_add_sync(0xffffffffu, (upto >> lane) & 1u ? (int)(unsigned)wb : 0);
        if (pre) break;
        nearest -= 64;
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
