#pragma once
// Timing of one row: each op (and with --stages each kernel stage) on the main library and, with
// --before, on the old build too, interleaved sample by sample (timing.hpp). Appends timing
// entries, prints a line per entry (and the roofline with --roofline), warns about throttled
// samples, and keeps a tally of the SM clock for the run context.
#include <limits>
#include <optional>
#include <vector>

#include "cli/row_state.hpp"
#include "gpu/timing.hpp"
#include "report/results.hpp"

namespace kda::cli {

// Every SM clock reading of a run, for context.gpu.clocks.
struct clock_tally {
  double sum = 0;
  std::size_t count = 0;
  double min = std::numeric_limits<double>::infinity();
  void add(const sample_set& s);
};

// The run's timing tools, shared by its rows.
struct timing_setup {
  timing_engine& engine;
  std::optional<report::ceilings_info> ceilings; // set with --roofline
  clock_tally clocks;
};

void time_ops(const row_state& r, const std::vector<op_kind>& ops, timing_setup& t, row_docs& docs);
void time_stages(const row_state& r, timing_setup& t, row_docs& docs);

} // namespace kda::cli
