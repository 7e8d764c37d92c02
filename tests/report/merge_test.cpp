// merge_results: entries of several files of one GPU, build and method in one document; files that
// are not comparable, or that hold the same entry twice, are refused with the reason named.
#include <gtest/gtest.h>

#include "report/merge.hpp"
#include "report/sample_results.hpp"
#include "support/temp_dir.hpp"

namespace kda::report {
namespace {

using kda::test::expect_error;

results_doc small_rows() {
  results_doc d;
  d.context = kda::test::h200_context();
  d.timing = {make_timing_entry("m2:g:off:saved", op_kind::fwd, {0.12, 0.13, 0.125})};
  d.accuracy = {kda::test::acc("m2:g:off:saved", decay_regime::normal, "o", 3.6e-3)};
  d.determinism = {determinism_entry{"m2:g:off:saved", op_kind::fwd_bwd, 2, true, {{"o", true}}}};
  return d;
}

results_doc big_rows() {
  results_doc d;
  d.context = kda::test::h200_context();
  d.context.command_line = "kda-bench --rows 4doc:raw:off:saved";
  d.timing = {make_timing_entry("4doc:raw:off:saved", op_kind::fwd, {2.98, 2.99, 2.97})};
  timing_entry stage = make_timing_entry("4doc:raw:off:saved", op_kind::fwd, {2.0, 2.1, 2.02});
  stage.stage = "fwd_intra";
  d.timing.push_back(stage);
  d.accuracy = {kda::test::acc("4doc:raw:off:saved", decay_regime::fast, "dx", 2.1e-3)};
  return d;
}

TEST(merge_results, concatenates_the_entries_in_file_order) {
  const results_doc m = merge_results({{"small.json", small_rows()}, {"big.json", big_rows()}});
  ASSERT_EQ(m.timing.size(), 3u);
  EXPECT_EQ(m.timing[0].row, "m2:g:off:saved");
  EXPECT_EQ(m.timing[2].stage, std::optional<std::string>("fwd_intra"));
  ASSERT_EQ(m.accuracy.size(), 2u);
  EXPECT_EQ(m.accuracy[1].tensor, "dx");
  EXPECT_EQ(m.determinism.size(), 1u);
  EXPECT_EQ(m.context.gpu, small_rows().context.gpu);
  EXPECT_EQ(m.context.command_line, "kda-bench merge of small.json, big.json");
}

TEST(merge_results, refuses_files_of_another_build_gpu_method_or_seed) {
  results_doc other = big_rows();
  other.context.kernel_library.build_id = "other-build";
  expect_error<report_error>([&] { merge_results({{"a.json", small_rows()}, {"b.json", other}}); },
                             {"a.json and b.json cannot be merged", "kernel_library.build_id", "other-build"});
  other = big_rows();
  other.context.gpu.sm_count = 114;
  expect_error<report_error>([&] { merge_results({{"a.json", small_rows()}, {"b.json", other}}); },
                             {"gpu.sm_count (132 vs 114)"});
  other = big_rows();
  other.context.method.samples = 5;
  expect_error<report_error>([&] { merge_results({{"a.json", small_rows()}, {"b.json", other}}); }, {"method"});
  other = big_rows();
  other.context.seed = 7;
  expect_error<report_error>([&] { merge_results({{"a.json", small_rows()}, {"b.json", other}}); }, {"seed"});
}

TEST(merge_results, refuses_an_entry_two_files_hold) {
  expect_error<report_error>([&] { merge_results({{"a.json", small_rows()}, {"again.json", small_rows()}}); },
                             {"again.json", "timing of m2:g:off:saved fwd", "earlier file"});
  results_doc acc_only = big_rows();
  acc_only.timing.clear();
  expect_error<report_error>([&] { merge_results({{"a.json", big_rows()}, {"b.json", acc_only}}); },
                             {"b.json", "accuracy of 4doc:raw:off:saved dx (fast decay)"});
}

TEST(merge_results, keeps_clocks_only_when_every_file_has_the_same) {
  results_doc a = small_rows(), b = big_rows();
  a.context.gpu.clocks = gpu_clocks{1980.0, 1970.0, 3201.0};
  b.context.gpu.clocks = gpu_clocks{1980.0, 1900.0, 3201.0};
  EXPECT_FALSE(merge_results({{"a.json", a}, {"b.json", b}}).context.gpu.clocks.has_value());
  b.context.gpu.clocks = a.context.gpu.clocks;
  EXPECT_EQ(merge_results({{"a.json", a}, {"b.json", b}}).context.gpu.clocks, a.context.gpu.clocks);
}

} // namespace
} // namespace kda::report
