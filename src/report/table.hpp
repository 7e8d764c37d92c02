#pragma once
// Before/after tables in the format of the project's PR descriptions, as markdown and as CSV.
//
// Markdown: a heading line for the GPU (from AFTER's context; a note when BEFORE ran elsewhere),
// a time table `row | op | before (ms) | after (ms) | after/before [| verdict]` (4 decimals; the op
// column is `op/stage` with cells like `fwd/fwd_intra` when some entry timed a stage alone), then
// per (row, decay) an accuracy table `tensor | before err | after err | after/before` (rel. L2 vs
// FP64 with 3 significant digits, ratio with 2 decimals). Entries appear in AFTER's order, then
// those only in BEFORE; a side that lacks an entry shows `—`, and the entry is never dropped unless
// table_options::common_only asks for the entries present in both files alone.
//
// CSV: the same columns with a header line; a missing value is an empty field, a non-finite error
// is `nan`. Time and accuracy are two files, the accuracy file with `row,decay` columns in front.
#include <cstddef>
#include <map>
#include <optional>
#include <string>

#include "report/compare.hpp"
#include "report/results.hpp"

namespace kda::report {

struct table_options {
  // When set, the time table has a verdict column: the verdict of each (row, op), `—` if none.
  std::optional<std::map<timing_key, verdict>> verdicts;
  // Leave out every timing (row, op, stage) and accuracy (row, decay, tensor) entry that only one
  // of the two files has (`table --common`: a subset run against a full baseline). The lines of
  // the entries both files have are the same as without it.
  bool common_only = false;
};

// How many entries only one file has, per side and kind: what common_only leaves out.
struct one_sided_counts {
  std::size_t timing_before_only = 0;
  std::size_t timing_after_only = 0;
  std::size_t accuracy_before_only = 0;
  std::size_t accuracy_after_only = 0;
  std::size_t before_only() const { return timing_before_only + accuracy_before_only; }
  std::size_t after_only() const { return timing_after_only + accuracy_after_only; }
  bool operator==(const one_sided_counts&) const = default;
};

// "H200 (sm_90a, 132 SMs), CUDA 13.0 (driver 580.159, nvcc 13.0)".
std::string gpu_heading(const run_context& context);

// The renderers and count_one_sided throw report_error if a document lists one timing (row, op)
// or accuracy (row, decay, tensor) twice.
one_sided_counts count_one_sided(const results_doc& before, const results_doc& after);
std::string render_markdown(const results_doc& before, const results_doc& after,
                            const table_options& options = {});
std::string render_time_csv(const results_doc& before, const results_doc& after,
                            const table_options& options = {});
std::string render_accuracy_csv(const results_doc& before, const results_doc& after,
                                const table_options& options = {});

} // namespace kda::report
