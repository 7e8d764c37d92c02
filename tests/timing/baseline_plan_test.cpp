// What nightly repeats of its baseline: rows, ops, decays, stages, heads checked per row, method
// and seed.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "report/baseline_plan.hpp"
#include "support/temp_dir.hpp"
#include "timing_docs.hpp"

namespace kda::report {
namespace {

TEST(baseline_plan, rows_ops_decays_and_method_of_the_baseline) {
  results_doc b = kda::test::baseline_doc();
  b.context.method.l2 = l2_state::cold;
  const baseline_plan p = plan_from_baseline(b);
  EXPECT_EQ(p.rows, (std::vector<std::string>{"m2:g:off:saved", "4doc:raw:off:saved"}));
  EXPECT_EQ(p.ops, (std::vector<op_kind>{op_kind::fwd}));
  EXPECT_EQ(p.decays, (std::vector<decay_regime>{decay_regime::normal, decay_regime::fast}));
  EXPECT_TRUE(p.stages);
  EXPECT_EQ(p.method, b.context.method);
  EXPECT_EQ(p.seed, 7u);
}

TEST(baseline_plan, ops_in_vocabulary_order_and_rows_from_every_list) {
  results_doc b;
  b.timing = {kda::test::timed("a:g:off:saved", op_kind::fwd_bwd, 1),
              kda::test::timed("a:g:off:saved", op_kind::fwd, 1),
              kda::test::timed("b:g:off:saved", op_kind::bwd, 1)};
  b.accuracy = {kda::test::accuracy("c:g:off:saved", decay_regime::fast, "o", 1e-3)};
  b.determinism = {kda::test::repeat("d:g:off:saved", true)};
  const baseline_plan p = plan_from_baseline(b);
  EXPECT_EQ(p.rows, (std::vector<std::string>{"a:g:off:saved", "b:g:off:saved", "c:g:off:saved",
                                              "d:g:off:saved"}));
  EXPECT_EQ(p.ops, (std::vector<op_kind>{op_kind::fwd, op_kind::bwd, op_kind::fwd_bwd}));
  EXPECT_EQ(p.decays, (std::vector<decay_regime>{decay_regime::fast}));
  EXPECT_FALSE(p.stages);
}

TEST(baseline_plan, without_accuracy_both_decays_are_checked) {
  results_doc b;
  b.determinism = {kda::test::repeat("m2:g:off:saved", true)};
  const baseline_plan p = plan_from_baseline(b);
  EXPECT_TRUE(p.ops.empty()); // nothing timed in the baseline: nothing timed now
  EXPECT_EQ(p.decays, (std::vector<decay_regime>{decay_regime::normal, decay_regime::fast}));
}

// An accuracy entry of `row` compared over `heads`.
accuracy_entry checked_on(const char* row, decay_regime decay, const char* tensor, std::vector<int> heads) {
  accuracy_entry e = kda::test::accuracy(row, decay, tensor, 1e-3);
  e.heads_checked = std::move(heads);
  return e;
}

TEST(baseline_plan, heads_checked_per_row_from_its_accuracy_entries) {
  results_doc b = kda::test::baseline_doc(); // every accuracy entry checked heads {0, 2}
  b.timing.push_back(kda::test::timed("1doc:g:fused:saved", op_kind::fwd, 2.5)); // timed, never checked
  const baseline_plan p = plan_from_baseline(b);
  EXPECT_EQ(p.heads_of_row, (std::map<std::string, std::vector<int>>{{"m2:g:off:saved", {0, 2}},
                                                                     {"4doc:raw:off:saved", {0, 2}}}));
  EXPECT_EQ(p.heads_of_row.count("1doc:g:fused:saved"), 0u) << "no accuracy entry: the default heads";
}

TEST(baseline_plan, rows_keep_their_own_heads) {
  // As the H200 baseline: one sampled head on 4doc, every head of m2.
  results_doc b;
  b.accuracy = {checked_on("m2:raw:fused:saved", decay_regime::normal, "dA_log", {0, 1, 2, 3}),
                checked_on("4doc:raw:fused:saved", decay_regime::normal, "dA_log", {17}),
                checked_on("4doc:raw:fused:saved", decay_regime::fast, "dA_log", {17}),
                checked_on("m2:raw:fused:saved", decay_regime::fast, "dA_log", {0, 1, 2, 3})};
  b.timing = {kda::test::timed("R2:g:off:saved", op_kind::fwd, 0.3)};
  const baseline_plan p = plan_from_baseline(b);
  ASSERT_EQ(p.heads_of_row.size(), 2u);
  EXPECT_EQ(p.heads_of_row.at("4doc:raw:fused:saved"), (std::vector<int>{17})) << "a head, not a count of 17";
  EXPECT_EQ(p.heads_of_row.at("m2:raw:fused:saved"), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(p.heads_of_row.count("R2:g:off:saved"), 0u);
}

TEST(baseline_plan, differing_heads_of_one_row_are_united_and_sorted) {
  results_doc b;
  b.accuracy = {checked_on("4doc:g:off:saved", decay_regime::normal, "o", {32, 0}),
                checked_on("4doc:g:off:saved", decay_regime::fast, "o", {48, 0, 16}),
                checked_on("m2:g:off:saved", decay_regime::normal, "o", {})}; // lists no heads
  const baseline_plan p = plan_from_baseline(b);
  EXPECT_EQ(p.heads_of_row.at("4doc:g:off:saved"), (std::vector<int>{0, 16, 32, 48}));
  EXPECT_EQ(p.heads_of_row.count("m2:g:off:saved"), 0u) << "no heads listed: the default heads";
  EXPECT_EQ(p.rows, (std::vector<std::string>{"4doc:g:off:saved", "m2:g:off:saved"}));
}

TEST(baseline_plan, an_empty_baseline_is_an_error) {
  kda::test::expect_error<report_error>([] { plan_from_baseline(results_doc{}); },
                                        {"baseline holds no"});
}

} // namespace
} // namespace kda::report
