// The KDA token recurrence of one (sequence, head) in FP64 (kda-algorithm.md, "Recurrence"), and
// its backward through time from state checkpoints.
//
// Cost model: every step is a handful of passes over one K x V state (128 KB at K = V = 128, so it
// stays in L2). The hot loops use only noalias matrix-vector products, rank-1 updates and row
// scalings on preallocated storage: no allocation per token.
#include <algorithm>
#include <vector>

#include "kda_reference.hpp"
#include "preprocess.hpp"

namespace kda::ref {
namespace {

using row_vec = Eigen::RowVectorXd;
using detail::prepared_inputs;

// Row i of S times a(i): S <- diag(a) S, in place (rows are contiguous in row-major storage).
template <typename Decay>
void scale_rows(mat& S, const Decay& a) {
  for (Eigen::Index i = 0; i < S.rows(); ++i) S.row(i) *= a(i);
}

mat initial_state(const head_problem& p) {
  return p.S0.size() != 0 ? p.S0 : mat::Zero(p.q.cols(), p.v.cols());
}

// The forward over every token. Writes o (T x V, preallocated) and, when `checkpoints` is given,
// S_{t} for t = 0, 64, 128, ... (the state entering each block of k_checkpoint_every tokens).
// Returns S_T.
mat run_forward(const head_problem& p, const prepared_inputs& pp, mat& o,
                std::vector<mat>* checkpoints) {
  const Eigen::Index T = p.q.rows();
  mat S = initial_state(p);
  row_vec e(p.v.cols());
  vec beta_k(p.q.cols());
  if (checkpoints) checkpoints->reserve((T + k_checkpoint_every - 1) / k_checkpoint_every);
  for (Eigen::Index t = 0; t < T; ++t) {
    if (checkpoints && t % k_checkpoint_every == 0) checkpoints->push_back(S);
    const auto k_t = pp.k_prime.row(t);
    scale_rows(S, pp.decay.row(t)); // S is now St~
    e.noalias() = p.v.row(t);
    e.noalias() -= k_t * S; // e_t = v_t - St~^T k_t
    beta_k.noalias() = p.beta(t) * k_t.transpose();
    S.noalias() += beta_k * e;             // S_t = St~ + beta_t k_t e_t^T
    o.row(t).noalias() = pp.qs.row(t) * S; // o_t = S_t^T qs_t
  }
  return S;
}

// Gradients of the recurrence with respect to what it consumes (qs, k', v, beta, g, S0); the
// pre-processing chains come after.
struct recurrence_gradients {
  mat dqs, dk_prime, dv, dg;
  vec dbeta;
  mat dS0;
};

// Backward through time (kda-algorithm.md): blocks from last to first; inside a block, St~ and e
// of every token are recomputed from the block's checkpoint, then consumed in reverse. Memory:
// the checkpoints plus one block of St~, never the full history.
recurrence_gradients run_backward(const head_problem& p, const prepared_inputs& pp,
                                  const std::vector<mat>& checkpoints) {
  const Eigen::Index T = p.q.rows(), K = p.q.cols(), V = p.v.cols();
  recurrence_gradients r;
  r.dqs.resize(T, K);
  r.dk_prime.resize(T, K);
  r.dv.resize(T, V);
  r.dg.resize(T, K);
  r.dbeta.resize(T);

  const Eigen::Index block_len = std::min<Eigen::Index>(T, k_checkpoint_every);
  std::vector<mat> S_tilde(block_len, mat::Zero(K, V)); // St~ of each token of the current block
  mat e(block_len, V);                                  // e_t of each token of the current block
  mat S(K, V);
  mat dS = p.dS_final.size() != 0 ? p.dS_final : mat::Zero(K, V); // dL/dS_t, from t = T down
  vec beta_k(K), col_K(K);
  row_vec u(V), de(V);

  for (Eigen::Index b = static_cast<Eigen::Index>(checkpoints.size()) - 1; b >= 0; --b) {
    const Eigen::Index t0 = b * k_checkpoint_every;
    const Eigen::Index t1 = std::min(T, t0 + k_checkpoint_every);

    // Recompute the block forward; S after its last token is not needed.
    S = checkpoints[b];
    for (Eigen::Index t = t0; t < t1; ++t) {
      const Eigen::Index j = t - t0;
      const auto k_t = pp.k_prime.row(t);
      S_tilde[j].noalias() = pp.decay.row(t).transpose().asDiagonal() * S;
      e.row(j).noalias() = p.v.row(t);
      e.row(j).noalias() -= k_t * S_tilde[j];
      if (t + 1 < t1) {
        beta_k.noalias() = p.beta(t) * k_t.transpose();
        S = S_tilde[j];
        S.noalias() += beta_k * e.row(j);
      }
    }

    for (Eigen::Index t = t1 - 1; t >= t0; --t) {
      const Eigen::Index j = t - t0;
      const mat& St = S_tilde[j];
      const auto e_t = e.row(j);
      const auto k_t = pp.k_prime.row(t);
      const auto do_t = p.d_o.row(t);
      const double beta = p.beta(t);

      dS.noalias() += pp.qs.row(t).transpose() * do_t; // dS = dL/dS_t

      // dqs_t = S_t do_t, with S_t = St~ + beta_t k_t e_t^T.
      col_K.noalias() = St * do_t.transpose();
      col_K.noalias() += (beta * e_t.dot(do_t)) * k_t.transpose();
      r.dqs.row(t) = col_K.transpose();

      u.noalias() = k_t * dS; // (dS^T k_t)^T
      r.dbeta(t) = u.dot(e_t);
      de.noalias() = beta * u;
      r.dv.row(t) = de;

      col_K.noalias() = dS * e_t.transpose(); // dk_t = beta_t dS e_t - St~ de_t
      col_K *= beta;
      col_K.noalias() -= St * de.transpose();
      r.dk_prime.row(t) = col_K.transpose();

      dS.noalias() -= k_t.transpose() * de; // dSt~
      r.dg.row(t).noalias() = dS.cwiseProduct(St).rowwise().sum().transpose();
      scale_rows(dS, pp.decay.row(t)); // dL/dS_{t-1}
    }
  }
  r.dS0 = std::move(dS);
  return r;
}

} // namespace

head_outputs forward(const head_problem& p) {
  detail::validate(p, false);
  const prepared_inputs pp = detail::prepare(p);
  head_outputs out;
  out.o.resize(p.q.rows(), p.v.cols());
  out.S_final = run_forward(p, pp, out.o, nullptr);
  return out;
}

head_results forward_backward(const head_problem& p) {
  detail::validate(p, true);
  const prepared_inputs pp = detail::prepare(p);
  head_results res;
  res.outputs.o.resize(p.q.rows(), p.v.cols());
  std::vector<mat> checkpoints;
  res.outputs.S_final = run_forward(p, pp, res.outputs.o, &checkpoints);
  recurrence_gradients r = run_backward(p, pp, checkpoints);

  res.gradients = detail::chain_to_inputs(p, pp, std::move(r.dqs), std::move(r.dk_prime), std::move(r.dv),
                                          std::move(r.dbeta), std::move(r.dg), std::move(r.dS0));
  return res;
}

head_gradients backward(const head_problem& p) { return forward_backward(p).gradients; }

} // namespace kda::ref
