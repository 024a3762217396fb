// pack_split / unpack_split (see conv_pack.h). Work is spread over torch's
// intra-op threads.
//
// Planar real tensor (s stride 1): one task per (b, c) row, converted in
// place by conv_rows.
// Channels-last real tensor (c' stride 1): a tiled transpose. A task owns
// one batch entry and a tile of kS spatial positions; for kC channels at a
// time (whose real parts, and imaginary parts, are adjacent columns: one
// group, or all channels with a real weight) it converts their kS-long
// complex rows into a small buffer (L1) and then writes (or, unpacking,
// reads) the buffer transposed in 8 x 8 blocks.
#include "conv_pack.h"

#include <ATen/Parallel.h>

#include <algorithm>

#include "conv_rows.h"
#include "output_pool.h"

namespace complexext {
namespace {

constexpr int64_t kS = 64, kC = 8;

struct Strides {
  int64_t b, c, s;  // of the real tensor, in elements; s: the flattened spatial index
};

int64_t grain(int64_t work_per_task) {
  return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, work_per_task));
}

template <typename T, typename R>
void pack_all(const T* src, R* dst, const SplitLayout& L, int64_t S, Strides st) {
  if (st.s == 1) {
    at::parallel_for(0, L.B * L.C, grain(S), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t b = r / L.C, c = r % L.C;
        conv_rows::pack(src + 2 * r * S, dst + L.re_batch(b) * st.b + L.re_chan(c) * st.c,
                        dst + L.im_batch(b) * st.b + L.im_chan(c) * st.c, S);
      }
    });
    return;
  }
  const int64_t tiles = (S + kS - 1) / kS, run = L.fold_batch ? L.C : L.C / L.G;
  at::parallel_for(0, L.B * tiles, grain(L.C * kS), [&](int64_t t0, int64_t t1) {
    R re[kC * kS], im[kC * kS];
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t b = t / tiles, s0 = (t % tiles) * kS, n = std::min(kS, S - s0);
      R* dre = dst + L.re_batch(b) * st.b + s0 * st.s;
      R* dim = dst + L.im_batch(b) * st.b + s0 * st.s;
      for (int64_t c0 = 0, cn; c0 < L.C; c0 += cn) {
        cn = std::min(kC, (c0 / run + 1) * run - c0);  // one run of adjacent columns
        for (int64_t j = 0; j < cn; ++j)
          conv_rows::pack(src + 2 * ((b * L.C + c0 + j) * S + s0), re + j * kS, im + j * kS, n);
        R* pre = dre + L.re_chan(c0);
        R* pim = dim + L.im_chan(c0);
        for (int64_t s = 0; s < n; s += 8) {
          conv_rows::transpose(re + s, kS, pre + s * st.s, st.s, cn, std::min<int64_t>(8, n - s));
          conv_rows::transpose(im + s, kS, pim + s * st.s, st.s, cn, std::min<int64_t>(8, n - s));
        }
      }
    }
  });
}

template <typename T, typename R>
void unpack_all(const R* y, T* dst, const SplitLayout& L, int64_t S, Strides st, const R* br,
                const R* bi) {
  if (st.s == 1) {
    at::parallel_for(0, L.B * L.C, grain(S), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t b = r / L.C, c = r % L.C;
        conv_rows::unpack(y + L.re_batch(b) * st.b + L.re_chan(c) * st.c,
                          y + L.im_batch(b) * st.b + L.im_chan(c) * st.c, dst + 2 * r * S, S,
                          br ? br[c] : R(0), bi ? bi[c] : R(0));
      }
    });
    return;
  }
  const int64_t tiles = (S + kS - 1) / kS, run = L.fold_batch ? L.C : L.C / L.G;
  at::parallel_for(0, L.B * tiles, grain(L.C * kS), [&](int64_t t0, int64_t t1) {
    R re[kC * kS], im[kC * kS];
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t b = t / tiles, s0 = (t % tiles) * kS, n = std::min(kS, S - s0);
      const R* yre = y + L.re_batch(b) * st.b + s0 * st.s;
      const R* yim = y + L.im_batch(b) * st.b + s0 * st.s;
      for (int64_t c0 = 0, cn; c0 < L.C; c0 += cn) {
        cn = std::min(kC, (c0 / run + 1) * run - c0);
        const R* pre = yre + L.re_chan(c0);
        const R* pim = yim + L.im_chan(c0);
        for (int64_t s = 0; s < n; s += 8) {
          conv_rows::transpose(pre + s * st.s, st.s, re + s, kS, std::min<int64_t>(8, n - s), cn);
          conv_rows::transpose(pim + s * st.s, st.s, im + s, kS, std::min<int64_t>(8, n - s), cn);
        }
        for (int64_t j = 0; j < cn; ++j) {
          const int64_t c = c0 + j;
          conv_rows::unpack(re + j * kS, im + j * kS, dst + 2 * ((b * L.C + c) * S + s0), n,
                            br ? br[c] : R(0), bi ? bi[c] : R(0));
        }
      }
    }
  });
}

// The stride of the flattened spatial index, or 0 when the spatial dims
// are not one uniformly strided run.
int64_t spatial_stride(const at::Tensor& y) {
  int64_t expect = 0, ss = 0;
  for (int64_t i = y.dim() - 1; i >= 2; --i) {
    if (y.size(i) == 1) continue;
    if (expect == 0) {
      ss = expect = y.stride(i);
    } else if (y.stride(i) != expect) {
      return 0;
    }
    expect *= y.size(i);
  }
  return ss == 0 ? 1 : ss;
}

template <typename F>
void dispatch(at::ScalarType t, F&& f) {
  switch (t) {
    case at::kComplexHalf: return f(c10::Half(), float());
    case at::kComplexFloat: return f(float(), float());
    case at::kComplexDouble: return f(double(), double());
    default: TORCH_CHECK(false, "convolution: unsupported dtype ", t);
  }
}

}  // namespace

at::Tensor pack_split(const at::Tensor& x, const SplitLayout& L, at::ScalarType compute,
                      bool channels_last) {
  TORCH_INTERNAL_ASSERT(x.is_contiguous() && x.is_complex() && !x.is_conj());
  const auto spatial = x.sizes().slice(2);
  std::vector<int64_t> order = {L.batches()};
  order.insert(order.end(), spatial.begin(), spatial.end());
  order.push_back(L.channels());
  std::vector<int64_t> perm = {0, (int64_t)order.size() - 1};
  for (size_t i = 0; i < spatial.size(); ++i) perm.push_back((int64_t)i + 1);
  const auto opts = x.options().dtype(compute);
  at::Tensor dst;
  if (channels_last) {
    dst = new_output(order, opts).permute(perm);
  } else {
    std::vector<int64_t> shape = {L.batches(), L.channels()};
    shape.insert(shape.end(), spatial.begin(), spatial.end());
    dst = new_output(shape, opts);
  }
  if (dst.numel() == 0) return dst;
  const int64_t S = x.numel() / (L.B * L.C);
  const Strides st{dst.stride(0), dst.stride(1), channels_last ? L.channels() : 1};
  dispatch(x.scalar_type(), [&](auto t, auto r) {
    using T = decltype(t);
    using R = decltype(r);
    pack_all<T, R>(static_cast<const T*>(x.const_data_ptr()), static_cast<R*>(dst.data_ptr()), L,
                   S, st);
  });
  return dst;
}

void unpack_split(const at::Tensor& y_in, const at::Tensor& out, const SplitLayout& L,
                  const at::Tensor& bias_re, const at::Tensor& bias_im) {
  TORCH_INTERNAL_ASSERT(out.is_contiguous() && out.is_complex());
  if (out.numel() == 0) return;
  at::Tensor y = y_in;
  int64_t ss = spatial_stride(y);
  if (ss == 0 || (ss != 1 && y.stride(1) != 1)) {
    y = y.contiguous();
    ss = 1;
  }
  const int64_t S = out.numel() / (L.B * L.C);
  const Strides st{y.stride(0), y.stride(1), ss};
  dispatch(out.scalar_type(), [&](auto t, auto r) {
    using T = decltype(t);
    using R = decltype(r);
    const R* br = bias_re.defined() ? static_cast<const R*>(bias_re.const_data_ptr()) : nullptr;
    const R* bi = bias_im.defined() ? static_cast<const R*>(bias_im.const_data_ptr()) : nullptr;
    unpack_all<T, R>(static_cast<const R*>(y.const_data_ptr()), static_cast<T*>(out.data_ptr()),
                     L, S, st, br, bi);
  });
}

}  // namespace complexext
