// The counter-based generator: every value a pure function of (seed, scenario, tensor, index),
// different streams giving different values, and the documented distributions checked on 1e5
// samples (docs: core/generator.hpp).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "core/generator.hpp"

namespace kda::gen {
namespace {

constexpr int k_samples = 100000;

std::uint64_t bits_of(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

stream test_stream(tensor_id t, std::uint64_t seed = 1, const char* scenario = "m2") {
  return make_stream(seed, name_hash(scenario), t);
}

struct moments {
  double mean = 0, var = 0, min = INFINITY, max = -INFINITY;
};

template <typename F> moments moments_of(F sample) {
  moments m;
  double sum = 0, sum2 = 0;
  for (int i = 0; i < k_samples; ++i) {
    const double x = sample(static_cast<std::uint64_t>(i));
    sum += x;
    sum2 += x * x;
    m.min = std::fmin(m.min, x);
    m.max = std::fmax(m.max, x);
  }
  m.mean = sum / k_samples;
  m.var = sum2 / k_samples - m.mean * m.mean;
  return m;
}

// How many of the first n indices give different values in the two streams.
int differing(stream a, stream b, int n = 1000) {
  int d = 0;
  for (int i = 0; i < n; ++i) d += normal(a, i) != normal(b, i);
  return d;
}

TEST(core_generator, same_counter_gives_same_bits) {
  for (const tensor_id t : {tensor_id::q, tensor_id::beta, tensor_id::d_o}) {
    const stream a = test_stream(t, 42, "4doc");
    const stream b = test_stream(t, 42, "4doc");
    EXPECT_EQ(a.m_key, b.m_key);
    for (std::uint64_t i : {0ull, 1ull, 12345ull, 1ull << 40}) {
      EXPECT_EQ(bits_of(uniform(a, i)), bits_of(uniform(b, i)));
      EXPECT_EQ(bits_of(normal(a, i)), bits_of(normal(b, i)));
      EXPECT_EQ(bits_of(normal(a, i)), bits_of(normal(a, i)));
    }
  }
}

TEST(core_generator, known_values_do_not_drift) {
  // Computed independently (Python, from the formulas in generator.hpp): a change here changes
  // every generated input, so every dump and reference comparison made before it.
  EXPECT_EQ(name_hash(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(name_hash("m2"), 0x08a98c07b5509d1eull);
  const stream s = make_stream(1, name_hash("m2"), tensor_id::q);
  EXPECT_EQ(s.m_key, 0x3957bcc71708cb64ull);
  EXPECT_EQ(uniform(s, 0), 0x1.54746904086eep-1);
  EXPECT_EQ(uniform(s, 1), 0x1.2297ae01246cep-3);
  EXPECT_EQ(uniform(s, 12345), 0x1.aa4d1787c7bd0p-1);
}

TEST(core_generator, different_seed_scenario_or_tensor_gives_different_values) {
  const stream base = test_stream(tensor_id::v, 1, "m2");
  EXPECT_EQ(differing(base, test_stream(tensor_id::v, 2, "m2")), 1000);
  EXPECT_EQ(differing(base, test_stream(tensor_id::v, 1, "R2")), 1000);
  EXPECT_EQ(differing(base, test_stream(tensor_id::k, 1, "m2")), 1000);
  EXPECT_EQ(differing(base, test_stream(tensor_id::d_o, 1, "m2")), 1000);
  // Every tensor has its own key.
  std::vector<std::uint64_t> keys;
  for (std::uint32_t t = 1; t <= 8; ++t) keys.push_back(test_stream(static_cast<tensor_id>(t)).m_key);
  for (std::size_t i = 0; i < keys.size(); ++i)
    for (std::size_t j = i + 1; j < keys.size(); ++j) EXPECT_NE(keys[i], keys[j]) << i << " " << j;
}

TEST(core_generator, indices_are_not_shifted_copies) {
  // Element i of one stream must not equal element i+1 of another (a common counter mistake).
  const stream a = test_stream(tensor_id::q), b = test_stream(tensor_id::k);
  int same = 0;
  for (int i = 0; i < 1000; ++i) same += normal(a, i + 1) == normal(b, i) || normal(a, i) == normal(a, i + 1);
  EXPECT_EQ(same, 0);
}

TEST(core_generator, uniform_is_in_the_open_unit_interval) {
  const moments m = moments_of([s = test_stream(tensor_id::x)](std::uint64_t i) { return uniform(s, i); });
  EXPECT_GT(m.min, 0.0);
  EXPECT_LT(m.max, 1.0);
  EXPECT_NEAR(m.mean, 0.5, 0.005);
  EXPECT_NEAR(m.var, 1.0 / 12.0, 0.002);
}

TEST(core_generator, normal_is_standard) {
  const stream s = test_stream(tensor_id::q);
  const moments m = moments_of([s](std::uint64_t i) { return normal(s, i); });
  EXPECT_NEAR(m.mean, 0.0, 0.015); // standard error 0.003
  EXPECT_NEAR(m.var, 1.0, 0.02);   // standard error 0.0045
  EXPECT_LT(m.min, -3.5);
  EXPECT_GT(m.max, 3.5);
  // Both branches of the inverse CDF: the tails (|z| > 1.973) hold 4.85 %.
  int tails = 0, beyond_196 = 0;
  for (int i = 0; i < k_samples; ++i) {
    const double z = normal(s, i);
    ASSERT_TRUE(std::isfinite(z));
    tails += std::fabs(z) > 1.9728;
    beyond_196 += std::fabs(z) > 1.959964;
  }
  EXPECT_NEAR(tails / double(k_samples), 0.0485, 0.004);
  EXPECT_NEAR(beyond_196 / double(k_samples), 0.05, 0.004);
}

TEST(core_generator, beta_is_a_sigmoid_of_a_normal) {
  const stream s = test_stream(tensor_id::beta);
  const moments m = moments_of([s](std::uint64_t i) { return beta_value(s, i); });
  EXPECT_GT(m.min, 0.0);
  EXPECT_LT(m.max, 1.0);
  EXPECT_NEAR(m.mean, 0.5, 0.005);
  EXPECT_NEAR(m.var, 0.0434, 0.001); // Var sigmoid(N(0,1)) = 0.04338 (quadrature)
  for (int i = 0; i < 100; ++i) EXPECT_NEAR(beta_value(s, i), 1.0 / (1.0 + std::exp(-normal(s, i))), 1e-15);
}

TEST(core_generator, A_log_is_log_of_uniform_1_16) {
  const stream s = test_stream(tensor_id::A_log);
  const moments m = moments_of([s](std::uint64_t i) { return A_log_value(s, i); });
  EXPECT_GE(m.min, 0.0);
  EXPECT_LE(m.max, std::log(16.0));
  EXPECT_LT(m.min, 0.01);
  EXPECT_GT(m.max, std::log(16.0) - 0.01);
  const moments a = moments_of([s](std::uint64_t i) { return std::exp(A_log_value(s, i)); });
  EXPECT_NEAR(a.mean, 8.5, 0.05);          // U(1, 16)
  EXPECT_NEAR(a.var, 225.0 / 12.0, 0.25);
}

TEST(core_generator, dt_bias_normal_regime_is_softplus_inverse_of_log_uniform_dt) {
  const stream s = test_stream(tensor_id::dt_bias);
  const auto dt = [s](std::uint64_t i) { return std::log1p(std::exp(dt_bias_value(s, i, false))); };
  const moments m = moments_of(dt);
  EXPECT_GE(m.min, 1e-3 * (1 - 1e-9));
  EXPECT_LE(m.max, 1e-1 * (1 + 1e-9));
  EXPECT_LT(m.min, 1.01e-3);
  EXPECT_GT(m.max, 0.099);
  // log dt ~ U(log 1e-3, log 1e-1).
  const moments l = moments_of([&](std::uint64_t i) { return std::log(dt(i)); });
  EXPECT_NEAR(l.mean, 0.5 * (std::log(1e-3) + std::log(1e-1)), 0.01);
  EXPECT_NEAR(l.var, std::pow(std::log(100.0), 2) / 12.0, 0.02);
  // dt_bias itself is then between softplus^-1(1e-3) = -6.9 and softplus^-1(0.1) = -2.25.
  const moments b = moments_of([s](std::uint64_t i) { return dt_bias_value(s, i, false); });
  EXPECT_GT(b.min, -6.91);
  EXPECT_LT(b.max, -2.25);
}

TEST(core_generator, dt_bias_fast_regime_is_standard_normal) {
  const stream s = test_stream(tensor_id::dt_bias);
  const moments m = moments_of([s](std::uint64_t i) { return dt_bias_value(s, i, true); });
  EXPECT_NEAR(m.mean, 0.0, 0.015);
  EXPECT_NEAR(m.var, 1.0, 0.02);
  EXPECT_EQ(bits_of(dt_bias_value(s, 7, true)), bits_of(normal(s, 7)));
}

TEST(core_generator, g_value_is_the_log_gate_rounded_once_to_fp32) {
  const stream sx = test_stream(tensor_id::x), sa = test_stream(tensor_id::A_log),
               sd = test_stream(tensor_id::dt_bias);
  for (int i = 0; i < 2000; ++i) {
    const float x = static_cast<float>(normal(sx, i));
    const float a = static_cast<float>(A_log_value(sa, i));
    const float d = static_cast<float>(dt_bias_value(sd, i, i % 2 == 0));
    const double z = static_cast<double>(x) + d;
    const double expect = -std::exp(static_cast<double>(a)) * (z > 36 ? z : std::log1p(std::exp(z)));
    const float g = g_value(x, a, d);
    ASSERT_LT(g, 0.0f);
    // Once-rounded: within half an fp32 ulp (plus the 1e-14 of the portable exp/log).
    ASSERT_NEAR(g, expect, std::fabs(expect) * (0x1.0p-24 + 1e-13)) << i;
  }
  EXPECT_EQ(g_value(50.0f, 0.0f, 0.0f), -50.0f); // softplus(z) = z for large z
}

} // namespace
} // namespace kda::gen
