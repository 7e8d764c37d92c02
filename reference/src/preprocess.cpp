// Pre-processing (raw gate, fused L2 norm, scale) and its backward chains, in FP64.
#include "preprocess.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace kda::ref {
namespace detail {
namespace {

void expect_shape(const char* name, Eigen::Index rows, Eigen::Index cols, Eigen::Index want_rows,
                  Eigen::Index want_cols) {
  if (rows == want_rows && cols == want_cols) return;
  throw std::invalid_argument("kda::ref: " + std::string(name) + " is " + std::to_string(rows) +
                              " x " + std::to_string(cols) + ", expected " +
                              std::to_string(want_rows) + " x " + std::to_string(want_cols));
}

// x' = x * rsqrt(x.x + eps) row by row; rstd keeps the per-row factor for the backward.
void l2_normalise(const mat& x, mat& x_prime, vec& rstd) {
  x_prime.resize(x.rows(), x.cols());
  rstd.resize(x.rows());
  for (Eigen::Index t = 0; t < x.rows(); ++t) {
    rstd(t) = 1.0 / std::sqrt(x.row(t).squaredNorm() + k_l2n_eps);
    x_prime.row(t) = rstd(t) * x.row(t);
  }
}

// Neither overflows nor loses the small end for any finite z: exp only ever sees -|z|.
double softplus(double z) { return std::max(z, 0.0) + std::log1p(std::exp(-std::abs(z))); }

double sigmoid(double z) {
  if (z >= 0.0) return 1.0 / (1.0 + std::exp(-z));
  const double ez = std::exp(z);
  return ez / (1.0 + ez);
}

} // namespace

void validate(const head_problem& p, bool for_backward) {
  const Eigen::Index T = p.q.rows(), K = p.q.cols(), V = p.v.cols();
  if (T < 1 || K < 1 || V < 1) {
    throw std::invalid_argument("kda::ref: empty problem (q is " + std::to_string(T) + " x " +
                                std::to_string(K) + ", v has " + std::to_string(V) +
                                " columns); T, K and V must be >= 1");
  }
  expect_shape("k", p.k.rows(), p.k.cols(), T, K);
  expect_shape("v", p.v.rows(), p.v.cols(), T, V);
  expect_shape("beta", p.beta.rows(), p.beta.cols(), T, 1);
  expect_shape("gate_in", p.gate_in.rows(), p.gate_in.cols(), T, K);
  if (p.gate == gate_form::raw) expect_shape("dt_bias", p.dt_bias.rows(), p.dt_bias.cols(), K, 1);
  if (p.S0.size() != 0) expect_shape("S0", p.S0.rows(), p.S0.cols(), K, V);
  if (p.dS_final.size() != 0) expect_shape("dS_final", p.dS_final.rows(), p.dS_final.cols(), K, V);
  if (for_backward) expect_shape("d_o", p.d_o.rows(), p.d_o.cols(), T, V);
}

prepared_inputs prepare(const head_problem& p) {
  prepared_inputs pp;
  pp.scale = p.scale != 0.0 ? p.scale : 1.0 / std::sqrt(static_cast<double>(p.q.cols()));
  pp.g = log_gate(p);
  pp.decay = pp.g.array().exp().matrix();
  if (p.l2n == l2n_mode::fused) {
    l2_normalise(p.q, pp.q_prime, pp.q_rstd);
    l2_normalise(p.k, pp.k_prime, pp.k_rstd);
  } else {
    pp.q_prime = p.q;
    pp.k_prime = p.k;
  }
  pp.qs = pp.scale * pp.q_prime;
  return pp;
}

void l2_norm_backward(const mat& x_prime, const vec& rstd, mat& d_prime) {
  for (Eigen::Index t = 0; t < x_prime.rows(); ++t) {
    const double proj = x_prime.row(t).dot(d_prime.row(t));
    d_prime.row(t) = rstd(t) * (d_prime.row(t) - proj * x_prime.row(t));
  }
}

void raw_gate_backward(const head_problem& p, const mat& g, mat& dgate, double& dA_log, double& dA_log_abs_terms,
                       vec& ddt_bias) {
  const double neg_A = -std::exp(p.A_log);
  const Eigen::Index T = g.rows(), K = g.cols();
  dA_log = 0.0;
  dA_log_abs_terms = 0.0;
  ddt_bias = vec::Zero(K);
  for (Eigen::Index t = 0; t < T; ++t) {
    for (Eigen::Index c = 0; c < K; ++c) {
      dA_log += dgate(t, c) * g(t, c);
      dA_log_abs_terms += std::abs(dgate(t, c) * g(t, c));
      dgate(t, c) *= neg_A * sigmoid(p.gate_in(t, c) + p.dt_bias(c));
      ddt_bias(c) += dgate(t, c);
    }
  }
}

} // namespace detail

mat log_gate(const head_problem& p) {
  if (p.gate == gate_form::g) return p.gate_in;
  detail::validate(p, false);
  const double neg_A = -std::exp(p.A_log);
  mat g(p.gate_in.rows(), p.gate_in.cols());
  for (Eigen::Index t = 0; t < g.rows(); ++t) {
    for (Eigen::Index c = 0; c < g.cols(); ++c) {
      g(t, c) = neg_A * detail::softplus(p.gate_in(t, c) + p.dt_bias(c));
    }
  }
  return g;
}

head_gradients detail::chain_to_inputs(const head_problem& p, const detail::prepared_inputs& pp, mat dqs,
                               mat dk_prime, mat dv, vec dbeta, mat dg, mat dS0) {
  head_gradients grad;
  grad.dq = pp.scale * dqs; // dq'
  grad.dk = std::move(dk_prime);
  if (p.l2n == l2n_mode::fused) {
    detail::l2_norm_backward(pp.q_prime, pp.q_rstd, grad.dq);
    detail::l2_norm_backward(pp.k_prime, pp.k_rstd, grad.dk);
  }
  grad.dv = std::move(dv);
  grad.dbeta = std::move(dbeta);
  grad.dgate = std::move(dg);
  if (p.gate == gate_form::raw) {
    detail::raw_gate_backward(p, pp.g, grad.dgate, grad.dA_log, grad.dA_log_abs_terms, grad.ddt_bias);
  } else {
    grad.dA_log = 0.0;
    grad.ddt_bias = vec::Zero(p.q.cols());
  }
  grad.dS0 = std::move(dS0);
  return grad;
}

} // namespace kda::ref
