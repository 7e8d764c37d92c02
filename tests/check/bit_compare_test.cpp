// compare_bits: what counts as the same bits, and the one-line description the runs print.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "check/bit_compare.hpp"

namespace kda {
namespace {

TEST(bit_compare, equal_arrays_are_identical) {
  const std::vector<float> a = {1.f, -0.f, 3.5f, std::numeric_limits<float>::quiet_NaN()};
  const bit_diff d = compare_bits(a, a);
  EXPECT_TRUE(d.identical());
  EXPECT_EQ(d.elements, 4u);
  EXPECT_EQ(describe(d), "identical");
}

TEST(bit_compare, counts_differences_first_index_and_largest_finite_gap) {
  const std::vector<float> a = {1.f, 2.f, 3.f, 4.f, 5.f};
  std::vector<float> b = a;
  b[1] = std::nextafter(2.f, 3.f);
  b[3] = 4.5f;
  const bit_diff d = compare_bits(a, b);
  EXPECT_FALSE(d.identical());
  EXPECT_EQ(d.differing, 2u);
  EXPECT_EQ(d.first, 1u);
  EXPECT_DOUBLE_EQ(d.max_abs, 0.5);
  EXPECT_EQ(describe(d), "DIFFERENT: 2 of 5 elements (first at 1, max |diff| 0.5)");
}

TEST(bit_compare, signed_zeros_and_nan_payloads_differ_but_add_no_gap) {
  const std::vector<float> a = {0.f, std::numeric_limits<float>::quiet_NaN()};
  const std::vector<float> b = {-0.f, std::numeric_limits<float>::infinity()};
  const bit_diff d = compare_bits(a, b);
  EXPECT_EQ(d.differing, 2u);
  EXPECT_EQ(d.first, 0u);
  EXPECT_EQ(d.max_abs, 0.0); // -0 vs +0 is a gap of 0; NaN vs inf has no finite gap
}

TEST(bit_compare, a_size_mismatch_is_never_identical) {
  const std::vector<float> a = {1.f, 2.f, 3.f}, b = {1.f, 2.f};
  const bit_diff d = compare_bits(a, b);
  EXPECT_FALSE(d.identical());
  EXPECT_TRUE(d.size_mismatch);
  EXPECT_EQ(d.differing, 1u);
  EXPECT_EQ(describe(d), "DIFFERENT: sizes differ (2 elements compared)");
}

} // namespace
} // namespace kda
