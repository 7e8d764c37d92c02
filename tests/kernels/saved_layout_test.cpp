// The saved set's layout (kernels/plan.cuh, docs/kernels.md): regions in the documented order,
// back to back, 16-byte aligned (the kernels read and write them with 16-byte accesses), and
// 2440 bytes per token and head in all.
#include <gtest/gtest.h>

#include <cstdint>

#include "plan.cuh"

namespace {

kda_plan plan_of(int chunks, int heads) {
  kda_plan p;
  p.num_chunks = chunks;
  p.problem.heads = heads;
  return p;
}

TEST(saved_layout, regions_follow_each_other_in_the_documented_order) {
  const kda_plan p = plan_of(3, 2); // 6 tiles
  alignas(16) static unsigned char base[6 * 156160];
  kda_plan::saved_regions r;
  const std::size_t bytes = p.saved_layout(base, &r);
  const auto at = [&](const void* q) { return static_cast<std::size_t>(static_cast<const unsigned char*>(q) - base); };
  const std::size_t t = p.tiles();
  EXPECT_EQ(at(r.h), 0u);
  EXPECT_EQ(at(r.vn), t * 128 * 128 * 2);       // h: [tile][128][128] bf16
  EXPECT_EQ(at(r.w), at(r.vn) + t * 64 * 128 * 4); // v_new: [tile][64][128] fp32
  EXPECT_EQ(at(r.qg), at(r.w) + t * 64 * 128 * 2);
  EXPECT_EQ(at(r.qg_lo), at(r.qg) + t * 64 * 128 * 2);
  EXPECT_EQ(at(r.kg), at(r.qg_lo) + t * 64 * 128 * 2);
  EXPECT_EQ(at(r.Aqk), at(r.kg) + t * 64 * 128 * 2);
  EXPECT_EQ(at(r.X), at(r.Aqk) + t * 64 * 64 * 2); // Aqk: [tile][64][64] bf16
  EXPECT_EQ(at(r.gC), at(r.X) + t * 64 * 64 * 4);  // X: [tile][64][64] fp32
  EXPECT_EQ(bytes, at(r.gC) + t * 128 * 4);        // exp(gamma_C): [tile][128] fp32
  for (const void* q : {static_cast<const void*>(r.h), static_cast<const void*>(r.vn), static_cast<const void*>(r.w),
                        static_cast<const void*>(r.qg), static_cast<const void*>(r.qg_lo),
                        static_cast<const void*>(r.kg),
                        static_cast<const void*>(r.Aqk), static_cast<const void*>(r.X),
                        static_cast<const void*>(r.gC)}) {
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(q) % 16, 0u);
  }
}

TEST(saved_layout, is_2440_bytes_per_token_and_head_and_the_size_needs_no_buffer) {
  const kda_plan p = plan_of(256, 64); // 1doc or 4doc: 16384 tokens in 256 full chunks, 64 heads
  kda_plan::saved_regions r;
  const std::size_t bytes = p.saved_layout(nullptr, &r);
  EXPECT_EQ(bytes, 256u * 64 * 64 * 2440);
  EXPECT_EQ(p.saved_bytes(), bytes);
  EXPECT_EQ(r.h, nullptr);
  EXPECT_EQ(r.gC, nullptr);
}

TEST(saved_layout, starts_with_the_h_and_v_new_of_the_replay_buffer) {
  // The replay path keeps h and v_new in a buffer of replay_bytes() laid out as the saved set's
  // first two regions (api.cu reads both through saved_layout).
  const kda_plan p = plan_of(5, 3);
  alignas(16) static unsigned char base[15 * 156160];
  kda_plan::saved_regions r;
  p.saved_layout(base, &r);
  EXPECT_EQ(reinterpret_cast<unsigned char*>(r.w), base + p.replay_bytes());
  EXPECT_EQ(p.replay_bytes(), p.tiles() * (128 * 128 * 2 + 64 * 128 * 4));
}

} // namespace
