// bf16 rounding: round-to-nearest-even from fp32, NaN kept NaN, bf16 values exact, checked against
// an independent rounding on every bf16 value and on a million random fp32 bit patterns.
#include <cmath>
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "core/bf16.hpp"
#include "core/generator.hpp"

namespace kda {
namespace {

bool is_nan_bits(bf16_bits b) { return (b & 0x7f80u) == 0x7f80u && (b & 0x007fu) != 0; }

// Nearest bf16 to a finite float by comparing the two candidates in double (ties to even mantissa).
bf16_bits reference_round(float f) {
  const std::uint32_t u = float_bits(f);
  const bf16_bits lo = static_cast<bf16_bits>(u >> 16); // truncation: towards zero
  const bf16_bits hi = static_cast<bf16_bits>(lo + 1);  // next away from zero
  const double x = std::fabs(static_cast<double>(f));
  const double dl = x - std::fabs(static_cast<double>(bf16_to_float(lo)));
  // Past the largest bf16 the next value is 2^128 (rounding as if the exponent were unbounded).
  const double h = (hi & 0x7fffu) == 0x7f80u ? std::ldexp(1.0, 128) : std::fabs(static_cast<double>(bf16_to_float(hi)));
  const double dh = h - x;
  if (dl < dh) return lo;
  if (dh < dl) return hi;
  return (lo & 1u) ? hi : lo;
}

TEST(core_bf16, exact_values) {
  EXPECT_EQ(float_to_bf16(0.0f), 0x0000);
  EXPECT_EQ(float_to_bf16(-0.0f), 0x8000);
  EXPECT_EQ(float_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bf16(-2.0f), 0xc000);
  EXPECT_EQ(float_to_bf16(0.5f), 0x3f00);
  EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_EQ(float_to_bf16(-std::numeric_limits<float>::infinity()), 0xff80);
  EXPECT_EQ(bf16_to_float(0x3f80), 1.0f);
  EXPECT_EQ(bf16_to_float(0x4049), 3.140625f);
  EXPECT_EQ(round_to_bf16(3.140625f), 3.140625f);
}

TEST(core_bf16, round_to_nearest_even) {
  // bf16 has 8 significand bits: between 1 and 2 the spacing is 2^-7.
  EXPECT_EQ(float_to_bf16(1.0f + 0x1.0p-8f), 0x3f80);           // tie, 1.0 is even
  EXPECT_EQ(float_to_bf16(1.0f + 3 * 0x1.0p-8f), 0x3f82);       // tie, 1 + 2^-6 is even
  EXPECT_EQ(float_to_bf16(1.0f + 0x1.0p-8f + 0x1.0p-20f), 0x3f81); // just above the tie
  EXPECT_EQ(float_to_bf16(1.0f + 0x1.0p-8f - 0x1.0p-20f), 0x3f80); // just below
  EXPECT_EQ(float_to_bf16(-(1.0f + 0x1.0p-8f)), 0xbf80);        // sign symmetric
  EXPECT_EQ(float_to_bf16(-(1.0f + 3 * 0x1.0p-8f)), 0xbf82);
  // Rounding up carries into the exponent.
  EXPECT_EQ(float_to_bf16(2.0f - 0x1.0p-9f), 0x4000);
  // The largest float rounds to infinity; the largest bf16 stays.
  EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(float_to_bf16(bf16_to_float(0x7f7f)), 0x7f7f);
  // Subnormals round like any other value.
  EXPECT_EQ(float_to_bf16(bits_float(0x00008000u)), 0x0000); // tie to even (0)
  EXPECT_EQ(float_to_bf16(bits_float(0x00018000u)), 0x0002); // tie to even (2)
  EXPECT_EQ(float_to_bf16(bits_float(0x00010001u)), 0x0001);
}

TEST(core_bf16, nan_stays_nan) {
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(is_nan_bits(float_to_bf16(qnan)));
  EXPECT_TRUE(std::isnan(round_to_bf16(qnan)));
  // NaNs whose payload sits only in the low 16 bits would truncate to infinity.
  for (std::uint32_t u : {0x7f800001u, 0x7f80ffffu, 0xff800001u, 0x7fffffffu, 0xffc00000u}) {
    const bf16_bits b = float_to_bf16(bits_float(u));
    EXPECT_TRUE(is_nan_bits(b)) << std::hex << u << " -> " << b;
    EXPECT_EQ(b & 0x8000u, (u >> 16) & 0x8000u) << "sign kept";
  }
}

TEST(core_bf16, every_bf16_value_is_exact) {
  for (std::uint32_t b = 0; b <= 0xffffu; ++b) {
    const auto bits = static_cast<bf16_bits>(b);
    if (is_nan_bits(bits)) continue;
    ASSERT_EQ(float_to_bf16(bf16_to_float(bits)), bits) << std::hex << b;
  }
}

TEST(core_bf16, matches_an_independent_rounding_on_random_floats) {
  const gen::stream s = gen::make_stream(7, gen::name_hash("bf16"), gen::tensor_id::x);
  int checked = 0;
  for (std::uint64_t i = 0; i < 1000000; ++i) {
    const auto u = static_cast<std::uint32_t>(gen::mix64(s.m_key + i));
    const float f = bits_float(u);
    if (!std::isfinite(f)) continue;
    ASSERT_EQ(float_to_bf16(f), reference_round(f)) << std::hexfloat << f;
    ++checked;
  }
  EXPECT_GT(checked, 990000);
}

TEST(core_bf16, rounding_error_is_at_most_half_a_bf16_ulp) {
  for (int i = 1; i < 20000; ++i) {
    const float f = static_cast<float>(i) * 0.013f - 130.0f;
    const float r = round_to_bf16(f);
    ASSERT_LE(std::fabs(r - f), std::fabs(f) * 0x1.0p-8f) << f;
  }
}

} // namespace
} // namespace kda
