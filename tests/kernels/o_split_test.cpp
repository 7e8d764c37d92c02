// Where the saved path's forward splits o between the 16-column state pass and fwd_output
// (kda::dev::first_o_chunk, kernels/fwd/o_split.cuh): the pass forms o from the returned chunk
// on, fwd_output the chunks before it. The host builds fwd_output's chunk order with the same
// function (kernels/api.cu), so these cases pin the rule itself: v47's (one threshold and a fixed
// tail) when the slack is 0/0, and v48's per-sequence tail otherwise.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

#include "fwd/o_split.cuh"

namespace {

using kda::dev::first_o_chunk;

TEST(o_split, slack_0_0_is_v47s_threshold_and_fixed_tail) {
  // R2's sequences (110, 86, 61 chunks), v47's threshold 4/5 of the longest = 88, tail 4
  EXPECT_EQ(first_o_chunk(110, 88, 4, 110, 0, 0), 106);
  EXPECT_EQ(first_o_chunk(86, 88, 4, 110, 0, 0), 0); // under the threshold: all o in the pass
  EXPECT_EQ(first_o_chunk(61, 88, 4, 110, 0, 0), 0);
  EXPECT_EQ(first_o_chunk(3, 1, 4, 3, 0, 0), 0); // shorter than the tail
}

TEST(o_split, each_sequence_keeps_the_chunks_its_chain_can_take_on_beside_the_longest) {
  // slack 20/9: (110 - n) * 20 / 9 last chunks, at least the tail of 4
  EXPECT_EQ(first_o_chunk(110, 1, 4, 110, 20, 9), 106);
  EXPECT_EQ(first_o_chunk(86, 1, 4, 110, 20, 9), 86 - 53);
  EXPECT_EQ(first_o_chunk(61, 1, 4, 110, 20, 9), 0); // 108 > 61: every chunk in the pass
  // m2 (32 and 24 chunks)
  EXPECT_EQ(first_o_chunk(32, 1, 4, 32, 20, 9), 28);
  EXPECT_EQ(first_o_chunk(24, 1, 4, 32, 20, 9), 24 - 17);
}

TEST(o_split, stays_within_the_sequence_and_never_leaves_less_than_the_tail) {
  for (int longest = 1; longest <= 300; longest += 7) {
    for (int n = 1; n <= longest; ++n) {
      for (const int tail : {0, 4, 8}) {
        for (const auto& [num, den] : {std::pair{0, 0}, std::pair{1, 1}, std::pair{20, 9}, std::pair{4, 1}}) {
          const int first = first_o_chunk(n, 1, tail, longest, num, den);
          ASSERT_GE(first, 0);
          ASSERT_LE(first, n - std::min(n, tail)) << n << " of " << longest << ", tail " << tail;
          // a larger slack never gives fwd_output more chunks
          if (den > 0) {
            ASSERT_LE(first, first_o_chunk(n, 1, tail, longest, 0, 0));
          }
        }
      }
    }
  }
}

} // namespace
