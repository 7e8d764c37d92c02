#pragma once
// Forward stage 3, only behind the 16-column state pass on the saved path (v34): the output
//   o = qg h + Aqk v_new
// per (chunk, head), from the saved set's h and v_new, instead of inside the state pass. There
// the output warps' products shared the SM with the chain (R2: the state pass 0.125 ms with o,
// 0.100 without, docs/perf-log.md); here they run on the SMs the 16-column chains leave free, as
// the state pass's programmatic dependent, each block waiting for its tile's flags. Every element
// goes through the same mma in the same order as in the state passes' fused output, so o has the
// same bits on every V tile and path.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "common/layout.cuh"

namespace kda::dev {

struct fwd_output_params {
  // Block b takes chunk order[b / heads], head b % heads: chunk p of every sequence (longest
  // first) for p = 0, 1, ... (kda_plan::out_order), the order in which the chains publish them.
  const ordered_chunk* order;
  int heads;
  const __nv_bfloat16* qg;  // [tile][64][128]
  const __nv_bfloat16* Aqk; // [tile][64][64]
  const __nv_bfloat16* h;   // [tile][128][128] state entering the chunk (the saved set's)
  const float* vn;          // [tile][64][128] v_new (the saved set's)
  __nv_bfloat16* o;         // [T, H, V]
  // With the state pass running (its programmatic dependent): ready[tile * k_vtile_slots + vt]
  // reaches state_epoch once the 16-column CTA vt has stored the tile's h and v_new, and
  // intra_ready[tile] intra_epoch once the intra stage has stored qg and Aqk
  // (common/ready_flags.cuh). Null: launched after the state pass, nothing to wait for.
  const unsigned* state_ready;
  unsigned state_epoch;
  const unsigned* intra_ready;
  unsigned intra_epoch;
};

// A 1-D grid of num_chunks x heads blocks, two per SM; with p.state_ready set, as the state
// pass's programmatic dependent.
cudaError_t launch_fwd_output(const fwd_output_params& p, int num_chunks, cudaStream_t stream);

} // namespace kda::dev
