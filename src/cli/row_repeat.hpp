#pragma once
// --repeat-check N of one row: run the main library's op N times on poisoned outputs and compare
// every output bit for bit with the first run.
#include "cli/row_state.hpp"

namespace kda::cli {

// Appends a determinism entry and prints a line; returns false if any tensor differed.
bool repeat_check(const row_state& r, int runs, row_docs& docs);

} // namespace kda::cli
