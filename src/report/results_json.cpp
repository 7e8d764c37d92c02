// JSON conversion of the results structs. Reading goes through `object_reader`, which knows the
// path of the object it reads, so every error names the field: "timing[2].op: ...".
#include <cmath>
#include <limits>
#include <span>
#include <type_traits>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "report/results.hpp"

namespace kda::report {
namespace {

using json = results_json;

std::string shown(const json& v) {
  std::string s = v.dump();
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  return s;
}

// nlohmann's message without its "[json.exception.type_error.302] " prefix.
std::string short_what(const std::exception& e) {
  const std::string w = e.what();
  const auto p = w.find("] ");
  return p == std::string::npos ? w : w.substr(p + 2);
}

constexpr std::string_view k_l2_words[] = {"warm", "cold"};
constexpr std::string_view k_launch_words[] = {"eager", "graph"};
constexpr std::string_view k_status_words[] = {"ok", "non-finite", "failed-threshold"};

template <typename E, std::size_t N>
std::optional<E> parse_by_index(std::string_view s, const std::string_view (&words)[N]) {
  for (std::size_t i = 0; i < N; ++i) {
    if (words[i] == s) return static_cast<E>(i);
  }
  return std::nullopt;
}

class object_reader {
public:
  object_reader(const json& j, std::string path) : m_j(j), m_path(std::move(path)) {
    if (!m_j.is_object()) fail(m_path, fmt::format("expected an object, got {}", shown(m_j)));
  }

  std::string path(std::string_view key) const {
    return m_path.empty() ? std::string(key) : fmt::format("{}.{}", m_path, key);
  }

  [[noreturn]] static void fail(const std::string& where, const std::string& what) {
    throw report_error(where.empty() ? what : fmt::format("{}: {}", where, what));
  }

  const json& at(const char* key) const {
    const auto it = m_j.find(key);
    if (it == m_j.end()) fail(path(key), "missing");
    return *it;
  }

  template <typename T> T get(const char* key) const { return convert<T>(at(key), path(key)); }

  template <typename T> std::optional<T> optional(const char* key) const {
    if (!m_j.contains(key) || m_j.at(key).is_null()) return std::nullopt;
    return get<T>(key);
  }

  // A figure that may be non-finite: null reads as NaN.
  double number_or_nan(const char* key) const {
    const json& v = at(key);
    if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
    return convert<double>(v, path(key));
  }

  template <typename E>
  E word(const char* key, std::optional<E> (*parse)(std::string_view),
         std::span<const std::string_view> words) const {
    const auto text = get<std::string>(key);
    const auto v = parse(text);
    if (!v) {
      fail(path(key), fmt::format("unknown value '{}' (valid: {})", text, fmt::join(words, ", ")));
    }
    return *v;
  }

  object_reader object(const char* key) const { return object_reader(at(key), path(key)); }

  // The array at `key` (missing: empty when `required` is false).
  const json& array(const char* key, bool required) const {
    static const json empty = json::array();
    if (!required && !m_j.contains(key)) return empty;
    const json& v = at(key);
    if (!v.is_array()) fail(path(key), fmt::format("expected an array, got {}", shown(v)));
    return v;
  }

  template <typename T> static T convert(const json& v, const std::string& where) {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (!v.is_number_integer() || (std::is_unsigned_v<T> && v.is_number_integer() &&
                                     !v.is_number_unsigned() && v.get<std::int64_t>() < 0)) {
        fail(where, fmt::format("expected a non-negative integer, got {}", shown(v)));
      }
    }
    try {
      return v.get<T>();
    } catch (const nlohmann::json::exception& e) {
      fail(where, fmt::format("{} (value {})", short_what(e), shown(v)));
    }
  }

private:
  const json& m_j;
  std::string m_path;
};

// Element i of an array, as an object to read.
object_reader element(const json& array, std::size_t i, const std::string& path) {
  return object_reader(array[i], fmt::format("{}[{}]", path, i));
}

// A figure that may be non-finite: null in JSON (which has no NaN or infinity).
json figure(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

template <typename T> void put_optional(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}

// ---- readers with paths ----

void read(const object_reader& r, gpu_clocks& v) {
  v.sm_max_mhz = r.optional<double>("sm_max_mhz");
  v.sm_observed_mhz = r.optional<double>("sm_observed_mhz");
  v.mem_max_mhz = r.optional<double>("mem_max_mhz");
  v.sm_observed_min_mhz = r.optional<double>("sm_observed_min_mhz");
}

void read(const object_reader& r, gpu_info& v) {
  v.name = r.get<std::string>("name");
  v.gpu_class = r.get<std::string>("gpu_class");
  v.arch = r.get<std::string>("arch");
  v.sm_count = r.get<int>("sm_count");
  v.driver = r.get<std::string>("driver");
  v.cuda_runtime = r.get<std::string>("cuda_runtime");
  v.nvcc = r.get<std::string>("nvcc");
  v.clocks.reset();
  if (r.optional<json>("clocks")) {
    gpu_clocks c;
    read(r.object("clocks"), c);
    v.clocks = c;
  }
}

void read(const object_reader& r, kernel_library_info& v) {
  v.path = r.get<std::string>("path");
  v.build_id = r.get<std::string>("build_id");
  v.git_revision = r.get<std::string>("git_revision");
}

void read(const object_reader& r, harness_info& v) {
  v.version = r.get<std::string>("version");
  v.git_revision = r.get<std::string>("git_revision");
}

std::optional<l2_state> parse_l2(std::string_view s) {
  return parse_by_index<l2_state>(s, k_l2_words);
}
std::optional<launch_mode> parse_launch(std::string_view s) {
  return parse_by_index<launch_mode>(s, k_launch_words);
}
std::optional<accuracy_status> parse_status(std::string_view s) {
  return parse_by_index<accuracy_status>(s, k_status_words);
}

void read(const object_reader& r, method_info& v) {
  v.samples = r.get<int>("samples");
  v.calls_per_sample = r.get<int>("calls_per_sample");
  v.warmup = r.get<int>("warmup");
  v.l2 = r.word<l2_state>("l2", parse_l2, k_l2_words);
  v.launch = r.word<launch_mode>("launch", parse_launch, k_launch_words);
}

void read(const object_reader& r, ceilings_info& v) {
  v.copy_gb_per_s = r.get<double>("copy_gb_per_s");
  v.bf16_gemm_tflop_per_s = r.get<double>("bf16_gemm_tflop_per_s");
  v.copy_bytes = r.get<std::uint64_t>("copy_bytes");
  v.gemm_size = r.get<int>("gemm_size");
}

void read(const object_reader& r, run_context& v) {
  v.date = r.get<std::string>("date");
  v.host = r.get<std::string>("host");
  v.command_line = r.get<std::string>("command_line");
  v.seed = r.get<std::uint64_t>("seed");
  read(r.object("gpu"), v.gpu);
  read(r.object("kernel_library"), v.kernel_library);
  read(r.object("harness"), v.harness);
  read(r.object("method"), v.method);
  v.ceilings.reset();
  if (r.optional<json>("ceilings")) {
    ceilings_info c;
    read(r.object("ceilings"), c);
    v.ceilings = c;
  }
}

void read(const object_reader& r, timing_entry& v) {
  v.row = r.get<std::string>("row");
  v.op = r.word<op_kind>("op", parse_op_kind, op_kind_words());
  v.samples_ms = r.get<std::vector<double>>("samples_ms");
  v.median_ms = r.get<double>("median_ms");
  v.min_ms = r.get<double>("min_ms");
  v.max_ms = r.get<double>("max_ms");
  v.iqr_ms = r.get<double>("iqr_ms");
  v.stage = r.optional<std::string>("stage");
  v.sm_clock_mean_mhz = r.optional<double>("sm_clock_mean_mhz");
  v.sm_clock_min_mhz = r.optional<double>("sm_clock_min_mhz");
  v.throttled_samples = r.optional<int>("throttled_samples");
  v.retaken_samples = r.optional<int>("retaken_samples");
}

void read(const object_reader& r, accuracy_entry& v) {
  v.row = r.get<std::string>("row");
  v.decay = r.word<decay_regime>("decay", parse_decay_regime, decay_regime_words());
  v.tensor = r.get<std::string>("tensor");
  v.status = r.word<accuracy_status>("status", parse_status, k_status_words);
  v.rel_l2 = r.number_or_nan("rel_l2");
  v.max_abs_over_max_ref = r.number_or_nan("max_abs_over_max_ref");
  v.floor_rel_l2 = r.number_or_nan("floor_rel_l2");
  v.err_over_floor = r.number_or_nan("err_over_floor");
  v.heads_checked = r.get<std::vector<int>>("heads_checked");
  v.note = r.optional<std::string>("note");
}

void read(const object_reader& r, determinism_entry& v) {
  v.row = r.get<std::string>("row");
  v.op = r.word<op_kind>("op", parse_op_kind, op_kind_words());
  v.runs = r.get<int>("runs");
  v.identical = r.get<bool>("identical");
  v.tensors = r.get<std::map<std::string, bool>>("tensors");
}

template <typename T> std::vector<T> read_list(const object_reader& r, const char* key) {
  const json& a = r.array(key, false);
  std::vector<T> out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) read(element(a, i, key), out[i]);
  return out;
}

void read(const object_reader& r, results_doc& v) {
  const json& version = r.at("schema_version");
  if (!version.is_number_integer() || version.get<int>() != k_results_schema_version) {
    object_reader::fail("schema_version",
                        fmt::format("{} is not supported: this kda-bench reads schema_version {}",
                                    shown(version), k_results_schema_version));
  }
  v.schema_version = k_results_schema_version;
  read(r.object("context"), v.context);
  v.timing = read_list<timing_entry>(r, "timing");
  v.accuracy = read_list<accuracy_entry>(r, "accuracy");
  v.determinism = read_list<determinism_entry>(r, "determinism");
}

} // namespace

// ---- writers ----

void to_json(json& j, const gpu_clocks& v) {
  j = json::object();
  put_optional(j, "sm_max_mhz", v.sm_max_mhz);
  put_optional(j, "sm_observed_mhz", v.sm_observed_mhz);
  put_optional(j, "mem_max_mhz", v.mem_max_mhz);
  put_optional(j, "sm_observed_min_mhz", v.sm_observed_min_mhz);
}

void to_json(json& j, const gpu_info& v) {
  j = json{{"name", v.name},         {"gpu_class", v.gpu_class}, {"arch", v.arch},
           {"sm_count", v.sm_count}, {"driver", v.driver},       {"cuda_runtime", v.cuda_runtime},
           {"nvcc", v.nvcc}};
  if (v.clocks) j["clocks"] = *v.clocks;
}

void to_json(json& j, const kernel_library_info& v) {
  j = json{{"path", v.path}, {"build_id", v.build_id}, {"git_revision", v.git_revision}};
}

void to_json(json& j, const harness_info& v) {
  j = json{{"version", v.version}, {"git_revision", v.git_revision}};
}

void to_json(json& j, const method_info& v) {
  j = json{{"samples", v.samples},
           {"calls_per_sample", v.calls_per_sample},
           {"warmup", v.warmup},
           {"l2", to_string(v.l2)},
           {"launch", to_string(v.launch)}};
}

void to_json(json& j, const ceilings_info& v) {
  j = json{{"copy_gb_per_s", v.copy_gb_per_s},
           {"bf16_gemm_tflop_per_s", v.bf16_gemm_tflop_per_s},
           {"copy_bytes", v.copy_bytes},
           {"gemm_size", v.gemm_size}};
}

void to_json(json& j, const run_context& v) {
  j = json{{"date", v.date},       {"host", v.host},    {"command_line", v.command_line},
           {"seed", v.seed},       {"gpu", v.gpu},      {"kernel_library", v.kernel_library},
           {"harness", v.harness}, {"method", v.method}};
  if (v.ceilings) j["ceilings"] = *v.ceilings;
}

void to_json(json& j, const timing_entry& v) {
  j = json{{"row", v.row}, {"op", to_string(v.op)}};
  put_optional(j, "stage", v.stage);
  j["median_ms"] = v.median_ms;
  j["min_ms"] = v.min_ms;
  j["max_ms"] = v.max_ms;
  j["iqr_ms"] = v.iqr_ms;
  put_optional(j, "sm_clock_mean_mhz", v.sm_clock_mean_mhz);
  put_optional(j, "sm_clock_min_mhz", v.sm_clock_min_mhz);
  put_optional(j, "throttled_samples", v.throttled_samples);
  put_optional(j, "retaken_samples", v.retaken_samples);
  j["samples_ms"] = v.samples_ms;
}

void to_json(json& j, const accuracy_entry& v) {
  j = json{{"row", v.row},
           {"decay", to_string(v.decay)},
           {"tensor", v.tensor},
           {"status", to_string(v.status)},
           {"rel_l2", figure(v.rel_l2)},
           {"max_abs_over_max_ref", figure(v.max_abs_over_max_ref)},
           {"floor_rel_l2", figure(v.floor_rel_l2)},
           {"err_over_floor", figure(v.err_over_floor)},
           {"heads_checked", v.heads_checked}};
  if (v.note) j["note"] = *v.note;
}

void to_json(json& j, const determinism_entry& v) {
  j = json{{"row", v.row},
           {"op", to_string(v.op)},
           {"runs", v.runs},
           {"identical", v.identical},
           {"tensors", v.tensors}};
}

void to_json(json& j, const results_doc& v) {
  j = json{{"schema_version", v.schema_version},
           {"context", v.context},
           {"timing", v.timing},
           {"accuracy", v.accuracy},
           {"determinism", v.determinism}};
}

void from_json(const json& j, gpu_clocks& v) { read(object_reader(j, "clocks"), v); }
void from_json(const json& j, gpu_info& v) { read(object_reader(j, "gpu"), v); }
void from_json(const json& j, kernel_library_info& v) {
  read(object_reader(j, "kernel_library"), v);
}
void from_json(const json& j, harness_info& v) { read(object_reader(j, "harness"), v); }
void from_json(const json& j, method_info& v) { read(object_reader(j, "method"), v); }
void from_json(const json& j, ceilings_info& v) { read(object_reader(j, "ceilings"), v); }
void from_json(const json& j, run_context& v) { read(object_reader(j, "context"), v); }
void from_json(const json& j, timing_entry& v) { read(object_reader(j, "timing entry"), v); }
void from_json(const json& j, accuracy_entry& v) { read(object_reader(j, "accuracy entry"), v); }
void from_json(const json& j, determinism_entry& v) {
  read(object_reader(j, "determinism entry"), v);
}
void from_json(const json& j, results_doc& v) { read(object_reader(j, ""), v); }

} // namespace kda::report
