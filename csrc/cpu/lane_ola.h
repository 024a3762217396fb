// FRAGMENT, not a header: lanes_impl.h includes it inside its instruction-set
// namespace (CX_NS), once per isa_*.cpp; include it nowhere else. No include
// guard, no includes of its own.
//
// The ISTFT's overlap-add (cx_ola_job, driven by csrc/cpu/stft_ops.cpp),
// compiled per instruction set. Included inside the ISA namespace of
// lanes_impl.h, after lane_rows.h (put_reals); no standard or torch headers.

// ---- the ISTFT's overlap-add ----------------------------------------------
// Samples s = j*hop + u (0 <= u < hop) of block j are covered by frames
// t <= j with (j - t)*hop + u < n_fft, so each frame adds to one contiguous
// run of both the frame and the block: a loop the compiler vectorises (a
// loop per sample over its frames, with index arithmetic per sample, ran
// ~3x longer than the whole transform for 512/128). Each sample still adds
// its frames in ascending t from 0, then is divided by its envelope, so the
// result is that of the per-sample loop, bit for bit.
template <class S, class O>
static void ola_typed(const cx_ola_job* J, cx_i64 q0, cx_i64 q1, S* __restrict acc) {
  const S* frames = (const S*)J->frames;
  O* y = (O*)J->y;
  const cx_i64 T = J->T, n_fft = J->n_fft, hop = J->hop, start = J->start, length = J->length;
  const cx_i64 full = n_fft + hop * (T - 1);
  for (cx_i64 q = q0; q < q1; ++q) {
    const cx_i64 b = q / J->nj, j = J->j0 + q % J->nj, base = j * hop;
    const cx_i64 u0 = start - base > 0 ? start - base : 0;
    const cx_i64 u1 = start + length - base < hop ? start + length - base : hop;
    const S* f = frames + b * T * n_fft;
    for (cx_i64 u = u0; u < u1; ++u) acc[u] = (S)0;
    // frames t with t*hop + n_fft > base, up to t = j
    const cx_i64 t_lo = base >= n_fft ? (base - n_fft) / hop + 1 : 0;
    const cx_i64 t_hi = T - 1 < j ? T - 1 : j;
    for (cx_i64 t = t_lo; t <= t_hi; ++t) {
      const cx_i64 off = (j - t) * hop;
      const cx_i64 ue = u1 < n_fft - off ? u1 : n_fft - off;
      const S* __restrict ft = f + t * n_fft + off;
      for (cx_i64 u = u0; u < ue; ++u) acc[u] += ft[u];
    }
    // past the last frame (s >= full) nothing was added: 0 / env stays 0,
    // but env is not defined there
    const cx_i64 ud = full - base < u1 ? (full - base > u0 ? full - base : u0) : u1;
    const double* env = J->env + base;
    for (cx_i64 u = u0; u < ud; ++u) acc[u] = acc[u] / (S)env[u];
    for (cx_i64 u = ud; u < u1; ++u) acc[u] = (S)0;
    put_reals(acc + u0, y + b * length + (base - start) + u0, u1 - u0);
  }
}

void run_ola(const cx_ola_job* J, cx_i64 q0, cx_i64 q1, void* acc) {
  if (J->is_double) ola_typed<double, double>(J, q0, q1, (double*)acc);
  else if (J->out_type == CX_F16) ola_typed<float, cx_half_t>(J, q0, q1, (float*)acc);
  else ola_typed<float, float>(J, q0, q1, (float*)acc);
}

