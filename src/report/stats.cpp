#include "report/stats.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

namespace kda::report {
namespace {

std::vector<double> sorted_copy(std::span<const double> samples, const char* what) {
  if (samples.empty()) throw report_error(fmt::format("{}: no samples", what));
  std::vector<double> s(samples.begin(), samples.end());
  if (std::any_of(s.begin(), s.end(), [](double x) { return std::isnan(x); })) {
    throw report_error(fmt::format("{}: a sample is NaN", what));
  }
  std::sort(s.begin(), s.end());
  return s;
}

double quantile_sorted(const std::vector<double>& s, double q) {
  const double pos = q * static_cast<double>(s.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (pos - static_cast<double>(lo)) * (s[hi] - s[lo]);
}

} // namespace

double quantile(std::span<const double> samples, double q) {
  if (!(q >= 0.0 && q <= 1.0)) throw report_error(fmt::format("quantile: q = {} not in [0, 1]", q));
  return quantile_sorted(sorted_copy(samples, "quantile"), q);
}

double median(std::span<const double> samples) { return quantile(samples, 0.5); }

double iqr(std::span<const double> samples) {
  const auto s = sorted_copy(samples, "iqr");
  return quantile_sorted(s, 0.75) - quantile_sorted(s, 0.25);
}

sample_summary summarize(std::span<const double> samples) {
  const auto s = sorted_copy(samples, "summarize");
  return sample_summary{quantile_sorted(s, 0.5), s.front(), s.back(),
                        quantile_sorted(s, 0.75) - quantile_sorted(s, 0.25)};
}

double mann_whitney_p(std::span<const double> a, std::span<const double> b) {
  sorted_copy(a, "mann_whitney_p (first sample)");
  sorted_copy(b, "mann_whitney_p (second sample)");
  const double n1 = static_cast<double>(a.size()), n2 = static_cast<double>(b.size());
  const double n = n1 + n2;

  // Midranks of the pooled sample; ties_term = sum over tie groups of (t^3 - t).
  struct value {
    double x;
    bool first;
  };
  std::vector<value> pooled;
  pooled.reserve(a.size() + b.size());
  for (double x : a) pooled.push_back({x, true});
  for (double x : b) pooled.push_back({x, false});
  std::sort(pooled.begin(), pooled.end(), [](const value& l, const value& r) { return l.x < r.x; });
  double rank_sum_a = 0.0, ties_term = 0.0;
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j].x == pooled[i].x) ++j;
    const double t = static_cast<double>(j - i);
    const double midrank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (std::size_t k = i; k < j; ++k) {
      if (pooled[k].first) rank_sum_a += midrank;
    }
    ties_term += t * t * t - t;
    i = j;
  }

  const double u1 = rank_sum_a - n1 * (n1 + 1.0) / 2.0;
  const double mu = n1 * n2 / 2.0;
  const double var = n1 * n2 / 12.0 * ((n + 1.0) - ties_term / (n * (n - 1.0)));
  if (!(var > 0.0)) return 1.0; // all values tied (or a single value in total)
  // Two-sided: U = max(U1, U2) = mu + |U1 - mu|; continuity correction 0.5.
  const double z = (std::abs(u1 - mu) - 0.5) / std::sqrt(var);
  return std::clamp(std::erfc(z / std::sqrt(2.0)), 0.0, 1.0);
}

} // namespace kda::report
