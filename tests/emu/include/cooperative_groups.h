// kp_emu's <cooperative_groups.h>: the groups of one block, on the emulator's barriers and warp
// meets (kp_emu.h), with CUDA's names, return types and checks:
//   thread_block (this_thread_block): sync, thread_rank, size/num_threads, group_index,
//     thread_index, group_dim/dim_threads, barrier_arrive/barrier_wait;
//   thread_block_tile<N, Parent> (tiled_partition<N>(block or tile), N = 1, 2, 4, ..., 32):
//     thread_rank, size/num_threads, meta_group_rank/size, sync, shfl, shfl_down, shfl_up,
//     shfl_xor, any, all, ballot, match_any, match_all; thread_block_tile<N> (no parent) from it;
//   thread_group (tiled_partition(group, n), or a block or tile held as one): sync, thread_rank,
//     size/num_threads, get_type;
//   grid_group (this_grid): its ranks and sizes; is_valid() is false (not a cooperative launch);
//   cluster_group (this_cluster): a cluster of one block (blocks run one at a time);
//   sync(g), thread_rank(g), group_size(g); reduce(tile, v, op) in <cooperative_groups/reduce.h>.
// Refused at compile time, with a message: grid_group::sync (a grid-wide barrier needs every block
// at once), coalesced_threads() (the emulator does not model which lanes run together), tiles of
// more than 32 threads.
#pragma once
namespace cooperative_groups {
namespace details {
template <class Ty> using remove_qual = std::remove_cv_t<std::remove_reference_t<Ty>>;
enum : unsigned { coalesced_group_id = 1, thread_block_id = 3, grid_group_id = 4, cluster_group_id = 5 };
inline unsigned laneid() { return (unsigned)kp_tid % 32u; }
inline unsigned lanemask32_lt() { return (1u << laneid()) - 1u; }
inline unsigned cta_size() { return blockDim.x * blockDim.y * blockDim.z; }
inline unsigned cta_rank() { return (unsigned)kp_tid; }  // threadIdx linearised x fastest, as CUDA does
}  // namespace details

class thread_block;
class grid_group;
template <unsigned Size, class ParentT = void> class thread_block_tile;

class thread_group {
 protected:
  unsigned type_;
  unsigned mask_ = 0, size_ = 0, meta_rank_ = 0, meta_size_ = 1;  // a coalesced group's lanes
  explicit thread_group(unsigned type) : type_(type) {}
  friend thread_group tiled_partition(const thread_group& parent, unsigned tilesz);

 public:
  unsigned long long size() const;
  unsigned long long num_threads() const { return size(); }
  unsigned long long thread_rank() const;
  void sync() const;
  unsigned get_type() const { return type_; }
};

class thread_block : public thread_group {
  friend thread_block this_thread_block();
  thread_block() : thread_group(details::thread_block_id) {}

 public:
  static constexpr unsigned _group_id = details::thread_block_id;
  struct arrival_token {};
  static void sync() { __syncthreads(); }
  arrival_token barrier_arrive() const { return {}; }
  void barrier_wait(arrival_token&&) const { __syncthreads(); }
  static unsigned size() { return details::cta_size(); }
  static unsigned num_threads() { return details::cta_size(); }
  static unsigned thread_rank() { return details::cta_rank(); }
  static dim3 group_index() { return blockIdx; }
  static dim3 thread_index() { return threadIdx; }
  static dim3 group_dim() { return blockDim; }
  static dim3 dim_threads() { return blockDim; }
};
inline thread_block this_thread_block() { return thread_block(); }

// the threads of a warp that run together: only its type is here (coalesced_threads is refused)
class coalesced_group;
template <class T = void> coalesced_group coalesced_threads();
class coalesced_group : public thread_group {
  template <class T> friend coalesced_group coalesced_threads();
  explicit coalesced_group(unsigned mask) : thread_group(details::coalesced_group_id) {
    mask_ = mask;
    size_ = (unsigned)__builtin_popcount(mask);
  }

 public:
  static constexpr unsigned _group_id = details::coalesced_group_id;
  unsigned num_threads() const { return size_; }
  unsigned size() const { return size_; }
  unsigned thread_rank() const { return (unsigned)__builtin_popcount(mask_ & details::lanemask32_lt()); }
  unsigned meta_group_rank() const { return meta_rank_; }
  unsigned meta_group_size() const { return meta_size_; }
  void sync() const { __syncwarp(mask_); }
};
template <class T> inline coalesced_group coalesced_threads() {
  static_assert(kp_unsupported<T>, "kp_emu: cooperative_groups::coalesced_threads() is not emulated (the emulator does "
                                   "not model which lanes run together); use a tile of tiled_partition with a ballot");
  return coalesced_group(0);
}

class grid_group : public thread_group {
  friend grid_group this_grid();
  grid_group() : thread_group(details::grid_group_id) {}

 public:
  static constexpr unsigned _group_id = details::grid_group_id;
  bool is_valid() const { return false; }  // the emulator's launches are not cooperative launches
  template <class T = void> void sync() const {
    static_assert(kp_unsupported<T>, "kp_emu: grid_group::sync() is not emulated: a grid-wide barrier needs every block "
                                     "resident at once (a cooperative launch); the emulator runs blocks one at a time");
  }
  static unsigned long long num_blocks() { return (unsigned long long)gridDim.x * gridDim.y * gridDim.z; }
  static unsigned long long block_rank() {
    return ((unsigned long long)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  }
  static dim3 block_index() { return blockIdx; }
  static dim3 dim_blocks() { return gridDim; }
  static dim3 group_dim() { return gridDim; }
  static dim3 dim_threads() { return dim3(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z); }
  static unsigned long long num_threads() { return num_blocks() * details::cta_size(); }
  static unsigned long long size() { return num_threads(); }
  static unsigned long long thread_rank() { return block_rank() * details::cta_size() + details::cta_rank(); }
  static dim3 thread_index() {
    return dim3(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y,
                blockIdx.z * blockDim.z + threadIdx.z);
  }
};
inline grid_group this_grid() { return grid_group(); }

namespace details {
template <unsigned Size> struct tile_base {
  static constexpr bool pow2 = Size >= 1 && (Size & (Size - 1)) == 0;
  static_assert(!(pow2 && Size > 32 && Size <= 512),
                "kp_emu: thread_block_tile of more than 32 threads (64/128/256/512, with block_tile_memory) is not "
                "emulated; partition into tiles of at most 32");
  static_assert(pow2 && (Size <= 32 || Size <= 512), "Size must be one of 1/2/4/8/16/32");
  static constexpr unsigned numThreads = Size;
  static constexpr unsigned _group_id = coalesced_group_id;
  static unsigned build_mask() {
    return Size == 32 ? 0xffffffffu : ((1u << Size) - 1u) << (laneid() & ~(Size - 1u));
  }
  static unsigned thread_rank() { return cta_rank() & (Size - 1u); }
  static constexpr unsigned num_threads() { return Size; }
  static constexpr unsigned size() { return Size; }
  static void sync() { __syncwarp(build_mask()); }
  template <class T> remove_qual<T> shfl(T&& v, int src) const { return __shfl_sync(build_mask(), remove_qual<T>(v), src, Size); }
  template <class T> remove_qual<T> shfl_down(T&& v, unsigned d) const {
    return __shfl_down_sync(build_mask(), remove_qual<T>(v), d, Size);
  }
  template <class T> remove_qual<T> shfl_up(T&& v, unsigned d) const {
    return __shfl_up_sync(build_mask(), remove_qual<T>(v), d, Size);
  }
  template <class T> remove_qual<T> shfl_xor(T&& v, unsigned m) const {
    return __shfl_xor_sync(build_mask(), remove_qual<T>(v), (int)m, Size);
  }
  int any(int pred) const { return __ballot_sync(build_mask(), pred) != 0; }
  int all(int pred) const { return __ballot_sync(build_mask(), pred) == build_mask(); }
  unsigned ballot(int pred) const { return __ballot_sync(build_mask(), pred) >> (laneid() & ~(Size - 1u)); }
  template <class T> unsigned match_any(T v) const { return __match_any_sync(build_mask(), v) >> (laneid() & ~(Size - 1u)); }
  template <class T> unsigned match_all(T v, int& pred) const {
    return __match_all_sync(build_mask(), v, &pred) >> (laneid() & ~(Size - 1u));
  }
};
template <class P> struct parent_rank {
  static_assert(kp_unsupported<P>, "tiled_partition<N> takes a thread_block or a thread_block_tile");
};
template <> struct parent_rank<thread_block> {
  static unsigned rank() { return cta_rank(); }
  static unsigned size() { return cta_size(); }
};
template <unsigned P, class G> struct parent_rank<thread_block_tile<P, G>> {
  static unsigned rank() { return cta_rank() & (P - 1u); }
  static constexpr unsigned size() { return P; }
};
}  // namespace details

// a tile whose parent is known: its place among the parent's tiles comes from the parent's rank
template <unsigned Size, class ParentT> class thread_block_tile : public details::tile_base<Size> {
  template <unsigned S, class P> friend thread_block_tile<S, P> tiled_partition(const P&);
  thread_block_tile() = default;

 public:
  static unsigned meta_group_rank() { return details::parent_rank<ParentT>::rank() / Size; }
  static unsigned meta_group_size() { return (details::parent_rank<ParentT>::size() + Size - 1) / Size; }
  operator thread_block_tile<Size, void>() const { return thread_block_tile<Size, void>(meta_group_rank(), meta_group_size()); }
};

// thread_block_tile<Size>: the same tile with its parent's type forgotten; a thread_group
template <unsigned Size> class thread_block_tile<Size, void> : public details::tile_base<Size>, public thread_group {
  template <unsigned S, class P> friend class thread_block_tile;
  friend thread_block_tile<1, void> this_thread();
  thread_block_tile(unsigned meta_rank, unsigned meta_size) : thread_group(details::coalesced_group_id) {
    mask_ = details::tile_base<Size>::build_mask();
    size_ = Size;
    meta_rank_ = meta_rank;
    meta_size_ = meta_size;
  }

 public:
  using details::tile_base<Size>::_group_id;
  using details::tile_base<Size>::size;
  using details::tile_base<Size>::num_threads;
  using details::tile_base<Size>::thread_rank;
  using details::tile_base<Size>::sync;
  unsigned meta_group_rank() const { return meta_rank_; }
  unsigned meta_group_size() const { return meta_size_; }
};

template <unsigned Size, class ParentT> inline thread_block_tile<Size, ParentT> tiled_partition(const ParentT& g) {
  if constexpr (!std::is_same_v<ParentT, thread_block>) {
    static_assert(Size < details::parent_rank<ParentT>::size(), "Tile size bigger or equal to the parent group size");
  }
  (void)g;
  return thread_block_tile<Size, ParentT>();
}

inline thread_block_tile<1, void> this_thread() { return thread_block_tile<1, void>(0, 1); }

// tiled_partition(group, n): a thread_group of the lanes of the caller's tile of n (n a power of
// two up to 32), as CUDA computes it for a block or a tile
inline thread_group tiled_partition(const thread_group& parent, unsigned tilesz) {
  if (tilesz == 0 || tilesz > 32 || (tilesz & (tilesz - 1)) != 0) {
    std::fprintf(stderr, "kp_emu: tiled_partition(group, %u): the size must be a power of two up to 32\n", tilesz);
    std::abort();
  }
  thread_group tile(details::coalesced_group_id);
  if (parent.get_type() == details::thread_block_id) {
    const unsigned base = details::cta_rank() & ~(tilesz - 1u);
    const unsigned len = std::min(details::cta_size() - base, tilesz);
    tile.mask_ = (0xffffffffu >> (32 - len)) << (details::laneid() & ~(tilesz - 1u));
    tile.meta_size_ = (details::cta_size() + tilesz - 1) / tilesz;
    tile.meta_rank_ = details::cta_rank() / tilesz;
  } else if (parent.get_type() == details::coalesced_group_id) {
    if (parent.size() <= tilesz) return parent;
    const unsigned rank = (unsigned)parent.thread_rank(), psize = (unsigned)parent.size();
    const unsigned base = rank & ~(tilesz - 1u);
    const unsigned len = std::min(psize - base, tilesz);
    tile.mask_ = (0xffffffffu >> (32 - len)) << (details::laneid() & ~(tilesz - 1u));
    tile.meta_size_ = psize / tilesz;
    tile.meta_rank_ = rank / tilesz;
  } else {
    std::fprintf(stderr, "kp_emu: tiled_partition(group, n) of a group that is not a block or a tile\n");
    std::abort();
  }
  tile.size_ = (unsigned)__builtin_popcount(tile.mask_);
  return tile;
}
inline thread_group tiled_partition(const thread_block& parent, unsigned tilesz) {
  return tiled_partition(static_cast<const thread_group&>(parent), tilesz);
}

inline unsigned long long thread_group::size() const {
  switch (type_) {
    case details::thread_block_id: return details::cta_size();
    case details::grid_group_id: return grid_group::size();
    default: return size_;
  }
}
inline unsigned long long thread_group::thread_rank() const {
  switch (type_) {
    case details::thread_block_id: return details::cta_rank();
    case details::grid_group_id: return grid_group::thread_rank();
    default: return (unsigned)__builtin_popcount(mask_ & details::lanemask32_lt());
  }
}
inline void thread_group::sync() const {
  switch (type_) {
    case details::thread_block_id: __syncthreads(); break;
    case details::grid_group_id:
      std::fprintf(stderr, "kp_emu: sync() of a grid group (held as a thread_group) is not emulated\n");
      std::abort();
    default: __syncwarp(mask_);
  }
}

template <class GroupT> inline void sync(GroupT const& g) { g.sync(); }
template <class GroupT> inline auto thread_rank(GroupT const& g) -> decltype(g.thread_rank()) { return g.thread_rank(); }
template <class GroupT> inline auto group_size(GroupT const& g) -> decltype(g.num_threads()) { return g.num_threads(); }

// ------------------------------------------------------------------ a cluster of one block
// (blocks run one at a time in the emulator)
struct cluster_group {
  unsigned block_rank() const { return 0; }
  unsigned num_blocks() const { return 1; }
  void sync() const { __syncthreads(); }
  template <class T> T* map_shared_rank(T* p, unsigned) const { return p; }
};
inline cluster_group this_cluster() { return {}; }
}  // namespace cooperative_groups
