#include "report/compare.hpp"

#include <cmath>

#include <fmt/format.h>

#include "report/stats.hpp"

namespace kda::report {

std::string_view to_string(verdict v) {
  switch (v) {
  case verdict::faster: return "faster";
  case verdict::slower: return "slower";
  case verdict::same: return "same";
  }
  return "?";
}

timing_comparison compare_timing(const timing_entry& before, const timing_entry& after,
                                 const verdict_rule& rule) {
  if (before.samples_ms.empty() || after.samples_ms.empty()) {
    throw report_error(fmt::format("compare {} {}: the {} entry has no samples", after.row,
                                   op_label(after),
                                   before.samples_ms.empty() ? "before" : "after"));
  }
  timing_comparison c;
  // Medians recomputed from the samples: the test and the ratio then see the same data.
  c.ratio = median(after.samples_ms) / median(before.samples_ms);
  c.p_value = mann_whitney_p(before.samples_ms, after.samples_ms);
  if (c.p_value < rule.alpha && std::abs(c.ratio - 1.0) >= rule.min_effect) {
    c.outcome = c.ratio < 1.0 ? verdict::faster : verdict::slower;
  }
  return c;
}

timing_key key_of(const timing_entry& e) { return timing_key{e.row, e.op, e.stage.value_or("")}; }

std::string op_label(const timing_entry& e) {
  return e.stage ? fmt::format("{}/{}", to_string(e.op), *e.stage) : std::string(to_string(e.op));
}

std::map<timing_key, verdict> compare_all(const results_doc& before, const results_doc& after,
                                          const verdict_rule& rule) {
  std::map<timing_key, const timing_entry*> before_by_key;
  for (const auto& t : before.timing) before_by_key.emplace(key_of(t), &t);
  std::map<timing_key, verdict> out;
  for (const auto& t : after.timing) {
    const auto it = before_by_key.find(key_of(t));
    if (it != before_by_key.end()) {
      out.emplace(it->first, compare_timing(*it->second, t, rule).outcome);
    }
  }
  return out;
}

} // namespace kda::report
