#pragma once
// Forward stage 2, sequential over the chunks of one sequence (kda-algorithm.md, "State pass"),
// fused with the output:
//   v_new  = u - w h
//   o      = qg h + Aqk v_new
//   h_next = diag(exp(gamma_C)) h + kg^T v_new
// One CTA per (sequence, head, V tile of 16, 32 or 64 columns); the state h (128 x VT of it) stays in FP32
// registers across chunks. Optionally writes the saved set: h entering each chunk (bf16) and v_new
// (fp32). u and v_new keep FP32 precision (v_new enters its two products as a bf16 hi + lo pair):
// their bf16 rounding bounded the gate gradients' error (docs/backward-design.md). Since v45 kg
// enters the h update as a bf16 hi + lo pair too: kg^T v_new = kg^T hi + kg^T lo + kg_lo^T hi, per
// k step in that order in every pass (the same bits for every V tile); kg's rounding was the
// largest single share left in the gate gradients' error (docs/backward-design.md, session 25).
#include <cuda_bf16.h>

#include "common/layout.cuh"
#include "common/schedule.cuh"
#include "common/tile_maps.cuh"

namespace kda::dev {

struct fwd_state_params {
  const seq_info* seqs;
  const int* seq_order; // longest sequences first, so the longest serial chains start first
  int heads;
  const __nv_bfloat16* w;
  const float* u;
  const __nv_bfloat16* qg;
  const __nv_bfloat16* kg;
  const __nv_bfloat16* kg_lo; // bf16(kg - bf16(kg)): the h update takes kg as hi + lo (v45)
  const __nv_bfloat16* Aqk;
  const float* gC;
  __nv_bfloat16* o;      // [T, H, V], may be null (state replay only)
  __nv_bfloat16* h_out;  // saved: [tile][128][128] state entering the chunk, or null
  float* vn_out;          // saved: [tile][64][128] v_new (fp32), or null
  std::size_t num_tiles;  // chunks x heads: the extent of the tile arrays (the 16-column pass's tensor maps)
  const unsigned* ready;  // [tile]: the intra stage's ready flags (common/ready_flags.cuh)
  unsigned epoch;         // the flag value of the intra launch that feeds this pass
  int tokens;             // T, o's rows (the wgmma pass's tensor map of o)
  // The 16-column pass on the saved path (v34): o_first[s], for sequence s (seqs' index), is its
  // first chunk whose o the pass forms, the chunks before it left to fwd_output (fwd/output_pass.cuh;
  // the host's first_o_chunk, fwd/o_split.cuh, kda_plan::o_first); null: o of every chunk. Where
  // out_ready is set the pass publishes each tile's out_ready[tile * k_vtile_slots + vt] =
  // out_epoch once its h and v_new are stored (common/ready_flags.cuh). The other passes ignore
  // these (o_first null).
  const int* o_first;
  unsigned* out_ready;
  unsigned out_epoch;
};

constexpr int k_state_threads = 256; // the warps that compute; both kernels add a producer warp

// The copy engine's view of the tiles the state passes read (common/tile_maps.cuh), a kernel
// parameter (__grid_constant__). Host: made per launch from p (qg and Aqk only where p.o is set:
// without o the passes read neither; u in boxes of u_box_cols columns, swizzled (128 B) where
// u_swizzle says so, exp(gamma_C) a tile a box).
struct state_maps {
  CUtensorMap w, kg, kg_lo, qg, Aqk, u, gC;
};
cudaError_t make_state_maps(const fwd_state_params& p, int u_box_cols, bool u_swizzle, state_maps* maps);

// The V tile (16, 32 or 64 columns) for a batch shape; the output bits do not depend on it.
int choose_state_vtile(int num_seqs, int heads, int sm_count);
// how: serial_launch::after_intra (common/schedule.cuh) lets the pass start while the intra stage
// before it runs (its CTAs wait on p.ready); plain starts it after it.
cudaError_t launch_fwd_state(const fwd_state_params& p, int num_seqs, int vtile, serial_launch how,
                             cudaStream_t stream);
// 16-column tiles, warp-specialised (state_pass_narrow.cu); launch_fwd_state picks it.
cudaError_t launch_fwd_state_narrow(const fwd_state_params& p, int num_seqs, serial_launch how, cudaStream_t stream);
// The chain on wgmma, V tiles of 64 (state_pass_wg.cu); launch_fwd_state picks it.
cudaError_t launch_fwd_state_wg(const fwd_state_params& p, int num_seqs, serial_launch how, cudaStream_t stream);

} // namespace kda::dev
