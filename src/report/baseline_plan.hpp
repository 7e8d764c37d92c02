#pragma once
// What a nightly run repeats of its baseline (docs/nightly.md): the rows, ops and decays the
// baseline holds, the heads its accuracy check compared, and its timing method and seed, so that
// the new run measures the same things the same way.
#include <cstdint>
#include <map>
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
  // Per row key, the heads its accuracy entries were compared over (`heads_checked`), so that
  // tonight's errors are over the same heads: a per-head quantity such as dA_log differs 10x
  // between heads. Normally every entry of a row lists the same heads; if not, the union, sorted.
  // A row without accuracy entries (or whose entries list no heads) has no entry here.
  std::map<std::string, std::vector<int>> heads_of_row;
  method_info method;
  std::uint64_t seed = 0;
};

// Throws report_error if the baseline names no row at all.
baseline_plan plan_from_baseline(const results_doc& baseline);

} // namespace kda::report
