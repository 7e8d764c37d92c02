#pragma once
// Where the copy engine's [64][64] bf16 boxes put each element in shared memory (the 128-byte
// swizzle, CU_TENSOR_MAP_SWIZZLE_128B), and the offsets the serial passes' loads compute from it.
// Pure arithmetic, host and device: tests/kernels/box_layout_test.cpp checks it on the CPU.
//
// A box is the dense row-major image of [64 rows][64 columns] bf16 (128 bytes a row, 8 KB) at a
// 1024-byte aligned address, with the address bits [4:6] (the 16-byte chunk within the row) XOR
// bits [7:9] (the row within its group of 8). A [64][W] tile (W = 128 or 64) is W / 64 boxes, box
// cb (columns [64 cb, +64)) at cb * k_box_bytes.
#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h> // __host__ __device__

namespace kda::dev {

constexpr std::size_t k_box_bytes = 64 * 64 * 2; // one [64][64] bf16 box

// `bytes` rounded up to the boxes' 1024-byte alignment: the size of a shared-memory stage that
// holds boxes, so that the next stage's boxes start aligned too.
constexpr std::size_t box_aligned(std::size_t bytes) { return (bytes + 1023) / 1024 * 1024; }

// The swizzle as the copy engine applies it to an offset within a box (CUTLASS's Swizzle<3, 4, 3>).
__host__ __device__ constexpr std::uint32_t swizzle_128b(std::uint32_t offset) {
  return offset ^ (((offset >> 7) & 7) << 4);
}

// Where box cb of a tile starts (the copy's destination).
__host__ __device__ constexpr std::uint32_t box_offset(int cb) { return static_cast<std::uint32_t>(cb * k_box_bytes); }

// Byte offset of element (r, c) of a swizzled [64][W] tile from its first box, in the form the
// loads use (r & 7 is the row within its group of 8 for a 1024-byte aligned box).
__host__ __device__ constexpr std::uint32_t swz_offset(int r, int c) {
  return static_cast<std::uint32_t>((c >> 6) * k_box_bytes + r * 128 + ((((c >> 3) & 7) ^ (r & 7)) << 4) + (c & 7) * 2);
}

// The same for a [ROWS][128] tile held as two boxes of [ROWS][64] (ROWS * 128 bytes each, e.g.
// bwd_grad's h and dh, [128][128], boxes of [128][64]): swz_rows_offset<64> is swz_offset.
template <int ROWS>
__host__ __device__ constexpr std::uint32_t swz_rows_offset(int r, int c) {
  return static_cast<std::uint32_t>((c >> 6) * ROWS * 128 + r * 128 + ((((c >> 3) & 7) ^ (r & 7)) << 4) + (c & 7) * 2);
}

// Byte offset of element (r, c) of an fp32 [64][64] tile held as two [64][32] boxes (128 bytes a
// row, 8 KB each) with the same 128-byte swizzle: box c / 32, its 16-byte chunk (c % 32) / 4 at
// chunk ((c % 32) / 4) ^ (r & 7). Rows 2 apart then fall in different bank groups, so the wgmma
// accumulator layout (rows 2 tig + e, columns gid) reads it without conflicts (fwd/state_pass_wg.cu).
__host__ __device__ constexpr std::uint32_t swz_offset_f32(int r, int c) {
  return static_cast<std::uint32_t>((c >> 5) * k_box_bytes + r * 128 + ((((c >> 2) & 7) ^ (r & 7)) << 4) + (c & 3) * 4);
}

// A [R][16] bf16 tile (32 bytes a row) with the 32-byte swizzle (CU_TENSOR_MAP_SWIZZLE_32B,
// CUTLASS's Swizzle<1, 4, 3>): address bit 4 (the 16-byte half of the row) XOR bit 7 (bit 2 of the
// row), for a buffer aligned to 256 bytes. The 16-column serial pass keeps h in it so that the copy
// engine stores it as one box, and ldmatrix's 8 rows of one half still fall in 8 bank groups.
__host__ __device__ constexpr std::uint32_t swizzle_32b(std::uint32_t offset) { return offset ^ (((offset >> 7) & 1) << 4); }
__host__ __device__ constexpr std::uint32_t swz32_offset(int r, int c) {
  return static_cast<std::uint32_t>(r * 32 + ((((c >> 3) & 1) ^ ((r >> 2) & 1)) << 4) + (c & 7) * 2);
}

} // namespace kda::dev
