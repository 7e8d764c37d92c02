// The serial passes' per-thread copy offsets (kernels/common/serial_copies.cuh) make exactly the
// copies of the loops they replaced, `for (idx = tid; idx < rows * SEGS; idx += THREADS)` with row
// idx / SEGS and segment idx % SEGS: the same thread, the same n-th copy, so no bit can change.
// THREADS is 256 (a whole CTA) or 128 (one role of the warp-specialised 16-column pass).
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "common/serial_copies.cuh"

namespace {

template <int SEGS, int THREADS = 256>
void expect_same_copies_as_the_loop(int rows, int g_ld, int s_ld, int seg, int g_col0) {
  std::set<std::pair<int, int>> seen;
  for (int tid = 0; tid < THREADS; ++tid) {
    const kda::dev::row_copies<SEGS, THREADS> c(tid, g_ld, s_ld, seg, g_col0);
    int n = 0;
    for (int idx = tid; idx < rows * SEGS; idx += THREADS, ++n) {
      const int row = idx / SEGS, sg = idx % SEGS;
      EXPECT_EQ(c.row0 + n * c.rows, row);
      EXPECT_EQ(c.g + n * c.rows * g_ld, row * g_ld + g_col0 + sg * seg);
      EXPECT_EQ(c.s + n * c.rows * s_ld, row * s_ld + sg * seg);
      seen.insert({row, sg});
    }
    EXPECT_EQ(n, rows / c.rows); // the copy count the passes unroll
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(rows * SEGS));
}

TEST(serial_copies, match_the_copy_loops_of_every_tile) {
  // (w, qg, kg and Aqk come from the copy engine since v18 / v19: common/tile_maps.cuh)
  expect_same_copies_as_the_loop<8>(64, 128, 40, 4, 32);        // u, V tile 32 (second tile)
  expect_same_copies_as_the_loop<16>(64, 128, 72, 4, 64);       // u, V tile 64
  expect_same_copies_as_the_loop<4>(128, 128, 40, 8, 96);       // h / dh out, V tile 32
  expect_same_copies_as_the_loop<8>(128, 128, 72, 8, 64);       // h / dh out, V tile 64
  expect_same_copies_as_the_loop<4>(64, 8192, 40, 8, 32);       // do rows of [T, H, V], H = 64
  // one role (128 threads) of the warp-specialised passes of 16-column V tiles
  expect_same_copies_as_the_loop<4, 128>(64, 128, 24, 4, 32);   // u, V tile 16 (third tile)
  expect_same_copies_as_the_loop<2, 128>(128, 128, 24, 8, 48);  // h / dh out, V tile 16
  expect_same_copies_as_the_loop<2, 128>(64, 128, 24, 8, 16);   // dv_new out, V tile 16
  expect_same_copies_as_the_loop<2, 128>(64, 512, 24, 8, 16);   // do rows of [T, H, V], H = 4
}

} // namespace
