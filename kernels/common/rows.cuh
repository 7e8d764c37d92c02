#pragma once
// Row-wise helpers on bf16 shared-memory tiles, shared by the forward intra stage and the backward
// gradient stage (the fused L2 norm must give both the same bits).
#include <cuda_bf16.h>

namespace kda::dev {

// One bf16 element of a shared-memory tile as float.
__device__ __forceinline__ float bf(const __nv_bfloat16* p, int i) { return __bfloat162float(p[i]); }

// q.q and k.k of row i of two [.][128] bf16 tiles (row stride ld), by one warp: each lane sums 4
// consecutive columns, then a fixed xor-shuffle tree. Deterministic; every lane gets the sums.
__device__ __forceinline__ void row_square_sums(const __nv_bfloat16* s_q, const __nv_bfloat16* s_k, int ld, int i,
                                                int lane, float& sq, float& sk) {
  sq = 0.f;
  sk = 0.f;
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const float qv = bf(s_q, i * ld + 4 * lane + e), kv = bf(s_k, i * ld + 4 * lane + e);
    sq = fmaf(qv, qv, sq);
    sk = fmaf(kv, kv, sk);
  }
#pragma unroll
  for (int m = 16; m >= 1; m >>= 1) {
    sq += __shfl_xor_sync(0xffffffffu, sq, m);
    sk += __shfl_xor_sync(0xffffffffu, sk, m);
  }
}

} // namespace kda::dev
