#pragma once
// --same-bits of one row (with --before): the main library and BEFORE each run once on the row's
// inputs (the first decay's, poisoned outputs) and every output tensor is compared bit for bit.
// For kernel changes meant to leave the numbers alone (scheduling, loads, refactors).
#include "cli/row_state.hpp"

namespace kda::cli {

// Prints one line per tensor; returns false if any differs. The backward is compared when both
// builds have one.
bool same_bits_as_before(const row_state& r);

} // namespace kda::cli
