#pragma once
#include <cuda_runtime.h> // __host__ __device__ (the mapping is tested on the host)
// The 16-byte copies one thread of a serial pass (fwd_state, bwd_dh: 256 threads) makes per chunk
// step. Every step copies the same rows and segments of its tiles, only the tile moves, so the
// offsets are computed once per CTA: the copy loops with a division and 64-bit products per copy
// were most of a chunk step's instructions (docs/perf-log.md, "Static count"), and each
// instruction a warp issues costs its step about 8 cycles.

namespace kda::dev {

// A tile copied in SEGS 16-byte segments per row by THREADS threads (tid counted from the first of
// them): this thread's copies are rows row0 + n * rows (n = 0, 1, ...) at segment tid % SEGS. g and
// s are the global and shared offsets (elements) of copy 0; copy n adds n * rows rows to each.
template <int SEGS, int THREADS = 256>
struct row_copies {
  static constexpr int rows = THREADS / SEGS;
  int row0, g, s;
  // g_ld, s_ld: row strides; seg: elements per segment; g_col0: the global column of segment 0.
  __host__ __device__ row_copies(int tid, int g_ld, int s_ld, int seg, int g_col0 = 0)
      : row0(tid / SEGS), g(row0 * g_ld + g_col0 + (tid % SEGS) * seg), s(row0 * s_ld + (tid % SEGS) * seg) {}
};

} // namespace kda::dev
