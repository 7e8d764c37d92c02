#pragma once
// bf16 held as its 16 raw bits. Rounding is round-to-nearest-even from fp32, written with integer
// operations so host and device give the same bits.
#include <cstdint>
#include <cstring>

#include "core/host_device.hpp"

namespace kda {

using bf16_bits = std::uint16_t;

KDA_HD std::uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}

KDA_HD float bits_float(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}

KDA_HD bf16_bits float_to_bf16(float f) {
  std::uint32_t u = float_bits(f);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0) {
    return static_cast<bf16_bits>((u >> 16) | 0x0040u); // NaN stays a (quiet) NaN
  }
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<bf16_bits>(u >> 16);
}

KDA_HD float bf16_to_float(bf16_bits b) { return bits_float(static_cast<std::uint32_t>(b) << 16); }

// The value a bf16 tensor element really holds, as float.
KDA_HD float round_to_bf16(float f) { return bf16_to_float(float_to_bf16(f)); }

} // namespace kda
