// Before/after tables compared byte for byte with golden files in tests/data/report/. After an
// intended format change, rerun with KDA_UPDATE_GOLDEN=1 and review the diff of the golden files.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "support/golden.hpp"

#include "report/table.hpp"
#include "sample_results.hpp"

namespace kda::report {
namespace {

const std::filesystem::path k_golden = std::filesystem::path(KDA_TEST_DATA_DIR) / "report";

void expect_golden(const std::string& rendered, const char* name) {
  kda::test::expect_golden(rendered, k_golden / name);
}

table_options with_verdicts() {
  return table_options{compare_all(kda::test::before_doc(), kda::test::after_doc())};
}

TEST(report_table, markdown_golden) {
  expect_golden(render_markdown(kda::test::before_doc(), kda::test::after_doc(), with_verdicts()),
                "before_after.md");
}

TEST(report_table, time_csv_golden) {
  expect_golden(render_time_csv(kda::test::before_doc(), kda::test::after_doc(), with_verdicts()),
                "before_after_time.csv");
}

TEST(report_table, accuracy_csv_golden) {
  expect_golden(render_accuracy_csv(kda::test::before_doc(), kda::test::after_doc()),
                "before_after_accuracy.csv");
}

TEST(report_table, gpu_heading) {
  EXPECT_EQ(gpu_heading(kda::test::h200_context()),
            "H200 (sm_90a, 132 SMs), CUDA 13.0 (driver 580.159, nvcc 13.0)");
}

TEST(report_table, no_verdict_column_unless_asked) {
  const std::string md = render_markdown(kda::test::before_doc(), kda::test::after_doc());
  EXPECT_NE(md.find("| row | op | before (ms) | after (ms) | after/before |\n"), std::string::npos);
  EXPECT_EQ(md.find("verdict"), std::string::npos);
}

TEST(report_table, notes_when_before_ran_elsewhere) {
  results_doc before = kda::test::before_doc();
  before.context.gpu.name = "NVIDIA H100 80GB HBM3";
  std::string md = render_markdown(before, kda::test::after_doc());
  EXPECT_NE(md.find("Note: BEFORE ran on a different GPU: H100 80GB HBM3 (sm_90a, 132 SMs)"),
            std::string::npos)
      << md;

  before = kda::test::before_doc();
  before.context.gpu.driver = "575.57";
  md = render_markdown(before, kda::test::after_doc());
  EXPECT_NE(md.find("Note: BEFORE ran with different software: H200 (sm_90a, 132 SMs), CUDA 13.0 "
                    "(driver 575.57, nvcc 13.0)."),
            std::string::npos)
      << md;
  EXPECT_EQ(render_markdown(kda::test::before_doc(), kda::test::after_doc()).find("Note:"),
            std::string::npos);
}

TEST(report_table, duplicate_entries_are_an_error) {
  results_doc after = kda::test::after_doc();
  after.timing.push_back(after.timing[0]);
  try {
    render_markdown(kda::test::before_doc(), after);
    ADD_FAILURE() << "no exception";
  } catch (const report_error& e) {
    EXPECT_NE(
        std::string(e.what()).find("AFTER results list the timing of m2:g:off:saved fwd twice"),
        std::string::npos)
        << e.what();
  }
}

TEST(report_table, csv_quotes_fields_with_commas) {
  results_doc after = kda::test::after_doc();
  after.timing.resize(1);
  after.timing[0].row = "odd,\"row\"";
  results_doc before;
  const std::string csv = render_time_csv(before, after);
  EXPECT_NE(csv.find("\"odd,\"\"row\"\"\",fwd,,0.6515,\n"), std::string::npos) << csv;
}

} // namespace
} // namespace kda::report
