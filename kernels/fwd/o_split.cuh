#pragma once
// Where the saved path's forward splits o between the 16-column state pass and fwd_output. The
// host works it out once per sequence (kda_plan_create, kernels/api.cu): fwd_output's chunk order
// and the pass's first chunk with o (kda_plan::o_first) both come from it
// (tests/kernels/o_split_test.cpp).

namespace kda::dev {

// The first chunk of a sequence of num_chunks chunks whose o the pass forms (where it forms o at
// all): 0, or for a sequence whose o is left to fwd_output ("o_apart": at least apart_min_chunks
// chunks) its last o_tail chunks, or (v48, o_slack_den > 0) its last
// (longest_chunks - num_chunks) * o_slack_num / o_slack_den chunks where that is more: a shorter
// chain can take on o for that many steps and still end with the longest one's. The host's
// fwd_output order (kda_plan::out_order) holds exactly the chunks before it.
inline int first_o_chunk(int num_chunks, int apart_min_chunks, int o_tail, int longest_chunks, int o_slack_num,
                         int o_slack_den) {
  if (num_chunks < apart_min_chunks) return 0;
  int tail = o_tail;
  if (o_slack_den > 0) {
    const int slack = (longest_chunks - num_chunks) * o_slack_num / o_slack_den;
    tail = slack > tail ? slack : tail;
  }
  return num_chunks > tail ? num_chunks - tail : 0;
}

} // namespace kda::dev
