#pragma once
// Chunked FP64 KDA forward and backward (../shared/docs/kda-algorithm.md, "Chunked forward" and
// "Chunked backward"; docs/backward-design.md), written stage by stage in the structure of the GPU
// kernels. The token recurrence (kda_reference.hpp) stays the definition; this is the blueprint
// and the stage-by-stage oracle of the CUDA backward. Same problem, results and loss convention:
//   L = sum(o .* d_o) + sum(S_final .* dS_final)
#include <optional>
#include <vector>

#include "kda_reference.hpp"

namespace kda::ref {

constexpr int k_chunk = 64; // C: rows per chunk; the last chunk of a sequence may be shorter

// Each throws std::invalid_argument when the problem's shapes disagree (as forward/backward do).
head_outputs forward_chunked(const head_problem& p);
head_results forward_backward_chunked(const head_problem& p);
head_gradients backward_chunked(const head_problem& p);

// ---- stage-by-stage oracle ------------------------------------------------------------------

// Everything the stages compute for one chunk of `len` rows starting at token `start`.
// Row vectors over K are 1 x K matrices. Pair matrices (len x len) are zero outside their mask.
struct chunk_trace {
  Eigen::Index start = 0, len = 0;

  // Stage 0, intra forward (recomputed by the backward from the inputs, as on the GPU).
  mat gamma;   // len x K, within-chunk cumulative sum of g
  mat gamma_C; // 1 x K, gamma of the last row
  mat Akk;     // len x len, i > j
  mat X;       // len x len, (I + Akk)^-1, unit lower triangular
  mat Tm;      // len x len, X diag(beta)
  mat kgp;     // len x K, k .* exp(gamma)
  mat kgC;     // len x K, k .* exp(gamma_C - gamma)
  mat qg;      // len x K, qs .* exp(gamma)
  mat w;       // len x K, Tm kgp
  mat u;       // len x V, Tm v
  mat Aqk;     // len x len, i >= j

  // The saved set (forward state pass).
  mat h;     // K x V, state entering the chunk
  mat v_new; // len x V, u - w h

  // Stages 1+2, reverse state pass.
  mat dh_next; // K x V, dL/d(state leaving the chunk): dS_final (or 0) for the last chunk
  mat dv_new;  // len x V, Aqk^T do + kgC dh_next
  mat dh;      // K x V, dL/d(state entering): the next-earlier chunk's dh_next, or dS0

  // Stage 3, per chunk.
  mat dqg;      // len x K, do h^T
  mat dAqk;     // len x len, (do v_new^T) masked i >= j
  mat dkgC;     // len x K, v_new dh_next^T
  mat dkgp;     // len x K, Tm^T dw
  mat dAkk;     // len x len, -(X^T dX X^T) masked i > j
  vec dbeta_wy; // len, the WY part of dbeta: sum_i dTm_ij X_ij

  // Stage 4, GLM intra and the elementwise terms.
  mat dgamma_C; // 1 x K, the gamma_C terms (h .* dh_next; kgC rows except the last, whose
                // pair is left out)
  mat dgamma;   // len x K, the input of the reverse cumsum: dgamma_C already folded into the
                // last row
};

// Test only: form a pair of dgamma terms that cancel analytically, instead of leaving out both
// members (docs/backward-design.md, "Cancelling pairs"). The results differ by rounding only.
struct chunked_options {
  // The diagonal of Aqk: +qs_i .* k_i dAqk_ii (q side) and -k_i .* qs_i dAqk_ii (k side), row i.
  bool aqk_diagonal_pair_in_dgamma = false;
  // The last row of kgC (= k, exp(0)): -dkgC .* kgC on that row and its share of dgamma_C.
  bool kgC_last_row_pair_in_dgamma = false;

  // Analysis only (bench/rounding_analysis.cpp): round where the GPU kernels hold a tensor in a
  // narrow format, to see which storage precision bounds the gradients' error.
  enum class storage { exact, fp32, bf16, tf32 };
  storage intra_tiles = storage::exact; // w, u, qg, kgC, Aqk as both state passes read them
  storage saved_set = storage::exact;   // h and v_new: the forward's mma operands and the saved set
  storage state_grad = storage::exact;  // dh and dv_new: bwd_dh's mma operands and outputs
  // What the backward reads, when it differs from what the forward's own products used (e.g. the
  // forward in bf16 but a wider saved set): the intra tiles as the reverse state pass reads them,
  // and h, v_new as the gradient stages read them (from the forward's FP32 state and
  // accumulators). Unset: the same as intra_tiles and saved_set.
  std::optional<storage> bwd_intra_tiles;
  std::optional<storage> bwd_saved_set;
  // Per-tensor overrides of intra_tiles (w, u, qg, kgC, Aqk), saved_set (h, v_new) and state_grad
  // (dh, dv_new), in the forward and the backward alike: which operand's precision matters
  // (bench/rounding_analysis, "one tensor at a time").
  struct per_tensor {
    std::optional<storage> w, u, qg, kgC, Aqk, h, v_new, dh, dv_new;
  };
  per_tensor only;
  // Overrides for the reverse state pass's reads of the intra tiles (w, qg, kgC, Aqk) alone, the
  // forward keeping its own: what a wider copy for bwd_dh (e.g. a bf16 hi + lo pair) would buy.
  per_tensor bwd_only;
  // dv_new as the gradient stages (bwd_grad) read it, when it differs from bwd_dh's own operand
  // (the storage above): what a wider dv_new copy for bwd_grad alone would buy.
  std::optional<storage> grad_dv_new;
  // Stage 4's factorised sub-block products with TF32 operands (dP, a .* left, b .* right), as
  // bwd_grad runs them; FP64 otherwise. `dP_only` / `ab_only` round one side of each product
  // only: what a split (hi + lo) of the other side would buy.
  enum class pair_rounding { exact, tf32, dP_only, ab_only };
  pair_rounding tf32_pair_products = pair_rounding::exact;
};

struct chunked_trace {
  std::vector<chunk_trace> chunks;
  head_results results; // equal to forward_backward_chunked()'s
};

chunked_trace trace_chunked(const head_problem& p, const chunked_options& options = {});

// ---- segment-parallel state pass (analysis for a GPU design; docs/segmented-state-pass.md) ----

// The chunk recurrence is affine in the state: h_next = A_n h + B_n with
// A_n = diag(exp(gamma_C)) - kgC^T w (K x K) and B_n = kgC^T u (K x V). A segment of chunks maps
// its start state to its end state by P h + b, P = A_last ... A_first and b its end state from a
// zero start. The forward can then run in three phases, the first and last parallel over
// segments: (1) per segment from zero, b and P; (2) in order, the segments' start states
// h_{s+1} = P_s h_s + b_s; (3) per segment from its true start state, o (and the saved set).
struct segmented_options {
  Eigen::Index segment_chunks = 8; // chunks per segment (the last segment may be shorter)
  // As the GPU would hold each piece (chunked_options::storage): the intra tiles and h, v_new as
  // the serial pass holds them, and the transition products (A, P and the start-state update)
  // as matrix-product operands. Accumulation is FP64 throughout.
  chunked_options::storage intra_tiles = chunked_options::storage::exact;
  chunked_options::storage saved_set = chunked_options::storage::exact;
  chunked_options::storage transition = chunked_options::storage::exact;
};

// o and the final state by the three phases. Equal to forward_chunked() up to FP64 rounding when
// every storage is exact; throws std::invalid_argument on bad shapes or segment_chunks < 1.
head_outputs forward_segmented(const head_problem& p, const segmented_options& options);

} // namespace kda::ref
