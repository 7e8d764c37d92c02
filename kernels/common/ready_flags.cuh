#pragma once
// Per-tile ready flags that let a consumer stage start while the stage that feeds it is still
// running (programmatic dependent launch, sm_90), instead of after its last CTA: a serial state
// pass (fwd_state, bwd_state_replay) after the intra stage (docs/kernels.md, "Overlap of the intra
// stage and the state pass"; described below), and bwd_grad beside the 16-column bwd_dh (further
// down; "Overlap of bwd_dh and bwd_grad").
//
//   intra CTA:  griddepcontrol.launch_dependents at its start (the state pass is launched once
//               every intra CTA has started, i.e. in the intra stage's last wave); after its last
//               store, one thread publishes ready[tile] = epoch (release, GPU scope)
//   state CTA:  before it copies a chunk's tiles, its producer warp waits until ready[tile] ==
//               epoch (acquire, GPU scope) and orders the copy engine's reads after it
//               (fence.proxy.async: the tiles were written through the generic proxy); every
//               read of the intra stage's outputs in the state pass is such a copy
// The epoch is a per-plan launch count of the intra stage (host side), so flags never need a
// reset: an older launch left older epochs. The flags carry no data; no output bit depends on
// them.
#include <cstddef>
#include <cstdint>

#include "common/tile_maps.cuh" // bulk_wait

namespace kda::dev {

// Intra stage: let the dependent state pass be scheduled (every thread; counts once per CTA).
__device__ __forceinline__ void allow_dependent_launch() { asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory"); }

// Publishing: one thread, after a barrier that follows every store of the tiles, runs
// release_fence() once, then store_flag() per flag: a fence then relaxed strong stores is the PTX
// release pattern. Not __threadfence() (fence.sc.gpu) or st.release per flag: in bwd_dh's output
// warps that form slowed the chain 13 - 28 %, this one not measurably (docs/perf-log.md, v23).
// Where the copy engine stored the tiles (bwd_dh since v29), the thread that issued those stores
// first waits until they are complete (bulk_wait<0>) and runs fence_proxy_async_global(), so that
// the release covers the async proxy's writes.
__device__ __forceinline__ void release_fence() { asm volatile("fence.acq_rel.gpu;\n" ::: "memory"); }
__device__ __forceinline__ void store_flag(unsigned* flag, unsigned epoch) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;\n" ::"l"(flag), "r"(epoch) : "memory");
}

// Intra stage, one thread, after a __syncthreads() that follows every store of the tile.
__device__ __forceinline__ void publish_ready(unsigned* flag, unsigned epoch) {
  release_fence();
  store_flag(flag, epoch);
}

__device__ __forceinline__ unsigned load_acquire(const unsigned* flag) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(flag) : "memory");
  return v;
}

// Orders this thread's later copy-engine reads of global memory after what it has acquired.
__device__ __forceinline__ void fence_proxy_async_global() { asm volatile("fence.proxy.async.global;\n" ::: "memory"); }

// State pass, the copying warp, over the chunks of its sequence: await(c) returns once chunk c's
// tile is published, with the lanes' later copies of it ordered after that. It polls 32 chunks at a time (lane i chunk ready_until + i) and keeps how many in a
// row are published: an L2 round trip per chunk would cost the producer about as much as a chunk
// step, and once the intra stage has ended one poll covers 32 chunks.
struct tile_waiter {
  int ready_until = 0; // chunks [0, ready_until) are published
  // tile_of(c): the tile of chunk c; n: the sequence's chunks
  template <typename TileOf>
  __device__ void await(int c, int n, const unsigned* ready, unsigned epoch, const TileOf& tile_of, int lane) {
    while (c >= ready_until) {
      const int cc = ready_until + lane;
      const bool ok = cc >= n || load_acquire(ready + tile_of(cc)) == epoch;
      const unsigned missing = __ballot_sync(0xffffffffu, !ok);
      ready_until += missing ? __ffs(missing) - 1 : 32; // the same on every lane
      if (c >= ready_until) __nanosleep(128);
    }
    __syncwarp(); // every lane's later copies after every lane's acquire
    fence_proxy_async_global();
  }
};

// The 16-column passes -> their consumers: bwd_dh -> bwd_grad (docs/kernels.md, "Overlap of
// bwd_dh and bwd_grad") and, on the saved path, fwd_state -> fwd_output (fwd/output_pass.cuh):
// the same scheme with the 16-column pass as the producer. A tile's outputs come from the 8 CTAs
// of its (sequence, head), one per 16 columns, so each tile has k_vtile_slots flags:
// ready[tile * 8 + vt].
constexpr int k_vtile_slots = 8;

// When the 16-column pass's publishing thread releases flags: after chain step `it` (0-based, in
// the pass's chunk order; `last` its final step), chunks [publish_first(it, last, early), it],
// none where that is -1. Through the first `early` steps chunk by chunk, then in groups of
// k_publish_every (one completion wait and fence for several flags: each costs the publishing
// thread a wait for its stores), the last group at `last`. Why chunk by chunk at first (v54):
// the consumer's first wave waits for these flags. With groups only, R2's first 84 bwd_grad
// blocks all got their tiles at bwd_dh's eighth step: 59 us a block against 38 (H100 timeline);
// with v54 49 us, the saved backward 5 - 7 us shorter. (That wave and the next two still run in
// lockstep, their loads together: docs/perf-log.md, session 35, and docs/wip's v55.)
constexpr int k_publish_every = 8;
__device__ __forceinline__ int publish_first(int it, int last, int early) {
  if (it < early) return it;
  if (it % k_publish_every == k_publish_every - 1 || it == last) return max(it - it % k_publish_every, early);
  return -1;
}

// The 16-column pass's output thread, the one that had the copy engine store the tiles: publishes
// chunks [first, last] of V tile vt (tile_of(c): chunk c's tile). It waits until its stores are
// complete, orders the copy engine's writes before its own (fence.proxy.async), then releases the
// flags; what the pass's other threads stored before a barrier this thread has passed is covered
// by the release (cumulative).
template <typename TileOf>
__device__ __forceinline__ void publish_vtile_slots(unsigned* ready, unsigned epoch, int first, int last,
                                                    const TileOf& tile_of, int vt) {
  bulk_wait<0>();
  fence_proxy_async_global();
  release_fence();
  for (int j = first; j <= last; ++j) store_flag(ready + tile_of(j) * k_vtile_slots + vt, epoch);
}

// The consumer, one warp: returns once every slot of `tile` holds `epoch` (lane s polls slot s)
// and, where `also` is set, also[tile] holds also_epoch (lane k_vtile_slots polls it: fwd_output
// reads the intra stage's tiles too); the caller then runs __syncthreads() before any thread
// reads the tile.
__device__ __forceinline__ void await_vtile_slots(const unsigned* ready, std::size_t tile, unsigned epoch, int lane,
                                                  const unsigned* also = nullptr, unsigned also_epoch = 0) {
  const unsigned* const slots = ready + tile * k_vtile_slots;
  for (;;) {
    bool ok = lane >= k_vtile_slots || load_acquire(slots + lane) == epoch;
    if (also && lane == k_vtile_slots) ok = load_acquire(also + tile) == also_epoch;
    if (__all_sync(0xffffffffu, ok)) return;
    __nanosleep(256);
  }
}

// State pass, before it exits: the intra stage has completed and its writes are visible, so work
// ordered after the state pass in the stream is also ordered after the intra stage.
__device__ __forceinline__ void wait_prerequisite_grids() { asm volatile("griddepcontrol.wait;\n" ::: "memory"); }

// A consumer launched beside the pass that feeds it (bwd_grad beside bwd_dh, fwd_output beside the
// state pass) must not complete before that pass, so that later work in the stream is ordered
// after both. One waiting thread of the grid suffices: the grid completes only once every CTA has
// left. The grid's last CTA waits (dispatched last, its tile published last: it would wait for
// its flags anyway). Before v37 every CTA waited, so a CTA whose tile was done early held its SM
// until the pass ended: beside the chain, each free SM finished one tile and then idled.
__device__ __forceinline__ void complete_after_prerequisite_grids() {
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) wait_prerequisite_grids();
}

} // namespace kda::dev
