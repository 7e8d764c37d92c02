// Which rows of the timeline build's table each call clears (kda::dev::tl_rows_for_call,
// kernels/common/timeline_rows.hpp): a row is cleared only where a call replaces it and
// something may have written it since its last clear, so that a backward right after a forward
// (`--ops fwd+bwd`) puts no copies between the two (session 40: those copies were the 17 - 32 us
// gap in every fwd+bwd timeline). What each call replaces, and graph capture, clear as before.
#include <gtest/gtest.h>

#include "common/timeline_rows.hpp"

namespace {

using namespace kda::dev;

constexpr unsigned k_fwd_rows = tl_bit(tl_intra) | tl_bit(tl_state) | tl_bit(tl_output);
constexpr unsigned k_bwd_rows = tl_bit(tl_dh) | tl_bit(tl_grad) | tl_bit(tl_reduce);

TEST(timeline_rows, a_fresh_table_is_clear_so_the_first_forward_clears_nothing) {
  const tl_rows r = tl_rows_for_call(0, true, false, false);
  EXPECT_EQ(r.clear, 0u);
  EXPECT_EQ(r.dirty, k_fwd_rows);
}

TEST(timeline_rows, a_saved_backward_after_a_forward_clears_nothing) {
  const tl_rows f = tl_rows_for_call(0, true, false, false);
  const tl_rows b = tl_rows_for_call(f.dirty, false, false, false);
  EXPECT_EQ(b.clear, 0u);
  EXPECT_EQ(b.dirty, k_fwd_rows | k_bwd_rows); // the table holds the forward and the backward
}

TEST(timeline_rows, a_backward_after_a_backward_clears_the_rows_it_replaces) {
  const tl_rows b = tl_rows_for_call(k_fwd_rows | k_bwd_rows, false, false, false);
  EXPECT_EQ(b.clear, k_bwd_rows); // the forward's rows stay: `--ops bwd` keeps the last forward
  EXPECT_EQ(b.dirty, k_fwd_rows | k_bwd_rows);
}

TEST(timeline_rows, a_forward_empties_every_written_row_and_starts_a_new_timeline) {
  const tl_rows f = tl_rows_for_call(k_fwd_rows | k_bwd_rows, true, false, false);
  EXPECT_EQ(f.clear, k_fwd_rows | k_bwd_rows);
  EXPECT_EQ(f.dirty, k_fwd_rows); // the backward's rows are clear again
}

TEST(timeline_rows, a_replay_backward_replaces_intra_and_state_but_not_output) {
  const unsigned replay_rows = k_bwd_rows | tl_bit(tl_intra) | tl_bit(tl_state);
  const tl_rows after_fwd = tl_rows_for_call(k_fwd_rows, false, true, false);
  EXPECT_EQ(after_fwd.clear, tl_bit(tl_intra) | tl_bit(tl_state)); // the forward wrote them
  EXPECT_EQ(after_fwd.dirty, k_fwd_rows | k_bwd_rows);
  EXPECT_EQ(tl_rows_for_call(k_tl_all_rows, false, true, false).clear, replay_rows);
}

TEST(timeline_rows, a_captured_call_clears_everything_it_replaces_whatever_is_clean) {
  EXPECT_EQ(tl_rows_for_call(0, true, false, true).clear, k_tl_all_rows);
  EXPECT_EQ(tl_rows_for_call(0, false, false, true).clear, k_bwd_rows);
}

TEST(timeline_rows, stages_timed_alone_leave_every_row_to_be_cleared) {
  // kda_run_stage marks every row written (tl_touch_all): the next backward clears all it replaces
  EXPECT_EQ(tl_rows_for_call(k_tl_all_rows, false, false, false).clear, k_bwd_rows);
  EXPECT_EQ(tl_rows_for_call(k_tl_all_rows, true, false, false).clear, k_tl_all_rows);
}

} // namespace
