#pragma once
// What a nightly run repeats of its baseline (docs/nightly.md): the rows, ops and decays the
// baseline holds, and its timing method and seed, so that the new run measures the same things
// the same way.
#include <cstdint>
#include <string>
#include <vector>

#include "core/variant.hpp"
#include "report/results.hpp"

namespace kda::report {

struct baseline_plan {
  std::vector<std::string> rows;    // every row key of the baseline, first appearance first
  std::vector<op_kind> ops;         // ops of its whole-op timings, in fwd, bwd, fwd+bwd order
  std::vector<decay_regime> decays; // decays of its accuracy entries (normal, fast if none)
  bool stages = false;              // it holds per-stage timings
  method_info method;
  std::uint64_t seed = 0;
};

// Throws report_error if the baseline names no row at all.
baseline_plan plan_from_baseline(const results_doc& baseline);

} // namespace kda::report
