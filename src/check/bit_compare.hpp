#pragma once
// Bit-for-bit comparison of two runs' output tensors (--repeat-check: a build against itself;
// --same-bits: a build against BEFORE on the same inputs). Bits, not values: -0 vs +0 and two
// different NaN payloads count as different; so does a size mismatch.
#include <cstddef>
#include <span>
#include <string>

namespace kda {

struct bit_diff {
  std::size_t elements = 0;   // compared
  std::size_t differing = 0;  // elements whose bits differ (all of the longer one on a size mismatch)
  std::size_t first = 0;      // index of the first differing element (when differing > 0)
  double max_abs = 0.0;       // largest |a - b| over differing elements where both are finite
  bool size_mismatch = false;

  bool identical() const { return differing == 0 && !size_mismatch; }
};

bit_diff compare_bits(std::span<const float> a, std::span<const float> b);

// "identical", or e.g. "DIFFERENT: 12 of 4096 elements (first at 17, max |diff| 3.1e-05)".
std::string describe(const bit_diff& d);

} // namespace kda
