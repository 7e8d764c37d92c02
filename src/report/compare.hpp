#pragma once
// Verdicts on before/after timings (docs/comparison.md): "faster" or "slower" only when the
// difference is both significant (Mann-Whitney p < alpha) and large enough to matter
// (|after/before - 1| >= min_effect, ratio of medians); otherwise "same".
#include <compare>
#include <map>
#include <string>
#include <string_view>

#include "report/results.hpp"

namespace kda::report {

enum class verdict { faster, slower, same };
std::string_view to_string(verdict v); // "faster", "slower", "same"

struct verdict_rule {
  double alpha = 0.01;      // significance level of the two-sided Mann-Whitney U test
  double min_effect = 0.02; // smallest |after/before - 1| called a change
};

struct timing_comparison {
  double ratio = 1.0;   // after median / before median (< 1: after is faster)
  double p_value = 1.0; // Mann-Whitney U, two-sided, over the samples
  verdict outcome = verdict::same;
};

// Throws report_error (naming the row and op) if either side has no samples.
timing_comparison compare_timing(const timing_entry& before, const timing_entry& after,
                                 const verdict_rule& rule = {});

// The identity of a timing entry within one results file: (row, op), and the stage for an entry
// that timed one kernel stage of the op alone ("" for the whole op).
struct timing_key {
  std::string row;
  op_kind op = op_kind::fwd;
  std::string stage = {};
  auto operator<=>(const timing_key&) const = default;
};
timing_key key_of(const timing_entry& e);
// "fwd" for a whole op, "fwd/fwd_intra" for a stage: the op cell of tables and messages.
std::string op_label(const timing_entry& e);

// Verdicts for every (row, op[, stage]) timed in both documents.
std::map<timing_key, verdict> compare_all(const results_doc& before, const results_doc& after,
                                          const verdict_rule& rule = {});

} // namespace kda::report
