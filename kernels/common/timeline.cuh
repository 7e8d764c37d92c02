#pragma once
// The per-block timeline of a diagnostic build (cmake -DKDA_TIMELINE=ON; docs/timeline.md): each
// kernel's blocks record when their warps start and end (%globaltimer, ns) and on which SM, in a
// table that the library writes out when a plan is destroyed (KDA_TIMELINE_OUT). Stage times
// measured one at a time do not show how the overlapped stages sit against each other: session
// 29 predicted fwd_output's tail on R2 from them at 20 us, and it was 2 (docs/perf-log.md).
// In the normal build (KDA_TIMELINE 0) a stamp is an empty object: no kernel changes.
#include <cstdint>

#include <cuda_runtime.h>

#include "common/timeline_rows.hpp"

#ifndef KDA_TIMELINE
#define KDA_TIMELINE 0
#endif

namespace kda::dev {

// The rows of the table, one per kernel (tl_kernel), and which rows each call clears:
// common/timeline_rows.hpp.
constexpr int k_tl_blocks = 16384; // blocks a row holds (1doc's 256 chunks x 64 heads); more are not recorded
// Points inside a block that a kernel may stamp (tl_stamp::mark): where its time goes between start
// and end, e.g. bwd_grad's wait for bwd_dh's flags, its loads, its stages (kernels/bwd/grad.cu).
constexpr int k_tl_marks = 6;

struct tl_table {
  unsigned long long start[tl_count][k_tl_blocks]; // earliest warp start of the block, ns (all ones: none)
  unsigned long long end[tl_count][k_tl_blocks];   // latest warp end
  unsigned long long mark[tl_count][k_tl_marks][k_tl_blocks]; // latest arrival at mark i (0: none)
  unsigned sm[tl_count][k_tl_blocks];
};

// Host side (kernels/timeline.cu), no-ops unless built with KDA_TIMELINE and KDA_TIMELINE_OUT is
// set: the table is allocated at the first kda_fwd / kda_bwd, which each clear the rows that
// tl_rows_for_call names (on the stream, before their launches); kda_plan_destroy writes the
// table. tl_touch_all: a launch outside kda_fwd / kda_bwd (kda_run_stage) may have written any
// row, so the next call clears all that it replaces.
void tl_reset(cudaStream_t stream, bool fwd, bool replay_bwd);
void tl_touch_all();
// `what`: the plan's shape, the file's first line.
void tl_write(const char* what);
// Each translation unit that stamps hands its copy of the table pointer to the host side.
void tl_register(void (*set_table)(tl_table*));

#if KDA_TIMELINE
namespace {
// This translation unit's pointer to the table (no relocatable device code: one per unit, each
// set through its registered setter).
__device__ tl_table* tl_ptr = nullptr;
void tl_set_table(tl_table* t) { cudaMemcpyToSymbol(tl_ptr, &t, sizeof t); }
[[maybe_unused]] const bool tl_registered = (tl_register(&tl_set_table), true);
} // namespace

__device__ __forceinline__ unsigned long long tl_now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Lane 0 of each warp stamps the block's row at construction (start, and thread 0 the SM) and
// when the warp leaves the kernel (end: also at an early return, as the object goes out of scope).
// Blocks are numbered x fastest, then y (the intra stage's grid is (chunk, head)).
struct tl_stamp {
  int row;
  unsigned block;
  __device__ explicit tl_stamp(tl_kernel kernel) : row(kernel), block(blockIdx.x + gridDim.x * blockIdx.y) {
    if (tl_ptr && (threadIdx.x & 31) == 0 && block < k_tl_blocks) {
      atomicMin(&tl_ptr->start[row][block], tl_now());
      if (threadIdx.x == 0) {
        unsigned s;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
        tl_ptr->sm[row][block] = s;
      }
    }
  }
  __device__ ~tl_stamp() {
    if (tl_ptr && (threadIdx.x & 31) == 0 && block < k_tl_blocks) atomicMax(&tl_ptr->end[row][block], tl_now());
  }
  // The calling thread has reached point i (< k_tl_marks) of the block; with several callers the
  // latest counts. The kernel chooses who calls: one thread after a barrier marks the block's
  // arrival there.
  __device__ void mark(int i) const {
    if (tl_ptr && block < k_tl_blocks) atomicMax(&tl_ptr->mark[row][i][block], tl_now());
  }
  tl_stamp(const tl_stamp&) = delete;
  tl_stamp& operator=(const tl_stamp&) = delete;
};
#else
struct tl_stamp {
  __device__ explicit tl_stamp(tl_kernel) {}
  __device__ void mark(int) const {}
};
#endif

} // namespace kda::dev
