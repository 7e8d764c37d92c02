#pragma once
// Warpgroup matrix multiply-accumulate (wgmma, sm_90a) with A in registers and B in shared memory
// through a matrix descriptor, for the serial passes' chain (docs/wip: not yet in a landed kernel;
// docs/analysis/wgmma_probe.cu checks the descriptors and the bits against mma.sync).
//
// Register layouts (PTX ISA, "Register Fragments and Shared Memory Matrix Layouts" of wgmma): warp
// w of the warpgroup holds rows [16 w, +16) of the m64 operands, in the layouts of mma.sync
// m16n8k16 (common/mma.cuh): A as a0..a3, D of m64nN as N / 8 C-fragments, d[4 j + e] = C-fragment
// j element e. B comes from the copy engine's 128-byte swizzled [64][64] bf16 boxes
// (common/box_layout.cuh):
//   K-major B (B[k][n] = tile[n][k], k contiguous: w, qg, Aqk): k step kk of a [n][128] tile at
//     start + 8192 (kk >> 2) + 32 (kk & 3), stride byte offset 1024 (8 rows of 128 bytes)
//   MN-major B (B[k][n] = tile[k][n], n contiguous: kg; imm-trans-b = 1): k step kk at start +
//     2048 kk (16 rows), leading byte offset 8192 (the next 64 columns' box), stride 1024
// Every wgmma is asynchronous: wgmma_fence() before the first one that reads registers written
// since, commit, then wait before the accumulators or A registers are touched (keep() after the
// wait pins them, so the compiler neither moves their uses above the wait nor reuses an A
// operand's registers while a group may still read them).
#include <cstdint>

namespace kda::dev {

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
// Until at most N of this warpgroup's committed groups are pending (groups complete in order).
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

template <int N>
__device__ __forceinline__ void keep(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(r[i])::"memory");
}
template <int N>
__device__ __forceinline__ void keep(std::uint32_t (&r)[N][4]) {
#pragma unroll
  for (int i = 0; i < N; ++i) {
#pragma unroll
    for (int j = 0; j < 4; ++j) asm volatile("" : "+r"(r[i][j])::"memory");
  }
}

// Shared-memory matrix descriptor: start address, leading and stride byte offsets (16-byte units),
// the 128-byte swizzle (mode 1, bits 62-63); base offset 0 (boxes are 1024-byte aligned).
__device__ __forceinline__ std::uint64_t desc_sw128(std::uint32_t saddr, std::uint32_t lbo, std::uint32_t sbo) {
  return static_cast<std::uint64_t>((saddr & 0x3FFFF) >> 4) | (static_cast<std::uint64_t>((lbo >> 4) & 0x3FFF) << 16) |
         (static_cast<std::uint64_t>((sbo >> 4) & 0x3FFF) << 32) | (1ull << 62);
}
__device__ __forceinline__ std::uint64_t desc_kmajor(std::uint32_t tile, int kk) {
  return desc_sw128(tile + 8192 * (kk >> 2) + 32 * (kk & 3), 16, 1024);
}
__device__ __forceinline__ std::uint64_t desc_mnmajor(std::uint32_t tile, int kk) {
  return desc_sw128(tile + 2048 * kk, 8192, 1024);
}

// D (m64n64, FP32, 32 registers a thread) += / = A (registers, bf16) B (shared, descriptor).
template <int TransB>
__device__ __forceinline__ void wgmma_m64n64k16(float (&d)[32], const std::uint32_t (&a)[4], std::uint64_t desc, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, {%32,%33,%34,%35}, %36, p, 1, 1, %38;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(accumulate), "n"(TransB));
}

// D (m64n128, FP32, 64 registers a thread) += / = A (registers, bf16) B (shared, descriptor).
template <int TransB>
__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], const std::uint32_t (&a)[4], std::uint64_t desc, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, {%64,%65,%66,%67}, %68, p, 1, 1, %70;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(accumulate), "n"(TransB));
}

} // namespace kda::dev
