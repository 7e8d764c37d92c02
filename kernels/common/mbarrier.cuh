#pragma once
// Shared-memory barriers (PTX mbarrier, sm_90) for a producer warp that fills stages of shared
// memory with the copy engine (common/tile_maps.cuh) and consumer warps that read them; every
// serial pass uses them (docs/perf-log.md, v18 and v19).
//
// Per stage two barriers, each completing one phase per use of the stage:
//   full:  count 1; the producer posts the bytes the stage will receive (arrive.expect_tx) and the
//          copies complete them; consumers wait on the phase's parity, and the bytes are visible.
//   empty: count 1; one consumer thread arrives once its whole group has read the stage (after a
//          group barrier); the producer waits for it before refilling the stage.
#include <cstdint>

#include "common/mma.cuh" // smem_addr

namespace kda::dev {

__device__ __forceinline__ void mbar_init(std::uint64_t* bar, std::uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}
// After the last mbar_init, before the CTA barrier that publishes the barriers to the other
// threads and the copy engine.
__device__ __forceinline__ void fence_mbar_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// The producer's arrival: this phase completes once `bytes` have landed.
__device__ __forceinline__ void mbar_expect_bytes(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(bytes)
               : "memory");
}

// A consumer's arrival (release, CTA scope).
__device__ __forceinline__ void mbar_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_addr(bar)) : "memory");
}

// Waits until the phase of parity `parity` (0, 1, 0, ... per use) has completed (acquire, CTA
// scope: CUTLASS's pipelines wait the same way; cluster scope cost an L1 invalidation per wait in
// v18's first form).
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, std::uint32_t parity) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "wait_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_%=;\n"
      "}\n" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}

// The producer warp's start of use `use` (0, 1, ...) of a stage: once the consumers have released
// the stage's previous use (`empty`), lane 0 posts the bytes the copies will bring (`full`); then
// the warp's lanes issue the copies.
__device__ __forceinline__ void produce_begin(std::uint64_t* full, std::uint64_t* empty, int use, std::uint32_t bytes,
                                              int lane) {
  if (use > 0) mbar_wait(empty, (use - 1) & 1);
  if (lane == 0) mbar_expect_bytes(full, bytes);
  __syncwarp();
}

} // namespace kda::dev
