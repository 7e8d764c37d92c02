// Every gradient of the FP64 reference against central finite differences of its own forward.
// Loss: L = sum(o .* d_o) + sum(S_final .* dS_final), as in kda_reference.hpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "kda_reference.hpp"
#include "test_problems.hpp"

namespace kda::ref {
namespace {

using testing::random_case;

constexpr double k_rel_step = 1e-6;
constexpr double k_tolerance = 1e-6;
constexpr Eigen::Index k_full_below = 64; // tensors up to this size are checked whole
constexpr int k_samples = 32;             // elements sampled from larger tensors

// L(plus) - L(minus), summed from the differences of the outputs: terms a perturbation does not
// reach cancel exactly instead of adding rounding noise of the size of L.
double loss_difference(const head_problem& plus, const head_problem& minus) {
  const head_outputs a = forward(plus), b = forward(minus);
  double d = (a.o - b.o).cwiseProduct(plus.d_o).sum();
  if (plus.dS_final.size() != 0) d += (a.S_final - b.S_final).cwiseProduct(plus.dS_final).sum();
  return d;
}

// One input tensor of a problem as a flat array, with its analytic gradient.
struct checked_tensor {
  std::string name;
  std::function<double*(head_problem&)> data;
  Eigen::Index size;
  const double* analytic;
};

std::vector<Eigen::Index> elements_to_check(Eigen::Index size, std::uint64_t seed) {
  std::vector<Eigen::Index> idx(size);
  std::iota(idx.begin(), idx.end(), 0);
  if (size <= k_full_below) return idx;
  std::mt19937_64 rng(seed);
  std::shuffle(idx.begin(), idx.end(), rng);
  idx.resize(k_samples);
  return idx;
}

// ||fd - analytic|| / ||fd|| over the checked elements.
double fd_relative_error(const head_problem& p, const checked_tensor& x, std::uint64_t seed) {
  double diff2 = 0.0, fd2 = 0.0;
  for (const Eigen::Index i : elements_to_check(x.size, seed)) {
    head_problem plus = p, minus = p;
    const double x0 = x.data(plus)[i];
    const double h = k_rel_step * std::max(1.0, std::abs(x0));
    x.data(plus)[i] = x0 + h;
    x.data(minus)[i] = x0 - h;
    const double fd = loss_difference(plus, minus) / (2.0 * h);
    diff2 += (fd - x.analytic[i]) * (fd - x.analytic[i]);
    fd2 += fd * fd;
  }
  return fd2 > 0.0 ? std::sqrt(diff2 / fd2) : std::sqrt(diff2);
}

class reference_fd : public ::testing::TestWithParam<random_case> {};

TEST_P(reference_fd, every_gradient_matches_central_differences) {
  head_problem p = testing::random_head_problem(GetParam());
  if (p.S0.size() == 0) p.S0 = mat::Zero(p.q.cols(), p.v.cols()); // so dS0 can be perturbed
  const head_gradients gr = backward(p);

  std::vector<checked_tensor> tensors = {
      {"dq", [](head_problem& x) { return x.q.data(); }, p.q.size(), gr.dq.data()},
      {"dk", [](head_problem& x) { return x.k.data(); }, p.k.size(), gr.dk.data()},
      {"dv", [](head_problem& x) { return x.v.data(); }, p.v.size(), gr.dv.data()},
      {"dbeta", [](head_problem& x) { return x.beta.data(); }, p.beta.size(), gr.dbeta.data()},
      {p.gate == gate_form::raw ? "dx" : "dg", [](head_problem& x) { return x.gate_in.data(); },
       p.gate_in.size(), gr.dgate.data()},
      {"dS0", [](head_problem& x) { return x.S0.data(); }, p.S0.size(), gr.dS0.data()},
  };
  if (p.gate == gate_form::raw) {
    tensors.push_back({"dA_log", [](head_problem& x) { return &x.A_log; }, 1, &gr.dA_log});
    tensors.push_back({"ddt_bias", [](head_problem& x) { return x.dt_bias.data(); },
                       p.dt_bias.size(), gr.ddt_bias.data()});
  } else {
    EXPECT_EQ(gr.dA_log, 0.0);
    EXPECT_TRUE(gr.ddt_bias.isZero(0.0));
  }

  std::uint64_t seed = GetParam().seed;
  for (const checked_tensor& x : tensors) {
    const double err = fd_relative_error(p, x, ++seed);
    EXPECT_LE(err, k_tolerance) << x.name;
  }
}

// Lengths 1 (a single token), 65 (one checkpoint boundary), 200 (four checkpoint blocks, the last
// one 8 tokens).
std::vector<random_case> fd_cases() {
  std::vector<random_case> cases;
  std::uint64_t seed = 100;
  for (const gate_form gate : {gate_form::g, gate_form::raw}) {
    for (const l2n_mode l2n : {l2n_mode::off, l2n_mode::fused}) {
      for (const decay_regime decay : {decay_regime::normal, decay_regime::fast}) {
        for (const bool with_state : {false, true}) {
          for (const int T : {1, 65, 200}) {
            random_case c{gate, l2n, decay, with_state, T, 8, 6, seed += 7};
            if (cases.size() % 2 == 1) { // half the cases wider
              c.K = 16;
              c.V = 8;
            }
            cases.push_back(c);
          }
        }
      }
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(cases, reference_fd, ::testing::ValuesIn(fd_cases()),
                         [](const auto& info) { return testing::case_name(info.param); });

} // namespace
} // namespace kda::ref
