#pragma once
// The input of a chunk step that bwd_dh's computing threads copy themselves (16-byte cp.async):
// exp(gamma_C). The [64][128] and [64][64] tiles come from the copy engine instead
// (common/tile_maps.cuh); do: bwd/dh_stage.cuh. (The state passes' producer warps take u and
// exp(gamma_C) from the copy engine too.)
#include <cstddef>

#include "common/layout.cuh"
#include "common/mma.cuh"

namespace kda::dev {

// exp(gamma_C) [128] fp32 of `tile`, by the copying threads t < 32.
__device__ __forceinline__ void copy_gamma_C(float* dst, const float* gC, std::size_t tile, int t) {
  if (t < 32) cp_async_16(dst + t * 4, gC + tile * k_dim + t * 4);
}

} // namespace kda::dev
