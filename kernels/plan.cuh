#pragma once
// The opaque kda_plan: chunk tables and stage workspace for one batch shape.
#include <cstddef>
#include <vector>

#include <cuda_bf16.h>

#include "common/layout.cuh"
#include "kda.h"

struct kda_plan {
  kda_problem problem{};
  float scale = 0.f;
  int num_seqs = 0;
  int num_chunks = 0;
  int state_vtile = 64; // V columns per CTA of the forward state pass
  // V tiles per CTA of the 16-column bwd_dh (bwd_dh_params::narrow_tiles): with 2 the pass holds
  // half as many SMs for a chain step about 21 % longer, and bwd_grad beside it gets the rest
  // (v35 with v37 in docs/perf-log.md: R2 bwd -12 to -14 %, m2 -4 to -6 %).
  int dh_narrow_tiles = 2;
  std::vector<int> cu_seqlens;

  kda::dev::chunk_info* chunks = nullptr; // device
  kda::dev::seq_info* seqs = nullptr;     // device
  int* seq_order = nullptr;               // device
  // bwd_grad's chunk order (bwd/grad.cuh): position p from each sequence's end, for p = 0, 1, ...,
  // over the sequences longest first, each chunk with its first token and length; device
  kda::dev::ordered_chunk* grad_order = nullptr;
  // The saved path's 16-column state pass leaves o of the chunks before o_first[s] of sequence s
  // (seqs' index) to fwd_output (fwd/output_pass.cuh; fwd_state_params::o_first; first_o_chunk in
  // fwd/o_split.cuh). v34 - v47: o of the sequences of at least 4/5 of the longest one's chunks.
  // The 16-column chain step without o takes about 4/5 of the step with it (R2: the pass 0.100
  // against 0.125 ms), so a shorter sequence's chain with o still ended before the longest one's
  // without; keeping o there kept fwd_output's reads (h and v_new, 64 KB a tile) small enough for
  // the SMs the chains leave free (v34 in docs/perf-log.md). Since v48 every sequence, each
  // keeping in the pass the last chunks first_o_chunk gives it; KDA_O_SLACK=0/0 restores the 4/5
  // rule. Of a sequence that leaves o out the pass still forms o of its last k_o_tail_chunks
  // itself at least (v47): fwd_output would start them only once the chain had ended (the last
  // flags come with the chain's last chunk), a block's latency after it; beside the chain the
  // output warps add about a fifth to those chunks' steps instead. Measured on the H200 (session
  // 29, KDA_O_TAIL_CHUNKS = 0, 4, 8, 16, 24): 4 gave the saved path's forward -4 % on m2 and -1 %
  // on R2, 8 -2.5 % and -0.8 %, 16 and 24 nothing or slower. o_first: device.
  static constexpr int k_o_tail_chunks = 4;
  int* o_first = nullptr;
  // fwd_output's chunk order over those sequences: position p from each sequence's start, for
  // p = 0, 1, ..., over the sequences longest first (out_chunks records); device
  kda::dev::ordered_chunk* out_order = nullptr;
  int out_chunks = 0;

  // Forward intermediates (per tile = chunk * H + head). u = Tm v stays FP32: with v_new it is
  // the operand whose bf16 rounding bounded the gate gradients (docs/backward-design.md).
  __nv_bfloat16 *w = nullptr, *qg = nullptr, *kg = nullptr, *Aqk = nullptr;
  float *u = nullptr, *gC = nullptr;
  __nv_bfloat16* qg_lo = nullptr; // qg's bf16 lo half, for the replay backward's bwd_dh
  // kg's bf16 lo half (bf16(kg - bf16(kg))): the state passes' h update takes kg as hi + lo (v45).
  // Only the state passes read it (the forward's and the replay's), so like u it lives here, not
  // in the saved set.
  __nv_bfloat16* kg_lo = nullptr;

  // Backward workspace (per tile): X = (I + Akk)^-1 from bwd_intra; dh (state gradient leaving the
  // chunk) and dv_new (bf16 hi + lo) from bwd_dh; the replay path's h and v_new (the saved set's first two
  // regions, replay_bytes()); the raw form's per-tile partials of dA_log and dt_bias.
  float* X = nullptr;
  __nv_bfloat16 *dh = nullptr, *dvn = nullptr, *dvn_lo = nullptr; // dv_new = dvn + dvn_lo
  void* replay = nullptr;
  float *dA_part = nullptr, *ddt_part = nullptr;

  // Per tile, the epoch of the last intra launch that wrote it (common/ready_flags.cuh): the state
  // pass that follows an intra launch may start before it ends and waits per tile. `epoch` counts
  // the plan's intra launches (fwd_intra and bwd_intra), so a plan's calls must be ordered on one
  // stream (they share the workspace anyway).
  unsigned* ready = nullptr;
  mutable unsigned epoch = 0;
  // Flags that always read as published (every word k_always_ready), for calls captured into a
  // CUDA graph: there the state pass starts after the intra stage and waits on these, since a
  // host epoch baked into a graph would, on the next replay, find the flags of the previous one
  // already at the value it waits for.
  static constexpr unsigned k_always_ready = 0xFFFFFFFFu;
  unsigned* ready_always = nullptr;
  // Per tile and 16-column V tile, the epoch of the last 16-column bwd_dh launch that stored its
  // dh and dv_new (common/ready_flags.cuh, k_vtile_slots a tile): bwd_grad, launched as that pass's
  // programmatic dependent, waits on them. `dh_epoch` counts those launches. Calls captured into
  // a graph use no flags: there bwd_grad is launched after bwd_dh.
  unsigned* dh_ready = nullptr;
  mutable unsigned dh_epoch = 0;
  // The same for the 16-column forward state pass on the saved path, which leaves o to fwd_output
  // (its programmatic dependent) and publishes each tile's h and v_new; `out_epoch` counts those
  // launches. Calls captured into a graph use no flags: fwd_output follows the state pass.
  unsigned* out_ready = nullptr;
  mutable unsigned out_epoch = 0;

  std::size_t tiles() const { return static_cast<std::size_t>(num_chunks) * problem.heads; }
  // h entering each chunk [tile][128][128] bf16 then v_new [tile][64][128] fp32: the head of the
  // saved set, and the whole of the replay buffer.
  std::size_t replay_bytes() const {
    return tiles() * (kda::dev::tile_sizes::kv * 2 + kda::dev::tile_sizes::ck * 4);
  }

  // The saved set the forward writes on the saved path (docs/kernels.md), region after region:
  // h (bf16) and v_new (fp32; 1024 B per token and head together), then the intra stage's outputs
  // the backward would otherwise recompute: w, qg, qg's lo half, kg [tile][64][128] bf16, Aqk
  // [tile][64][64] bf16, X = (I + Akk)^-1 [tile][64][64] fp32 and exp(gamma_C) [tile][128] fp32
  // (1416 B).
  struct saved_regions {
    __nv_bfloat16 *h = nullptr, *w = nullptr, *qg = nullptr, *qg_lo = nullptr, *kg = nullptr, *Aqk = nullptr;
    float *vn = nullptr, *X = nullptr, *gC = nullptr;
  };
  // The regions at `base` (may be null: only the size is wanted); returns the set's bytes.
  std::size_t saved_layout(void* base, saved_regions* out) const {
    using kda::dev::tile_sizes;
    const std::size_t t = tiles();
    auto* b = static_cast<unsigned char*>(base);
    std::size_t off = 0;
    const auto take = [&](std::size_t bytes) {
      unsigned char* p = b ? b + off : nullptr;
      off += bytes; // every region is a multiple of 512 B: all stay 16-byte aligned
      return p;
    };
    saved_regions r;
    r.h = reinterpret_cast<__nv_bfloat16*>(take(t * tile_sizes::kv * 2));
    r.vn = reinterpret_cast<float*>(take(t * tile_sizes::ck * 4));
    r.w = reinterpret_cast<__nv_bfloat16*>(take(t * tile_sizes::ck * 2));
    r.qg = reinterpret_cast<__nv_bfloat16*>(take(t * tile_sizes::ck * 2));
    r.qg_lo = reinterpret_cast<__nv_bfloat16*>(take(t * tile_sizes::ck * 2));
    r.kg = reinterpret_cast<__nv_bfloat16*>(take(t * tile_sizes::ck * 2));
    r.Aqk = reinterpret_cast<__nv_bfloat16*>(take(t * tile_sizes::cc * 2));
    r.X = reinterpret_cast<float*>(take(t * tile_sizes::cc * 4));
    r.gC = reinterpret_cast<float*>(take(t * kda::dev::k_dim * 4));
    if (out) *out = r;
    return off;
  }
  std::size_t saved_bytes() const { return saved_layout(nullptr, nullptr); }
};
