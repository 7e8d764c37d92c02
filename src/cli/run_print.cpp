#include "cli/run_print.hpp"

#include <cstdio>

namespace kda::cli {
namespace {

std::string side_tag(const std::string& side) { return side.empty() ? std::string() : "  [" + side + "]"; }

} // namespace

void print_timing(const report::timing_entry& t, const report::method_info& m, const std::string& side) {
  const std::string tag = side_tag(side);
  if (t.stage) {
    std::printf("%-28s   stage %-14s median %9.4f ms  (min %.4f, max %.4f)%s\n", t.row.c_str(), t.stage->c_str(),
                t.median_ms, t.min_ms, t.max_ms, tag.c_str());
    return;
  }
  std::printf("%-28s %-8s median %9.4f ms  (min %.4f, max %.4f, IQR %.4f; %d x %d calls)%s\n", t.row.c_str(),
              std::string(to_string(t.op)).c_str(), t.median_ms, t.min_ms, t.max_ms, t.iqr_ms, m.samples,
              m.calls_per_sample, tag.c_str());
}

void print_roofline(const report::op_work& w, const report::roofline_point& p) {
  std::printf("    roofline: %.3f GB, %.3f TFLOP -> %.0f GB/s, %.2f TFLOP/s; floor %.4f ms (%s), %.1f %% of floor\n",
              w.bytes * 1e-9, w.flops * 1e-12, p.achieved_gb_per_s, p.achieved_tflop_per_s, p.floor_ms,
              p.memory_bound ? "memory" : "compute", 100.0 * p.fraction_of_floor);
}

void print_ceilings(const report::ceilings_info& c) {
  std::printf("ceilings: device copy %.0f GB/s (%.0f MiB read + written), bf16 GEMM %.1f TFLOP/s (n = %d)\n",
              c.copy_gb_per_s, 2.0 * static_cast<double>(c.copy_bytes) / (1 << 20), c.bf16_gemm_tflop_per_s,
              c.gemm_size);
}

void print_checks(const row_key& key, decay_regime decay, const std::vector<tensor_check>& checks,
                  const std::string& side) {
  std::printf("\naccuracy %s, %s decay (rel-L2 vs FP64)%s\n", key.str().c_str(), std::string(to_string(decay)).c_str(),
              side_tag(side).c_str());
  std::printf("  %-8s %10s %10s %9s %10s %9s  %s\n", "tensor", "rel_l2", "floor", "x floor", "threshold", "x FLA",
              "verdict");
  for (const auto& c : checks) {
    const double vs_fla = c.fla_level > 0 ? c.error.rel_l2 / c.fla_level : 0.0;
    std::printf("  %-8s %10.3e %10.3e %9.2f %10.2e %9.2f  %s%s%s\n", c.error.tensor.c_str(), c.error.rel_l2,
                c.error.floor_rel_l2, c.error.err_over_floor, c.threshold, vs_fla, c.pass ? "ok" : "FAIL",
                c.error.note.empty() ? "" : "  ", c.error.note.c_str());
  }
}

} // namespace kda::cli
