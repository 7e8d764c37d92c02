#pragma once
// The subcommands of kda-bench; each returns a process exit code (exit_codes.hpp).
#include <string>
#include <vector>

#include "cli/run_options.hpp"
#include "core/scenario.hpp"

namespace kda::cli {

// Loads scenarios/ plus any --scenario-file; throws scenario_error.
scenario_catalog load_catalog(const scenario_options& o);

int cmd_run(const run_options& o, const std::string& command_line);
int cmd_list(const std::string& rows, const scenario_options& o, bool scenarios_only);

struct reference_options {
  std::string rows;
  std::string decay = "normal";
  std::uint64_t seed = 1;
  std::string check_heads;
  std::string dump_dir;
  bool force = false;
  bool forward_only = false;
  int threads = 0;
  scenario_options scenarios;
};
int cmd_reference(const reference_options& o);

struct table_options {
  std::string before, after;
  std::string format = "markdown"; // markdown | csv
  bool verdicts = false;
  bool common = false; // leave out the entries only one file has (report::table_options::common_only)
};
int cmd_table(const table_options& o);
int cmd_compare(const table_options& o);

// `kda-bench merge A.json B.json ... --out C.json`: several results files of one GPU, build and
// method as one (report/merge.hpp).
struct merge_options {
  std::vector<std::string> inputs;
  std::string out;
  bool force = false;
};
int cmd_merge(const merge_options& o);

// `kda-bench nightly`: the baseline's rows again, compared with it (docs/nightly.md).
struct nightly_options {
  std::string baseline; // "" = <results_dir>/<gpu-class-slug>/baseline.json
  std::string results_dir = "results";
  std::string rows;             // "" = every row of the baseline
  std::string ops;              // "" = the ops the baseline timed
  double threshold = 0.02;      // fail a "slower" verdict above this median slow-down
  double accuracy_factor = 1.5; // fail a rel_l2 above this factor x the baseline's
  std::string check_heads;      // "" = per row the baseline's heads_checked (unchecked rows: as the main job)
  int repeat_check = 3;
  bool retake_throttled = false;
  bool print_slug = false; // print this GPU's class slug and exit
  std::string library;
  int threads = 0;
  scenario_options scenarios;
};
int cmd_nightly(const nightly_options& o, const std::string& command_line);

} // namespace kda::cli
