#pragma once
// Backward stages 3, 4 and 5 (docs/backward-design.md) fused, one CTA per (chunk, head):
//   stage 3  dqg = do h^T, dAqk = lower(do v_new^T), dkgC = v_new dh^T, dgamma_C (state part),
//            dw = -dv_new h^T, dTm = dv_new v^T + dw kgp^T (dv_new as hi + lo there), dv = Tm^T dv_new,
//            dkgp = Tm^T dw,
//            dbeta (WY part), dAkk = strictly_lower(-(X^T dX X^T))
//   stage 4  the pair-product backward of Aqk and KK (16-row sub-blocks, exponent-safe), the
//            elementwise terms of qg, kgp, kgC
//   stage 5  dg = reverse cumsum of dgamma inside the chunk; the L2-norm and raw-gate chains
// Writes dq, dk, dv, dbeta (bf16), dg or dx (fp32) of the chunk's tokens and, for the raw form,
// per-tile partial sums of dA_log and dt_bias (reduced in a fixed order by bwd_reduce).
#include <cuda_bf16.h>

#include "common/layout.cuh"

namespace kda::dev {

struct bwd_grad_params {
  const __nv_bfloat16* q;
  const __nv_bfloat16* k;
  const __nv_bfloat16* v;
  const __nv_bfloat16* beta;
  const float* gate_in; // g or x
  const float* A_log;
  const float* dt_bias;
  const __nv_bfloat16* d_o;
  // Block b takes chunk order[b / heads], head b % heads: each sequence's chunks from its last,
  // position by position over the sequences (kda_plan::grad_order), the order in which the
  // 16-column bwd_dh finishes them, so that blocks started beside it find their tiles soonest.
  const ordered_chunk* order;
  int heads;
  float scale;
  const __nv_bfloat16* h;       // [tile][128][128] state entering the chunk (saved set or replay)
  const float* v_new;           // [tile][64][128] fp32 (split into bf16 hi + lo for its products)
  const __nv_bfloat16* dh;      // [tile][128][128] gradient of the state leaving the chunk (bwd_dh)
  const __nv_bfloat16* dv_new;  // [tile][64][128] bf16(dv_new) (bwd_dh)
  const __nv_bfloat16* dv_new_lo; // [tile][64][128] bf16(dv_new - hi), for dv_new v^T (bwd_dh)
  const float* X;               // [tile][64][64] (I + Akk)^-1 (saved set, or bwd_intra on replay)
  __nv_bfloat16* dq;
  __nv_bfloat16* dk;
  __nv_bfloat16* dv;
  __nv_bfloat16* dbeta;
  float* dgate;    // dg (g form) or dx (raw form)
  float* dA_part;  // [tile] (raw form)
  float* ddt_part; // [tile][128] (raw form)
  // Overlap with the 16-column bwd_dh (common/ready_flags.cuh): the launch is its programmatic
  // dependent and each block waits until its tile's k_vtile_slots flags read dh_epoch before reading
  // dh and dv_new. Null: launched after bwd_dh, no wait.
  const unsigned* dh_ready;
  unsigned dh_epoch;
  // The replay path with bwd_dh beside bwd_state_replay (v38): h and v_new may still be in the
  // making too. Each block first waits until its tile's k_vtile_slots flags of the state pass read
  // state_epoch and the intra stage's flag reads intra_epoch (X), before any read. Null: no wait.
  const unsigned* state_ready;
  unsigned state_epoch;
  const unsigned* intra_ready;
  unsigned intra_epoch;
};

// A 1-D grid of num_chunks x heads blocks; with p.dh_ready set, as bwd_dh's programmatic dependent.
cudaError_t launch_bwd_grad(const bwd_grad_params& p, int num_chunks, bool raw_gate, bool l2n_fused,
                            cudaStream_t stream);

// dA_log[h] and dt_bias[h][:] as sums of the per-tile partials over the chunks, in chunk order.
cudaError_t launch_bwd_reduce(const float* dA_part, const float* ddt_part, int num_chunks, int heads,
                              float* dA_log, float* ddt_bias, cudaStream_t stream);

} // namespace kda::dev
