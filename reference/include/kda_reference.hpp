#pragma once
// FP64 CPU reference of KDA (../shared/docs/kda-algorithm.md): the ground truth for o and every
// gradient. One (sequence, head) pair at a time; run_row() spreads pairs over threads.
//
// The definition is the token recurrence; the backward runs through time with state checkpoints
// every 64 tokens (no full state history). Loss convention for gradients:
//   L = sum(o .* d_o) + sum(S_final .* dS_final)
#include <cstdint>
#include <functional>
#include <vector>

#include <Eigen/Dense>

#include "core/variant.hpp"

namespace kda::ref {

using mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using vec = Eigen::VectorXd;

constexpr int k_checkpoint_every = 64;
constexpr double k_l2n_eps = 1e-6; // q' = q * rsqrt(q.q + eps)

// One sequence of one head. T = q.rows() may be any length >= 1.
struct head_problem {
  gate_form gate = gate_form::g;
  l2n_mode l2n = l2n_mode::off;
  double scale = 0.0; // 0: K^-0.5
  mat q, k;           // T x K, as given (before the fused L2 norm)
  mat v;              // T x V
  vec beta;           // T
  mat gate_in;        // T x K: g (g form) or x (raw form)
  double A_log = 0.0; // raw form only
  vec dt_bias;        // K, raw form only
  mat S0;             // K x V initial state; empty = zeros
  mat d_o;            // T x V, dL/do (backward only)
  mat dS_final;       // K x V, dL/dS_T; empty = zeros
};

struct head_outputs {
  mat o;       // T x V
  mat S_final; // K x V
};

struct head_gradients {
  mat dq, dk;      // T x K (w.r.t. the inputs as given, through the L2 norm when fused)
  mat dv;          // T x V
  vec dbeta;       // T
  mat dgate;       // T x K: dg (g form) or dx (raw form)
  double dA_log = 0.0; // raw form: sum over this pair's tokens (g form: 0)
  // raw form: sum |dg g| over the same terms, the scale against which dA_log cancels (often by
  // 1e2 - 1e4 at fast decay); judges a dA_log error independently of that cancellation
  double dA_log_abs_terms = 0.0;
  vec ddt_bias;        // K, raw form: sum over this pair's tokens (g form: zeros)
  mat dS0;             // K x V
};

struct head_results {
  head_outputs outputs;
  head_gradients gradients;
};

// The log gate g this problem uses (given, or computed from the raw form in FP64).
mat log_gate(const head_problem& p);

// Each throws std::invalid_argument when the problem's shapes disagree (the message says which).
head_outputs forward(const head_problem& p);
head_gradients backward(const head_problem& p); // recomputes the forward from checkpoints
// Both at the price of one backward: the checkpointing pass of the backward yields o and S_final
// (bitwise equal to forward()'s).
head_results forward_backward(const head_problem& p);

// ---- whole rows ----------------------------------------------------------------------------

// Results for a set of heads of a packed row, head-compact: tensor [T, Hs, width] where
// Hs = heads.size() and column block hs belongs to head heads[hs]. Per-head sums over every
// sequence (dA_log [Hs], ddt_bias [Hs, K]) are reduced over sequences in ascending order (zeros
// for the g form). Every value depends only on its own (sequence, head): the thread count and the
// other sequences of the row do not change a bit.
struct row_result {
  std::vector<int> heads;
  std::int64_t tokens = 0;
  int k_dim = 0, v_dim = 0;
  bool has_backward = false;
  std::vector<double> o;                    // [T, Hs, V]
  std::vector<double> dq, dk, dgate;        // [T, Hs, K]
  std::vector<double> dv;                   // [T, Hs, V]
  std::vector<double> dbeta;                // [T, Hs]
  std::vector<double> dA_log;               // [Hs]
  std::vector<double> dA_log_abs_terms;     // [Hs], see head_gradients
  std::vector<double> ddt_bias;             // [Hs, K]
};

struct row_options {
  bool backward = true;
  int threads = 0;    // 0: all hardware threads
  int head_count = 0; // H of the row, to check `heads` against; 0: only checked to be >= 0
  // Called from worker threads (serialised by the runner) after each finished pair.
  std::function<void(std::int64_t done, std::int64_t total)> progress;
};

// Supplies the problem of (sequence s, head h); must be callable from several threads at once.
using head_source = std::function<head_problem(int seq, int head)>;

// Throws std::invalid_argument on bad arguments (cu_seqlens not [0, ...] strictly increasing, a
// head out of range or repeated, a problem from `source` of the wrong shape); rethrows what
// `source` throws.
row_result run_row(const std::vector<std::int32_t>& cu_seqlens, const std::vector<int>& heads,
                   int k_dim, int v_dim, const head_source& source, const row_options& options);

} // namespace kda::ref
