#pragma once
// The CTA order of the serial passes (fwd_state, bwd_dh): one CTA per (sequence, head, V tile),
// each walking its sequence's chunks in order, so a CTA's run time is proportional to its
// sequence's chunk count.
//
// The grid is 1-D and sequence-major over seq_order (longest sequence first), then head, then V
// tile: every CTA of a longer sequence is dispatched before any CTA of a shorter one, and the
// block dispatcher's in-order issue gives longest-processing-time-first scheduling. The V tiles
// of one head are neighbours, so they run together and share w, qg, kg in L2.
//
// Why not dim3(sequence, head, V tile): with the sequence fastest, the longest chains of the last
// heads start only when earlier CTAs finish. On 4doc (128, 64, 48 and 16 chunks; 512 CTAs of one
// per SM on 132 SMs) the simulated makespan was 320 chunk steps; in this order it is 256, the
// same as 1doc's 128 CTAs of 256 chunks. The order changes no output bit: each CTA computes the
// same elements in the same order.
#include <cstddef>

#include <cuda_runtime.h>

#include "common/launch.cuh"
#include "common/layout.cuh"

namespace kda::dev {

struct serial_cta {
  int seq_rank; // index into seq_order
  int head;
  int vt; // V tile
};

__device__ __forceinline__ serial_cta serial_cta_of(int block, int heads, int vtiles) {
  const int per_seq = heads * vtiles;
  const int rem = block % per_seq;
  return {block / per_seq, rem / vtiles, rem % vtiles};
}

// Grid size of a serial pass.
inline unsigned serial_grid(int num_seqs, int heads, int vtiles) {
  return static_cast<unsigned>(num_seqs) * static_cast<unsigned>(heads) * static_cast<unsigned>(vtiles);
}

// How a serial pass starts: after the previous kernel of the stream (plain), or, for the state
// passes that the intra stage feeds, as its programmatic dependent (after_intra): its CTAs are
// scheduled once every intra CTA has started, and wait per tile for the intra stage's ready flags
// (common/ready_flags.cuh).
enum class serial_launch { plain, after_intra };

// Launches serial pass Kernel (one CTA per sequence, head and V tile) with `smem` bytes of dynamic
// shared memory, passing p and the further arguments (the tensor maps). The limit is raised once
// per Kernel: the static belongs to the instantiation.
// With `cluster` > 1, clusters of that many neighbouring CTAs (a divisor of vtiles: the CTAs of
// one sequence and head, which read the same chunk tiles; bwd/dh_pass_narrow.cu).
template <auto Kernel, typename Params, typename... More>
cudaError_t launch_serial_clustered(const Params& p, int num_seqs, int vtiles, int threads, std::size_t smem,
                                    serial_launch how, unsigned cluster, cudaStream_t stream, const More&... more) {
  static const cudaError_t attr =
      cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (attr != cudaSuccess) return attr;
  return launch_kernel_clustered<Kernel>(dim3(serial_grid(num_seqs, p.heads, vtiles)), static_cast<unsigned>(threads),
                                         smem, how == serial_launch::after_intra, cluster, stream, p, more...);
}

template <auto Kernel, typename Params, typename... More>
cudaError_t launch_serial(const Params& p, int num_seqs, int vtiles, int threads, std::size_t smem, serial_launch how,
                          cudaStream_t stream, const More&... more) {
  return launch_serial_clustered<Kernel>(p, num_seqs, vtiles, threads, smem, how, 1u, stream, more...);
}

} // namespace kda::dev
