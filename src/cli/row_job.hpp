#pragma once
// One row of the main job or of nightly, start to end: inputs, device rows (main library and
// --before's), timing of each op and stage, accuracy check and dump, bitwise repeat.
#include "cli/row_state.hpp"
#include "cli/row_timing.hpp"

namespace kda::cli {

// Appends the row's entries to `docs`. Returns false if a check of the main library failed
// (--check above threshold or non-finite, --repeat-check differing bits).
bool run_row(const row_key& key, const scenario& scen, const row_job_options& o, const row_libraries& libs,
             timing_setup& timing, row_docs& docs);

} // namespace kda::cli
