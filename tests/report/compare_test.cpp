// The verdict rule: faster/slower only when significant (p < 0.01) and large (>= 2 % by default).
#include <vector>

#include <gtest/gtest.h>

#include "report/compare.hpp"

namespace kda::report {
namespace {

// 15 samples around `base`, spread 0.014 ms.
timing_entry around(double base, const char* row = "m2:g:off:saved", op_kind op = op_kind::fwd) {
  std::vector<double> s;
  for (int i = 0; i < 15; ++i) s.push_back(base + 0.001 * ((i * 7) % 15));
  return make_timing_entry(row, op, s);
}

TEST(report_compare, identical_samples_are_same) {
  const auto c = compare_timing(around(0.70), around(0.70));
  EXPECT_EQ(c.outcome, verdict::same);
  EXPECT_DOUBLE_EQ(c.ratio, 1.0);
  EXPECT_GT(c.p_value, 0.9);
}

TEST(report_compare, clearly_separated_is_faster_or_slower) {
  const auto faster = compare_timing(around(1.00), around(0.90));
  EXPECT_EQ(faster.outcome, verdict::faster);
  EXPECT_LT(faster.p_value, 1e-4);
  EXPECT_NEAR(faster.ratio, 0.907 / 1.007, 1e-12);
  EXPECT_EQ(compare_timing(around(0.90), around(1.00)).outcome, verdict::slower);
}

TEST(report_compare, significant_but_below_min_effect_is_same) {
  // 0.010 ms on 0.707 ms: 1.4 %, p about 4e-5.
  const auto c = compare_timing(around(0.70), around(0.69));
  EXPECT_LT(c.p_value, 0.01);
  EXPECT_LT(std::abs(c.ratio - 1.0), 0.02);
  EXPECT_EQ(c.outcome, verdict::same);
  // The same data with a 1 % threshold is a change.
  EXPECT_EQ(compare_timing(around(0.70), around(0.69), verdict_rule{0.01, 0.01}).outcome,
            verdict::faster);
}

TEST(report_compare, large_but_not_significant_is_same) {
  // Five samples a side can never reach p < 0.01 in the normal approximation (p = 0.012).
  const auto before = make_timing_entry("r", op_kind::bwd, {1.0, 1.01, 1.02, 1.03, 1.04});
  const auto after = make_timing_entry("r", op_kind::bwd, {0.5, 0.51, 0.52, 0.53, 0.54});
  const auto c = compare_timing(before, after);
  EXPECT_GT(c.p_value, 0.01);
  EXPECT_EQ(c.outcome, verdict::same);
}

TEST(report_compare, compare_all_matches_rows_and_ops) {
  results_doc before, after;
  before.timing = {around(1.00, "a", op_kind::fwd), around(1.00, "a", op_kind::bwd),
                   around(1.00, "only_before")};
  after.timing = {around(0.90, "a", op_kind::fwd), around(1.10, "a", op_kind::bwd),
                  around(1.00, "only_after")};
  const auto v = compare_all(before, after);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v.at(timing_key{"a", op_kind::fwd}), verdict::faster);
  EXPECT_EQ(v.at(timing_key{"a", op_kind::bwd}), verdict::slower);
}

TEST(report_compare, no_samples_is_an_error) {
  timing_entry empty{"m2:g:off:saved", op_kind::fwd, {}, 0, 0, 0, 0};
  EXPECT_THROW(compare_timing(empty, around(1.0)), report_error);
}

} // namespace
} // namespace kda::report
