#pragma once
// Counter-based input generator: every element is a pure function of
// (seed, scenario, tensor, index), with the same bits on host and device. The FP64 reference can
// therefore regenerate any head's inputs on the CPU without copying anything from the GPU.
//
// Distributions (issue "Foundation", docs/inputs.md):
//   q, k, v, do ~ N(0,1)           (q, k L2-normalised per token and head when l2n = off)
//   beta = sigmoid(N(0,1))
//   x ~ N(0,1)                     (raw gate input)
//   A_log = log U(1,16)            per head
//   dt_bias: normal decay: dt ~ logU(1e-3, 1e-1), dt_bias = softplus^-1(dt); fast: N(0,1)
//   g = -exp(A_log) softplus(x + dt_bias), computed once and rounded to fp32 (g form)
#include <cstdint>

#include "core/host_device.hpp"
#include "core/portable_math.hpp"

namespace kda::gen {

enum class tensor_id : std::uint32_t {
  q = 1,
  k = 2,
  v = 3,
  beta = 4,
  x = 5,
  A_log = 6,
  dt_bias = 7,
  d_o = 8, // the output gradient `do`
};

// splitmix64 finaliser: a bijective 64-bit mix with good avalanche.
KDA_HD std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// FNV-1a of a name: the scenario part of the counter.
KDA_HD std::uint64_t name_hash(const char* s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; ++s) h = (h ^ static_cast<unsigned char>(*s)) * 0x100000001b3ull;
  return h;
}

// A stream is one tensor of one scenario under one seed.
struct stream {
  std::uint64_t m_key;
};

KDA_HD stream make_stream(std::uint64_t seed, std::uint64_t scenario_hash, tensor_id t) {
  return stream{mix64(mix64(seed ^ 0x6b64612d62656e63ull) ^ scenario_hash) +
                static_cast<std::uint64_t>(t) * 0x9e3779b97f4a7c15ull};
}

// Uniform in the open interval (0, 1), 53 random bits.
KDA_HD double uniform(stream s, std::uint64_t index) {
  const std::uint64_t r = mix64(s.m_key + mix64(index + 0x632be59bd9b4e019ull));
  return (static_cast<double>(r >> 11) + 0.5) * 0x1.0p-53;
}

// Standard normal by the inverse CDF (Acklam's rational approximation, |rel err| < 1.2e-9),
// using one uniform per element so that the element count is fixed.
KDA_HD double normal(stream s, std::uint64_t index) {
  using namespace pmath;
  const double p = uniform(s, index);
  constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                          1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                          6.680131188771972e+01,  -1.328068155288572e+01};
  constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                          -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                          3.754408661907416e+00};
  constexpr double p_low = 0.02425;
  if (p < p_low || p > 1.0 - p_low) {
    const double tail = p < p_low ? p : add(1.0, -p);
    const double q = ::sqrt(mul(-2.0, log(tail)));
    double num = c[0];
    for (int i = 1; i < 6; ++i) num = fma_(num, q, c[i]);
    double den = d[0];
    for (int i = 1; i < 4; ++i) den = fma_(den, q, d[i]);
    den = fma_(den, q, 1.0);
    const double z = div(num, den);
    return p < p_low ? z : -z;
  }
  const double q = add(p, -0.5);
  const double r = mul(q, q);
  double num = a[0];
  for (int i = 1; i < 6; ++i) num = fma_(num, r, a[i]);
  double den = b[0];
  for (int i = 1; i < 5; ++i) den = fma_(den, r, b[i]);
  den = fma_(den, r, 1.0);
  return div(mul(num, q), den);
}

// Element values before any bf16 rounding (callers round once, where the dtype says).
KDA_HD double beta_value(stream s, std::uint64_t i) { return pmath::sigmoid(normal(s, i)); }

// A_log = log U(1, 16).
KDA_HD double A_log_value(stream s, std::uint64_t i) {
  return pmath::log(pmath::fma_(15.0, uniform(s, i), 1.0));
}

// dt_bias per decay regime (fast = true: N(0,1); else softplus^-1 of dt ~ logU(1e-3, 1e-1)).
KDA_HD double dt_bias_value(stream s, std::uint64_t i, bool fast) {
  using namespace pmath;
  if (fast) return normal(s, i);
  constexpr double lo = -6.907755278982137;  // log 1e-3
  constexpr double hi = -2.3025850929940455; // log 1e-1
  const double dt = exp(fma_(hi - lo, uniform(s, i), lo));
  return log(add(exp(dt), -1.0)); // softplus^-1(dt) = log(e^dt - 1)
}

// The g form's log gate from fp32 x, A_log, dt_bias, rounded once to fp32.
KDA_HD float g_value(float x, float A_log, float dt_bias) {
  using namespace pmath;
  const double sp = softplus(add(static_cast<double>(x), static_cast<double>(dt_bias)));
  return static_cast<float>(mul(-exp(static_cast<double>(A_log)), sp));
}

} // namespace kda::gen
