#pragma once
// One chunk's inputs of the state-gradient pass (bwd_dh) in shared memory and their load, shared
// by the 32/64-column kernel (dh_pass.cu, 256 threads copy) and the 16-column one
// (dh_pass_narrow.cu, its 128 chain threads copy).
#include <cstddef>

#include <cuda_bf16.h>

#include "bwd/dh_pass.cuh"
#include "common/chunk_tile_copies.cuh"
#include "common/mma.cuh"
#include "common/serial_copies.cuh"

namespace kda::dev {

struct dh_stage {
  __nv_bfloat16 *w, *qg, *kg, *dO, *Aqk; // [64][k_ld_wide] x 3, [64][ld_do], [64][k_ld_aqk]
  float* gC;                             // exp(gamma_C) [128]
};

// Chunk c of sequence sq into stage s with 16-byte cp.async; do rows past the sequence's end are
// zero. Copies: this thread's row_copies `wide` (w, qg, kg), `dO` (token rows of [T, H, V]) and
// `aqk`; ld_do: do's shared row stride; t: the thread's index among the copying threads.
template <typename Copies>
__device__ __forceinline__ void load_dh_stage(const bwd_dh_params& p, const dh_stage& s, const seq_info& sq, int c,
                                              int head, const Copies& o, int ld_do, int t) {
  const std::size_t tile = static_cast<std::size_t>(sq.first_chunk + c) * p.heads + head;
  const std::size_t ck = tile * tile_sizes::ck;
  copy_wide_tiles<3>({s.w, s.qg, s.kg}, {p.w, p.qg, p.kg}, ck, o.wide);
  const std::size_t do_row0 = (static_cast<std::size_t>(sq.start + k_chunk * c) * p.heads + head) * v_dim;
#pragma unroll
  for (int n = 0; n < 64 / o.dO.rows; ++n) {
    const int i = o.dO.row0 + n * o.dO.rows;
    __nv_bfloat16* dst = s.dO + o.dO.s + n * o.dO.rows * ld_do;
    if (k_chunk * c + i < sq.len) {
      cp_async_16(dst, p.d_o + do_row0 + o.dO.g + static_cast<std::size_t>(n * o.dO.rows) * p.heads * v_dim);
    } else {
      *reinterpret_cast<uint4*>(dst) = make_uint4(0, 0, 0, 0);
    }
  }
  copy_aqk_tile(s.Aqk, p.Aqk, tile, o.aqk);
  copy_gamma_C(s.gC, p.gC, tile, t);
}

} // namespace kda::dev
