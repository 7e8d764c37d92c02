// Before/after tables compared byte for byte with golden files in tests/data/report/. After an
// intended format change, rerun with KDA_UPDATE_GOLDEN=1 and review the diff of the golden files.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

// ---- common_only (`table --common`): the entries both files have, nothing else ----
// In the sample pair, one side only: timing R2:g:off:saved fwd (AFTER) and 1doc:g:fused:saved
// fwd+bwd (BEFORE); accuracy m2 normal dk and R2 normal o (AFTER), m2 normal dbeta and 1doc normal
// o (BEFORE).

table_options common_only(table_options t = {}) {
  t.common_only = true;
  return t;
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Every line of `part` is a line of `whole`, in the same order.
::testing::AssertionResult is_subsequence_of_lines(const std::string& part, const std::string& whole) {
  const auto p = lines_of(part), w = lines_of(whole);
  std::size_t j = 0;
  for (const auto& line : p) {
    while (j < w.size() && w[j] != line) ++j;
    if (j == w.size()) {
      return ::testing::AssertionFailure() << "line not in the default rendering (in order): '"
                                           << line << "'\n--- common:\n" << part
                                           << "--- default:\n" << whole;
    }
    ++j;
  }
  return ::testing::AssertionSuccess();
}

TEST(report_table, common_only_markdown_has_the_common_entries_alone) {
  const std::string md =
      render_markdown(kda::test::before_doc(), kda::test::after_doc(), common_only(with_verdicts()));
  EXPECT_EQ(md, "### H200 (sm_90a, 132 SMs), CUDA 13.0 (driver 580.159, nvcc 13.0)\n"
                "\n"
                "| row | op | before (ms) | after (ms) | after/before | verdict |\n"
                "|---|---|---:|---:|---:|---|\n"
                "| m2:g:off:saved | fwd | 0.7015 | 0.6515 | 0.9287 | faster |\n"
                "| m2:g:off:saved | bwd | 1.0150 | 1.0160 | 1.0010 | same |\n"
                "| 4doc:raw:off:saved | fwd+bwd | 19.1750 | 21.0300 | 1.0967 | slower |\n"
                "\n"
                "#### Accuracy: m2:g:off:saved, decay normal (rel. L2 vs FP64)\n"
                "\n"
                "| tensor | before err | after err | after/before | after max err / max ref | after err / floor |\n"
                "|---|---:|---:|---:|---:|---:|\n"
                "| o | 4.20e-03 | 3.81e-03 | 0.91 | 1.14e-02 | 4.00 |\n"
                "| dq | 3.80e-03 | 3.90e-03 | 1.03 | 1.17e-02 | 4.00 |\n"
                "| dg | 4.90e-03 | non-finite | — | non-finite | non-finite |\n"
                "\n"
                "#### Accuracy: m2:g:off:saved, decay fast (rel. L2 vs FP64)\n"
                "\n"
                "| tensor | before err | after err | after/before | after max err / max ref | after err / floor |\n"
                "|---|---:|---:|---:|---:|---:|\n"
                "| o | 3.30e-02 (failed) | 3.30e-03 | 0.10 | 9.90e-03 | 4.00 |\n");
  // One-sided rows and the accuracy groups left empty are gone.
  EXPECT_EQ(md.find("R2:g:off:saved"), std::string::npos) << md;
  EXPECT_EQ(md.find("1doc:g:fused:saved"), std::string::npos) << md;
  EXPECT_EQ(md.find("| dk |"), std::string::npos) << md;
  EXPECT_EQ(md.find("| dbeta |"), std::string::npos) << md;
}

TEST(report_table, common_only_lines_are_the_default_lines) {
  for (const table_options& t : {table_options{}, with_verdicts()}) {
    const std::string all = render_markdown(kda::test::before_doc(), kda::test::after_doc(), t);
    const std::string common =
        render_markdown(kda::test::before_doc(), kda::test::after_doc(), common_only(t));
    EXPECT_TRUE(is_subsequence_of_lines(common, all));
    EXPECT_LT(common.size(), all.size());
    EXPECT_TRUE(is_subsequence_of_lines(
        render_time_csv(kda::test::before_doc(), kda::test::after_doc(), common_only(t)),
        render_time_csv(kda::test::before_doc(), kda::test::after_doc(), t)));
  }
  EXPECT_TRUE(is_subsequence_of_lines(
      render_accuracy_csv(kda::test::before_doc(), kda::test::after_doc(), common_only()),
      render_accuracy_csv(kda::test::before_doc(), kda::test::after_doc())));
}

TEST(report_table, common_only_csv_has_the_common_entries_alone) {
  EXPECT_EQ(render_time_csv(kda::test::before_doc(), kda::test::after_doc(),
                            common_only(with_verdicts())),
            "row,op,before (ms),after (ms),after/before,verdict\n"
            "m2:g:off:saved,fwd,0.7015,0.6515,0.9287,faster\n"
            "m2:g:off:saved,bwd,1.0150,1.0160,1.0010,same\n"
            "4doc:raw:off:saved,fwd+bwd,19.1750,21.0300,1.0967,slower\n");
  EXPECT_EQ(render_accuracy_csv(kda::test::before_doc(), kda::test::after_doc(), common_only()),
            "row,decay,tensor,before err,after err,after/before,before max err / max ref,"
            "after max err / max ref,before err / floor,after err / floor\n"
            "m2:g:off:saved,normal,o,4.20e-03,3.81e-03,0.91,1.26e-02,1.14e-02,4.00,4.00\n"
            "m2:g:off:saved,normal,dq,3.80e-03,3.90e-03,1.03,1.14e-02,1.17e-02,4.00,4.00\n"
            "m2:g:off:saved,normal,dg,4.90e-03,nan,,1.47e-02,nan,4.00,nan\n"
            "m2:g:off:saved,fast,o,3.30e-02,3.30e-03,0.10,9.90e-02,9.90e-03,4.00,4.00\n");
}

TEST(report_table, default_keeps_one_sided_entries_with_dashes) {
  const std::string md = render_markdown(kda::test::before_doc(), kda::test::after_doc());
  EXPECT_NE(md.find("| R2:g:off:saved | fwd | — | 0.6212 | — |\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1doc:g:fused:saved | fwd+bwd | 19.1800 | — | — |\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| dk | — | 3.70e-03 | — |"), std::string::npos) << md;
  EXPECT_NE(md.find("| dbeta | 3.80e-03 | — | — |"), std::string::npos) << md;
  EXPECT_NE(md.find("#### Accuracy: 1doc:g:fused:saved, decay normal"), std::string::npos) << md;
  const std::string csv = render_time_csv(kda::test::before_doc(), kda::test::after_doc());
  EXPECT_NE(csv.find("R2:g:off:saved,fwd,,0.6212,\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("1doc:g:fused:saved,fwd+bwd,19.1800,,\n"), std::string::npos) << csv;
  const std::string acc_csv = render_accuracy_csv(kda::test::before_doc(), kda::test::after_doc());
  EXPECT_NE(acc_csv.find("m2:g:off:saved,normal,dk,,3.70e-03,"), std::string::npos) << acc_csv;
  EXPECT_NE(acc_csv.find("1doc:g:fused:saved,normal,o,4.10e-03,,"), std::string::npos) << acc_csv;
}

TEST(report_table, common_only_of_disjoint_files_is_the_heading_alone) {
  results_doc before = kda::test::before_doc();
  for (auto& e : before.timing) e.row = "x" + e.row;
  for (auto& e : before.accuracy) e.row = "x" + e.row;
  EXPECT_EQ(render_markdown(before, kda::test::after_doc(), common_only()),
            "### H200 (sm_90a, 132 SMs), CUDA 13.0 (driver 580.159, nvcc 13.0)\n\n");
  EXPECT_EQ(render_time_csv(before, kda::test::after_doc(), common_only()),
            "row,op,before (ms),after (ms),after/before\n");
}

TEST(report_table, count_one_sided_per_side_and_kind) {
  one_sided_counts expected;
  expected.timing_before_only = 1;   // 1doc:g:fused:saved fwd+bwd
  expected.timing_after_only = 1;    // R2:g:off:saved fwd
  expected.accuracy_before_only = 2; // m2 normal dbeta, 1doc normal o
  expected.accuracy_after_only = 2;  // m2 normal dk, R2 normal o
  const one_sided_counts n = count_one_sided(kda::test::before_doc(), kda::test::after_doc());
  EXPECT_EQ(n, expected);
  EXPECT_EQ(n.before_only(), 3u);
  EXPECT_EQ(n.after_only(), 3u);
  EXPECT_EQ(count_one_sided(kda::test::after_doc(), kda::test::after_doc()), one_sided_counts{});
}

} // namespace
} // namespace kda::report
