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
using kda::dev::swizzle_32b;
using kda::dev::swz32_offset;
using kda::dev::swz_offset;
using kda::dev::swz_offset_f32;
using kda::dev::swz_rows_offset;

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

// bwd_grad's h and dh: [128][128] as two [128][64] boxes of 16 KB; with 64 rows the serial passes'
// swz_offset.
TEST(box_layout, tall_box_offsets_are_where_the_copy_engine_writes) {
  std::set<std::uint32_t> seen;
  for (int r = 0; r < 128; ++r) {
    for (int c = 0; c < 128; ++c) {
      const std::uint32_t dense_in_box = static_cast<std::uint32_t>(r * 128 + (c % 64) * 2);
      EXPECT_EQ(swz_rows_offset<128>(r, c), (c / 64) * 16384u + swizzle_128b(dense_in_box)) << "r " << r << " c " << c;
      seen.insert(swz_rows_offset<128>(r, c));
      if (r < 64) {
        EXPECT_EQ(swz_rows_offset<64>(r, c), swz_offset(r, c));
      }
    }
  }
  EXPECT_EQ(seen.size(), 128u * 128u);
}

// The fp32 [64][64] tile of the wgmma state pass (u, then v_new over it): two [64][32] boxes.
TEST(box_layout, fp32_element_offsets_are_where_the_copy_engine_writes) {
  std::set<std::uint32_t> seen;
  for (int r = 0; r < 64; ++r) {
    for (int c = 0; c < 64; ++c) {
      const std::uint32_t dense_in_box = static_cast<std::uint32_t>(r * 128 + (c % 32) * 4);
      EXPECT_EQ(swz_offset_f32(r, c), box_offset(c / 32) + swizzle_128b(dense_in_box)) << "r " << r << " c " << c;
      seen.insert(swz_offset_f32(r, c));
    }
  }
  EXPECT_EQ(seen.size(), 64u * 64u);
  EXPECT_EQ(*seen.rbegin(), 2 * k_box_bytes - 4);
}

TEST(box_layout, fp32_accumulator_layout_reads_hit_32_distinct_banks) {
  // One warp's load of accumulator element (j, e): lane (gid, tig) reads row 8 j + 2 tig + (e & 1),
  // column col0 + gid + 8 (e >> 1), col0 = 16 w (fwd/state_pass_wg.cu).
  for (int w = 0; w < 4; ++w) {
    for (int j = 0; j < 8; ++j) {
      for (int e = 0; e < 4; ++e) {
        std::set<std::uint32_t> banks;
        for (int lane = 0; lane < 32; ++lane) {
          const int gid = lane >> 2, tig = lane & 3;
          banks.insert((swz_offset_f32(8 * j + 2 * tig + (e & 1), 16 * w + gid + 8 * (e >> 1)) / 4) % 32);
        }
        EXPECT_EQ(banks.size(), 32u) << "warp " << w << " j " << j << " e " << e;
      }
    }
  }
}

// h of the 16-column state pass: [128][16] bf16 in the 32-byte swizzle, stored as one box.
TEST(box_layout, h16_offsets_are_where_the_copy_engine_reads_and_a_permutation) {
  std::set<std::uint32_t> seen;
  for (int r = 0; r < 128; ++r) {
    for (int c = 0; c < 16; ++c) {
      const std::uint32_t o = swz32_offset(r, c);
      EXPECT_EQ(o, swizzle_32b(static_cast<std::uint32_t>(r * 32 + c * 2))) << "r " << r << " c " << c;
      seen.insert(o);
    }
  }
  EXPECT_EQ(seen.size(), 128u * 16u);
  EXPECT_EQ(*seen.rbegin(), 128u * 32u - 2u);
}

TEST(box_layout, h16_ldmatrix_rows_of_a_half_hit_distinct_bank_groups) {
  for (int r0 = 0; r0 < 128; r0 += 8) {
    for (int c = 0; c < 16; c += 8) {
      std::set<std::uint32_t> groups;
      for (int i = 0; i < 8; ++i) groups.insert((swz32_offset(r0 + i, c) / 16) % 8);
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
