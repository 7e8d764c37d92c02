#pragma once
// Thread-block clusters (sm_90): the CTAs of one cluster run at once on SMs of one GPC and can
// reach each other's shared memory. A serial pass whose CTAs all read the same chunk tiles (the
// V tiles of one sequence and head) uses them so that each tile leaves L2 once: every CTA of the
// cluster copies a share of the tiles and the copy engine writes each into the shared memory of
// all of them (multicast), completing bytes on each one's own mbarrier at the same offset
// (bwd/dh_pass_narrow.cu, v56).
//
// The stage protocol with multicast (the one CUTLASS's multicast pipelines use):
//   full:  each CTA's producer posts the whole stage's bytes on its own full barrier; the copies
//          of every CTA of the cluster complete them there.
//   empty: counts one arrival per consumer group of every CTA in the cluster; each consumer group
//          arrives on the empty barrier of every CTA (mbar_arrive_cluster), so a producer that
//          has waited on its own empty barrier knows that the stage is free in all of them.
// Before any copy or remote arrival the barriers of every CTA must exist (cluster_sync after
// their initialisation), and no CTA may exit while another can still write into its shared memory
// or arrive on its barriers (cluster_sync before the end).
#include <cstdint>

#include "common/tile_maps.cuh"

namespace kda::dev {

// This CTA's rank in its cluster (0 .. cluster size - 1).
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}

// Every thread of every CTA of the cluster: what each did before (mbarrier initialisation
// included, after fence_mbar_init) is visible to all after.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n"
               "barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

// A consumer's arrival on the barrier at `bar`'s offset in the shared memory of the cluster's CTA
// `rank`. Release at CTA scope, as CUTLASS's pipelines arrive remotely: what it must order are
// this group's shared-memory reads of the stage (done: their results fed the mma before the
// group's barrier) before the copy engine refills the stage. At cluster scope each arrival
// compiles to a GPU-wide MEMBAR on the chain's critical path (checked in the SASS).
__device__ __forceinline__ void mbar_arrive_cluster(std::uint64_t* bar, unsigned rank) {
  asm volatile(
      "{\n"
      ".reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
      "}\n" ::"r"(smem_addr(bar)),
      "r"(rank)
      : "memory");
}

// copy_tile_box (common/tile_maps.cuh) into the same offsets of the shared memory of every CTA
// in `ctas` (a bit per cluster rank), counting k_box_bytes on each one's barrier at `bar`'s offset.
__device__ __forceinline__ void copy_tile_box_multicast(void* dst, const CUtensorMap& map, int cb, std::size_t tile,
                                                        std::uint64_t* bar, std::uint16_t ctas) {
  const tile_box b = tile_box_of(dst, cb, tile);
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(b.dst),
      "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(b.col0), "r"(static_cast<int>(b.row0)), "r"(smem_addr(bar)),
      "h"(ctas)
      : "memory");
}

} // namespace kda::dev
