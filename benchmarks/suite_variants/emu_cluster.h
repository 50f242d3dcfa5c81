// A thread-block cluster for tests/emu (which runs one block at a time), put in front of a candidate
// with __cluster_dims__ by emu_check.py, inside the candidate's namespace (kp_emu.h is included already).
// emu_check.py also calls note(&x, sizeof(x)) after each `__shared__` declaration in a function, so that
// a pointer from map_shared_rank may be moved within its object (map_shared_rank(total, b)[cx]).
//
// The candidate runs three times. Run 1 notes which shared objects map_shared_rank points into (the
// whole dynamic shared memory, for an address there). Run 2 takes, at every cluster barrier (sync or
// arrive), each block's bytes of those objects. Run 3 answers map_shared_rank(p, r) with a pointer into
// what rank r held there at the barrier the reader passed last; only run 3's outputs are checked. That
// is right for a kernel whose blocks publish values before a cluster barrier and read the other ranks'
// after it (what the GPU allows without a race). Not checked: a missing barrier (a read before the
// peer's write would still see the recorded value), a block leaving while a peer reads its memory,
// writes into another block's shared memory (they land in the recording), co-scheduling and the
// shared-memory limits.
namespace kp_cluster {

struct Span {  // an object: its key (see key_of) and bytes
  unsigned long long key, size;
};
struct Rec {  // rank's bytes of span (an index) after `epoch` cluster barriers, at pool[off]
  unsigned long long cluster, off;
  unsigned rank, epoch, span, pad;
};

inline unsigned dims[3] = {1, 1, 1};
inline bool set_dims(unsigned x, unsigned y, unsigned z) {
  dims[0] = x;
  dims[1] = y;
  dims[2] = z;
  return true;
}
inline char anchor;                      // static shared variables are keyed by their offset from it
inline thread_local unsigned epoch = 0;  // cluster barriers this thread has passed
inline std::mutex mu;

inline bool less(const Rec& a, const Rec& b) {
  if (a.cluster != b.cluster) return a.cluster < b.cluster;
  if (a.rank != b.rank) return a.rank < b.rank;
  if (a.epoch != b.epoch) return a.epoch < b.epoch;
  return a.span < b.span;
}

// dynamic shared memory by its offset in the block's buffer (bit 62 set), static by its offset from
// anchor (either side of it: biased by 2^60)
inline unsigned long long key_of(const void* p) {
  const uintptr_t a = (uintptr_t)p, d = (uintptr_t)kp_dynamic_shared.data();
  if (a >= d && a < d + kp_dynamic_shared.size()) return (1ull << 62) | (unsigned long long)(a - d);
  return (unsigned long long)((long long)(a - (uintptr_t)&anchor) + (1ll << 60));
}
inline const unsigned char* address_of(unsigned long long key) {
  if (key >> 62) return kp_dynamic_shared.data() + (key & ((1ull << 62) - 1));
  return reinterpret_cast<const unsigned char*>((uintptr_t)&anchor + (uintptr_t)((long long)key - (1ll << 60)));
}

struct Store {
  int pass = 0;
  std::string path;
  std::vector<Span> objects, reads;  // run 1: the noted objects, the addresses read across the cluster
  std::vector<Span> spans;           // runs 2 and 3: what is recorded
  std::vector<Rec> recs;
  std::vector<unsigned char> pool;
  Store() {
    const char* p = std::getenv("KP_CLUSTER_PASS");
    const char* f = std::getenv("KP_CLUSTER_FILE");
    if (!p || !f) return;
    pass = std::atoi(p);
    path = f;
    if (pass >= 2) load(path + ".spans", spans);
    if (pass == 3) {
      load(path + ".recs", recs);
      load(path + ".pool", pool);
    }
  }
  ~Store() {
    if (pass == 1) {
      for (const Span& r : reads) {
        Span s = r;
        if (r.key >> 62) {
          s = Span{1ull << 62, (unsigned long long)kp_shared_bytes};
        } else {
          for (const Span& o : objects)
            if (!(o.key >> 62) && o.key <= r.key && r.key < o.key + o.size) s = o;
        }
        bool seen = false;
        for (const Span& t : spans) seen = seen || (t.key == s.key && t.size == s.size);
        if (!seen) spans.push_back(s);
      }
      save(path + ".spans", spans);
    } else if (pass == 2) {
      std::sort(recs.begin(), recs.end(), less);
      save(path + ".recs", recs);
      save(path + ".pool", pool);
    }
  }
  template <class T> static void save(const std::string& name, const std::vector<T>& v) {
    FILE* out = std::fopen(name.c_str(), "wb");
    if (out) {
      std::fwrite(v.data(), sizeof(T), v.size(), out);
      std::fclose(out);
    }
  }
  template <class T> static void load(const std::string& name, std::vector<T>& v) {
    FILE* in = std::fopen(name.c_str(), "rb");
    if (!in) {
      std::fprintf(stderr, "kp_cluster: %s is missing (the previous run failed?)\n", name.c_str());
      std::exit(3);
    }
    std::fseek(in, 0, SEEK_END);
    const long bytes = std::ftell(in);
    std::fseek(in, 0, SEEK_SET);
    v.resize((size_t)bytes / sizeof(T));
    if (!v.empty() && std::fread(v.data(), sizeof(T), v.size(), in) != v.size()) v.clear();
    std::fclose(in);
  }
};
inline Store store;

inline unsigned rank_of() {
  return blockIdx.x % dims[0] + dims[0] * (blockIdx.y % dims[1] + dims[1] * (blockIdx.z % dims[2]));
}
inline unsigned long long cluster_of() {
  if (gridDim.x % dims[0] || gridDim.y % dims[1] || gridDim.z % dims[2]) {
    std::fprintf(stderr, "kp_cluster: grid (%u, %u, %u) is not a multiple of the cluster (%u, %u, %u)\n", gridDim.x,
                 gridDim.y, gridDim.z, dims[0], dims[1], dims[2]);
    std::exit(3);
  }
  const unsigned long long gx = gridDim.x / dims[0], gy = gridDim.y / dims[1];
  return blockIdx.x / dims[0] + gx * (blockIdx.y / dims[1] + gy * (blockIdx.z / dims[2]));
}

// a `__shared__` object of the kernel (run 1 keeps its extent)
inline void note(const void* p, unsigned long long size) {
  if (store.pass != 1) return;
  const Span s{key_of(p), size};
  std::lock_guard<std::mutex> g(mu);
  for (const Span& o : store.objects)
    if (o.key == s.key) return;
  store.objects.push_back(s);
}

// one barrier of the cluster: the block's threads meet; in run 2 one of them records the block's bytes
inline void barrier() {
  __syncthreads();
  if (store.pass == 2 && kp_tid == 0) {
    const unsigned long long c = cluster_of();
    const unsigned r = rank_of();
    std::lock_guard<std::mutex> g(mu);
    for (unsigned i = 0; i < store.spans.size(); ++i) {
      const Span& s = store.spans[i];
      const unsigned long long off = (store.pool.size() + 15) / 16 * 16;
      store.pool.resize(off + s.size);
      std::memcpy(store.pool.data() + off, address_of(s.key), s.size);
      store.recs.push_back(Rec{c, off, r, epoch + 1, i, 0});
    }
  }
  __syncthreads();
  ++epoch;
}

template <class T> T* map(T* p, unsigned r) {
  const unsigned me = rank_of();
  const unsigned long long k = key_of(p);
  if (store.pass == 1) {
    std::lock_guard<std::mutex> g(mu);
    bool seen = false;
    for (const Span& s : store.reads) seen = seen || s.key == k;
    if (!seen) store.reads.push_back(Span{k, sizeof(T)});
  }
  if (store.pass != 3 || r == me) return p;
  unsigned span = ~0u;
  for (unsigned i = 0; i < store.spans.size(); ++i)
    if (store.spans[i].key <= k && k < store.spans[i].key + store.spans[i].size) span = i;
  const Rec want{cluster_of(), 0, r, epoch, span, 0};
  auto it = std::lower_bound(store.recs.begin(), store.recs.end(), want, less);
  if (span == ~0u || it == store.recs.end() || less(want, *it)) {
    std::fprintf(stderr, "kp_cluster: rank %u read rank %u's shared memory after %u cluster barriers, "
                 "where no barrier recorded it\n", me, r, epoch);
    std::exit(3);
  }
  return reinterpret_cast<T*>(store.pool.data() + it->off + (k - store.spans[span].key));
}

struct cluster_group {
  using arrival_token = struct {};
  static unsigned block_rank() { return rank_of(); }
  static unsigned num_blocks() { return dims[0] * dims[1] * dims[2]; }
  static dim3 dim_blocks() { return dim3(dims[0], dims[1], dims[2]); }
  static dim3 block_index() { return dim3(blockIdx.x % dims[0], blockIdx.y % dims[1], blockIdx.z % dims[2]); }
  static void sync() { barrier(); }
  static arrival_token barrier_arrive() {
    barrier();
    return {};
  }
  static void barrier_wait() { __syncthreads(); }
  static void barrier_wait(arrival_token&&) { __syncthreads(); }
  template <class T> static T* map_shared_rank(T* p, unsigned r) { return map(p, r); }
  template <class T> static T* map_shared_rank(T* p, int r) { return map(p, (unsigned)r); }
};
inline cluster_group this_cluster() { return {}; }

}  // namespace kp_cluster
#define cooperative_groups kp_cluster
