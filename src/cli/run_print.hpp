#pragma once
// The main job's and nightly's printed lines: timing summaries, roofline figures, accuracy tables.
// printf carries the results; spdlog carries progress and warnings.
#include <string>
#include <vector>

#include "check/row_check.hpp"
#include "core/row_key.hpp"
#include "report/results.hpp"
#include "report/roofline.hpp"

namespace kda::cli {

// "m2:g:off:saved    fwd      median    0.6515 ms  (min ..., max ..., IQR ...; 15 x 20 calls)";
// a stage as "   stage fwd_intra ...". `side` is "" for the main library, "BEFORE" for --before's.
void print_timing(const report::timing_entry& e, const report::method_info& m, const std::string& side);
// "    roofline: 1.61 GB, 0.146 TFLOP -> 3921 GB/s, 0.36 TFLOP/s; floor 0.3650 ms (memory), 89.0 % of floor".
void print_roofline(const report::op_work& w, const report::roofline_point& p);
void print_ceilings(const report::ceilings_info& c);
// The accuracy table of one row and decay. `side` as above.
void print_checks(const row_key& key, decay_regime decay, const std::vector<tensor_check>& checks,
                  const std::string& side);

} // namespace kda::cli
