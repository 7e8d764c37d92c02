#include "check/bit_compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

namespace kda {

bit_diff compare_bits(std::span<const float> a, std::span<const float> b) {
  bit_diff d;
  d.size_mismatch = a.size() != b.size();
  const std::size_t n = std::min(a.size(), b.size());
  d.elements = n;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t x = 0, y = 0;
    std::memcpy(&x, &a[i], sizeof x);
    std::memcpy(&y, &b[i], sizeof y);
    if (x == y) continue;
    if (d.differing++ == 0) d.first = i;
    if (std::isfinite(a[i]) && std::isfinite(b[i])) {
      d.max_abs = std::max(d.max_abs, std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
    }
  }
  if (d.size_mismatch) d.differing += std::max(a.size(), b.size()) - n;
  return d;
}

std::string describe(const bit_diff& d) {
  if (d.identical()) return "identical";
  if (d.size_mismatch) return fmt::format("DIFFERENT: sizes differ ({} elements compared)", d.elements);
  return fmt::format("DIFFERENT: {} of {} elements (first at {}, max |diff| {:.2g})", d.differing, d.elements,
                     d.first, d.max_abs);
}

} // namespace kda
