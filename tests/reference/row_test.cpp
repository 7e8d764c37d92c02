// run_row: packing, threads, per-head sums, argument checks, progress.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kda_reference.hpp"
#include "test_problems.hpp"

namespace kda::ref {
namespace {

using testing::random_case;

constexpr int k_K = 8, k_V = 6;
const std::vector<std::int32_t> k_cu = {0, 1, 66, 216}; // lengths 1, 65, 150

// A raw-gate row whose (seq, head) problems are seeded by position; A_log and dt_bias are per head
// as in a real row.
head_problem row_problem(int seq, int head, std::int64_t len) {
  head_problem p =
      testing::random_head_problem({gate_form::raw, l2n_mode::fused, decay_regime::normal, false,
                                    static_cast<int>(len), k_K, k_V, 1000u + 10 * seq + head});
  const head_problem per_head = testing::random_head_problem(
      {gate_form::raw, l2n_mode::fused, decay_regime::normal, false, 1, k_K, k_V, 50u + head});
  p.A_log = per_head.A_log;
  p.dt_bias = per_head.dt_bias;
  return p;
}

head_source packed_source(const std::vector<std::int32_t>& cu) {
  return [cu](int seq, int head) { return row_problem(seq, head, cu[seq + 1] - cu[seq]); };
}

row_result run(const std::vector<int>& heads, int threads, bool backward = true) {
  row_options opt;
  opt.threads = threads;
  opt.backward = backward;
  return run_row(k_cu, heads, k_K, k_V, packed_source(k_cu), opt);
}

void expect_bitwise_equal(const row_result& a, const row_result& b) {
  EXPECT_EQ(a.o, b.o);
  EXPECT_EQ(a.dq, b.dq);
  EXPECT_EQ(a.dk, b.dk);
  EXPECT_EQ(a.dv, b.dv);
  EXPECT_EQ(a.dbeta, b.dbeta);
  EXPECT_EQ(a.dgate, b.dgate);
  EXPECT_EQ(a.dA_log, b.dA_log);
  EXPECT_EQ(a.ddt_bias, b.ddt_bias);
}

TEST(reference_row, thread_count_does_not_change_a_bit) {
  const row_result one = run({0, 2, 1}, 1);
  expect_bitwise_equal(one, run({0, 2, 1}, 4));
  expect_bitwise_equal(one, run({0, 2, 1}, 0));
}

// Each sequence run alone, as a row of one, gives the packed row's bits; the row's per-head sums
// are the per-pair sums added in ascending sequence order.
TEST(reference_row, packed_sequence_equals_sequence_alone) {
  const std::vector<int> heads = {1, 0};
  const row_result packed = run(heads, 2);
  const std::size_t Hs = heads.size();
  std::vector<double> dA_log(Hs, 0.0), ddt_bias(Hs * k_K, 0.0);
  for (int s = 0; s + 1 < static_cast<int>(k_cu.size()); ++s) {
    const std::int32_t len = k_cu[s + 1] - k_cu[s];
    const head_source alone_source = [s, len](int, int head) { return row_problem(s, head, len); };
    const row_result alone = run_row({0, len}, heads, k_K, k_V, alone_source, {});
    const auto same_rows = [&](const std::vector<double>& whole, const std::vector<double>& part,
                               std::size_t width) {
      const std::size_t row = Hs * width;
      return std::equal(part.begin(), part.end(), whole.begin() + k_cu[s] * row);
    };
    EXPECT_TRUE(same_rows(packed.o, alone.o, k_V)) << s;
    EXPECT_TRUE(same_rows(packed.dq, alone.dq, k_K)) << s;
    EXPECT_TRUE(same_rows(packed.dk, alone.dk, k_K)) << s;
    EXPECT_TRUE(same_rows(packed.dv, alone.dv, k_V)) << s;
    EXPECT_TRUE(same_rows(packed.dbeta, alone.dbeta, 1)) << s;
    EXPECT_TRUE(same_rows(packed.dgate, alone.dgate, k_K)) << s;
    for (std::size_t hs = 0; hs < Hs; ++hs) {
      dA_log[hs] += alone.dA_log[hs];
      for (int c = 0; c < k_K; ++c) ddt_bias[hs * k_K + c] += alone.ddt_bias[hs * k_K + c];
    }
  }
  EXPECT_EQ(packed.dA_log, dA_log);
  EXPECT_EQ(packed.ddt_bias, ddt_bias);
}

// The head-compact layout: column block hs of token t holds head heads[hs].
TEST(reference_row, outputs_are_head_compact) {
  const std::vector<int> heads = {2, 0};
  const row_result r = run(heads, 2);
  const int s = 1, hs = 0;
  const head_results want = forward_backward(row_problem(s, heads[hs], k_cu[s + 1] - k_cu[s]));
  for (int t = 0; t < k_cu[s + 1] - k_cu[s]; ++t) {
    const std::size_t token = k_cu[s] + t;
    for (int c = 0; c < k_V; ++c) {
      ASSERT_EQ(r.o[(token * heads.size() + hs) * k_V + c], want.outputs.o(t, c));
    }
    for (int c = 0; c < k_K; ++c) {
      ASSERT_EQ(r.dgate[(token * heads.size() + hs) * k_K + c], want.gradients.dgate(t, c));
    }
    ASSERT_EQ(r.dbeta[token * heads.size() + hs], want.gradients.dbeta(t));
  }
}

TEST(reference_row, forward_only_gives_the_same_o) {
  const row_result fwd = run({0, 1}, 2, false);
  EXPECT_FALSE(fwd.has_backward);
  EXPECT_TRUE(fwd.dq.empty());
  EXPECT_EQ(fwd.o, run({0, 1}, 2, true).o);
}

// dA_log and dt_bias of a whole row by finite differences: they are the gradients that sum over
// sequences. Loss: sum(o .* d_o) over the row.
TEST(reference_row, head_sums_match_finite_differences) {
  const int head = 1;
  const auto row_loss_difference = [&](double dA, int c, double dt) {
    const auto perturbed = [&](double sign) {
      return [&, sign](int seq, int hd) {
        head_problem p = row_problem(seq, hd, k_cu[seq + 1] - k_cu[seq]);
        p.A_log += sign * dA;
        if (c >= 0) p.dt_bias(c) += sign * dt;
        return p;
      };
    };
    row_options opt;
    opt.backward = false;
    const row_result plus = run_row(k_cu, {head}, k_K, k_V, perturbed(1.0), opt);
    const row_result minus = run_row(k_cu, {head}, k_K, k_V, perturbed(-1.0), opt);
    double d = 0.0;
    for (int s = 0; s + 1 < static_cast<int>(k_cu.size()); ++s) {
      const head_problem p = row_problem(s, head, k_cu[s + 1] - k_cu[s]);
      for (int t = 0; t < p.d_o.rows(); ++t) {
        for (int j = 0; j < k_V; ++j) {
          const std::size_t at = static_cast<std::size_t>(k_cu[s] + t) * k_V + j;
          d += (plus.o[at] - minus.o[at]) * p.d_o(t, j);
        }
      }
    }
    return d;
  };
  const row_result r = run({head}, 2);
  const double h = 1e-6;
  const double fd_A = row_loss_difference(h, -1, 0.0) / (2 * h);
  EXPECT_NEAR(fd_A, r.dA_log[0], 1e-6 * std::abs(fd_A));
  double diff2 = 0.0, fd2 = 0.0;
  for (int c = 0; c < k_K; ++c) {
    const double fd = row_loss_difference(0.0, c, h) / (2 * h);
    diff2 += (fd - r.ddt_bias[c]) * (fd - r.ddt_bias[c]);
    fd2 += fd * fd;
  }
  EXPECT_LE(std::sqrt(diff2 / fd2), 1e-6);
}

TEST(reference_row, bad_arguments_are_rejected) {
  const head_source src = packed_source(k_cu);
  const auto rejects = [&](const std::vector<std::int32_t>& cu, const std::vector<int>& heads,
                           row_options opt = {}) {
    EXPECT_THROW(run_row(cu, heads, k_K, k_V, src, opt), std::invalid_argument);
  };
  rejects({0}, {0});
  rejects({1, 5}, {0});
  rejects({0, 5, 5}, {0});
  rejects({0, 5, 3}, {0});
  rejects(k_cu, {});
  rejects(k_cu, {-1});
  rejects(k_cu, {0, 0});
  row_options opt;
  opt.head_count = 2;
  rejects(k_cu, {2}, opt);
  EXPECT_THROW(run_row(k_cu, {0}, k_K + 1, k_V, src, {}), std::invalid_argument); // wrong shape
}

TEST(reference_row, source_errors_reach_the_caller) {
  const head_source failing = [](int seq, int head) -> head_problem {
    if (seq == 1) throw std::runtime_error("no such input");
    return row_problem(seq, head, k_cu[seq + 1] - k_cu[seq]);
  };
  row_options opt;
  opt.threads = 3;
  EXPECT_THROW(run_row(k_cu, {0, 1}, k_K, k_V, failing, opt), std::runtime_error);
}

TEST(reference_row, progress_counts_every_pair) {
  std::vector<std::int64_t> seen;
  row_options opt;
  opt.threads = 3;
  opt.progress = [&](std::int64_t done, std::int64_t total) {
    EXPECT_EQ(total, 6);
    seen.push_back(done);
  };
  run_row(k_cu, {0, 1}, k_K, k_V, packed_source(k_cu), opt);
  EXPECT_EQ(seen, (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}));
}

} // namespace
} // namespace kda::ref
