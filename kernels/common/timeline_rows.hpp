#pragma once
// The rows of the timeline build's table (common/timeline.cuh, docs/timeline.md) and which of them
// a kda_fwd / kda_bwd call clears before its launches. Host-only and pure, so that
// tests/kernels/timeline_rows_test.cpp checks it without a device.

namespace kda::dev {

// One row per kernel.
enum tl_kernel : int { tl_intra, tl_state, tl_output, tl_dh, tl_grad, tl_reduce, tl_count };

constexpr unsigned tl_bit(tl_kernel row) { return 1u << row; }
constexpr unsigned k_tl_all_rows = (1u << tl_count) - 1;

// What a call clears (`clear`) and which rows may hold blocks after it (`dirty`).
struct tl_rows {
  unsigned clear;
  unsigned dirty;
};

// A forward starts a new timeline: every row is emptied, then it writes intra, state and output.
// A backward replaces the rows it launches: dh, grad and reduce, on the replay path also intra
// and state. So the table holds the last forward and the backward after it (`--ops fwd+bwd`), or
// the last forward alone. A row is cleared only where something may have written it since its
// last clear (`dirty`): clearing is 3 memsets a row on the stream, and in a fwd+bwd call the
// backward's 9, between the forward's end and the backward's start, put 17 - 32 us into the
// timeline that the normal build does not have (docs/perf-log.md, session 40). A stream that is
// being captured into a graph clears every row it would write, since each replay of the graph
// must start from a clear table whatever ran before the capture.
constexpr tl_rows tl_rows_for_call(unsigned dirty, bool fwd, bool replay_bwd, bool capturing) {
  const unsigned fwd_rows = tl_bit(tl_intra) | tl_bit(tl_state) | tl_bit(tl_output);
  const unsigned bwd_rows = tl_bit(tl_dh) | tl_bit(tl_grad) | tl_bit(tl_reduce) |
                            (replay_bwd ? tl_bit(tl_intra) | tl_bit(tl_state) : 0u);
  const unsigned replaced = fwd ? k_tl_all_rows : bwd_rows;
  const unsigned written = fwd ? fwd_rows : bwd_rows;
  return {replaced & (capturing ? k_tl_all_rows : dirty), (dirty & ~replaced) | written};
}

} // namespace kda::dev
