// What nightly repeats of its baseline: rows, ops, decays, stages, method and seed.
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

TEST(baseline_plan, an_empty_baseline_is_an_error) {
  kda::test::expect_error<report_error>([] { plan_from_baseline(results_doc{}); },
                                        {"baseline holds no"});
}

} // namespace
} // namespace kda::report
