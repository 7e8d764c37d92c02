#pragma once
// Before/after tables in the format of the project's PR descriptions, as markdown and as CSV.
//
// Markdown: a heading line for the GPU (from AFTER's context; a note when BEFORE ran elsewhere),
// a time table `row | op | before (ms) | after (ms) | after/before [| verdict]` (4 decimals; the op
// column is `op/stage` with cells like `fwd/fwd_intra` when some entry timed a stage alone), then
// per (row, decay) an accuracy table `tensor | before err | after err | after/before` (rel. L2 vs
// FP64 with 3 significant digits, ratio with 2 decimals). Entries appear in AFTER's order, then
// those only in BEFORE; a side that lacks an entry shows `—`, and the entry is never dropped.
//
// CSV: the same columns with a header line; a missing value is an empty field, a non-finite error
// is `nan`. Time and accuracy are two files, the accuracy file with `row,decay` columns in front.
#include <map>
#include <optional>
#include <string>

#include "report/compare.hpp"
#include "report/results.hpp"

namespace kda::report {

struct table_options {
  // When set, the time table has a verdict column: the verdict of each (row, op), `—` if none.
  std::optional<std::map<timing_key, verdict>> verdicts;
};

// "H200 (sm_90a, 132 SMs), CUDA 13.0 (driver 580.159, nvcc 13.0)".
std::string gpu_heading(const run_context& context);

// Throw report_error if a document lists one timing (row, op) or accuracy (row, decay, tensor)
// twice.
std::string render_markdown(const results_doc& before, const results_doc& after,
                            const table_options& options = {});
std::string render_time_csv(const results_doc& before, const results_doc& after,
                            const table_options& options = {});
std::string render_accuracy_csv(const results_doc& before, const results_doc& after);

} // namespace kda::report
