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
  std::vector<int> cu_seqlens;

  kda::dev::chunk_info* chunks = nullptr; // device
  kda::dev::seq_info* seqs = nullptr;     // device
  int* seq_order = nullptr;               // device

  // Forward intermediates (per tile = chunk * H + head).
  __nv_bfloat16 *w = nullptr, *u = nullptr, *qg = nullptr, *kg = nullptr, *Aqk = nullptr;
  float* gC = nullptr;

  // Backward workspace (per tile): X = (I + Akk)^-1 from bwd_intra; dh (state gradient leaving the
  // chunk) and dv_new from bwd_dh; the replay path's h and v_new (saved-set layout); the raw
  // form's per-tile partials of dA_log and dt_bias.
  float* X = nullptr;
  __nv_bfloat16 *dh = nullptr, *dvn = nullptr, *replay = nullptr;
  float *dA_part = nullptr, *ddt_part = nullptr;

  std::size_t tiles() const { return static_cast<std::size_t>(num_chunks) * problem.heads; }
  // Saved set: h entering each chunk [tile][128][128] then v_new [tile][64][128], both bf16.
  std::size_t saved_h_elems() const { return tiles() * kda::dev::tile_sizes::kv; }
  std::size_t saved_vn_elems() const { return tiles() * kda::dev::tile_sizes::ck; }
  std::size_t saved_bytes() const { return (saved_h_elems() + saved_vn_elems()) * sizeof(__nv_bfloat16); }
};
