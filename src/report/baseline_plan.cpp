#include "report/baseline_plan.hpp"

#include <algorithm>

namespace kda::report {
namespace {

template <typename T> void add_once(std::vector<T>& v, const T& x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

// Sorts by the vocabulary's order (fwd before bwd, normal before fast).
template <typename T> void sort_by_value(std::vector<T>& v) {
  std::sort(v.begin(), v.end(), [](T a, T b) { return static_cast<int>(a) < static_cast<int>(b); });
}

} // namespace

baseline_plan plan_from_baseline(const results_doc& b) {
  baseline_plan p;
  for (const auto& t : b.timing) {
    add_once(p.rows, t.row);
    if (t.stage) {
      p.stages = true;
    } else {
      add_once(p.ops, t.op);
    }
  }
  for (const auto& a : b.accuracy) {
    add_once(p.rows, a.row);
    add_once(p.decays, a.decay);
    // An entry listing no heads says nothing about which to check; the row keeps the default.
    if (a.heads_checked.empty()) continue;
    auto& heads = p.heads_of_row[a.row];
    for (int h : a.heads_checked) add_once(heads, h);
  }
  for (auto& [row, heads] : p.heads_of_row) std::sort(heads.begin(), heads.end());
  for (const auto& d : b.determinism) add_once(p.rows, d.row);
  if (p.rows.empty()) {
    throw report_error("the baseline holds no timing, accuracy or determinism entry");
  }
  sort_by_value(p.ops);
  if (p.decays.empty()) p.decays = {decay_regime::normal, decay_regime::fast};
  sort_by_value(p.decays);
  p.method = b.context.method;
  p.seed = b.context.seed;
  return p;
}

} // namespace kda::report
