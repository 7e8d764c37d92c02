// The results file: JSON round trip, schema checks with named fields, atomic write and refusal to
// overwrite.
#include <cmath>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/results.hpp"
#include "sample_results.hpp"
#include "support/temp_dir.hpp"

namespace kda::report {
namespace {

using kda::test::expect_error;

results_doc full_doc() {
  results_doc d = kda::test::before_doc();
  d.context.gpu.clocks = gpu_clocks{1980.0, 1755.5, std::nullopt};
  d.context.method.l2 = l2_state::cold;
  d.context.method.launch = launch_mode::graph;
  d.context.seed = 0xfedcba9876543210ull; // above 2^63: must survive as uint64
  d.accuracy[1].note = "worst head 3";
  d.determinism = {
      determinism_entry{"m2:g:off:saved", op_kind::bwd, 5, false, {{"dq", true}, {"dk", false}}},
      determinism_entry{"m2:g:off:saved", op_kind::fwd, 3, true, {{"o", true}}},
  };
  return d;
}

class report_results : public kda::test::temp_dir_test {
protected:
  void write_text(const std::string& name, const std::string& text) const {
    std::ofstream(dir() / name) << text;
  }
  results_json doc_json() const { return full_doc(); }
};

TEST_F(report_results, json_round_trip) {
  const results_doc d = full_doc();
  const results_json j = d;
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j.begin().key(), "schema_version");
  EXPECT_EQ(j["context"]["gpu"]["clocks"]["sm_observed_mhz"], 1755.5);
  EXPECT_FALSE(j["context"]["gpu"]["clocks"].contains("mem_max_mhz"));
  EXPECT_EQ(j["context"]["method"]["l2"], "cold");
  EXPECT_EQ(j["timing"][2]["op"], "fwd+bwd");
  EXPECT_EQ(j["accuracy"][5]["status"], "failed-threshold");
  EXPECT_EQ(j["determinism"][0]["tensors"]["dk"], false);
  EXPECT_EQ(j.get<results_doc>(), d);

  write_results(dir() / "r.json", d, false);
  EXPECT_EQ(read_results(dir() / "r.json"), d);
}

TEST_F(report_results, timing_statistics_from_samples) {
  const timing_entry t =
      make_timing_entry("m2:g:off:saved", op_kind::fwd, {0.71, 0.69, 0.70, 0.73});
  EXPECT_DOUBLE_EQ(t.median_ms, 0.705);
  EXPECT_DOUBLE_EQ(t.min_ms, 0.69);
  EXPECT_DOUBLE_EQ(t.max_ms, 0.73);
  EXPECT_NEAR(t.iqr_ms, 0.7150 - 0.6975, 1e-12);
  EXPECT_EQ(t.samples_ms, (std::vector<double>{0.71, 0.69, 0.70, 0.73})); // order kept
}

TEST_F(report_results, non_finite_figures_are_null_in_json) {
  results_doc d = kda::test::after_doc();
  const results_json j = d;
  EXPECT_TRUE(j["accuracy"][2]["rel_l2"].is_null());
  EXPECT_EQ(j["accuracy"][2]["note"], "NaN at index 123");
  write_results(dir() / "r.json", d, false);
  const results_doc back = read_results(dir() / "r.json");
  EXPECT_TRUE(std::isnan(back.accuracy[2].rel_l2));
  EXPECT_EQ(back.accuracy[2].status, accuracy_status::non_finite);
  EXPECT_EQ(back.timing, d.timing);
}

TEST_F(report_results, schema_version_mismatch) {
  results_json j = doc_json();
  j["schema_version"] = 2;
  write_text("v2.json", j.dump());
  expect_error<report_error>(
      [&] { read_results(dir() / "v2.json"); },
      {"v2.json", "schema_version", "2 is not supported", "reads schema_version 1"});
  j.erase("schema_version");
  write_text("none.json", j.dump());
  expect_error<report_error>([&] { read_results(dir() / "none.json"); },
                             {"none.json", "schema_version: missing"});
}

TEST_F(report_results, field_errors_name_the_field) {
  results_json j = doc_json();
  j["timing"][1]["op"] = "fwdx";
  write_text("op.json", j.dump());
  expect_error<report_error>([&] { read_results(dir() / "op.json"); },
                             {"op.json", "timing[1].op", "'fwdx'", "fwd, bwd, fwd+bwd"});

  j = doc_json();
  j["context"]["gpu"]["sm_count"] = "lots";
  write_text("sm.json", j.dump());
  expect_error<report_error>([&] { read_results(dir() / "sm.json"); },
                             {"context.gpu.sm_count", "\"lots\""});

  j = doc_json();
  j["context"]["method"].erase("warmup");
  write_text("warmup.json", j.dump());
  expect_error<report_error>([&] { read_results(dir() / "warmup.json"); },
                             {"context.method.warmup: missing"});

  j = doc_json();
  j["accuracy"][0]["median"] = 1; // unknown keys are ignored
  j["accuracy"][0]["status"] = "great";
  write_text("status.json", j.dump());
  expect_error<report_error>([&] { read_results(dir() / "status.json"); },
                             {"accuracy[0].status", "'great'", "ok, non-finite, failed-threshold"});

  j = doc_json();
  j["context"]["seed"] = -1;
  write_text("seed.json", j.dump());
  expect_error<report_error>([&] { read_results(dir() / "seed.json"); },
                             {"context.seed", "non-negative integer", "-1"});

  j = doc_json();
  j["timing"][0]["samples_ms"] = "fast";
  write_text("samples.json", j.dump());
  expect_error<report_error>([&] { read_results(dir() / "samples.json"); },
                             {"timing[0].samples_ms", "array"});

  write_text("bad.json", "{\"schema_version\": 1,");
  expect_error<report_error>([&] { read_results(dir() / "bad.json"); },
                             {"bad.json", "not valid JSON"});
  expect_error<report_error>([&] { read_results(dir() / "absent.json"); },
                             {"absent.json", "cannot open"});
}

TEST_F(report_results, missing_entry_lists_read_as_empty) {
  results_json j = doc_json();
  j.erase("determinism");
  j.erase("accuracy");
  write_text("timing_only.json", j.dump());
  const results_doc d = read_results(dir() / "timing_only.json");
  EXPECT_TRUE(d.accuracy.empty());
  EXPECT_TRUE(d.determinism.empty());
  EXPECT_EQ(d.timing.size(), 4u);
}

TEST_F(report_results, atomic_write_refuses_overwrite_without_force) {
  const auto path = dir() / "deep" / "er" / "results.json";
  results_doc d = full_doc();
  write_results(path, d, false); // creates the parent directories
  ASSERT_TRUE(std::filesystem::exists(path));

  d.context.host = "another-host";
  expect_error<report_error>([&] { write_results(path, d, false); },
                             {path.string(), "already exists", "--force"});
  EXPECT_EQ(read_results(path).context.host, "gpu-node-7"); // untouched

  write_results(path, d, true);
  EXPECT_EQ(read_results(path).context.host, "another-host");
  // Nothing left beside it: the temporary file was renamed into place.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(path.parent_path())) {
    ++files;
    EXPECT_EQ(e.path().filename(), "results.json");
  }
  EXPECT_EQ(files, 1);
}

TEST_F(report_results, iso8601_utc) {
  const auto t = std::chrono::sys_days{std::chrono::year{2026} / 12 / 2} + std::chrono::hours{11} +
                 std::chrono::minutes{58} + std::chrono::seconds{37};
  EXPECT_EQ(iso8601_utc(t), "2026-12-02T11:58:37Z");
}

} // namespace
} // namespace kda::report
