#pragma once
// Bulk copies global -> shared (PTX cp.async.bulk, sm_90) that complete on an mbarrier: one
// instruction moves a whole row (16-byte multiple, 16-byte aligned) instead of one 16-byte
// cp.async per thread and segment, and the consumers wait on the barrier's phase instead of
// their own copy groups.
#include <cstdint>

#include "common/mma.cuh" // smem_addr

namespace kda::dev {

// n consecutive barriers, each for one producer arrival per phase (the arrival that posts the
// phase's bytes), initialised by thread 0 and visible to the copy engine and every thread after
// the CTA barrier at the end. Call from every thread, before any role starts.
__device__ __forceinline__ void init_mbarriers(std::uint64_t* first, int n) {
  if (threadIdx.x == 0) {
    for (int i = 0; i < n; ++i) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(smem_addr(first + i)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
}
// The producer's arrival: this phase completes once `bytes` have landed.
__device__ __forceinline__ void mbar_expect_bytes(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(bytes)
               : "memory");
}
// Waits until the phase of parity `parity` (0, 1, 0, ... per use) has completed.
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
// `bytes` (a multiple of 16) from global `src` to shared `dst`, counted on `bar`.
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, std::uint32_t bytes, std::uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                   smem_addr(dst)),
               "l"(src), "r"(bytes), "r"(smem_addr(bar))
               : "memory");
}

} // namespace kda::dev
