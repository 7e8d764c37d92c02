// Where nightly and --before put their files: GPU class slugs, dated files that never overwrite,
// and BEFORE's document beside --out.
#include <fstream>

#include <gtest/gtest.h>

#include "report/results_paths.hpp"
#include "support/temp_dir.hpp"

namespace kda::report {
namespace {

TEST(gpu_class_slug, from_the_gpu_class) {
  EXPECT_EQ(gpu_class_slug("H200 (sm_90, 132 SMs)"), "H200-sm_90-132SMs");
  EXPECT_EQ(gpu_class_slug("H100 80GB HBM3 (sm_90, 132 SMs)"), "H100-80GB-HBM3-sm_90-132SMs");
  EXPECT_EQ(gpu_class_slug("RTX 6000 Ada Generation (sm_89, 142 SMs)"),
            "RTX-6000-Ada-Generation-sm_89-142SMs");
  EXPECT_EQ(gpu_class_slug("A100-SXM4-40GB (sm_80, 108 SMs)"), "A100-SXM4-40GB-sm_80-108SMs");
}

TEST(gpu_class_slug, only_safe_characters_survive) {
  EXPECT_EQ(gpu_class_slug("GH200 / 480GB (sm_90, 132 SMs)"), "GH200-480GB-sm_90-132SMs");
  EXPECT_EQ(gpu_class_slug("  odd  name  "), "odd-name");
  EXPECT_EQ(gpu_class_slug("no parenthesis, here"), "no-parenthesis-here");
  EXPECT_EQ(gpu_class_slug("X (a b, , c:d)"), "X-ab-c-d");
  kda::test::expect_error<report_error>([] { gpu_class_slug(" (, ) "); }, {"empty folder name"});
}

class dated_results_path_test : public kda::test::temp_dir_test {};

TEST_F(dated_results_path_test, never_overwrites_a_run_of_the_same_day) {
  EXPECT_EQ(dated_results_path(dir(), "2026-12-02"), dir() / "2026-12-02.json");
  std::ofstream(dir() / "2026-12-02.json") << "{}";
  EXPECT_EQ(dated_results_path(dir(), "2026-12-02"), dir() / "2026-12-02-2.json");
  std::ofstream(dir() / "2026-12-02-2.json") << "{}";
  EXPECT_EQ(dated_results_path(dir(), "2026-12-02"), dir() / "2026-12-02-3.json");
  EXPECT_EQ(dated_results_path(dir(), "2026-12-03"), dir() / "2026-12-03.json");
  // A folder that does not exist yet: the plain name (write_results creates the folder).
  EXPECT_EQ(dated_results_path(dir() / "H200-sm_90-132SMs", "2026-12-02"),
            dir() / "H200-sm_90-132SMs" / "2026-12-02.json");
}

TEST(utc_date_today, is_an_iso_date) {
  const std::string d = utc_date_today();
  ASSERT_EQ(d.size(), 10u) << d;
  EXPECT_EQ(d[4], '-');
  EXPECT_EQ(d[7], '-');
  EXPECT_EQ(d.substr(0, 2), "20");
}

TEST(before_results_path, beside_out) {
  EXPECT_EQ(before_results_path("results/x.json"), "results/x.before.json");
  EXPECT_EQ(before_results_path("a.b/run"), "a.b/run.before.json");
  EXPECT_EQ(before_results_path(".json"), ".json.before.json");
}

TEST(partial_results_path, beside_out) {
  EXPECT_EQ(partial_results_path("results/x.json"), "results/x.partial.json");
  EXPECT_EQ(partial_results_path("a.b/run"), "a.b/run.partial.json");
  EXPECT_EQ(partial_results_path(report::before_results_path("r/x.json")), "r/x.before.partial.json");
}

} // namespace
} // namespace kda::report
