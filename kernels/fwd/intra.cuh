#pragma once
// Forward stage 1, parallel over (chunk, head): everything of a chunk that does not need the state.
// kda-algorithm.md, "Chunked forward":
//   gamma = cumsum(g) inside the chunk; gamma_C its last row
//   Akk[i,j] = beta_i sum_d k_id k_jd exp(gamma_id - gamma_jd)  (i > j)
//   Aqk[i,j] = sum_d qs_id k_jd exp(gamma_id - gamma_jd)         (i >= j)
//   X = (I + Akk)^-1,  w = X (beta k exp(gamma)),  u = X (beta v)   [Tm = X diag(beta)]
//   qg = qs exp(gamma),  kg = k exp(gamma_C - gamma)
// written per (chunk, head) tile for the state pass (state_pass.cuh); for the backward also X and
// qg's bf16 lo half (bwd_dh's qg^T do takes qg as hi + lo).
#include <cuda_bf16.h>

#include "common/layout.cuh"

namespace kda::dev {

struct fwd_intra_params {
  const __nv_bfloat16* q;
  const __nv_bfloat16* k;
  const __nv_bfloat16* v;
  const __nv_bfloat16* beta;
  const float* gate_in; // g or x
  const float* A_log;
  const float* dt_bias;
  const chunk_info* chunks;
  int heads;
  float scale;
  // outputs, per tile = chunk * heads + head
  __nv_bfloat16* w;   // [64][128]
  float* u;           // [64][128] fp32 (docs/backward-design.md: its bf16 rounding bounded dg)
  __nv_bfloat16* qg;  // [64][128]
  __nv_bfloat16* qg_lo; // [64][128] bf16(qg - bf16(qg)) for the backward (bwd_dh), or null
  __nv_bfloat16* kg;  // [64][128]
  __nv_bfloat16* kg_lo; // [64][128] bf16(kg - bf16(kg)): the state passes' h update takes kg as hi + lo
  __nv_bfloat16* Aqk; // [64][64], zero above the diagonal
  float* gC;          // [128] exp(gamma_C)
  float* X;           // [64][64] (I + Akk)^-1 for the backward (saved set or replay workspace), or null
  unsigned* ready;    // [tile]: set to epoch once the tile's outputs are written (common/ready_flags.cuh)
  unsigned epoch;
};

constexpr int k_intra_threads = 256;
std::size_t fwd_intra_smem_bytes();

// Launches the instantiation for the gate form and L2-norm mode.
cudaError_t launch_fwd_intra(const fwd_intra_params& p, int num_chunks, bool raw_gate,
                             bool l2n_fused, cudaStream_t stream);

} // namespace kda::dev
