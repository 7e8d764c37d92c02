// Order statistics and the Mann-Whitney U test. Expected values from numpy.quantile (default
// linear interpolation) and scipy.stats.mannwhitneyu(a, b, alternative="two-sided",
// method="asymptotic") (scipy 1.17).
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "report/stats.hpp"

namespace kda::report {
namespace {

using v = std::vector<double>;

TEST(report_stats, quantiles_with_linear_interpolation) {
  EXPECT_DOUBLE_EQ(median(v{1, 2, 3, 4}), 2.5);
  EXPECT_DOUBLE_EQ(quantile(v{1, 2, 3, 4}, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(quantile(v{1, 2, 3, 4}, 0.75), 3.25);
  EXPECT_DOUBLE_EQ(quantile(v{1, 2, 3, 4}, 0.1), 1.3);
  EXPECT_DOUBLE_EQ(iqr(v{1, 2, 3, 4}), 1.5);
  // Unsorted input.
  EXPECT_DOUBLE_EQ(median(v{7, 1, 3}), 3.0);
  EXPECT_DOUBLE_EQ(iqr(v{7, 1, 3}), 3.0);
  EXPECT_DOUBLE_EQ(quantile(v{7, 1, 3}, 0.1), 1.4);
  // One sample.
  EXPECT_DOUBLE_EQ(median(v{5}), 5.0);
  EXPECT_DOUBLE_EQ(iqr(v{5}), 0.0);
  EXPECT_DOUBLE_EQ(quantile(v{5}, 1.0), 5.0);
}

TEST(report_stats, summary_of_timing_samples) {
  const sample_summary s = summarize(v{0.71, 0.69, 0.70, 0.73, 0.70, 0.72});
  EXPECT_DOUBLE_EQ(s.median, 0.705);
  EXPECT_DOUBLE_EQ(s.min, 0.69);
  EXPECT_DOUBLE_EQ(s.max, 0.73);
  EXPECT_NEAR(s.iqr, 0.0175, 1e-15);
}

TEST(report_stats, bad_samples) {
  EXPECT_THROW(median(v{}), report_error);
  EXPECT_THROW(iqr(v{1.0, std::nan("")}), report_error);
  EXPECT_THROW(quantile(v{1.0}, 1.5), report_error);
  EXPECT_THROW(mann_whitney_p(v{}, v{1.0}), report_error);
}

TEST(report_stats, mann_whitney_matches_scipy) {
  // Fully separated, 5 against 5: U = 0.
  EXPECT_NEAR(mann_whitney_p(v{1, 2, 3, 4, 5}, v{6, 7, 8, 9, 10}), 0.012185780355344813, 1e-12);
  // Symmetric in its arguments.
  EXPECT_NEAR(mann_whitney_p(v{6, 7, 8, 9, 10}, v{1, 2, 3, 4, 5}), 0.012185780355344813, 1e-12);
  // Ties inside and across the samples (tie correction): U = 6.
  EXPECT_NEAR(mann_whitney_p(v{1, 2, 2, 3, 4}, v{2, 3, 3, 5, 6, 7}), 0.11390314458853068, 1e-12);
  // Overlapping, unequal sizes: U = 7.
  EXPECT_NEAR(mann_whitney_p(v{1.1, 2.3, 0.7, 3.2, 1.9, 2.8}, v{2.0, 3.5, 2.9, 4.1, 3.3, 2.2, 3.9}),
              0.05378408886239828, 1e-12);
  // |U - mu| below the continuity correction: p clipped to 1.
  EXPECT_DOUBLE_EQ(mann_whitney_p(v{1, 4}, v{2, 3}), 1.0);
  // 15 timing samples each, shifted by less than their spread: U = 212.5.
  v a, b;
  for (int i = 0; i < 15; ++i) {
    a.push_back(0.70 + 0.001 * i);
    b.push_back(0.69 + 0.001 * i);
  }
  EXPECT_NEAR(mann_whitney_p(a, b), 3.6376647638580404e-05, 1e-15);
}

TEST(report_stats, mann_whitney_all_tied_is_no_evidence) {
  EXPECT_DOUBLE_EQ(mann_whitney_p(v{1, 1, 1}, v{1, 1, 1}), 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_p(v{2}, v{2}), 1.0);
}

} // namespace
} // namespace kda::report
