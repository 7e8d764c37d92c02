#pragma once
// One chunk's inputs of the state-gradient pass (bwd_dh) in shared memory, the load of do and the
// dh update's products, shared by the 32/64-column kernel (dh_pass.cu) and the 16-column one
// (dh_pass_narrow.cu). In both a producer warp copies the [64][128] tiles (w, qg and its lo half,
// kg) and Aqk as swizzled boxes (common/tile_maps.cuh); the computing threads copy do of their V
// tile and exp(gamma_C).
#include <cstddef>

#include <cuda_bf16.h>

#include "bwd/dh_pass.cuh"
#include "common/chunk_tile_copies.cuh"
#include "common/mma.cuh"
#include "common/tile_maps.cuh"

namespace kda::dev {

struct dh_stage {
  __nv_bfloat16 *w, *qg, *qg_lo, *kg; // [64][128] each, swizzled (tile_maps.cuh)
  __nv_bfloat16 *dO, *Aqk;            // [64][ld_do]; [64][64] swizzled
  float* gC;                          // exp(gamma_C) [128]
};

// do of chunk c (token rows of [T, H, V]; rows past the sequence's end are zero) into s_do with
// 16-byte cp.async: this thread's row_copies `o`, shared row stride ld_do. (The other inputs come
// from the copy engine: both kernels' producer warps.)
template <typename DoCopies>
__device__ __forceinline__ void load_dh_do(const bwd_dh_params& p, __nv_bfloat16* s_do, const seq_info& sq, int c,
                                           int head, const DoCopies& o, int ld_do) {
  const std::size_t do_row0 = (static_cast<std::size_t>(sq.start + k_chunk * c) * p.heads + head) * v_dim;
#pragma unroll
  for (int n = 0; n < 64 / o.rows; ++n) {
    const int i = o.row0 + n * o.rows;
    __nv_bfloat16* dst = s_do + o.s + n * o.rows * ld_do;
    if (k_chunk * c + i < sq.len) {
      cp_async_16(dst, p.d_o + do_row0 + o.g + static_cast<std::size_t>(n * o.rows) * p.heads * v_dim);
    } else {
      *reinterpret_cast<uint4*>(dst) = make_uint4(0, 0, 0, 0);
    }
  }
}

// do and exp(gamma_C) of chunk c into stage s: this thread's do copies `o` (shared row stride
// ld_do), t: its index among the copying threads.
template <typename DoCopies>
__device__ __forceinline__ void load_do_gC(const bwd_dh_params& p, const dh_stage& s, const seq_info& sq, int c, int head,
                                           const DoCopies& o, int ld_do, int t) {
  load_dh_do(p, s.dO, sq, c, head, o, ld_do);
  copy_gamma_C(s.gC, p.gC, seq_tile(sq, c, p.heads, head), t);
}

// dhf += sum over the chunk's 64 tokens of A_t^T B for the NA tiles A_t ([64][128] bf16, rows =
// tokens, this warp's state-row columns) in the order given, per element and k step; B: [64][ld]
// bf16 (do or -dv_new), columns 16 np. dhf: state rows s_rows + 16 mt + gid (+8), columns 8 nt +
// 2 tig (+1). The A tiles are in the copy engine's swizzled layout (common/tile_maps.cuh).
template <int MT, int NT, int NA>
__device__ __forceinline__ void dh_add_products(frag_c (&dhf)[MT][NT], const __nv_bfloat16* const (&A)[NA],
                                                const __nv_bfloat16* B, int ld, int s_rows, int lane) {
  mma_sum_products<4, MT, NT, NA>(
      dhf,
      [&](std::uint32_t (&a)[4], int t, int mt, int kk) {
        load_a_bf16_trans_swz(a, A[t], 16 * kk, s_rows + 16 * mt, lane);
      },
      [&](std::uint32_t (&b0)[2], std::uint32_t (&b1)[2], int np, int kk) {
        load_b_bf16_x2(b0, b1, B + 16 * kk * ld + 16 * np, ld, lane);
      });
}

// The chunk's update of this warp's dh rows, dh = diag(exp(gamma_C)) dh + qg^T do + qg_lo^T do +
// w^T (-dv_new), in two calls that both kernels make in the same order (so the bits do not depend
// on the V tile): dh_decay_and_qg_terms (they need no dv_new: issued before the barrier that
// publishes dv_new, so their mma run while the warp waits there), then dh_w_terms.
template <int MT, int NT>
__device__ __forceinline__ void dh_decay_and_qg_terms(frag_c (&dhf)[MT][NT], const dh_stage& s, int ld, int s_rows,
                                                      int lane) {
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) scale_frag_rows(dhf[mt], s.gC, s_rows + 16 * mt, lane);
  dh_add_products(dhf, {s.qg, s.qg_lo}, s.dO, ld, s_rows, lane);
}

template <int MT, int NT>
__device__ __forceinline__ void dh_w_terms(frag_c (&dhf)[MT][NT], const dh_stage& s, const __nv_bfloat16* neg, int ld,
                                           int s_rows, int lane) {
  dh_add_products(dhf, {s.w}, neg, ld, s_rows, lane);
}

} // namespace kda::dev
