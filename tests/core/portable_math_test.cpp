// The portable exp/log/log1p (built from correctly rounded operations only) against libm on sweeps
// of arguments: within 1e-14 relative.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "core/portable_math.hpp"

namespace kda::pmath {
namespace {

constexpr double k_rel = 1e-14;

// Largest relative difference of f from ref over `n + 1` points of [lo, hi] (linear or, with
// `log_spaced`, geometric).
template <typename F, typename R>
double max_rel_error(F f, R ref, double lo, double hi, int n, bool log_spaced, double* worst_x) {
  double worst = 0;
  for (int i = 0; i <= n; ++i) {
    const double t = static_cast<double>(i) / n;
    const double x = log_spaced ? lo * std::pow(hi / lo, t) : lo + (hi - lo) * t;
    const double want = ref(x);
    const double err = want == 0 ? std::fabs(f(x)) : std::fabs(f(x) - want) / std::fabs(want);
    if (err > worst) {
      worst = err;
      *worst_x = x;
    }
  }
  return worst;
}

// `got` and `want` are expressions in x.
#define EXPECT_REL_SWEEP(got, want, lo, hi, n, log_spaced)                                         \
  do {                                                                                             \
    double at = 0;                                                                                 \
    const double e = max_rel_error([](double x) { return got; }, [](double x) { return want; },   \
                                   lo, hi, n, log_spaced, &at);                                    \
    EXPECT_LE(e, k_rel) << #got " on [" << (lo) << ", " << (hi) << "], worst at x = " << at;       \
  } while (0)

TEST(core_portable_math, exp_matches_libm) {
  EXPECT_REL_SWEEP(pmath::exp(x), std::exp(x), -700.0, 700.0, 200000, false);
  EXPECT_REL_SWEEP(pmath::exp(x), std::exp(x), -1.0, 1.0, 100000, false);
  EXPECT_REL_SWEEP(pmath::exp(x), std::exp(x), 1e-300, 1e-3, 10000, true);
  EXPECT_REL_SWEEP(pmath::exp(-x), std::exp(-x), 1e-300, 1e-3, 10000, true);
  EXPECT_EQ(pmath::exp(0.0), 1.0);
  EXPECT_EQ(pmath::exp(1.0), std::exp(1.0));
}

TEST(core_portable_math, log_matches_libm) {
  EXPECT_REL_SWEEP(pmath::log(x), std::log(x), 1e-300, 1e300, 200000, true);
  EXPECT_REL_SWEEP(pmath::log(x), std::log(x), 0.5, 2.0, 100000, false);
  // Close to 1 on both sides, where log x is small.
  EXPECT_REL_SWEEP(pmath::log(1.0 + x), std::log(1.0 + x), 1e-15, 1e-1, 10000, true);
  EXPECT_REL_SWEEP(pmath::log(1.0 - x), std::log(1.0 - x), 1e-15, 1e-1, 10000, true);
  EXPECT_EQ(pmath::log(1.0), 0.0);
  EXPECT_NEAR(pmath::log(2.0), 0.69314718055994530942, 1e-16);
  EXPECT_NEAR(pmath::log(16.0), 4 * 0.69314718055994530942, 1e-15);
}

TEST(core_portable_math, log_1_plus_x_matches_libm_away_from_the_series_switch) {
  EXPECT_REL_SWEEP(pmath::log1p(x), std::log1p(x), 1e-300, 9.99e-5, 20000, true);
  EXPECT_REL_SWEEP(pmath::log1p(-x), std::log1p(-x), 1e-300, 9.99e-5, 20000, true);
  EXPECT_REL_SWEEP(pmath::log1p(x), std::log1p(x), 1.0, 1e300, 20000, true);
  EXPECT_EQ(pmath::log1p(0.0), 0.0);
}

// Where log1p(x) = log(1 + x) rounds 1 + x first (|x| >= 1e-4 up to about 1): that rounding costs
// up to 2^-53 / |x| relative. The header promises about 1e-15; this measures the real figure.
TEST(core_portable_math, log_1_plus_x_matches_libm_in_the_middle_range) {
  EXPECT_REL_SWEEP(pmath::log1p(x), std::log1p(x), 1e-4, 1.0, 20000, true);
  EXPECT_REL_SWEEP(pmath::log1p(-x), std::log1p(-x), 1e-4, 0.5, 20000, true);
}

TEST(core_portable_math, softplus_and_sigmoid) {
  // softplus is log1p(exp(z)): checked where log1p meets 1e-14 (exp(z) < 1e-4 or >= 1); the range
  // in between is log1p's, tested above.
  for (double z = -40; z <= 40; z += 0.37) {
    const double want = z > 36 ? z : std::log1p(std::exp(z));
    if (z >= std::log(1e-4) && z < 0) continue;
    ASSERT_LE(std::fabs(softplus(z) - want), k_rel * want) << z;
  }
  for (double z = -30; z <= 30; z += 0.37) {
    const double want = 1.0 / (1.0 + std::exp(-z));
    ASSERT_LE(std::fabs(sigmoid(z) - want), k_rel * want) << z;
  }
  EXPECT_EQ(softplus(40.0), 40.0);
  EXPECT_EQ(sigmoid(0.0), 0.5);
}

} // namespace
} // namespace kda::pmath
