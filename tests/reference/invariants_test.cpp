// Properties of the reference's forward and backward that hold exactly or in closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "kda_reference.hpp"
#include "test_problems.hpp"

namespace kda::ref {
namespace {

using testing::random_case;

double rel_diff(const mat& a, const mat& b) { return (a - b).norm() / b.norm(); }

// beta = 0 removes the delta update: S_t = diag(exp(g_1 + ... + g_t)) S0 and o_t = S_t^T qs_t.
TEST(reference_invariants, zero_beta_leaves_pure_decay) {
  for (const gate_form gate : {gate_form::g, gate_form::raw}) {
    head_problem p = testing::random_head_problem(
        {gate, l2n_mode::fused, decay_regime::normal, true, 150, 8, 6, 11});
    p.beta.setZero();
    const head_outputs out = forward(p);
    const mat g = log_gate(p);
    vec cum_g = vec::Zero(p.q.cols());
    mat o_expected(p.q.rows(), p.v.cols());
    for (Eigen::Index t = 0; t < p.q.rows(); ++t) {
      cum_g += g.row(t).transpose();
      const mat S_t = cum_g.array().exp().matrix().asDiagonal() * p.S0;
      const vec qs =
          p.scale * p.q.row(t).transpose() / std::sqrt(p.q.row(t).squaredNorm() + k_l2n_eps);
      o_expected.row(t) = (S_t.transpose() * qs).transpose();
    }
    const mat S_expected = cum_g.array().exp().matrix().asDiagonal() * p.S0;
    EXPECT_LE(rel_diff(out.S_final, S_expected), 1e-13);
    EXPECT_LE(rel_diff(out.o, o_expected), 1e-13);
  }
}

TEST(reference_invariants, forward_backward_outputs_equal_forward_bitwise) {
  const head_problem p = testing::random_head_problem(
      {gate_form::raw, l2n_mode::fused, decay_regime::fast, true, 130, 16, 8, 12});
  const head_outputs a = forward(p);
  const head_results b = forward_backward(p);
  EXPECT_TRUE(a.o == b.outputs.o);
  EXPECT_TRUE(a.S_final == b.outputs.S_final);
}

TEST(reference_invariants, default_scale_is_inverse_sqrt_k) {
  head_problem p = testing::random_head_problem(
      {gate_form::g, l2n_mode::off, decay_regime::normal, false, 20, 16, 8, 13});
  const head_outputs by_default = forward(p);
  p.scale = 0.25; // 16^-0.5
  EXPECT_TRUE(forward(p).o == by_default.o);
}

// The caller detects non-finite results; the reference must pass them through.
TEST(reference_invariants, non_finite_inputs_reach_the_outputs) {
  head_problem p = testing::random_head_problem(
      {gate_form::g, l2n_mode::off, decay_regime::normal, false, 10, 8, 6, 14});
  p.v(3, 2) = std::numeric_limits<double>::quiet_NaN();
  const head_results r = forward_backward(p);
  EXPECT_FALSE(r.outputs.o.allFinite());
  EXPECT_FALSE(r.gradients.dk.allFinite());
}

// x + dt_bias far outside exp's range (fast decay reaches |z| >> 36): the raw gate and its
// gradient stay finite, and exact where the answer is representable.
TEST(reference_invariants, raw_gate_is_stable_at_extreme_inputs) {
  head_problem p = testing::random_head_problem(
      {gate_form::raw, l2n_mode::off, decay_regime::normal, true, 4, 8, 6, 16});
  p.dt_bias.setZero();
  p.gate_in(0, 0) = 800.0;
  p.gate_in(1, 1) = -800.0;
  p.gate_in(2, 2) = -40.0;
  const double A = std::exp(p.A_log);
  const mat g = log_gate(p);
  EXPECT_EQ(g(0, 0), -A * 800.0);
  EXPECT_EQ(g(1, 1), 0.0); // -A * exp(-800) underflows to zero
  EXPECT_DOUBLE_EQ(g(2, 2), -A * std::exp(-40.0));
  const head_gradients gr = backward(p);
  EXPECT_TRUE(gr.dgate.allFinite());
  EXPECT_TRUE(std::isfinite(gr.dA_log));
  EXPECT_TRUE(gr.ddt_bias.allFinite());
  EXPECT_EQ(gr.dgate(1, 1), 0.0); // sigmoid(-800) = 0
}

TEST(reference_invariants, misshaped_problems_are_rejected) {
  const head_problem good = testing::random_head_problem(
      {gate_form::raw, l2n_mode::off, decay_regime::normal, true, 10, 8, 6, 15});
  const auto expect_rejected = [](const head_problem& p) {
    EXPECT_THROW(forward_backward(p), std::invalid_argument);
  };
  head_problem p = good;
  p.k.resize(9, 8);
  expect_rejected(p);
  p = good;
  p.beta.resize(11);
  expect_rejected(p);
  p = good;
  p.dt_bias.resize(7);
  expect_rejected(p);
  p = good;
  p.S0.resize(6, 8);
  expect_rejected(p);
  p = good;
  p.d_o.resize(10, 5);
  expect_rejected(p);
  EXPECT_NO_THROW(forward(p)); // d_o is a backward input only
  p = good;
  p.q.resize(0, 8);
  EXPECT_THROW(forward(p), std::invalid_argument);
}

} // namespace
} // namespace kda::ref
