// `kda-bench table BEFORE.json AFTER.json` and `kda-bench compare A.json B.json`: before/after
// tables from two results files; compare adds the verdict column and exits 1 when any row is
// slower. With --common both leave out the entries only one file has and say on stderr how many
// (stdout stays the tables alone, ready to paste).
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
  t.common_only = o.common;
  if (with_verdicts) {
    t.verdicts = report::compare_all(before, after);
    for (const auto& [key, v] : *t.verdicts) {
      if (v == report::verdict::slower && any_slower) *any_slower = true;
    }
  }
  if (o.format == "csv") {
    std::fputs(report::render_time_csv(before, after, t).c_str(), stdout);
    std::fputs("\n", stdout);
    std::fputs(report::render_accuracy_csv(before, after, t).c_str(), stdout);
  } else {
    std::fputs(report::render_markdown(before, after, t).c_str(), stdout);
  }
  if (o.common) {
    // On stderr: spdlog's default logger writes to stdout, which holds the tables.
    const report::one_sided_counts n = report::count_one_sided(before, after);
    std::fflush(stdout);
    std::fprintf(stderr,
                 "kda-bench: --common left out %zu %s only in BEFORE (%zu timing, %zu accuracy) "
                 "and %zu only in AFTER (%zu timing, %zu accuracy)\n",
                 n.before_only(), n.before_only() == 1 ? "entry" : "entries", n.timing_before_only,
                 n.accuracy_before_only, n.after_only(), n.timing_after_only, n.accuracy_after_only);
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
