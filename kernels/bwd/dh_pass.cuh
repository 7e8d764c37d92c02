#pragma once
// Backward stages 1+2 (docs/backward-design.md), sequential over the chunks of one sequence, last
// chunk first. dh = gradient of the state leaving the chunk (zero after the last chunk):
//   dv_new = Aqk^T do + kg dh                          (kg = k' exp(gamma_C - gamma))
//   dh     <- diag(exp(gamma_C)) dh + qg^T do - w^T dv_new   (the previous chunk's dh)
// qg^T do takes qg as a bf16 hi + lo pair (two mma per k step, hi then lo, in both kernels): its
// bf16 rounding in this product bounded dg and dA_log at normal decay (v10, docs/backward-design.md,
// "qg for bwd_dh at TF32 precision").
// The mirror of the forward state pass: one CTA per (sequence, head, V tile of 16, 32 or 64 columns),
// dh in FP32 registers, bf16 operands, FP32 accumulation, fixed order: bits independent of the tile.
// Writes, per chunk, dh (bf16, the state gradient leaving the chunk) and dv_new as bf16 hi + lo
// (dv_new = hi + lo to 16 significant bits; this pass's own product takes hi alone, bwd_grad's
// dv_new v^T takes both: dbeta's error was dv_new's bf16 rounding, docs/backward-design.md).
#include <cuda_bf16.h>

#include "common/layout.cuh"
#include "common/tile_maps.cuh"

namespace kda::dev {

struct bwd_dh_params {
  const seq_info* seqs;
  const int* seq_order; // longest sequences first
  int heads;
  const __nv_bfloat16* w;   // the intra stage's tiles: from the saved set, or recomputed (replay)
  const __nv_bfloat16* qg;
  const __nv_bfloat16* qg_lo; // bf16(qg - bf16(qg)), written by the intra stage for the backward
  const __nv_bfloat16* kg;
  const __nv_bfloat16* Aqk;
  const float* gC;
  const __nv_bfloat16* d_o; // [T, H, V]
  __nv_bfloat16* dh_out;    // [tile][128][128]
  __nv_bfloat16* dvn_out;   // [tile][64][128] bf16(dv_new)
  __nv_bfloat16* dvn_lo_out; // [tile][64][128] bf16(dv_new - bf16(dv_new))
  std::size_t num_tiles;    // chunks x heads: the extent of the tile arrays (the 16-column pass's tensor maps)
  // The 16-column pass publishes each tile's dh and dv_new here for the overlapping bwd_grad
  // (common/ready_flags.cuh: ready[tile * k_vtile_slots + vt] = epoch); null: no flags (the 32/64-column
  // passes, and calls captured into a graph, where bwd_grad runs after the pass).
  unsigned* ready;
  unsigned epoch;
  // V tiles of 16 columns per CTA of the 16-column pass, 1 or 2 (v35; kda_plan::dh_narrow_tiles):
  // with 2 a CTA runs two chains on one SM and shares their input copies. No bit depends on it.
  int narrow_tiles;
  // The replay path's 16-column pass beside bwd_state_replay (v38): launched as that pass's
  // programmatic dependent (it needs only the intra stage's tiles, not h), its producer waits for
  // each chunk's intra_ready[tile] == intra_epoch before copying the chunk's tiles. Null: launched
  // after the stages before it, no wait.
  const unsigned* intra_ready;
  unsigned intra_epoch;
};

constexpr int k_dh_threads = 256; // the warps that compute; both kernels add a producer warp

// The copy engine's view of the tiles the pass reads (common/tile_maps.cuh), a kernel parameter
// (__grid_constant__): wide = w, qg, qg_lo, kg. Host: made per launch from p.
struct dh_maps {
  CUtensorMap wide[4], Aqk, gC; // gC: exp(gamma_C) a tile a box, encoded by the 16-column launch only
};
// wide and Aqk; the 16-column launch adds gC.
cudaError_t make_dh_maps(const bwd_dh_params& p, dh_maps* maps);

// vtile 16, 32 or 64 (choose_state_vtile); the bits do not depend on it.
cudaError_t launch_bwd_dh(const bwd_dh_params& p, int num_seqs, int vtile, cudaStream_t stream);
// 16-column tiles, warp-specialised (dh_pass_narrow.cu); launch_bwd_dh picks it.
cudaError_t launch_bwd_dh_narrow(const bwd_dh_params& p, int num_seqs, cudaStream_t stream);

} // namespace kda::dev
