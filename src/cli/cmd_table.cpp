// `kda-bench table BEFORE.json AFTER.json` and `kda-bench compare A.json B.json`: before/after
// tables from two results files; compare adds the verdict column and exits 1 when any row is
// slower.
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "report/table.hpp"

namespace kda::cli {
namespace {

int render(const table_options& o, bool with_verdicts, bool* any_slower) {
  const report::results_doc before = report::read_results(o.before);
  const report::results_doc after = report::read_results(o.after);
  report::table_options t;
  if (with_verdicts) {
    t.verdicts = report::compare_all(before, after);
    for (const auto& [key, v] : *t.verdicts) {
      if (v == report::verdict::slower && any_slower) *any_slower = true;
    }
  }
  if (o.format == "csv") {
    std::fputs(report::render_time_csv(before, after, t).c_str(), stdout);
    std::fputs("\n", stdout);
    std::fputs(report::render_accuracy_csv(before, after).c_str(), stdout);
  } else {
    std::fputs(report::render_markdown(before, after, t).c_str(), stdout);
  }
  return k_exit_ok;
}

} // namespace

int cmd_table(const table_options& o) { return render(o, o.verdicts, nullptr); }

int cmd_compare(const table_options& o) {
  bool slower = false;
  render(o, true, &slower);
  return slower ? k_exit_failure : k_exit_ok;
}

} // namespace kda::cli
