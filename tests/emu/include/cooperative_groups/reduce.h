// kp_emu's <cooperative_groups/reduce.h>: reduce(tile, value, op) over a thread_block_tile of at
// most 32 threads, with CUDA's operators (plus, less, greater, bit_and, bit_or, bit_xor) or any
// binary function, and CUDA's checks. Every lane gets the result of the same butterfly CUDA's
// shuffle path runs (op(mine, shfl_xor(mine, m)) for m = N/2 ... 1), so float sums round as there;
// integer sums, minima, maxima and bit operations are exact whatever the order.
#pragma once
#include <cooperative_groups.h>
namespace cooperative_groups {
template <class Ty> struct plus {
  Ty operator()(Ty a, Ty b) const { return a + b; }
};
template <class Ty> struct less {
  Ty operator()(Ty a, Ty b) const { return (b < a) ? b : a; }
};
template <class Ty> struct greater {
  Ty operator()(Ty a, Ty b) const { return (a < b) ? b : a; }
};
template <class Ty> struct bit_and {
  Ty operator()(Ty a, Ty b) const { return a & b; }
};
template <class Ty> struct bit_xor {
  Ty operator()(Ty a, Ty b) const { return a ^ b; }
};
template <class Ty> struct bit_or {
  Ty operator()(Ty a, Ty b) const { return a | b; }
};

namespace details {
template <class G> struct reduce_group_supported : std::false_type {};
template <unsigned Sz, class P> struct reduce_group_supported<thread_block_tile<Sz, P>> : std::true_type {};
template <class G> struct reduce_group_refused : std::false_type {};
template <> struct reduce_group_refused<coalesced_group> : std::true_type {};
}  // namespace details

template <class TyGroup, class TyVal, class TyFn>
inline auto reduce(const TyGroup& group, TyVal&& val, TyFn&& op) -> decltype(op(val, val)) {
  using G = details::remove_qual<TyGroup>;
  static_assert(std::is_same_v<details::remove_qual<TyVal>, details::remove_qual<decltype(op(val, val))>>,
                "Operator input and output types differ");
  static_assert(!details::reduce_group_refused<G>::value, "kp_emu: reduce over a coalesced_group is not emulated");
  static_assert(details::reduce_group_supported<G>::value, "This group does not exclusively represent a tile");
  details::remove_qual<TyVal> out = val;
  if constexpr (details::reduce_group_supported<G>::value)
    for (int m = (int)G::size() >> 1; m > 0; m >>= 1) out = op(out, group.shfl_xor(out, (unsigned)m));
  return out;
}
}  // namespace cooperative_groups
