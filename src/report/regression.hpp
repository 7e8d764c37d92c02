#pragma once
// The nightly's decision (docs/nightly.md): a new results document against the GPU class's
// baseline, as a list of failures. Pure: no files, no GPU; kda-bench nightly prints the list and
// exits 1 when it is not empty.
#include <string>
#include <vector>

#include "report/compare.hpp"
#include "report/results.hpp"

namespace kda::report {

struct regression_rule {
  double threshold = 0.02;      // a "slower" verdict fails only above this median slow-down
  double accuracy_factor = 1.5; // rel_l2 may grow up to this factor over the baseline's
  verdict_rule verdicts = {};   // when a difference counts as real (docs/comparison.md)
};

enum class regression_kind { slower, accuracy, determinism };
std::string_view to_string(regression_kind k); // "slower", "accuracy", "determinism"

struct regression_finding {
  regression_kind kind = regression_kind::slower;
  std::string what; // one line naming the entry and the figures

  bool operator==(const regression_finding&) const = default;
};

struct regression_report {
  std::vector<regression_finding> failures;
  std::vector<std::string> notes; // not failures: entries on one side only (one per left-out row)
  bool failed() const { return !failures.empty(); }
};

// Failures, in the order of `latest`'s entries:
//  - slower: a whole-op timing (not a stage) with verdict "slower" and a median ratio above
//    1 + threshold;
//  - accuracy: a non-finite error; rel_l2 above accuracy_factor x the baseline's; or a check that
//    fails its threshold now while the baseline's passed (or has no baseline);
//  - determinism: any repeat check whose runs differ.
regression_report find_regressions(const results_doc& baseline, const results_doc& latest,
                                   const regression_rule& rule = {});

} // namespace kda::report
