#pragma once
// Several results files as one (`kda-bench merge`): rows measured in separate runs of the same
// build on the same GPU (a long matrix split over device calls, or a peer timed per head count)
// become one document for tables, plots and nightly baselines.
#include <string>
#include <utility>
#include <vector>

#include "report/results.hpp"

namespace kda::report {

// (file name, document) in the order given; at least one. The files must agree on what makes
// their numbers comparable: GPU (name, arch, SM count, driver, CUDA runtime, compiler), kernel
// build id, timing method and input seed. The merged context is the first file's, with
// command_line naming the merged files; clocks and ceilings are kept only when all agree.
// Throws report_error naming the two files and the field that disagree, or the entry two files
// both hold (row, op, stage / row, decay, tensor).
results_doc merge_results(const std::vector<std::pair<std::string, results_doc>>& docs);

} // namespace kda::report
