// The reference's forward against a deliberately naive one written here from kda-algorithm.md:
// scalar loops, libm softplus, and the full state history.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kda_reference.hpp"
#include "test_problems.hpp"

namespace kda::ref {
namespace {

using testing::random_case;

struct naive_outputs {
  mat o;
  mat S_final;
};

naive_outputs naive_forward(const head_problem& p) {
  const int T = static_cast<int>(p.q.rows()), K = static_cast<int>(p.q.cols()),
            V = static_cast<int>(p.v.cols());
  const double scale = p.scale != 0.0 ? p.scale : 1.0 / std::sqrt(double(K));
  // S[t] is the state after t tokens, as K*V row-major.
  std::vector<std::vector<double>> S(T + 1, std::vector<double>(K * V, 0.0));
  if (p.S0.size() != 0) {
    for (int i = 0; i < K; ++i)
      for (int j = 0; j < V; ++j) S[0][i * V + j] = p.S0(i, j);
  }
  naive_outputs out{mat(T, V), mat(K, V)};
  for (int t = 0; t < T; ++t) {
    std::vector<double> g(K), q(K), k(K), St(K * V), e(V);
    double qq = 0, kk = 0;
    for (int i = 0; i < K; ++i) {
      g[i] = p.gate == gate_form::g
                 ? p.gate_in(t, i)
                 : -std::exp(p.A_log) * std::log(1.0 + std::exp(p.gate_in(t, i) + p.dt_bias(i)));
      q[i] = p.q(t, i);
      k[i] = p.k(t, i);
      qq += q[i] * q[i];
      kk += k[i] * k[i];
    }
    for (int i = 0; i < K; ++i) {
      if (p.l2n == l2n_mode::fused) {
        q[i] /= std::sqrt(qq + 1e-6);
        k[i] /= std::sqrt(kk + 1e-6);
      }
      q[i] *= scale;
    }
    for (int i = 0; i < K; ++i)
      for (int j = 0; j < V; ++j) St[i * V + j] = std::exp(g[i]) * S[t][i * V + j];
    for (int j = 0; j < V; ++j) {
      e[j] = p.v(t, j);
      for (int i = 0; i < K; ++i) e[j] -= St[i * V + j] * k[i];
    }
    for (int i = 0; i < K; ++i)
      for (int j = 0; j < V; ++j) S[t + 1][i * V + j] = St[i * V + j] + p.beta(t) * k[i] * e[j];
    for (int j = 0; j < V; ++j) {
      double o = 0;
      for (int i = 0; i < K; ++i) o += S[t + 1][i * V + j] * q[i];
      out.o(t, j) = o;
    }
  }
  for (int i = 0; i < K; ++i)
    for (int j = 0; j < V; ++j) out.S_final(i, j) = S[T][i * V + j];
  return out;
}

TEST(reference_naive, forward_matches_naive_recurrence) {
  const random_case cases[] = {
      {gate_form::g, l2n_mode::off, decay_regime::normal, false, 70, 8, 6, 21},
      {gate_form::raw, l2n_mode::fused, decay_regime::normal, true, 70, 16, 8, 22},
      {gate_form::raw, l2n_mode::off, decay_regime::fast, true, 33, 8, 6, 23},
  };
  for (const random_case& c : cases) {
    const head_problem p = testing::random_head_problem(c);
    const head_outputs got = forward(p);
    const naive_outputs want = naive_forward(p);
    EXPECT_LE((got.o - want.o).norm() / want.o.norm(), 1e-13) << testing::case_name(c);
    EXPECT_LE((got.S_final - want.S_final).norm() / want.S_final.norm(), 1e-13)
        << testing::case_name(c);
  }
}

} // namespace
} // namespace kda::ref
