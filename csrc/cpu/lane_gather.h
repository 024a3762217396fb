// FRAGMENT, not a header: lanes_impl.h includes it inside its instruction-set
// namespace (CX_NS), once per isa_*.cpp; include it nowhere else. No include
// guard, no includes of its own.
//
// Moving pairs of scalars (a complex value, or two neighbouring reals)
// between W rows in memory and one lane vector each for re and im.
//
// The portable version loads lane by lane. With AVX-512 a pair of fp16 is
// one 32-bit element and a pair of fp32 one 64-bit element, so a single
// gather (scatter) instruction moves the pair for all 16 lanes; fp16 <->
// fp32 conversion then runs on whole vectors (lane_gather_avx512.h). AVX2
// has no scatter: runs of a row move in vectors through 8 x 8 transposes
// (lane_gather_avx2.h). Included inside the ISA namespace of lanes_impl.h.

template <class A, class B> struct same_type { enum { value = 0 }; };
template <class A> struct same_type<A, A> { enum { value = 1 }; };

template <class S, class T, class L>
struct pair_io_lanewise {
  typedef typename L::V V;
  enum { W = L::W, fast = 0 };
  struct index {
    void set(const cx_i64*) {}
  };
  static cx<V> load(const T* p, const cx_i64* off, const index&) {
    cx<V> z;
    for (int l = 0; l < W; ++l) {
      z.re[l] = ld<S>(p + off[l]);
      z.im[l] = ld<S>(p + off[l] + 1);
    }
    return z;
  }
  static void store(T* p, const cx_i64* off, const index&, int nl, cx<V> z) {
    for (int l = 0; l < nl; ++l) {
      st<S>(p + off[l], z.re[l]);
      st<S>(p + off[l] + 1, z.im[l]);
    }
  }
  // count (<= 16) consecutive pairs z[0..count) at p, p+2, ... of each row.
  static void load_run(const T* p, const cx_i64* off, const index& ix, cx<V>* z, int count) {
    for (int j = 0; j < count; ++j) z[j] = load(p + 2 * j, off, ix);
  }
  // The output rows of one group, for stores at scattered offsets (one
  // vector per output element, e.g. bins far apart in memory): the rows'
  // geometry is worked out once and held in registers, not reloaded from
  // the group for every store (a store through a void* may alias it).
  struct sink {
    T* p;
    const cx_i64* off;
    int nl;
    sink(T* p_, const cx_i64* off_, const index&, int nl_) : p(p_), off(off_), nl(nl_) {}
    void put(cx_i64 s, cx<V> z) const { store(p + s, off, index(), nl, z); }
    // put, and fetch ahead the memory the next group of rows will store
    // to at the same offset (where the groups' rows are adjacent)
    void put_ahead(cx_i64 s, cx<V> z) const { put(s, z); }
  };
  // store_run's pairs are z[j] times (sr, si) part by part: sr = si = 1 as
  // they are, si = -sr conjugated and scaled.
  static void store_run(T* p, const cx_i64* off, const index&, int nl, const cx<V>* z, int count,
                        S sr = 1, S si = 1) {
    for (int l = 0; l < nl; ++l)
      for (int j = 0; j < count; ++j) {
        st<S>(p + off[l] + 2 * j, z[j].re[l] * sr);
        st<S>(p + off[l] + 2 * j + 1, z[j].im[l] * si);
      }
  }
};
template <class S, class T, class L> struct pair_io : pair_io_lanewise<S, T, L> {};

// The per-pair moves run once per element of every row: a call for each
// (with the 128-byte pair of vectors passed on the stack) cost more than
// the move itself, so they are always inlined and their rare slow paths
// never are.
#define CX_LANE_INLINE __attribute__((always_inline)) inline

#if defined(CX_AVX512)
#include "lane_gather_avx512.h"
#elif defined(CX_AVX2)
#include "lane_gather_avx2.h"
#endif
