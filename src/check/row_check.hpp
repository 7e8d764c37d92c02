#pragma once
// Checks a row's kernel outputs against the FP64 reference: which heads to check, running the
// reference for them, and the per-tensor errors with pass/fail against the thresholds.
#include <functional>
#include <string>
#include <vector>

#include "check/accuracy.hpp"
#include "core/inputs.hpp"
#include "core/variant.hpp"
#include "core/outputs.hpp"
#include "kda_reference.hpp"

namespace kda {

// Parses --check-heads: "" (all heads), a count "4" (evenly spaced sample) or a list "0,17,42".
// Throws std::invalid_argument naming the bad entry.
std::vector<int> select_heads(const std::string& spec, int heads, bool is_list_hint = false);

// The FP64 reference for `heads` of the row (forward, and backward if asked).
ref::row_result reference_for(const host_inputs& in, const std::vector<int>& heads, bool backward,
                              int threads, const std::function<void(std::int64_t, std::int64_t)>& progress);

struct tensor_check {
  tensor_error error;
  double threshold = 0.0; // target: factor x FLA level
  double fla_level = 0.0;
  bool pass = false;
};

// Errors of o (and the gradients, when both sides have them) with their thresholds.
std::vector<tensor_check> check_outputs(const host_inputs& in, const host_outputs& got,
                                        const ref::row_result& ref, decay_regime decay);

} // namespace kda
