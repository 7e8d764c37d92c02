// Before/after tables of runs with --stages: the op column becomes `op/stage` and stage lines
// pair by name (golden file data/timing/before_after_stages.md; KDA_UPDATE_GOLDEN=1 rewrites it).
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "support/golden.hpp"

#include "report/table.hpp"
#include "timing_docs.hpp"

namespace kda::report {
namespace {

void expect_golden(const std::string& rendered, const char* name) {
  kda::test::expect_golden(rendered, std::filesystem::path(KDA_TEST_DATA_DIR) / "timing" / name);
}

// AFTER: fwd_intra 25 % faster, so the op too; fwd_state the same; a new stage fwd_gate only in
// AFTER; 4doc timed without stages.
results_doc after_doc() {
  results_doc d = kda::test::baseline_doc();
  d.accuracy.clear();
  d.determinism.clear();
  d.timing = {kda::test::timed("m2:g:off:saved", op_kind::fwd, 0.550),
              kda::test::stage("m2:g:off:saved", op_kind::fwd, "fwd_gate", 0.020),
              kda::test::stage("m2:g:off:saved", op_kind::fwd, "fwd_intra", 0.300),
              kda::test::stage("m2:g:off:saved", op_kind::fwd, "fwd_state", 0.250),
              kda::test::timed("4doc:raw:off:saved", op_kind::fwd, 3.280)};
  return d;
}

results_doc before_doc() {
  results_doc d = kda::test::baseline_doc();
  d.accuracy.clear();
  d.determinism.clear();
  return d;
}

TEST(stage_table, markdown_golden) {
  const table_options t{compare_all(before_doc(), after_doc())};
  expect_golden(render_markdown(before_doc(), after_doc(), t), "before_after_stages.md");
}

TEST(stage_table, csv_has_the_op_stage_column) {
  const std::string csv = render_time_csv(before_doc(), after_doc());
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "row,op/stage,before (ms),after (ms),after/before");
  EXPECT_NE(csv.find("m2:g:off:saved,fwd/fwd_gate,,0.0200,\n"), std::string::npos) << csv;
}

TEST(stage_table, without_stages_the_column_stays_op) {
  results_doc a = after_doc(), b = before_doc();
  std::erase_if(a.timing, [](const timing_entry& e) { return e.stage.has_value(); });
  std::erase_if(b.timing, [](const timing_entry& e) { return e.stage.has_value(); });
  EXPECT_NE(render_markdown(b, a).find("| row | op | before (ms)"), std::string::npos);
}

TEST(stage_table, common_only_leaves_out_a_stage_of_one_side) {
  table_options t{compare_all(before_doc(), after_doc())};
  t.common_only = true;
  const std::string md = render_markdown(before_doc(), after_doc(), t);
  EXPECT_EQ(md.find("fwd/fwd_gate"), std::string::npos) << md;
  EXPECT_NE(md.find("| row | op/stage | before (ms)"), std::string::npos) << md;
  EXPECT_NE(md.find("| m2:g:off:saved | fwd/fwd_intra | 0.4000 | 0.3000 | 0.7500 | faster |\n"),
            std::string::npos)
      << md;
}

TEST(stage_table, common_only_without_common_stages_the_column_is_op) {
  // Stages timed in AFTER only: none is shown, so the column is `op` as in a run without --stages.
  results_doc b = before_doc();
  std::erase_if(b.timing, [](const timing_entry& e) { return e.stage.has_value(); });
  table_options t;
  t.common_only = true;
  const std::string csv = render_time_csv(b, after_doc(), t);
  EXPECT_EQ(csv,
            "row,op,before (ms),after (ms),after/before\n"
            "m2:g:off:saved,fwd,0.6500,0.5500,0.8462\n"
            "4doc:raw:off:saved,fwd,3.2800,3.2800,1.0000\n");
  EXPECT_EQ(render_time_csv(b, after_doc()).substr(0, 13), "row,op/stage,");
}

TEST(stage_table, a_stage_listed_twice_is_an_error) {
  results_doc a = after_doc();
  a.timing.push_back(a.timing[2]);
  try {
    render_markdown(before_doc(), a);
    ADD_FAILURE() << "no exception";
  } catch (const report_error& e) {
    EXPECT_NE(std::string(e.what()).find("the timing of m2:g:off:saved fwd/fwd_intra twice"),
              std::string::npos)
        << e.what();
  }
}

} // namespace
} // namespace kda::report
