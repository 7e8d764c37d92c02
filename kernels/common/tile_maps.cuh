#pragma once
// Tensor maps of the intra stage's per-tile outputs for the copy engine's 2-D tile copies
// (cp.async.bulk.tensor, sm_90), and the shared-memory layout those copies write.
//
// A [64][W] bf16 tile (W = 128: w, qg, qg_lo, kg; W = 64: Aqk) arrives as W / 64 boxes of
// [64 rows][64 columns], 8 KB each, with the 128-byte swizzle (common/box_layout.cuh): in row r, the
// 16-byte chunk j of the row's 128 bytes sits at chunk j ^ (r & 7). So one copy moves 8 KB (the
// serial passes' 16-byte cp.async and row-sized bulk copies cost a request per 16 or 256 bytes:
// docs/perf-log.md, v7c and v17), and ldmatrix's 8 row addresses of one column chunk fall in 8
// different bank groups without padding. Each box must start on a 1024-byte boundary of shared
// memory.
#include <cstddef>
#include <cstdint>

#include <cuda.h> // CUtensorMap
#include <cuda_bf16.h>

#include "common/box_layout.cuh"
#include "common/mma.cuh"

namespace kda::dev {

// load_a_bf16 (common/mma.cuh) of rows [r0, +16), columns [c0, +16) of a swizzled tile.
__device__ __forceinline__ void load_a_bf16_swz(std::uint32_t (&a)[4], const __nv_bfloat16* tile, int r0, int c0,
                                                int lane) {
  ldmatrix_x4(a, reinterpret_cast<const unsigned char*>(tile) + swz_offset(r0 + (lane & 15), c0 + (lane >> 4) * 8));
}

// load_a_bf16_trans of a swizzled tile: A[m][k] = tile[k0 + k][m0 + m], k and m in [0, 16).
__device__ __forceinline__ void load_a_bf16_trans_swz(std::uint32_t (&a)[4], const __nv_bfloat16* tile, int k0, int m0,
                                                      int lane) {
  const int mat = lane >> 3, r = lane & 7;
  ldmatrix_x4_trans(a, reinterpret_cast<const unsigned char*>(tile) + swz_offset(k0 + (mat >> 1) * 8 + r, m0 + (mat & 1) * 8));
}

// The box at column col0, row row0 of `map` into shared memory at the shared-state-space address
// `dst`, as the map lays it out (128-byte aligned without swizzle, 1024-byte aligned with the
// 128-byte one), counting its bytes on `bar`. The map is a kernel parameter (__grid_constant__).
__device__ __forceinline__ void copy_box_at(std::uint32_t dst, const CUtensorMap& map, int col0, std::size_t row0,
                                            std::uint64_t* bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
                   dst),
               "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(col0), "r"(static_cast<int>(row0)), "r"(smem_addr(bar))
               : "memory");
}

// Box cb (columns [64 cb, +64)) of tile `tile` of a make_tile_map map: its place in the swizzled
// shared tile at `dst` (a shared-state-space address) and its column and row in the map. One
// definition for the plain copy below and the multicast one (common/cluster.cuh).
struct tile_box {
  std::uint32_t dst;
  int col0;
  std::size_t row0;
};
__device__ __forceinline__ tile_box tile_box_of(void* dst, int cb, std::size_t tile) {
  return {smem_addr(dst) + box_offset(cb), 64 * cb, tile * 64};
}

// Box cb of tile `tile` (tile_box_of) into its place at `dst`, counting k_box_bytes on `bar`.
__device__ __forceinline__ void copy_tile_box(void* dst, const CUtensorMap& map, int cb, std::size_t tile,
                                              std::uint64_t* bar) {
  const tile_box b = tile_box_of(dst, cb, tile);
  copy_box_at(b.dst, map, b.col0, b.row0, bar);
}

// copy_box_at to a pointer: u's [64][VT] of a tile (row0 = 64 tile) and exp(gamma_C)'s [1][128]
// (row0 = tile) of an fp32 map (make_f32_map); bwd_grad's [128][64] boxes of h and dh
// (make_rows_map).
__device__ __forceinline__ void copy_box(void* dst, const CUtensorMap& map, int col0, std::size_t row0,
                                         std::uint64_t* bar) {
  copy_box_at(smem_addr(dst), map, col0, row0, bar);
}

// load_b_bf16_x2 (common/mma.cuh) of rows [k0, +16) of a [R][16] tile in the 32-byte swizzle
// (swz32_offset): the B-fragments of n-tiles 0-7 (b0) and 8-15 (b1).
__device__ __forceinline__ void load_b_bf16_x2_swz32(std::uint32_t (&b0)[2], std::uint32_t (&b1)[2],
                                                     const __nv_bfloat16* tile, int k0, int lane) {
  const int mat = lane >> 3, r = lane & 7;
  load_b_bf16_x2_at(b0, b1, reinterpret_cast<const unsigned char*>(tile) + swz32_offset(k0 + (mat & 1) * 8 + r, (mat >> 1) * 8));
}

// The box at column col0, row row0 of `map` from shared memory `src` (laid out as the map's loads
// would write it) to global memory, through the copy engine, in this thread's bulk group. Every
// thread that wrote `src` runs fence_proxy_async_shared() before the barrier that precedes it.
__device__ __forceinline__ void store_box(const CUtensorMap& map, const void* src, int col0, std::size_t row0) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(
                   reinterpret_cast<std::uint64_t>(&map)),
               "r"(col0), "r"(static_cast<int>(row0)), "r"(smem_addr(src))
               : "memory");
}
// The same for a 3-D map (o's [T][H][V]: column, head, token).
__device__ __forceinline__ void store_box_3d(const CUtensorMap& map, const void* src, int col0, int head, int row0) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];\n" ::"l"(
                   reinterpret_cast<std::uint64_t>(&map)),
               "r"(col0), "r"(head), "r"(row0), "r"(smem_addr(src))
               : "memory");
}
__device__ __forceinline__ void fence_proxy_async_shared() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
// Until at most N of this thread's bulk groups still read shared memory / are still incomplete.
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
template <int N>
__device__ __forceinline__ void bulk_wait() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}

// Host: the map of `tiles` consecutive [64][width] bf16 tiles at `base` (width 128 or 64), boxes
// of [64][64] with the 128-byte swizzle. Returns cudaErrorInvalidValue where the driver refuses.
cudaError_t make_tile_map(CUtensorMap* map, const __nv_bfloat16* base, std::size_t tiles, int width);
// Host: the same for `rows` bf16 rows of `width` in boxes of [box_rows][box_cols] (box_rows <= 256;
// box_cols 64 with the 128-byte swizzle, 16 with the 32-byte one, swz32_offset): the saved set's h
// ([tile][128][128]) that the state passes store, boxes of [128][64] (wgmma pass) or [128][16]
// (16-column pass).
cudaError_t make_rows_map(CUtensorMap* map, const __nv_bfloat16* base, std::size_t rows, int width, int box_rows,
                          int box_cols = 64);
// Host: the map of a [tokens][heads][128] bf16 tensor (o) in boxes of [64 tokens][1 head][64
// columns] with the 128-byte swizzle: one box a chunk's rows of one head and half of V.
cudaError_t make_token_head_map(CUtensorMap* map, const __nv_bfloat16* base, int tokens, int heads);
// Host: the map of `rows` fp32 rows of 128 at `base` in boxes of [box_rows][box_cols], without
// swizzle (copy_box): u ([tile][64][128], boxes of the V tile's columns) and exp(gamma_C)
// ([tile][128], a row a box); with `swizzle128`, boxes of 32 columns in the 128-byte swizzle
// (swz_offset_f32; the destination 1024-byte aligned).
cudaError_t make_f32_map(CUtensorMap* map, const float* base, std::size_t rows, int box_cols, int box_rows,
                         bool swizzle128 = false);

} // namespace kda::dev
