#pragma once
// A row's data in and out: its inputs, generated from the scenario and seed or loaded from a dump
// (--inputs), and one run of its outputs.
#include "cli/row_state.hpp"

namespace kda::cli {

// Throws std::invalid_argument when a loaded dump holds the other gate form than the key asks.
host_inputs make_row_inputs(const row_job_options& o, const scenario& scen, const row_key& key, decay_regime decay);

// Runs what the build offers of fwd (+ bwd) once, on poisoned outputs (NaN bits, so an element a
// kernel fails to write cannot pass), and brings the outputs back.
host_outputs run_once(device_row& row, bool with_bwd);

} // namespace kda::cli
