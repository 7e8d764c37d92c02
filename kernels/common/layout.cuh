#pragma once
// Shapes, chunk tables and the layout of the intermediates between kernel stages.
#include <cstddef>
#include <cstdint>

namespace kda::dev {

constexpr int k_chunk = 64; // C: tokens per chunk
constexpr int k_dim = 128;  // K
constexpr int v_dim = 128;  // V
constexpr int k_sub = 16;   // sub-block rows inside a chunk (exponent-safe reference rows)

// One chunk of one sequence: tokens [start, start + len) with 1 <= len <= 64.
struct chunk_info {
  std::int32_t seq;
  std::int32_t start;
  std::int32_t len;
  std::int32_t index_in_seq;
};

// A block's chunk in a grid that takes the chunks in an order of its own (bwd_grad, fwd_output):
// the chunk's index with its first token and length, so that a block reads one 16-byte record
// before its tile's loads instead of an index and then the chunk table (two dependent loads,
// about 2 % of bwd_grad's stall samples in session 23's profile; v43).
struct alignas(16) ordered_chunk {
  std::int32_t chunk;
  std::int32_t start;
  std::int32_t len;
  std::int32_t unused;
};

// One sequence: its chunks are chunk_table[first_chunk, first_chunk + num_chunks).
struct seq_info {
  std::int32_t first_chunk;
  std::int32_t num_chunks;
  std::int32_t start;
  std::int32_t len;
};

// The tile of chunk c (counted inside the sequence) of sequence sq and head `head`: every serial
// pass walks a sequence's chunks by it (host and device: constexpr, --expt-relaxed-constexpr).
constexpr std::size_t seq_tile(const seq_info& sq, int c, int heads, int head) {
  return static_cast<std::size_t>(sq.first_chunk + c) * heads + head;
}

// Intermediates are stored per (chunk, head) tile, tile = chunk * H + head, contiguous:
// padding rows of a short last chunk are written as zeros so later stages need no masks.
struct tile_sizes {
  static constexpr std::size_t ck = static_cast<std::size_t>(k_chunk) * k_dim; // [64][128]
  static constexpr std::size_t cc = static_cast<std::size_t>(k_chunk) * k_chunk; // [64][64]
  static constexpr std::size_t kv = static_cast<std::size_t>(k_dim) * v_dim;    // [128][128]
};

} // namespace kda::dev
