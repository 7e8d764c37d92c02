#pragma once
// kda-bench exit codes (documented in --help and README).
namespace kda::cli {
constexpr int k_exit_ok = 0;
constexpr int k_exit_failure = 1;   // a check failed (accuracy, determinism, regression) or a run error
constexpr int k_exit_usage = 2;     // bad command line: malformed row key, unknown scenario, bad option
constexpr int k_exit_no_device = 3; // the job needs a CUDA device or kernel library that is not there
} // namespace kda::cli
