#pragma once
// Results documents for the timing, nightly and stage tests: a baseline and variations of it.
#include <vector>

#include "report/results.hpp"

namespace kda::test {

inline report::run_context timing_context() {
  report::run_context c;
  c.date = "2026-12-02T03:00:00Z";
  c.host = "gpu-node-7";
  c.command_line = "kda-bench nightly";
  c.seed = 7;
  c.gpu = {"NVIDIA H200", "H200 (sm_90, 132 SMs)", "sm_90a", 132, "580.159", "13.0", "13.0", {}};
  c.kernel_library = {"build/kernels/libkda.so", "libkda 0.1.0 git 0123456789ab", "0123456789ab"};
  c.harness = {"0.1.0", "0123456789ab"};
  c.method = {15, 20, 3, report::l2_state::warm, report::launch_mode::eager};
  return c;
}

// Fifteen samples around `ms`, spread +-0.5 %.
inline std::vector<double> samples_around(double ms) {
  std::vector<double> v;
  for (int i = 0; i < 15; ++i) v.push_back(ms * (1.0 + 0.001 * ((i * 7) % 11 - 5)));
  return v;
}

inline report::timing_entry timed(const char* row, op_kind op, double ms) {
  return report::make_timing_entry(row, op, samples_around(ms));
}

inline report::timing_entry stage(const char* row, op_kind op, const char* name, double ms) {
  report::timing_entry e = timed(row, op, ms);
  e.stage = name;
  return e;
}

inline report::accuracy_entry
accuracy(const char* row, decay_regime decay, const char* tensor, double rel_l2,
         report::accuracy_status status = report::accuracy_status::ok) {
  return report::accuracy_entry{row,        decay, tensor, rel_l2, rel_l2 * 3,
                                rel_l2 / 4, 4,     {0, 2}, status, std::nullopt};
}

inline report::determinism_entry repeat(const char* row, bool identical) {
  return report::determinism_entry{row, op_kind::fwd, 3, identical, {{"o", identical}}};
}

// A nightly baseline: two rows, fwd timed (m2 also with stages), both decays checked, repeated.
inline report::results_doc baseline_doc() {
  report::results_doc d;
  d.context = timing_context();
  d.timing = {timed("m2:g:off:saved", op_kind::fwd, 0.650),
              stage("m2:g:off:saved", op_kind::fwd, "fwd_intra", 0.400),
              stage("m2:g:off:saved", op_kind::fwd, "fwd_state", 0.250),
              timed("4doc:raw:off:saved", op_kind::fwd, 3.280)};
  d.accuracy = {accuracy("m2:g:off:saved", decay_regime::normal, "o", 3.8e-3),
                accuracy("m2:g:off:saved", decay_regime::fast, "o", 4.1e-3),
                accuracy("4doc:raw:off:saved", decay_regime::normal, "o", 3.9e-3)};
  d.determinism = {repeat("m2:g:off:saved", true), repeat("4doc:raw:off:saved", true)};
  return d;
}

} // namespace kda::test
