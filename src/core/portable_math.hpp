#pragma once
// exp and log in double built only from correctly rounded IEEE operations (add, multiply, divide,
// explicit fma, exact scaling), so the input generator gives identical bits on host and device.
// libm and CUDA's exp/log may differ in the last bit; these cannot. Accuracy is about 1e-15
// relative: enough for sampling distributions, which is all they are used for.
#include <cmath>

#include "core/host_device.hpp"

namespace kda::pmath {

#if defined(__CUDA_ARCH__)
KDA_HD double add(double a, double b) { return __dadd_rn(a, b); }
KDA_HD double mul(double a, double b) { return __dmul_rn(a, b); }
KDA_HD double fma_(double a, double b, double c) { return __fma_rn(a, b, c); }
KDA_HD double div(double a, double b) { return __ddiv_rn(a, b); }
#else
// The project compiles host code with -ffp-contract=off, so these are never fused.
KDA_HD double add(double a, double b) { return a + b; }
KDA_HD double mul(double a, double b) { return a * b; }
KDA_HD double fma_(double a, double b, double c) { return std::fma(a, b, c); }
KDA_HD double div(double a, double b) { return a / b; }
#endif

constexpr double k_ln2_hi = 6.93147180369123816490e-01; // upper bits of ln 2 (exact in n * hi)
constexpr double k_ln2_lo = 1.90821492927058770002e-10;
constexpr double k_inv_ln2 = 1.44269504088896338700e+00;

// e^x for |x| < 700.
KDA_HD double exp(double x) {
  const double n = ::rint(mul(x, k_inv_ln2));
  const double r = fma_(-n, k_ln2_lo, fma_(-n, k_ln2_hi, x)); // |r| <= 0.35
  // Taylor series to r^14 / 14!: truncation below 1e-17 relative.
  double p = 1.0 / 87178291200.0;
  constexpr double c[] = {1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0,
                          1.0 / 362880.0,     1.0 / 40320.0,     1.0 / 5040.0,     1.0 / 720.0,
                          1.0 / 120.0,        1.0 / 24.0,        1.0 / 6.0,        0.5,
                          1.0,                1.0};
  for (double ci : c) p = fma_(p, r, ci);
  return ::ldexp(p, static_cast<int>(n));
}

// Natural log for finite x > 0.
KDA_HD double log(double x) {
  int e = 0;
  double m = ::frexp(x, &e); // x = m 2^e, m in [0.5, 1)
  if (m < 0.70710678118654752440) {
    m = mul(m, 2.0);
    e -= 1;
  }
  // log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.1716: series to s^23.
  const double s = div(add(m, -1.0), add(m, 1.0));
  const double s2 = mul(s, s);
  double p = 1.0 / 23.0;
  for (int k = 21; k >= 1; k -= 2) p = fma_(p, s2, 1.0 / k);
  const double log_m = mul(mul(2.0, s), p);
  const double de = static_cast<double>(e);
  return add(fma_(de, k_ln2_hi, log_m), mul(de, k_ln2_lo));
}

// log(1 + x) for x > -1, accurate for small x too: u = 1 + x is rounded, but log(u) x / (u - 1)
// corrects for exactly that rounding (u - 1 is exact), so the result keeps full relative precision.
KDA_HD double log1p(double x) {
  const double u = add(1.0, x);
  if (u == 1.0) return x;
  return div(mul(log(u), x), add(u, -1.0));
}

KDA_HD double softplus(double z) { return z > 36.0 ? z : log1p(exp(z)); }
KDA_HD double sigmoid(double z) { return div(1.0, add(1.0, exp(-z))); }

} // namespace kda::pmath
