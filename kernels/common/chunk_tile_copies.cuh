#pragma once
// The intra stage's tiles of one chunk into a serial pass's shared memory with 16-byte cp.async,
// each thread making the copies its row_copies (common/serial_copies.cuh) assign: the [64][128]
// bf16 tiles w, qg, kg, the [64][64] Aqk tile and exp(gamma_C). Both state passes (fwd_state, its
// 16-column form, and both bwd_dh kernels) load a chunk step through these.
#include <cstddef>

#include <cuda_bf16.h>

#include "common/layout.cuh"
#include "common/mma.cuh"
#include "common/serial_copies.cuh"

namespace kda::dev {

// N [64][128] bf16 tiles (global row stride k_dim, tile offset ck; shared row stride k_ld_wide) in
// one loop: src[t] + ck -> dst[t].
template <int N, int SEGS, int THREADS>
__device__ __forceinline__ void copy_wide_tiles(__nv_bfloat16* const (&dst)[N], const __nv_bfloat16* const (&src)[N],
                                                std::size_t ck, const row_copies<SEGS, THREADS>& w) {
#pragma unroll
  for (int n = 0; n < 64 / w.rows; ++n) {
    const int gs = n * w.rows * k_dim, ss = n * w.rows * k_ld_wide;
#pragma unroll
    for (int t = 0; t < N; ++t) cp_async_16(dst[t] + w.s + ss, src[t] + ck + w.g + gs);
  }
}

// The [64][64] Aqk tile of `tile` (shared row stride k_ld_aqk).
template <int SEGS, int THREADS>
__device__ __forceinline__ void copy_aqk_tile(__nv_bfloat16* dst, const __nv_bfloat16* Aqk, std::size_t tile,
                                              const row_copies<SEGS, THREADS>& a) {
  const __nv_bfloat16* src = Aqk + tile * tile_sizes::cc + a.g;
#pragma unroll
  for (int n = 0; n < 64 / a.rows; ++n) cp_async_16(dst + a.s + n * a.rows * k_ld_aqk, src + n * a.rows * k_chunk);
}

// exp(gamma_C) [128] fp32 of `tile`, by the copying threads t < 32.
__device__ __forceinline__ void copy_gamma_C(float* dst, const float* gC, std::size_t tile, int t) {
  if (t < 32) cp_async_16(dst + t * 4, gC + tile * k_dim + t * 4);
}

} // namespace kda::dev
