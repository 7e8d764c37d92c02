#pragma once
// The inputs of a chunk step that a serial pass's computing threads copy themselves (16-byte
// cp.async, each thread the copies its row_copies assign: common/serial_copies.cuh): u of the CTA's
// V tile and exp(gamma_C). The [64][128] and [64][64] tiles come from the copy engine instead
// (common/tile_maps.cuh). do of the backward: bwd/dh_stage.cuh.
#include <cstddef>

#include "common/layout.cuh"
#include "common/mma.cuh"
#include "common/serial_copies.cuh"

namespace kda::dev {

// u [64][VT] fp32 of `tile` (global [tile][64][128], this thread's copies `o` with the V tile's
// column in o.g) into dst (shared row stride ldu).
template <int SEGS, int THREADS>
__device__ __forceinline__ void copy_u_tile(float* dst, const float* u, std::size_t tile, const row_copies<SEGS, THREADS>& o,
                                            int ldu) {
  const float* src = u + tile * tile_sizes::ck + o.g;
#pragma unroll
  for (int n = 0; n < 64 / o.rows; ++n) cp_async_16(dst + o.s + n * o.rows * ldu, src + n * o.rows * v_dim);
}

// exp(gamma_C) [128] fp32 of `tile`, by the copying threads t < 32.
__device__ __forceinline__ void copy_gamma_C(float* dst, const float* gC, std::size_t tile, int t) {
  if (t < 32) cp_async_16(dst + t * 4, gC + tile * k_dim + t * 4);
}

} // namespace kda::dev
