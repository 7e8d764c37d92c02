#pragma once
// The vocabulary of one row's job, shared by its parts (row_timing, row_accuracy, row_repeat) and
// by the two jobs that run rows (the main job, cmd_run.cpp, and nightly, cmd_nightly.cpp).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/inputs.hpp"
#include "core/row_key.hpp"
#include "gpu/device_row.hpp"
#include "gpu/kernel_library.hpp"
#include "report/results.hpp"

namespace kda::cli {

// What to do for every row.
struct row_job_options {
  std::vector<op_kind> ops;         // ops to time; empty: no timing
  bool stages = false;              // also time each kernel stage alone
  std::vector<decay_regime> decays; // the first one's inputs are timed; all are checked
  bool check = false;               // compare with the FP64 reference; a failure fails the row
  std::string check_heads;          // "" = all heads on rows of <= 8 heads, else 4
  // nightly: the baseline's heads per row key, checked instead of `check_heads` so that errors
  // are compared over the same heads (baseline_plan::heads_of_row); empty when --check-heads is
  // given, or for the main job. A list of heads, not a --check-heads spec: "17" there is a count.
  std::map<std::string, std::vector<int>> check_heads_of_row;
  int repeat_check = 0;             // >= 2: repeat and compare bits
  bool same_bits = false;           // with BEFORE: compare every output's bits with BEFORE's
  std::string dump_root;            // "" = no dump; a sub-folder per row when several rows run
  bool dump_per_row = false;
  bool force = false;
  std::string inputs_dir; // "" = generate
  std::uint64_t seed = 1;
  int threads = 0;
};

// The kernel libraries a row runs on: the main one (AFTER) and, with --before, the old build.
struct row_libraries {
  const kernel_library& after;
  const kernel_library* before = nullptr;
};

// Where a row's entries go: AFTER's results document and, with --before, BEFORE's.
struct row_docs {
  report::results_doc& after;
  report::results_doc* before = nullptr;
};

// One row on the GPU: its key, inputs (of the first decay) and device rows.
struct row_state {
  const row_key& key;
  const scenario& scen;
  const host_inputs& inputs;
  device_row& after;
  device_row* before = nullptr;
};

} // namespace kda::cli
