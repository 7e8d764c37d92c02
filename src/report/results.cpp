#include "report/results.hpp"

#include <ctime>

#include <fmt/format.h>

#include "report/stats.hpp"

namespace kda::report {

std::string_view to_string(l2_state v) { return v == l2_state::warm ? "warm" : "cold"; }

std::string_view to_string(launch_mode v) { return v == launch_mode::eager ? "eager" : "graph"; }

std::string_view to_string(accuracy_status v) {
  switch (v) {
  case accuracy_status::ok: return "ok";
  case accuracy_status::non_finite: return "non-finite";
  case accuracy_status::failed_threshold: return "failed-threshold";
  }
  return "?";
}

timing_entry make_timing_entry(std::string row, op_kind op, std::vector<double> samples_ms) {
  if (samples_ms.empty()) {
    throw report_error(fmt::format("timing of {} {}: no samples", row, to_string(op)));
  }
  const sample_summary s = summarize(samples_ms);
  return timing_entry{std::move(row), op, std::move(samples_ms), s.median, s.min, s.max, s.iqr};
}

std::string iso8601_utc(std::chrono::system_clock::time_point t) {
  const std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

} // namespace kda::report
