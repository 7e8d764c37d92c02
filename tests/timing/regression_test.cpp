// The nightly's decision: a new results document against the baseline, as a list of failures.
#include <limits>

#include <gtest/gtest.h>

#include "report/regression.hpp"
#include "timing_docs.hpp"

namespace kda::report {
namespace {

using kda::test::baseline_doc;

bool mentions(const regression_report& r, regression_kind kind, std::string_view text) {
  for (const auto& f : r.failures) {
    if (f.kind == kind && f.what.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(regression, a_rerun_of_the_baseline_passes) {
  const regression_report r = find_regressions(baseline_doc(), baseline_doc());
  EXPECT_FALSE(r.failed());
  EXPECT_TRUE(r.notes.empty());
}

TEST(regression, slower_above_the_threshold_fails) {
  results_doc now = baseline_doc();
  now.timing[3] = kda::test::timed("4doc:raw:off:saved", op_kind::fwd, 3.280 * 1.10);
  const regression_report r = find_regressions(baseline_doc(), now);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_TRUE(mentions(r, regression_kind::slower, "4doc:raw:off:saved fwd"));
  EXPECT_TRUE(mentions(r, regression_kind::slower, "1.1000x"));
  EXPECT_TRUE(mentions(r, regression_kind::slower, "1.0200x threshold"));
}

TEST(regression, slower_below_the_threshold_passes) {
  results_doc now = baseline_doc();
  now.timing[3] = kda::test::timed("4doc:raw:off:saved", op_kind::fwd, 3.280 * 1.04);
  // The verdict is "slower" (4 %, clearly separated samples), but the threshold is 5 %.
  regression_rule rule;
  rule.threshold = 0.05;
  EXPECT_FALSE(find_regressions(baseline_doc(), now, rule).failed());
  rule.threshold = 0.03;
  EXPECT_TRUE(find_regressions(baseline_doc(), now, rule).failed());
}

TEST(regression, a_large_but_insignificant_difference_passes) {
  results_doc base = baseline_doc(), now = baseline_doc();
  // Three samples a side: even fully separated, Mann-Whitney p >= 0.081, so the verdict is "same".
  base.timing[0] = make_timing_entry("m2:g:off:saved", op_kind::fwd, {0.65, 0.66, 0.64});
  now.timing[0] = make_timing_entry("m2:g:off:saved", op_kind::fwd, {0.80, 0.81, 0.79});
  EXPECT_FALSE(find_regressions(base, now).failed());
}

TEST(regression, slower_stages_alone_do_not_fail) {
  results_doc now = baseline_doc();
  now.timing[1] = kda::test::stage("m2:g:off:saved", op_kind::fwd, "fwd_intra", 0.600);
  EXPECT_FALSE(find_regressions(baseline_doc(), now).failed());
}

TEST(regression, faster_passes) {
  results_doc now = baseline_doc();
  now.timing[0] = kda::test::timed("m2:g:off:saved", op_kind::fwd, 0.500);
  EXPECT_FALSE(find_regressions(baseline_doc(), now).failed());
}

TEST(regression, accuracy_above_the_factor_fails) {
  results_doc now = baseline_doc();
  now.accuracy[1].rel_l2 = 4.1e-3 * 1.6;
  const regression_report r = find_regressions(baseline_doc(), now);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_TRUE(mentions(r, regression_kind::accuracy, "m2:g:off:saved o (fast decay)"));
  EXPECT_TRUE(mentions(r, regression_kind::accuracy, "1.60x"));

  now.accuracy[1].rel_l2 = 4.1e-3 * 1.4; // within 1.5x
  EXPECT_FALSE(find_regressions(baseline_doc(), now).failed());
  regression_rule strict;
  strict.accuracy_factor = 1.2;
  EXPECT_TRUE(find_regressions(baseline_doc(), now, strict).failed());
}

TEST(regression, non_finite_accuracy_fails) {
  results_doc now = baseline_doc();
  now.accuracy[2].rel_l2 = std::numeric_limits<double>::quiet_NaN();
  now.accuracy[2].status = accuracy_status::non_finite;
  now.accuracy[2].note = "NaN at token 5, head 1, column 7";
  const regression_report r = find_regressions(baseline_doc(), now);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_TRUE(mentions(r, regression_kind::accuracy, "non-finite error (NaN at token 5"));
}

TEST(regression, a_newly_failed_threshold_fails_a_known_one_does_not) {
  results_doc base = baseline_doc(), now = baseline_doc();
  now.accuracy[0].status = accuracy_status::failed_threshold; // same error, now above its threshold
  EXPECT_TRUE(
      mentions(find_regressions(base, now), regression_kind::accuracy, "fails its threshold"));
  base.accuracy[0].status = accuracy_status::failed_threshold; // failed in the baseline too: known
  EXPECT_FALSE(find_regressions(base, now).failed());
}

TEST(regression, determinism_failure_fails_and_names_the_tensors) {
  results_doc now = baseline_doc();
  now.determinism[1] = {"4doc:raw:off:saved",
                        op_kind::fwd_bwd,
                        3,
                        false,
                        {{"o", true}, {"dq", false}, {"dx", false}}};
  const regression_report r = find_regressions(baseline_doc(), now);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_TRUE(mentions(r, regression_kind::determinism,
                       "4doc:raw:off:saved fwd+bwd: 3 runs differ in dq, dx"));
}

TEST(regression, entries_on_one_side_only_are_notes) {
  results_doc now = baseline_doc();
  now.timing.erase(now.timing.begin() + 3);     // 4doc fwd not timed now
  now.accuracy.erase(now.accuracy.begin() + 1); // m2 fast not checked now
  now.timing.push_back(kda::test::timed("R2:g:off:saved", op_kind::fwd, 0.62));
  const regression_report r = find_regressions(baseline_doc(), now);
  EXPECT_FALSE(r.failed());
  ASSERT_EQ(r.notes.size(), 3u);
  EXPECT_EQ(r.notes[0], "R2:g:off:saved fwd: no baseline timing");
  EXPECT_EQ(r.notes[1], "4doc:raw:off:saved fwd: in the baseline, not timed now");
  EXPECT_EQ(r.notes[2], "m2:g:off:saved o (fast decay): in the baseline, not checked now");
}

TEST(regression, a_baseline_row_left_out_is_one_note) {
  // kda-bench nightly --rows m2:g:off:saved on a baseline that also holds 4doc:raw:off:saved.
  results_doc now = baseline_doc();
  now.timing.erase(now.timing.begin() + 3);
  now.accuracy.erase(now.accuracy.begin() + 2);
  now.determinism.erase(now.determinism.begin() + 1);
  const regression_report r = find_regressions(baseline_doc(), now);
  EXPECT_FALSE(r.failed());
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0], "4doc:raw:off:saved: in the baseline (1 timing, 1 check), not run now");
}

TEST(regression, failures_keep_the_order_of_the_new_document) {
  results_doc now = baseline_doc();
  now.timing[0] = kda::test::timed("m2:g:off:saved", op_kind::fwd, 0.650 * 1.2);
  now.timing[3] = kda::test::timed("4doc:raw:off:saved", op_kind::fwd, 3.280 * 1.2);
  now.accuracy[0].rel_l2 *= 2;
  now.determinism[0].identical = false;
  const regression_report r = find_regressions(baseline_doc(), now);
  ASSERT_EQ(r.failures.size(), 4u);
  EXPECT_EQ(r.failures[0].kind, regression_kind::slower);
  EXPECT_NE(r.failures[0].what.find("m2:g:off:saved"), std::string::npos);
  EXPECT_NE(r.failures[1].what.find("4doc:raw:off:saved"), std::string::npos);
  EXPECT_EQ(r.failures[2].kind, regression_kind::accuracy);
  EXPECT_EQ(r.failures[3].kind, regression_kind::determinism);
  EXPECT_EQ(to_string(regression_kind::determinism), "determinism");
}

} // namespace
} // namespace kda::report
