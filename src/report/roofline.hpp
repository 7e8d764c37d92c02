#pragma once
// The roofline of one op of a row: the work the chunked algorithm must do (minimum DRAM bytes and
// the FLOPs of its matrix products, counted from the shapes alone) and where a measured time puts
// it against the device's ceilings. Counting rules and their derivation: docs/roofline.md.
#include <string_view>
#include <vector>

#include "core/inputs.hpp"
#include "core/variant.hpp"
#include "report/results.hpp"

namespace kda::report {

inline constexpr int k_roofline_chunk = 64; // C of the chunked algorithm (kda-algorithm.md)

// One counted matrix product of the algorithm, for one (chunk of c rows, head).
struct flop_term {
  std::string_view name; // the product, in the symbols of kda-algorithm.md
  double macs = 0;       // multiply-adds; FLOPs = 2 x macs
};

// The forward's products: intra-chunk (Akk, the WY solve, Aqk) and the state pass.
std::vector<flop_term> fwd_flop_terms(int c, int k_dim, int v_dim);
// The backward's products: the intra-chunk recompute (plus the state recompute on `replay`)
// and the gradient stages 1-4 of kda-algorithm.md.
std::vector<flop_term> bwd_flop_terms(int c, int k_dim, int v_dim, bwd_path path);

// The work of one call of an op on a whole row.
struct op_work {
  double bytes = 0; // minimum DRAM traffic: every input read once, every output written once
  double flops = 0; // 2 x the multiply-adds of the counted products, over every (chunk, head)
};

// fwd+bwd is the sum of its two calls (each reads its inputs itself).
op_work count_work(op_kind op, const problem_dims& dims, gate_form gate, bwd_path path);

// A measured time against the ceilings: floor = max(bytes / copy rate, flops / GEMM rate).
struct roofline_point {
  double achieved_gb_per_s = 0;    // bytes / measured time, 1e9 B/s
  double achieved_tflop_per_s = 0; // flops / measured time, 1e12 FLOP/s
  double memory_floor_ms = 0;      // bytes at the copy rate
  double compute_floor_ms = 0;     // flops at the GEMM rate
  double floor_ms = 0;             // the larger of the two
  double fraction_of_floor = 0;    // floor_ms / measured: 1 = at the roof
  bool memory_bound = true;        // memory floor >= compute floor
};

// Throws report_error when a ceiling or the measured time is not positive.
roofline_point place_on_roofline(const op_work& work, const ceilings_info& ceilings,
                                 double measured_ms);

} // namespace kda::report
