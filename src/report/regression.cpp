#include "report/regression.hpp"

#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

namespace kda::report {
namespace {

using accuracy_key = std::tuple<std::string, decay_regime, std::string>;

accuracy_key key_of(const accuracy_entry& e) { return {e.row, e.decay, e.tensor}; }

bool finite_error(const accuracy_entry& e) {
  return e.status != accuracy_status::non_finite && std::isfinite(e.rel_l2);
}

std::string describe(const accuracy_entry& e) {
  return fmt::format("{} {} ({} decay)", e.row, e.tensor, to_string(e.decay));
}

// Row keys with any entry in the document.
std::set<std::string> rows_of(const results_doc& d) {
  std::set<std::string> rows;
  for (const auto& t : d.timing) rows.insert(t.row);
  for (const auto& a : d.accuracy) rows.insert(a.row);
  for (const auto& r : d.determinism) rows.insert(r.row);
  return rows;
}

// Baseline rows the new run left out entirely (kda-bench nightly --rows): one note each, with
// its entry counts, instead of one per timing and check (a 32-key baseline has hundreds).
void note_rows_not_run(const results_doc& baseline, const std::set<std::string>& run,
                       regression_report& out) {
  std::map<std::string, std::pair<int, int>> counts; // row -> (timings, checks)
  for (const auto& t : baseline.timing) {
    if (!t.stage && !run.count(t.row)) ++counts[t.row].first;
  }
  for (const auto& a : baseline.accuracy) {
    if (!run.count(a.row)) ++counts[a.row].second;
  }
  for (const auto& r : baseline.determinism) {
    if (!run.count(r.row)) counts[r.row];
  }
  for (const auto& [row, n] : counts) {
    const auto plural = [](int k) { return k == 1 ? "" : "s"; };
    out.notes.push_back(fmt::format("{}: in the baseline ({} timing{}, {} check{}), not run now", row,
                                    n.first, plural(n.first), n.second, plural(n.second)));
  }
}

void check_timing(const results_doc& baseline, const results_doc& latest, const std::set<std::string>& run,
                  const regression_rule& rule, regression_report& out) {
  std::map<timing_key, const timing_entry*> base;
  for (const auto& t : baseline.timing) base.emplace(key_of(t), &t);
  std::map<timing_key, bool> seen;
  for (const auto& t : latest.timing) {
    const auto it = base.find(key_of(t));
    if (it == base.end()) {
      if (!t.stage) {
        out.notes.push_back(fmt::format("{} {}: no baseline timing", t.row, op_label(t)));
      }
      continue;
    }
    seen[it->first] = true;
    if (t.stage) continue; // stages explain a change; the whole op decides
    const timing_comparison c = compare_timing(*it->second, t, rule.verdicts);
    if (c.outcome == verdict::slower && c.ratio > 1.0 + rule.threshold) {
      out.failures.push_back(
          {regression_kind::slower,
           fmt::format("{} {}: median {:.4f} ms vs baseline {:.4f} ms, {:.4f}x (p = {:.2g}), above "
                       "the {:.4f}x threshold",
                       t.row, op_label(t), t.median_ms, it->second->median_ms, c.ratio, c.p_value,
                       1.0 + rule.threshold)});
    }
  }
  for (const auto& t : baseline.timing) {
    if (!t.stage && run.count(t.row) && !seen.count(key_of(t))) {
      out.notes.push_back(fmt::format("{} {}: in the baseline, not timed now", t.row, op_label(t)));
    }
  }
}

void check_accuracy(const results_doc& baseline, const results_doc& latest, const std::set<std::string>& run,
                    const regression_rule& rule, regression_report& out) {
  std::map<accuracy_key, const accuracy_entry*> base;
  for (const auto& a : baseline.accuracy) base.emplace(key_of(a), &a);
  std::map<accuracy_key, bool> seen;
  for (const auto& a : latest.accuracy) {
    const auto it = base.find(key_of(a));
    const accuracy_entry* b = it == base.end() ? nullptr : it->second;
    if (b) seen[it->first] = true;
    if (!finite_error(a)) {
      out.failures.push_back(
          {regression_kind::accuracy,
           fmt::format("{}: non-finite error{}", describe(a), a.note ? " (" + *a.note + ")" : "")});
      continue;
    }
    if (b && finite_error(*b) && b->rel_l2 > 0 && a.rel_l2 > rule.accuracy_factor * b->rel_l2) {
      out.failures.push_back(
          {regression_kind::accuracy,
           fmt::format("{}: rel_l2 {:.3e} vs baseline {:.3e}, {:.2f}x, above the {:.2f}x factor",
                       describe(a), a.rel_l2, b->rel_l2, a.rel_l2 / b->rel_l2,
                       rule.accuracy_factor)});
      continue;
    }
    if (a.status == accuracy_status::failed_threshold && (!b || b->status == accuracy_status::ok)) {
      out.failures.push_back(
          {regression_kind::accuracy,
           fmt::format("{}: rel_l2 {:.3e} fails its threshold{}", describe(a), a.rel_l2,
                       b ? fmt::format(" (baseline {:.3e} passed)", b->rel_l2)
                         : std::string(", no baseline"))});
    }
    if (!b) out.notes.push_back(fmt::format("{}: no baseline accuracy", describe(a)));
  }
  for (const auto& a : baseline.accuracy) {
    if (run.count(a.row) && !seen.count(key_of(a))) {
      out.notes.push_back(fmt::format("{}: in the baseline, not checked now", describe(a)));
    }
  }
}

void check_determinism(const results_doc& latest, regression_report& out) {
  for (const auto& d : latest.determinism) {
    if (d.identical) continue;
    std::string differing;
    for (const auto& [name, same] : d.tensors) {
      if (!same) differing += (differing.empty() ? "" : ", ") + name;
    }
    out.failures.push_back(
        {regression_kind::determinism,
         fmt::format("{} {}: {} runs differ in {}", d.row, to_string(d.op), d.runs,
                     differing.empty() ? std::string("some output") : differing)});
  }
}

} // namespace

std::string_view to_string(regression_kind k) {
  switch (k) {
  case regression_kind::slower: return "slower";
  case regression_kind::accuracy: return "accuracy";
  case regression_kind::determinism: return "determinism";
  }
  return "?";
}

regression_report find_regressions(const results_doc& baseline, const results_doc& latest,
                                   const regression_rule& rule) {
  regression_report out;
  const std::set<std::string> run = rows_of(latest);
  check_timing(baseline, latest, run, rule, out);
  check_accuracy(baseline, latest, run, rule, out);
  note_rows_not_run(baseline, run, out);
  check_determinism(latest, out);
  return out;
}

} // namespace kda::report
