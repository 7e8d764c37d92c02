#pragma once
// Named barriers (PTX bar.sync / bar.arrive) for the warp-specialised kernels: groups of warps of
// one CTA wait for each other (sync) or signal another group without waiting (arrive). A barrier
// completes when `threads` threads (a multiple of 32) have arrived or synced at it; memory
// accesses before the arrival are visible to the threads that synced. Id 0 is __syncthreads().

namespace kda::dev {

__device__ __forceinline__ void named_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

__device__ __forceinline__ void named_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

} // namespace kda::dev
