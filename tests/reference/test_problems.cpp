#include "test_problems.hpp"

#include <cmath>
#include <random>

namespace kda::ref::testing {

head_problem random_head_problem(const random_case& c) {
  std::mt19937_64 rng(c.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const auto normal_mat = [&](int rows, int cols) {
    mat m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = normal(rng);
    return m;
  };
  const auto qk = [&] {
    mat m = normal_mat(c.T, c.K);
    if (c.l2n == l2n_mode::off) {
      m.rowwise().normalize();
    } else {
      m *= 0.25;
    }
    return m;
  };

  head_problem p;
  p.gate = c.gate;
  p.l2n = c.l2n;
  p.q = qk();
  p.k = qk();
  p.v = normal_mat(c.T, c.V);
  p.beta.resize(c.T);
  for (int t = 0; t < c.T; ++t) p.beta(t) = 1.0 / (1.0 + std::exp(-normal(rng)));
  p.A_log = std::log(1.0 + 15.0 * uniform(rng));
  p.dt_bias.resize(c.K);
  for (int i = 0; i < c.K; ++i) {
    if (c.decay == decay_regime::fast) {
      p.dt_bias(i) = normal(rng);
    } else {
      const double dt = std::exp(std::log(1e-3) + (std::log(1e-1) - std::log(1e-3)) * uniform(rng));
      p.dt_bias(i) = std::log(std::expm1(dt));
    }
  }
  const mat x = normal_mat(c.T, c.K);
  if (c.gate == gate_form::raw) {
    p.gate_in = x;
  } else {
    p.gate_in.resize(c.T, c.K);
    for (int t = 0; t < c.T; ++t) {
      for (int i = 0; i < c.K; ++i) {
        p.gate_in(t, i) = -std::exp(p.A_log) * std::log1p(std::exp(x(t, i) + p.dt_bias(i)));
      }
    }
  }
  p.d_o = normal_mat(c.T, c.V);
  if (c.with_state) {
    p.S0 = 0.5 * normal_mat(c.K, c.V);
    p.dS_final = normal_mat(c.K, c.V);
    p.scale = 0.3;
  }
  return p;
}

head_problem full_size_problem(gate_form gate, decay_regime decay, int T, std::uint64_t seed) {
  random_case c;
  c.gate = gate;
  c.decay = decay;
  c.T = T;
  c.K = c.V = 128;
  c.seed = seed;
  return random_head_problem(c);
}

std::string case_name(const random_case& c) {
  std::string s = c.gate == gate_form::raw ? "raw" : "g";
  s += c.l2n == l2n_mode::fused ? "_fused" : "_off";
  s += c.decay == decay_regime::fast ? "_fast" : "_normal";
  if (c.with_state) s += "_state";
  s += "_T" + std::to_string(c.T) + "_K" + std::to_string(c.K) + "_V" + std::to_string(c.V);
  return s;
}

void PrintTo(const random_case& c, std::ostream* os) { *os << case_name(c) << " seed " << c.seed; }

} // namespace kda::ref::testing
