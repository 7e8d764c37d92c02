#pragma once
// Order statistics of timing samples and the Mann-Whitney U test used for before/after verdicts.
// All functions take samples in any order and throw report_error on an empty or NaN sample.
#include <span>

#include "report/errors.hpp"

namespace kda::report {

// Quantile q in [0, 1] by linear interpolation between order statistics: numpy's default
// ("linear", Hyndman-Fan type 7), so figures match np.quantile on the samples in the JSON.
double quantile(std::span<const double> samples, double q);
double median(std::span<const double> samples);
// Interquartile range: quantile(0.75) - quantile(0.25).
double iqr(std::span<const double> samples);

struct sample_summary {
  double median = 0, min = 0, max = 0, iqr = 0;
};
sample_summary summarize(std::span<const double> samples);

// Two-sided p-value of the Mann-Whitney U test that a and b come from the same distribution,
// by the normal approximation with tie correction and continuity correction: equal to
// scipy.stats.mannwhitneyu(a, b, alternative="two-sided", method="asymptotic"). 1 when every value
// is tied (no evidence of a difference).
double mann_whitney_p(std::span<const double> a, std::span<const double> b);

} // namespace kda::report
