#pragma once
// The log gate of a chunk and its within-chunk cumulative sum gamma (kda-algorithm.md,
// "Pre-processing"), shared by the forward intra stage and the backward gradient stage so both
// see the same bits of g and gamma.
#include <cstddef>

#include "common/mma.cuh"

namespace kda::dev {

// softplus with the fast exp/log units: relative error about 1e-6, far below the TF32 rounding of
// the products that consume g (docs/perf-log.md, fwd v2: accurate log1pf/expf cost 35% of the
// raw-gate intra stage).
// Both candidates computed, then selected: the same values as the branches
// `z > 15 ? z : z < -15 ? exp(z) : log(1 + exp(z))`, without a branch per element (a branch
// serialised the 32 unrolled elements of gate_scan: no overlap of their exp/log latencies).
__device__ __forceinline__ float softplus_f(float z) {
  const float e = __expf(z);
  const float l = __logf(1.f + e);
  return z > 15.f ? z : (z < -15.f ? e : l);
}

// The raw gate's per-head factor -exp(A_log): one definition for the gate scan (forward and
// backward) and bwd_grad's dx, so both use the same bits of it.
__device__ __forceinline__ float neg_A_of(float A_log) { return -expf(A_log); }

// g of one element: the gate input itself (g form) or -exp(A_log) softplus(x + dt_bias) (raw).
template <bool RAW>
__device__ __forceinline__ float log_gate(float in, float neg_A, float bias) {
  return RAW ? neg_A * softplus_f(in + bias) : in;
}

// The thread map of gate_read, gate_scan, store_gamma and mark_wide: 2 threads per column.
constexpr int k_gate_threads = 256;

// The chunk's gate goes through shared memory, in three steps so that the caller keeps it in flight
// with its other loads: gate_copy_rows issues its rows [len][128] as 16-byte cp.async into s (row
// stride ld floats, rows 16-byte aligned; rows >= len zero-filled), spread over `threads` threads;
// the caller commits, waits and synchronises; then thread (d = tid & 127, half = tid >> 7) of the
// first k_gate_threads threads takes column d of rows [32 half, 32 half + 32) with gate_read, and
// gate_scan turns them into gamma: in[r] becomes the prefix sum of g over rows [32 half, 32 half +
// r], the first half's column total goes to s_tot[d] and, after a barrier, store_gamma adds it to
// the second half, writing gamma over the gate in s. (v40: before, each gate thread made 32
// register loads of its column; they queued behind the tile's other loads and held the issue on
// their address registers: 5 % of bwd_grad's stall samples in session 23's profile. The copies are
// 8x fewer instructions and hold no registers in flight. Same values, same gamma bits.)
// first_row: index of the chunk's first token row times H plus the head, in elements of [T*H].
__device__ __forceinline__ void gate_copy_rows(const float* gate_in, std::size_t first_row, int heads, int len,
                                               int tid, int threads, float* s, int ld) {
#pragma unroll 1
  for (int idx = tid; idx < 64 * 32; idx += threads) {
    const int i = idx >> 5, seg = idx & 31;
    float* dst = s + i * ld + seg * 4;
    if (i < len) {
      cp_async_16(dst, gate_in + (first_row + static_cast<std::size_t>(i) * heads) * 128 + seg * 4);
    } else {
      *reinterpret_cast<float4*>(dst) = make_float4(0.f, 0.f, 0.f, 0.f);
    }
  }
}
__device__ __forceinline__ void gate_read(const float* s, int ld, int tid, float (&in)[32]) {
  const int d = tid & 127, half = tid >> 7;
#pragma unroll
  for (int r = 0; r < 32; ++r) in[r] = s[(32 * half + r) * ld + d]; // rows >= len hold 0
}

// The raw form's per-column constants A_log and dt_bias of the thread's column (unused, 0, for the
// g form), loaded as the caller's loads go out; gate_scan forms -exp(A_log) only once the gate is
// in. (Before v53 gate_consts_of formed it, and its wait for A_log held back every copy issued
// after it: 0.4 % of bwd_grad's stall samples in session 34's profile. The same value either way.)
struct gate_consts {
  float A_log = 0.f, bias = 0.f;
};
template <bool RAW>
__device__ __forceinline__ gate_consts gate_consts_of(const float* A_log, const float* dt_bias, int head, int tid) {
  gate_consts c;
  if constexpr (RAW) {
    c.A_log = A_log[head];
    c.bias = dt_bias[head * 128 + (tid & 127)];
  }
  return c;
}

template <bool RAW>
__device__ __forceinline__ void gate_scan(gate_consts c, int len, int tid, float (&gam)[32], float* s_tot) {
  const int d = tid & 127, half = tid >> 7;
  const float neg_A = RAW ? neg_A_of(c.A_log) : 0.f;
  float acc = 0.f;
#pragma unroll
  for (int r = 0; r < 32; ++r) {
    const float g = log_gate<RAW>(gam[r], neg_A, c.bias); // rows >= len hold 0: finite, not used
    acc += 32 * half + r < len ? g : 0.f;
    gam[r] = acc;
  }
  if (half == 0) s_tot[d] = acc;
}

// After gate_scan and a barrier: gamma of the whole chunk into s_g (row stride ld; each thread over
// the gate it read), adding the first half's column totals (s_tot) to the second half, and
// gamma_C (the last row) into s_gamC.
__device__ __forceinline__ void store_gamma(const float (&gam)[32], const float* s_tot, float* s_g, int ld,
                                            float* s_gamC, int tid) {
  const int d = tid & 127, half = tid >> 7;
  const float off = half ? s_tot[d] : 0.f;
#pragma unroll
  for (int r = 0; r < 32; ++r) s_g[(32 * half + r) * ld + d] = off + gam[r];
  if (half == 1) s_gamC[d] = off + gam[31];
}

// Largest gamma span of a 16-row sub-block whose diagonal block goes through the factorised
// (tensor-core) form, forward and backward alike: its factors reach exp(64) = 6.2e27 and
// exp(-64) = 1.6e-28, normal FP32/TF32 numbers with ten decades to overflow for the sums they
// enter (16 or 128 terms of O(1) data times the factor); the relative rounding of each term does
// not depend on the factor's size. Wider blocks go pair by pair in FP32.
// Why 64 and not 40 (bwd v5, docs/perf-log.md): with per-channel decays up to ~16 per token an
// eighth of the sub-blocks at the seed's *normal* decay spanned more than 40 in some column, and
// the pair-by-pair path cost a quarter of bwd_grad; beyond 64 almost only fast decay remains.
constexpr float k_span_limit = 64.f;

// wide[sb]: the gamma span of rows [16 sb, 16 sb + 16) of gate_scan's gam[] exceeds
// k_span_limit (NaN counts as wide: take the pair-by-pair path).
__device__ __forceinline__ void wide_sub_blocks(const float (&gam)[32], bool (&wide)[2]) {
#pragma unroll
  for (int sb = 0; sb < 2; ++sb) {
    float lo = gam[16 * sb], hi = lo;
#pragma unroll
    for (int r = 1; r < 16; ++r) {
      lo = fminf(lo, gam[16 * sb + r]);
      hi = fmaxf(hi, gam[16 * sb + r]);
    }
    wide[sb] = !(hi - lo <= k_span_limit);
  }
}

// slow[I] for the chunk's four 16-row sub-blocks, from every gate thread's wide_sub_blocks (thread
// half h covers sub-blocks 2h and 2h + 1): a sub-block is slow when any column of it is wide.
// Through four flags in shared memory, so that one barrier serves (v42; before, four
// __syncthreads_or in a row): clear_wide_flags before a barrier that comes before mark_wide, then
// after mark_wide a barrier, then read_slow. Every thread that marks a flag writes the same 1.
__device__ __forceinline__ void clear_wide_flags(int* s_wide, int tid) {
  if (tid < 4) s_wide[tid] = 0;
}
__device__ __forceinline__ void mark_wide(const bool (&wide)[2], int tid, int* s_wide) {
  const int half = tid >> 7;
#pragma unroll
  for (int sb = 0; sb < 2; ++sb) {
    if (wide[sb]) s_wide[2 * half + sb] = 1;
  }
}
__device__ __forceinline__ void read_slow(const int* s_wide, bool (&slow)[4]) {
#pragma unroll
  for (int I = 0; I < 4; ++I) slow[I] = s_wide[I] != 0;
}

} // namespace kda::dev
