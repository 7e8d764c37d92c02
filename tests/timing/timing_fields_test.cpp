// The optional fields of the timing work in the results JSON (schema_version stays 1): stages,
// SM clocks, throttled and retaken samples, the measured ceilings. Absent when not set; files
// without them still read.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/compare.hpp"
#include "report/results.hpp"
#include "support/temp_dir.hpp"
#include "timing_docs.hpp"

namespace kda::report {
namespace {

results_doc doc_with_every_field() {
  results_doc d = kda::test::baseline_doc();
  d.context.gpu.clocks = gpu_clocks{1980.0, 1932.5, 3201.0, 1755.0};
  d.context.method.l2 = l2_state::cold;
  d.context.method.launch = launch_mode::graph;
  d.context.ceilings = ceilings_info{4123.5, 712.25, std::uint64_t{2} << 30, 8192};
  d.timing[0].sm_clock_mean_mhz = 1932.5;
  d.timing[0].sm_clock_min_mhz = 1755.0;
  d.timing[0].throttled_samples = 1;
  d.timing[0].retaken_samples = 2;
  return d;
}

class timing_fields : public kda::test::temp_dir_test {};

TEST_F(timing_fields, round_trip) {
  const results_doc d = doc_with_every_field();
  const results_json j = d;
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["context"]["gpu"]["clocks"]["sm_observed_min_mhz"], 1755.0);
  EXPECT_EQ(j["context"]["ceilings"]["copy_gb_per_s"], 4123.5);
  EXPECT_EQ(j["context"]["ceilings"]["bf16_gemm_tflop_per_s"], 712.25);
  EXPECT_EQ(j["context"]["ceilings"]["copy_bytes"], 2147483648u);
  EXPECT_EQ(j["context"]["ceilings"]["gemm_size"], 8192);
  EXPECT_EQ(j["context"]["method"]["launch"], "graph");
  EXPECT_EQ(j["timing"][0]["sm_clock_mean_mhz"], 1932.5);
  EXPECT_EQ(j["timing"][0]["throttled_samples"], 1);
  EXPECT_EQ(j["timing"][0]["retaken_samples"], 2);
  EXPECT_EQ(j["timing"][1]["stage"], "fwd_intra");
  EXPECT_EQ(j.get<results_doc>(), d);
  write_results(dir() / "r.json", d, false);
  EXPECT_EQ(read_results(dir() / "r.json"), d);
}

TEST_F(timing_fields, absent_unless_set) {
  results_doc d = kda::test::baseline_doc();
  const results_json j = d;
  EXPECT_FALSE(j["context"].contains("ceilings"));
  EXPECT_FALSE(j["context"]["gpu"].contains("clocks"));
  for (const char* key :
       {"stage", "sm_clock_mean_mhz", "sm_clock_min_mhz", "throttled_samples", "retaken_samples"}) {
    EXPECT_FALSE(j["timing"][0].contains(key)) << key;
  }
  EXPECT_TRUE(j["timing"][1].contains("stage"));
  // An entry reads back without them, as from an older harness.
  results_json old = j;
  old["timing"][1].erase("stage");
  const results_doc back = old.get<results_doc>();
  EXPECT_FALSE(back.timing[1].stage.has_value());
  EXPECT_FALSE(back.context.ceilings.has_value());
}

TEST_F(timing_fields, bad_values_name_the_field) {
  results_json j = doc_with_every_field();
  j["timing"][0]["throttled_samples"] = "many";
  kda::test::expect_error<report_error>([&] { j.get<results_doc>(); },
                                        {"timing[0].throttled_samples"});
  j = doc_with_every_field();
  j["context"]["ceilings"].erase("gemm_size");
  kda::test::expect_error<report_error>([&] { j.get<results_doc>(); },
                                        {"context.ceilings.gemm_size: missing"});
  j = doc_with_every_field();
  j["timing"][2]["stage"] = 3;
  kda::test::expect_error<report_error>([&] { j.get<results_doc>(); }, {"timing[2].stage"});
}

TEST(timing_stage_keys, a_stage_is_its_own_entry) {
  const results_doc d = kda::test::baseline_doc();
  EXPECT_EQ(key_of(d.timing[0]), (timing_key{"m2:g:off:saved", op_kind::fwd}));
  EXPECT_EQ(key_of(d.timing[1]), (timing_key{"m2:g:off:saved", op_kind::fwd, "fwd_intra"}));
  EXPECT_EQ(op_label(d.timing[0]), "fwd");
  EXPECT_EQ(op_label(d.timing[1]), "fwd/fwd_intra");
  // Verdicts pair stages by name, apart from the whole op.
  const auto v = compare_all(d, d);
  EXPECT_EQ(v.size(), 4u);
  EXPECT_EQ(v.at(timing_key{"m2:g:off:saved", op_kind::fwd, "fwd_state"}), verdict::same);
}

} // namespace
} // namespace kda::report
