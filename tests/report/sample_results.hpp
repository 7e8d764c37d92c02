#pragma once
// Results documents for the report tests: a fully filled one, and a before/after pair with an
// entry missing on each side.
#include <limits>

#include "report/results.hpp"

namespace kda::test {

inline report::run_context h200_context() {
  report::run_context c;
  c.date = "2026-12-02T11:58:37Z";
  c.host = "gpu-node-7";
  c.command_line = "kda-bench run --rows m2:*:*:saved --out results/after.json";
  c.seed = 20261202;
  c.gpu = {"NVIDIA H200", "H200 (sm_90, 132 SMs)", "sm_90a", 132, "580.159", "13.0", "13.0", {}};
  c.kernel_library = {"build/kernels/libkda.so", "3f2a9c1d", "0123456789ab"};
  c.harness = {"0.1.0", "0123456789ab"};
  c.method = {15, 20, 5, report::l2_state::warm, report::launch_mode::eager};
  return c;
}

inline report::accuracy_entry acc(const char* row, decay_regime decay, const char* tensor,
                                  double rel_l2,
                                  report::accuracy_status status = report::accuracy_status::ok) {
  return report::accuracy_entry{row,          decay, tensor, rel_l2, rel_l2 * 3.0,
                                rel_l2 / 4.0, 4.0,   {0, 3}, status, std::nullopt};
}

// BEFORE and AFTER of a kernel change: m2 fwd clearly faster, m2 bwd the same, 4doc slower (six
// samples a side, the fewest that can reach p < 0.01). AFTER lacks 1doc:g:fused:saved (timing,
// accuracy) and dbeta of m2; BEFORE lacks R2:g:off:saved. dg of m2 after is non-finite; o of m2
// fast before failed its threshold.
inline report::results_doc before_doc() {
  using report::make_timing_entry;
  report::results_doc d;
  d.context = h200_context();
  d.context.command_line = "kda-bench run --rows m2:*:*:saved --out results/before.json";
  d.timing = {
      make_timing_entry("m2:g:off:saved", op_kind::fwd, {0.702, 0.700, 0.712, 0.698, 0.705, 0.701}),
      make_timing_entry("m2:g:off:saved", op_kind::bwd, {1.012, 1.020, 1.008, 1.031, 1.015}),
      make_timing_entry("4doc:raw:off:saved", op_kind::fwd_bwd,
                        {19.17, 19.20, 19.15, 19.18, 19.16, 19.19}),
      make_timing_entry("1doc:g:fused:saved", op_kind::fwd_bwd, {19.16, 19.18, 19.21}),
  };
  d.accuracy = {
      acc("m2:g:off:saved", decay_regime::normal, "o", 4.2e-3),
      acc("m2:g:off:saved", decay_regime::normal, "dq", 3.8e-3),
      acc("m2:g:off:saved", decay_regime::normal, "dbeta", 3.8e-3),
      acc("m2:g:off:saved", decay_regime::normal, "dg", 4.9e-3),
      acc("1doc:g:fused:saved", decay_regime::normal, "o", 4.1e-3),
      acc("m2:g:off:saved", decay_regime::fast, "o", 3.3e-2,
          report::accuracy_status::failed_threshold),
  };
  return d;
}

inline report::results_doc after_doc() {
  using report::make_timing_entry;
  report::results_doc d;
  d.context = h200_context();
  d.timing = {
      make_timing_entry("m2:g:off:saved", op_kind::fwd, {0.651, 0.648, 0.660, 0.650, 0.655, 0.652}),
      make_timing_entry("m2:g:off:saved", op_kind::bwd, {1.010, 1.022, 1.009, 1.030, 1.016}),
      make_timing_entry("R2:g:off:saved", op_kind::fwd, {0.6212, 0.6190, 0.6250}),
      make_timing_entry("4doc:raw:off:saved", op_kind::fwd_bwd,
                        {21.02, 21.10, 20.98, 21.05, 21.01, 21.04}),
  };
  report::accuracy_entry dg =
      acc("m2:g:off:saved", decay_regime::normal, "dg", std::numeric_limits<double>::quiet_NaN(),
          report::accuracy_status::non_finite);
  dg.note = "NaN at index 123";
  d.accuracy = {
      acc("m2:g:off:saved", decay_regime::normal, "o", 3.81e-3),
      acc("m2:g:off:saved", decay_regime::normal, "dq", 3.9e-3),
      dg,
      acc("m2:g:off:saved", decay_regime::normal, "dk", 3.7e-3),
      acc("m2:g:off:saved", decay_regime::fast, "o", 3.3e-3),
      acc("R2:g:off:saved", decay_regime::normal, "o", 4.4e-3),
  };
  return d;
}

} // namespace kda::test
