#pragma once
// The results file: one JSON document per run (docs/results-schema.md, schema_version 1). A run
// context (machine, build, method) and flat lists of timing, accuracy and determinism entries,
// easy to diff, script and plot, in the spirit of Google Benchmark's JSON.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/variant.hpp"
#include "report/errors.hpp"

namespace kda::report {

inline constexpr int k_results_schema_version = 1;

// Results JSON keeps keys in the order written (schema_version first, row before figures).
using results_json = nlohmann::ordered_json;

struct gpu_clocks {
  std::optional<double> sm_max_mhz;
  std::optional<double> sm_observed_mhz; // mean SM clock seen while measuring
  std::optional<double> mem_max_mhz;
  std::optional<double> sm_observed_min_mhz = std::nullopt; // lowest SM clock seen while measuring

  bool operator==(const gpu_clocks&) const = default;
};

struct gpu_info {
  std::string name;      // as the driver reports it: "NVIDIA H200"
  std::string gpu_class; // "H200 (sm_90, 132 SMs)"
  std::string arch;      // what the kernels were built for: "sm_90a"
  int sm_count = 0;
  std::string driver;       // "580.159"
  std::string cuda_runtime; // "13.0"
  std::string nvcc;         // "13.0"
  std::optional<gpu_clocks> clocks;

  bool operator==(const gpu_info&) const = default;
};

struct kernel_library_info {
  std::string path;
  std::string build_id;
  std::string git_revision;

  bool operator==(const kernel_library_info&) const = default;
};

struct harness_info {
  std::string version;
  std::string git_revision;

  bool operator==(const harness_info&) const = default;
};

enum class l2_state { warm, cold };      // L2 left warm between calls, or flushed before each
enum class launch_mode { eager, graph }; // calls launched one by one, or replayed as a CUDA graph
std::string_view to_string(l2_state v);
std::string_view to_string(launch_mode v);

// How the times were taken: `samples` samples, each the mean of `calls_per_sample` back-to-back
// calls, after `warmup` calls not measured.
struct method_info {
  int samples = 0;
  int calls_per_sample = 0;
  int warmup = 0;
  l2_state l2 = l2_state::warm;
  launch_mode launch = launch_mode::eager;

  bool operator==(const method_info&) const = default;
};

// What this GPU reaches at best, measured at run time (src/gpu/ceilings.hpp): the roofs that
// `--roofline` divides the work of each op by (docs/roofline.md).
struct ceilings_info {
  double copy_gb_per_s = 0;         // device-to-device copy: (bytes read + written) / time, 1e9 B/s
  double bf16_gemm_tflop_per_s = 0; // cuBLAS bf16 GEMM with FP32 accumulation, 1e12 FLOP/s
  std::uint64_t copy_bytes = 0;     // size of the copy measured
  int gemm_size = 0;                // n of the n x n x n GEMM measured

  bool operator==(const ceilings_info&) const = default;
};

struct run_context {
  std::string date; // ISO 8601 UTC, "2026-12-02T11:58:37Z" (iso8601_utc)
  std::string host;
  std::string command_line;
  std::uint64_t seed = 0;
  gpu_info gpu;
  kernel_library_info kernel_library;
  harness_info harness;
  method_info method;
  std::optional<ceilings_info> ceilings = std::nullopt; // only with --roofline

  bool operator==(const run_context&) const = default;
};

struct timing_entry {
  std::string row; // row key, "4doc:raw:off:saved"
  op_kind op = op_kind::fwd;
  std::vector<double> samples_ms; // every sample, in the order taken
  double median_ms = 0, min_ms = 0, max_ms = 0, iqr_ms = 0;
  // Optional (absent in files of older harnesses; schema_version stays 1):
  // a kernel stage of `op` timed alone ("fwd_intra"), absent for the whole op;
  std::optional<std::string> stage = std::nullopt;
  // the SM clock (NVML) while the samples ran: mean and lowest reading;
  std::optional<double> sm_clock_mean_mhz = std::nullopt;
  std::optional<double> sm_clock_min_mhz = std::nullopt;
  // samples below 90 % of the maximum SM clock (after any retake), and how many were retaken.
  std::optional<int> throttled_samples = std::nullopt;
  std::optional<int> retaken_samples = std::nullopt;

  bool operator==(const timing_entry&) const = default;
};

// A timing entry with its statistics computed from the samples (stats.hpp).
timing_entry make_timing_entry(std::string row, op_kind op, std::vector<double> samples_ms);

enum class accuracy_status { ok, non_finite, failed_threshold };
std::string_view to_string(accuracy_status v); // "ok", "non-finite", "failed-threshold"

// One output tensor of one row against the FP64 reference. Figures may be NaN or infinite (status
// non-finite); JSON holds those as null.
struct accuracy_entry {
  std::string row;
  decay_regime decay = decay_regime::normal;
  std::string tensor;              // o, dq, dk, dv, dbeta, dg | dx, dA_log, ddt_bias
  double rel_l2 = 0;               // ||out - ref|| / ||ref|| over heads_checked
  double max_abs_over_max_ref = 0; // max |out - ref| / max |ref|
  double floor_rel_l2 = 0;         // rel_l2 of the FP64 result rounded to the output dtype
  double err_over_floor = 0;       // rel_l2 / floor_rel_l2
  std::vector<int> heads_checked;
  accuracy_status status = accuracy_status::ok;
  std::optional<std::string> note; // e.g. "NaN at index 123"

  bool operator==(const accuracy_entry&) const = default;
};

// Whether repeated runs of one row gave the same bits.
struct determinism_entry {
  std::string row;
  op_kind op = op_kind::fwd;
  int runs = 0;
  bool identical = true;               // every tensor identical across all runs
  std::map<std::string, bool> tensors; // per output tensor

  bool operator==(const determinism_entry&) const = default;
};

struct results_doc {
  int schema_version = k_results_schema_version;
  run_context context;
  std::vector<timing_entry> timing;
  std::vector<accuracy_entry> accuracy;
  std::vector<determinism_entry> determinism;

  bool operator==(const results_doc&) const = default;
};

// JSON conversion. from_json throws report_error naming the field path and the value
// ("timing[2].op: unknown value 'fwdx' (valid: fwd, bwd, fwd+bwd)").
void to_json(results_json& j, const gpu_clocks& v);
void to_json(results_json& j, const gpu_info& v);
void to_json(results_json& j, const kernel_library_info& v);
void to_json(results_json& j, const harness_info& v);
void to_json(results_json& j, const method_info& v);
void to_json(results_json& j, const ceilings_info& v);
void to_json(results_json& j, const run_context& v);
void to_json(results_json& j, const timing_entry& v);
void to_json(results_json& j, const accuracy_entry& v);
void to_json(results_json& j, const determinism_entry& v);
void to_json(results_json& j, const results_doc& v);
void from_json(const results_json& j, gpu_clocks& v);
void from_json(const results_json& j, gpu_info& v);
void from_json(const results_json& j, kernel_library_info& v);
void from_json(const results_json& j, harness_info& v);
void from_json(const results_json& j, method_info& v);
void from_json(const results_json& j, ceilings_info& v);
void from_json(const results_json& j, run_context& v);
void from_json(const results_json& j, timing_entry& v);
void from_json(const results_json& j, accuracy_entry& v);
void from_json(const results_json& j, determinism_entry& v);
// Also checks schema_version first: a mismatch is reported before any other field.
void from_json(const results_json& j, results_doc& v);

// Writes atomically (path.tmp.<pid>, then rename), creating parent directories. Throws
// report_error if `path` exists and !force, naming the file.
void write_results(const std::filesystem::path& path, const results_doc& doc, bool force);
// Reads and validates; report_error naming the file, and the field for schema errors.
results_doc read_results(const std::filesystem::path& path);

// "2026-12-02T11:58:37Z".
std::string iso8601_utc(std::chrono::system_clock::time_point t);

} // namespace kda::report
