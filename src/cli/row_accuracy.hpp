#pragma once
// --check and --dump of one row: for each decay, run the row once on poisoned outputs, compute the
// FP64 reference of the checked heads, compare AFTER's outputs (and BEFORE's, against the same
// reference) and append accuracy entries; dump each decay's inputs, outputs and reference.
#include "cli/row_state.hpp"

namespace kda::cli {

// Returns false if a check of the main library failed (with o.check).
bool check_and_dump(const row_state& r, const row_job_options& o, const row_libraries& libs, row_docs& docs);

} // namespace kda::cli
