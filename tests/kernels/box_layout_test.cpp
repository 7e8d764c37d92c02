// The serial passes read the copy engine's swizzled boxes through swz_offset
// (kernels/common/box_layout.cuh) and place box cb at box_offset(cb). Checked here against the
// swizzle as the hardware applies it to a box's dense image, and for the two properties the loads
// rely on: no two elements share a byte, and ldmatrix's 8 row addresses of one 16-byte column
// chunk fall in 8 different bank groups.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>

#include "common/box_layout.cuh"

namespace {

using kda::dev::box_offset;
using kda::dev::k_box_bytes;
using kda::dev::swizzle_128b;
using kda::dev::swz_offset;

TEST(box_layout, element_offsets_are_where_the_copy_engine_writes) {
  for (int r = 0; r < 64; ++r) {
    for (int c = 0; c < 128; ++c) {
      const std::uint32_t dense_in_box = static_cast<std::uint32_t>(r * 128 + (c % 64) * 2);
      EXPECT_EQ(swz_offset(r, c), box_offset(c / 64) + swizzle_128b(dense_in_box)) << "r " << r << " c " << c;
    }
  }
}

TEST(box_layout, a_tile_is_a_permutation_of_its_bytes) {
  std::set<std::uint32_t> seen;
  for (int r = 0; r < 64; ++r) {
    for (int c = 0; c < 128; ++c) {
      const std::uint32_t o = swz_offset(r, c);
      EXPECT_LT(o, 2 * k_box_bytes);
      EXPECT_EQ(o % 2, 0u);
      seen.insert(o);
    }
  }
  EXPECT_EQ(seen.size(), 64u * 128u);
}

TEST(box_layout, ldmatrix_rows_of_a_column_chunk_hit_distinct_bank_groups) {
  // One ldmatrix phase: 8 lanes, rows r0 .. r0 + 7 (r0 a multiple of 8), the same 8 columns.
  for (int r0 = 0; r0 < 64; r0 += 8) {
    for (int c = 0; c < 128; c += 8) {
      std::set<std::uint32_t> groups; // 16-byte bank groups: 8 per 128 bytes of banks
      for (int i = 0; i < 8; ++i) groups.insert((swz_offset(r0 + i, c) / 16) % 8);
      EXPECT_EQ(groups.size(), 8u) << "rows " << r0 << " column " << c;
    }
  }
}

TEST(box_layout, stage_sizes_keep_boxes_aligned) {
  EXPECT_EQ(kda::dev::box_aligned(0), 0u);
  EXPECT_EQ(kda::dev::box_aligned(1), 1024u);
  EXPECT_EQ(kda::dev::box_aligned(1024), 1024u);
  EXPECT_EQ(kda::dev::box_aligned(39424), 39936u); // the 16-column forward's chain stage
}

} // namespace
