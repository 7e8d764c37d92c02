// The roofline counts (docs/roofline.md): bytes and FLOPs per op from the shapes, and where a
// measured time lands against the ceilings.
#include <gtest/gtest.h>

#include "report/roofline.hpp"
#include "support/temp_dir.hpp"

namespace kda::report {
namespace {

problem_dims dims(std::vector<std::int32_t> cu, int heads) {
  return problem_dims{std::move(cu), heads, 128, 128};
}

double sum_macs(const std::vector<flop_term>& terms) {
  double m = 0;
  for (const auto& t : terms) m += t.macs;
  return m;
}

TEST(roofline, forward_terms_of_a_full_chunk) {
  const auto t = fwd_flop_terms(64, 128, 128);
  ASSERT_EQ(t.size(), 7u);
  EXPECT_EQ(t[0].macs, 64 * 63 / 2 * 128); // Akk, i > j
  EXPECT_EQ(t[1].macs, 64 * 63 / 2 * 256); // forward substitution over [w | u]
  EXPECT_EQ(t[2].macs, 64 * 65 / 2 * 128); // Aqk, i >= j
  EXPECT_EQ(t[3].macs, 64.0 * 128 * 128);  // v_new = u - w h
  // 4452352 multiply-adds per (chunk, head): 139136 FLOPs per token and head.
  EXPECT_EQ(sum_macs(t), 4452352.0);
  EXPECT_EQ(2 * sum_macs(t) / 64, 139136.0);
}

TEST(roofline, backward_terms_replay_adds_the_state_recompute) {
  const auto saved = bwd_flop_terms(64, 128, 128, bwd_path::saved);
  const auto replay = bwd_flop_terms(64, 128, 128, bwd_path::replay);
  EXPECT_EQ(replay.size(), saved.size() + 7);
  // The saved set holds the intra-chunk results: replay recomputes Akk (c(c-1)/2 K), the inverse
  // (c(c-1)(c-2)/6), w and Aqk (c(c+1)/2 K each), u (c(c+1)/2 V), v_new and h_next (c K V each).
  EXPECT_EQ(sum_macs(replay) - sum_macs(saved), 64 * 63 / 2 * 128 + 64 * 63 * 62 / 6 + 3 * (64 * 65 / 2 * 128) +
                                                    2 * 64.0 * 128 * 128);
  for (const auto& term : saved) EXPECT_GT(term.macs, 0) << term.name;
  // Six c x K x V products of the gradient stages dominate: more than the forward's three.
  EXPECT_GT(sum_macs(saved), sum_macs(fwd_flop_terms(64, 128, 128)));
}

TEST(roofline, terms_of_a_short_chunk_scale_with_its_rows) {
  const auto one = fwd_flop_terms(1, 128, 128);
  EXPECT_EQ(one[0].macs, 0);           // no pair i > j in one row
  EXPECT_EQ(one[2].macs, 128);         // the diagonal of Aqk
  EXPECT_EQ(one[3].macs, 128.0 * 128); // one row of w h
  const auto bwd = bwd_flop_terms(2, 128, 128, bwd_path::replay);
  EXPECT_EQ(bwd[1].macs, 0); // the inverse of a 2 x 2 unit lower-triangular matrix is free
}

TEST(roofline, forward_bytes) {
  // One sequence of 128 tokens (two full chunks), 2 heads, g form.
  const problem_dims d = dims({0, 128}, 2);
  const double th = 128.0 * 2;
  // q, k, v, o bf16 (4 x 256 B) + beta bf16 (2 B) + g fp32 (512 B) per token and head.
  EXPECT_EQ(count_work(op_kind::fwd, d, gate_form::g, bwd_path::replay).bytes, th * 1538);
  // The saved path also writes the saved set: 2440 B per token and head for full chunks
  // (h 512 and v_new 512; w, qg, qg_lo, kg 1024; Aqk 128; X 256; exp(gamma_C) 8).
  EXPECT_EQ(count_work(op_kind::fwd, d, gate_form::g, bwd_path::saved).bytes, th * (1538 + 2440));
  // The raw form reads A_log [H] and dt_bias [H, K] in fp32 too.
  EXPECT_EQ(count_work(op_kind::fwd, d, gate_form::raw, bwd_path::replay).bytes,
            th * 1538 + 2 * (1 + 128) * 4);
}

TEST(roofline, a_short_chunk_still_saves_its_whole_state) {
  // 65 tokens: one full chunk and one of a single row.
  const problem_dims d = dims({0, 65}, 1);
  const double saved = count_work(op_kind::fwd, d, gate_form::g, bwd_path::saved).bytes -
                       count_work(op_kind::fwd, d, gate_form::g, bwd_path::replay).bytes;
  // Two h tiles and exp(gamma_C) rows; per row v_new (fp32), w, qg, qg_lo, kg (bf16); per chunk
  // c x c of Aqk and X.
  EXPECT_EQ(saved, 2 * (128.0 * 128 * 2 + 128 * 4) + 65 * 128.0 * (4 + 4 * 2) + (64.0 * 64 + 1) * (2 + 4));
}

TEST(roofline, backward_bytes_and_fwd_bwd_is_the_sum) {
  const problem_dims d = dims({0, 64, 192}, 3);
  const double th = 192.0 * 3;
  // Reads q, k, v, do, beta, g (1538 B); writes dq, dk, dv, dbeta, dg (1282 B); saved: reads 2440 B.
  EXPECT_EQ(count_work(op_kind::bwd, d, gate_form::g, bwd_path::replay).bytes, th * (1538 + 1282));
  EXPECT_EQ(count_work(op_kind::bwd, d, gate_form::g, bwd_path::saved).bytes,
            th * (1538 + 1282 + 2440));
  for (const bwd_path path : {bwd_path::saved, bwd_path::replay}) {
    const op_work f = count_work(op_kind::fwd, d, gate_form::raw, path);
    const op_work b = count_work(op_kind::bwd, d, gate_form::raw, path);
    const op_work fb = count_work(op_kind::fwd_bwd, d, gate_form::raw, path);
    EXPECT_EQ(fb.bytes, f.bytes + b.bytes);
    EXPECT_EQ(fb.flops, f.flops + b.flops);
  }
}

TEST(roofline, flops_sum_over_chunks_sequences_and_heads) {
  // Sequences of 64, 100 (64 + 36) and 0 tokens, 4 heads.
  const problem_dims d = dims({0, 64, 164, 164}, 4);
  const double per_head =
      2 * (2 * sum_macs(fwd_flop_terms(64, 128, 128)) + sum_macs(fwd_flop_terms(36, 128, 128)));
  EXPECT_EQ(count_work(op_kind::fwd, d, gate_form::g, bwd_path::saved).flops, 4 * per_head);
}

TEST(roofline, place_on_the_roofline) {
  const ceilings_info c{4000.0, 800.0, std::uint64_t{2} << 30, 8192};
  // 4 GB at 4000 GB/s: 1 ms of memory floor; 0.4 TFLOP at 800 TFLOP/s: 0.5 ms of compute floor.
  const op_work w{4e9, 0.4e12};
  const roofline_point p = place_on_roofline(w, c, 2.0);
  EXPECT_DOUBLE_EQ(p.memory_floor_ms, 1.0);
  EXPECT_DOUBLE_EQ(p.compute_floor_ms, 0.5);
  EXPECT_DOUBLE_EQ(p.floor_ms, 1.0);
  EXPECT_TRUE(p.memory_bound);
  EXPECT_DOUBLE_EQ(p.fraction_of_floor, 0.5);
  EXPECT_DOUBLE_EQ(p.achieved_gb_per_s, 2000.0);
  EXPECT_DOUBLE_EQ(p.achieved_tflop_per_s, 200.0);

  const roofline_point q = place_on_roofline(op_work{1e9, 1.6e12}, c, 2.5);
  EXPECT_FALSE(q.memory_bound);
  EXPECT_DOUBLE_EQ(q.floor_ms, 2.0);
  EXPECT_DOUBLE_EQ(q.fraction_of_floor, 0.8);

  kda::test::expect_error<report_error>([&] { place_on_roofline(w, ceilings_info{}, 1.0); },
                                        {"must be positive"});
  kda::test::expect_error<report_error>([&] { place_on_roofline(w, c, 0.0); }, {"0 ms"});
}

} // namespace
} // namespace kda::report
