#pragma once
#include <cuda_runtime.h> // __host__ __device__ (the mapping is tested on the host)
// The 16-byte copies one thread of a serial pass (fwd_state, bwd_dh: 256 threads) makes per chunk
// step. Every step copies the same rows and segments of its tiles, only the tile moves, so the
// offsets are computed once per CTA: the copy loops with a division and 64-bit products per copy
// were most of a chunk step's instructions (docs/perf-log.md, "Static count"), and each
// instruction a warp issues costs its step about 8 cycles.

namespace kda::dev {

// A tile copied in SEGS 16-byte segments per row by 256 threads: this thread's copies are rows
// row0 + n * rows (n = 0, 1, ...) at segment tid % SEGS. g and s are the global and shared
// offsets (elements) of copy 0; copy n adds n * rows rows to each.
template <int SEGS>
struct row_copies {
  static constexpr int rows = 256 / SEGS;
  int row0, g, s;
  // g_ld, s_ld: row strides; seg: elements per segment; g_col0: the global column of segment 0.
  __host__ __device__ row_copies(int tid, int g_ld, int s_ld, int seg, int g_col0 = 0)
      : row0(tid / SEGS), g(row0 * g_ld + g_col0 + (tid % SEGS) * seg), s(row0 * s_ld + (tid % SEGS) * seg) {}
  // Passes over a tile of tile_rows rows, and whether this thread's copy n is one: a pass wider
  // than the tile (16-column V tiles: 2 segments, 128 rows a pass, 64-row tiles) leaves the
  // threads past the tile's last row without one. Constant-folds to true when passes fit.
  __host__ __device__ static constexpr int passes(int tile_rows) { return (tile_rows + rows - 1) / rows; }
  __host__ __device__ bool copies(int n, int tile_rows) const {
    return (n + 1) * rows <= tile_rows || row0 + n * rows < tile_rows;
  }
};

} // namespace kda::dev
