// Forward stage 2 ("state pass" + output): see state_pass.cuh. 8 warps compute and a producer warp
// copies w, kg (and qg, Aqk for o) as whole [64][64] swizzled boxes with the copy engine
// (common/tile_maps.cuh, completing on mbarriers: common/mbarrier.cuh; v19, as v18 in the 16-column
// pass), u and exp(gamma_C) (dense fp32 boxes), each chunk once the intra stage has published it
// (common/ready_flags.cuh: the pass may start while the intra stage runs). Per chunk, with the
// inputs of the next chunk in flight (double buffer):
//   step 1  h (FP32 registers) -> bf16 in smem (the B operand of w h and qg h)
//   step 2  warp (row block, column half): v_new = u - w h, o = qg h          (K = 128)
//   step 3  o += Aqk v_new                                                      (K = 64)
//   step 4  warp = 16 state rows: h = diag(exp(gamma_C)) h + kg^T v_new        (K = 64)
//           (kg = kg + kg_lo, v_new = hi + lo: per k step kg^T hi, kg^T lo, kg_lo^T hi; v45)
// Without o (the replay backward's bwd_state_replay) the o terms of steps 2 and 3 and the loads
// of qg and Aqk are left out (template O).
// bf16 operands, FP32 accumulation, fixed k order: deterministic. u is read in FP32, and v_new
// enters steps 3 and 4 as hi = bf16(v_new) plus lo = bf16(v_new - hi): two mma per k step, each
// product exact in the FP32 accumulator, so v_new counts with 16 significant bits (its bf16
// rounding was the largest share of the gate gradients' error: docs/backward-design.md).
#include "fwd/state_pass.cuh"

#include <cstdint>
#include <tuple>

#include "common/mbarrier.cuh"
#include "common/mma.cuh"
#include "common/named_barrier.cuh"
#include "common/ready_flags.cuh"
#include "common/schedule.cuh"
#include "common/serial_copies.cuh"
#include "common/tile_maps.cuh"
#include "common/timeline.cuh"

namespace kda::dev {
namespace {

constexpr int k_threads = k_state_threads + 32; // 8 computing warps, the producer warp
constexpr int k_bar_compute = 1;                  // named barrier of the 8 computing warps

// VT: columns of V (and of the state) one CTA owns, 32 here (16: state_pass_narrow.cu; 64:
// state_pass_wg.cu, faster there since v22).
// Smaller tiles give more CTAs (short rows); each output element is computed in the same order
// whatever VT is, so the bits do not change.
template <int VT>
struct state_smem {
  static constexpr int ld = VT + 8;  // bf16 row stride of [.][VT] tiles (h, v_new hi and lo)
  static constexpr int ldu = VT;     // fp32 row stride of u [64][VT] (the copy engine's dense box)
  // stage: w, qg, kg, kg_lo [64][128] and Aqk [64][64] bf16 swizzled (tile_maps.cuh), u [64][ldu] fp32,
  // exp(gamma_C) [128] fp32; stages on 1024-byte boundaries for the swizzled boxes
  static constexpr std::size_t w = 0;
  static constexpr std::size_t qg = w + 2 * k_box_bytes;
  static constexpr std::size_t kg = qg + 2 * k_box_bytes;
  static constexpr std::size_t kg_lo = kg + 2 * k_box_bytes;
  static constexpr std::size_t Aqk = kg_lo + 2 * k_box_bytes;
  static constexpr std::size_t u = Aqk + k_box_bytes;
  static constexpr std::size_t gC = u + 64 * ldu * 4; // 128-byte aligned for its box
  static constexpr std::size_t stage = box_aligned(gC + 128 * 4);
  static constexpr std::size_t h = 2 * stage;
  static constexpr std::size_t vn = h + 128 * ld * 2;
  static constexpr std::size_t vn_lo = vn + 64 * ld * 2;
  static constexpr std::size_t bars = vn_lo + 64 * ld * 2; // full [2], empty [2] (mbarrier.cuh)
  static constexpr std::size_t bytes = bars + 4 * 8;
  static_assert(bars % 8 == 0, "mbarrier alignment");
  static_assert(bytes <= 227 * 1024, "one CTA per SM");
  // What the producer's copies bring per chunk: w, kg, kg_lo, u, exp(gamma_C); with o also qg, Aqk.
  static constexpr std::uint32_t copy_bytes(bool o) { return (o ? 9 : 6) * k_box_bytes + 64 * VT * 4 + 128 * 4; }
};

struct stage_ptrs {
  __nv_bfloat16 *w, *qg, *kg, *kg_lo, *Aqk;
  float *u, *gC;
};

template <int VT>
__device__ __forceinline__ stage_ptrs stage_at(unsigned char* smem, int buf) {
  using L = state_smem<VT>;
  unsigned char* b = smem + buf * L::stage;
  return {reinterpret_cast<__nv_bfloat16*>(b + L::w), reinterpret_cast<__nv_bfloat16*>(b + L::qg),
          reinterpret_cast<__nv_bfloat16*>(b + L::kg), reinterpret_cast<__nv_bfloat16*>(b + L::kg_lo),
          reinterpret_cast<__nv_bfloat16*>(b + L::Aqk),
          reinterpret_cast<float*>(b + L::u), reinterpret_cast<float*>(b + L::gC)};
}

// The producer warp: chunk c's boxes into stage c % 2 (lanes 0-3: w, kg; lane 7: u of this V
// tile; lane 8: exp(gamma_C); lanes 9-10: kg_lo; with O lanes 4-6: qg, Aqk), once the computing warps have released
// the stage's previous chunk and the intra stage has published the chunk's tile
// (common/ready_flags.cuh).
template <int VT, bool O>
__device__ void produce(const fwd_state_params& p, const state_maps& maps, unsigned char* smem, const seq_info& sq,
                        int head, int vt, int lane) {
  using L = state_smem<VT>;
  auto* const bars = reinterpret_cast<std::uint64_t*>(smem + L::bars); // full [2], empty [2]
  const auto tile_of = [&](int c) { return seq_tile(sq, c, p.heads, head); };
  tile_waiter published;
  for (int c = 0; c < sq.num_chunks; ++c) {
    const int st = c & 1, use = c >> 1;
    const std::size_t tile = tile_of(c);
    const stage_ptrs s = stage_at<VT>(smem, st);
    published.await(c, sq.num_chunks, p.ready, p.epoch, tile_of, lane);
    produce_begin(bars + st, bars + 2 + st, use, L::copy_bytes(O), lane);
    if (lane < 4) {
      copy_tile_box(lane < 2 ? s.w : s.kg, lane < 2 ? maps.w : maps.kg, lane & 1, tile, bars + st);
    } else if (O && lane < 6) {
      copy_tile_box(s.qg, maps.qg, lane & 1, tile, bars + st);
    } else if (O && lane == 6) {
      copy_tile_box(s.Aqk, maps.Aqk, 0, tile, bars + st);
    } else if (lane == 7) {
      copy_box(s.u, maps.u, VT * vt, 64 * tile, bars + st);
    } else if (lane == 8) {
      copy_box(s.gC, maps.gC, 0, tile, bars + st);
    } else if (lane == 9 || lane == 10) {
      copy_tile_box(s.kg_lo, maps.kg_lo, lane & 1, tile, bars + st);
    }
  }
}

// O = (p.o != nullptr): without o (bwd_state_replay) the pass skips qg h, step 3 and the loads of
// qg and Aqk (v15: before, it computed o and dropped it); h and v_new are the same bits either way.
template <int VT, bool O>
__global__ void __launch_bounds__(k_threads, 1) fwd_state_kernel(const fwd_state_params p,
                                                                 const __grid_constant__ state_maps maps) {
  const tl_stamp stamp(tl_state); // the timeline build's record of this block (common/timeline.cuh)
  using L = state_smem<VT>;
  constexpr int ld = L::ld;
  constexpr int NT4 = VT / 8;  // n-tiles of a warp's state rows (step 4)
  constexpr int NT2 = VT / 16; // n-tiles of a warp's v_new / o columns (steps 2, 3)
  extern __shared__ __align__(1024) unsigned char smem[]; // the swizzled boxes need 1024-byte alignment
  auto* const bars = reinterpret_cast<std::uint64_t*>(smem + L::bars); // full [2], empty [2]
  auto* s_h = reinterpret_cast<__nv_bfloat16*>(smem + L::h);
  auto* s_vn = reinterpret_cast<__nv_bfloat16*>(smem + L::vn);
  auto* s_vn_lo = reinterpret_cast<__nv_bfloat16*>(smem + L::vn_lo);

  const serial_cta cta = serial_cta_of(blockIdx.x, p.heads, v_dim / VT);
  const seq_info sq = p.seqs[p.seq_order[cta.seq_rank]];
  const int head = cta.head, vt = cta.vt, H = p.heads;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  if (tid < 4) mbar_init(bars + tid, 1);
  if (tid == 0) fence_mbar_init();
  __syncthreads(); // the barriers exist before any copy or arrival reaches them
  if (warp == 8) {
    produce<VT, O>(p, maps, smem, sq, head, vt, lane);
    if (lane == 0) wait_prerequisite_grids();
    return;
  }
  const int gid = lane >> 2, tig = lane & 3, n = sq.num_chunks;
  const int R0 = 16 * (warp & 3), C0 = (warp >> 2) * (VT / 2); // steps 2/3: rows [R0, +16), cols [C0, +VT/2)
  const auto tile_of = [&](int c) { return seq_tile(sq, c, H, head); };

  frag_c hf[NT4] = {}; // h rows 16 warp + gid (+8), cols 8 nt + 2 tig (+1)
  const row_copies<VT / 8> h_copies(tid, v_dim, L::ld, 8, VT * vt); // h out [128][VT] bf16

  for (int c = 0; c < n; ++c) {
    const std::size_t tile = tile_of(c);
    const stage_ptrs s = stage_at<VT>(smem, c & 1);

    // step 1
#pragma unroll
    for (int nt = 0; nt < NT4; ++nt) {
      const int r = 16 * warp + gid, col = 8 * nt + 2 * tig;
      *reinterpret_cast<std::uint32_t*>(s_h + r * ld + col) = pack_bf16(hf[nt].x[0], hf[nt].x[1]);
      *reinterpret_cast<std::uint32_t*>(s_h + (r + 8) * ld + col) = pack_bf16(hf[nt].x[2], hf[nt].x[3]);
    }
    mbar_wait(bars + (c & 1), (c >> 1) & 1); // its boxes, u and exp(gamma_C)
    named_sync(k_bar_compute, k_state_threads);
    // every warp is past chunk c - 1: its stage may be refilled with chunk c + 1
    if (c >= 1 && c + 1 < n && tid == 0) mbar_arrive(bars + 2 + ((c + 1) & 1));
    if (p.h_out) {
      const auto& hc = h_copies;
      __nv_bfloat16* const h_dst = p.h_out + tile * tile_sizes::kv + hc.g;
#pragma unroll
      for (int n = 0; n < 128 / hc.rows; ++n) {
        *reinterpret_cast<uint4*>(h_dst + n * hc.rows * v_dim) =
            *reinterpret_cast<const uint4*>(s_h + hc.s + n * hc.rows * ld);
      }
    }

    // step 2
    frag_c av[NT2] = {}, ao[NT2] = {};
    float* const vn_dst = p.vn_out ? p.vn_out + tile * tile_sizes::ck + VT * vt : nullptr;
#pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      std::uint32_t aw[4], aq[4];
      load_a_bf16_swz(aw, s.w, R0, 16 * kk, lane);
      if constexpr (O) load_a_bf16_swz(aq, s.qg, R0, 16 * kk, lane);
#pragma unroll
      for (int np = 0; np < NT2 / 2; ++np) {
        std::uint32_t b0[2], b1[2];
        load_b_bf16_x2(b0, b1, s_h + 16 * kk * ld + C0 + 16 * np, ld, lane);
        mma_bf16_16816(av[2 * np], aw, b0);
        mma_bf16_16816(av[2 * np + 1], aw, b1);
        if constexpr (O) {
          mma_bf16_16816(ao[2 * np], aq, b0);
          mma_bf16_16816(ao[2 * np + 1], aq, b1);
        }
      }
    }
#pragma unroll
    for (int nt = 0; nt < NT2; ++nt) {
#pragma unroll
      for (int hh = 0; hh < 2; ++hh) {
        const int r = R0 + gid + 8 * hh, col = C0 + 8 * nt + 2 * tig;
        const float2 uu = *reinterpret_cast<const float2*>(s.u + r * L::ldu + col);
        const float vn0 = uu.x - av[nt].x[2 * hh];
        const float vn1 = uu.y - av[nt].x[2 * hh + 1];
        std::uint32_t hi, lo;
        split_bf16x2(vn0, vn1, hi, lo);
        *reinterpret_cast<std::uint32_t*>(s_vn + r * ld + col) = hi;
        *reinterpret_cast<std::uint32_t*>(s_vn_lo + r * ld + col) = lo;
        if (vn_dst) *reinterpret_cast<float2*>(vn_dst + r * v_dim + col) = make_float2(vn0, vn1);
      }
    }
    named_sync(k_bar_compute, k_state_threads);

    // step 3 (o only)
    if constexpr (O) {
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        std::uint32_t a[4];
        load_a_bf16_swz(a, s.Aqk, R0, 16 * kk, lane);
#pragma unroll
        for (int np = 0; np < NT2 / 2; ++np) {
#pragma unroll
          for (const __nv_bfloat16* part : {s_vn, s_vn_lo}) { // v_new = hi + lo
            std::uint32_t b0[2], b1[2];
            load_b_bf16_x2(b0, b1, part + 16 * kk * ld + C0 + 16 * np, ld, lane);
            mma_bf16_16816(ao[2 * np], a, b0);
            mma_bf16_16816(ao[2 * np + 1], a, b1);
          }
        }
      }
#pragma unroll
      for (int hh = 0; hh < 2; ++hh) {
        const int t = k_chunk * c + R0 + gid + 8 * hh; // the owned rows, addressed once
        if (t >= sq.len) continue;
        __nv_bfloat16* const o_row =
            p.o + (static_cast<std::size_t>(sq.start + t) * H + head) * v_dim + VT * vt + C0 + 2 * tig;
#pragma unroll
        for (int nt = 0; nt < NT2; ++nt) {
          *reinterpret_cast<std::uint32_t*>(o_row + 8 * nt) = pack_bf16(ao[nt].x[2 * hh], ao[nt].x[2 * hh + 1]);
        }
      }
    }

    // step 4
    {
      scale_frag_rows(hf, s.gC, 16 * warp, lane);
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        std::uint32_t a[4], a_lo[4];
        load_a_bf16_trans_swz(a, s.kg, 16 * kk, 16 * warp, lane);
        load_a_bf16_trans_swz(a_lo, s.kg_lo, 16 * kk, 16 * warp, lane);
#pragma unroll
        for (int np = 0; np < NT4 / 2; ++np) {
          std::uint32_t b0[2], b1[2], l0[2], l1[2];
          load_b_bf16_x2(b0, b1, s_vn + 16 * kk * ld + 16 * np, ld, lane);
          load_b_bf16_x2(l0, l1, s_vn_lo + 16 * kk * ld + 16 * np, ld, lane);
          // kg^T hi, kg^T lo, kg_lo^T hi (kg_lo^T lo is below FP32 rounding): the order of every pass
          mma_bf16_16816(hf[2 * np], a, b0);
          mma_bf16_16816(hf[2 * np + 1], a, b1);
          mma_bf16_16816(hf[2 * np], a, l0);
          mma_bf16_16816(hf[2 * np + 1], a, l1);
          mma_bf16_16816(hf[2 * np], a_lo, b0);
          mma_bf16_16816(hf[2 * np + 1], a_lo, b1);
        }
      }
    }
  }
}


template <int VT>
cudaError_t launch_vt(const fwd_state_params& p, int num_seqs, serial_launch how, cudaStream_t stream) {
  state_maps maps;
  if (const cudaError_t e = make_state_maps(p, VT, false, &maps); e != cudaSuccess) return e;
  if (p.o) {
    return launch_serial<fwd_state_kernel<VT, true>>(p, num_seqs, v_dim / VT, k_threads, state_smem<VT>::bytes, how,
                                                     stream, maps);
  }
  return launch_serial<fwd_state_kernel<VT, false>>(p, num_seqs, v_dim / VT, k_threads, state_smem<VT>::bytes, how,
                                                    stream, maps);
}

} // namespace

cudaError_t make_state_maps(const fwd_state_params& p, int u_box_cols, bool u_swizzle, state_maps* maps) {
  *maps = {};
  if (const cudaError_t e = make_f32_map(&maps->u, p.u, p.num_tiles * 64, u_box_cols, 64, u_swizzle); e != cudaSuccess) {
    return e;
  }
  if (const cudaError_t e = make_f32_map(&maps->gC, p.gC, p.num_tiles, 128, 1); e != cudaSuccess) return e;
  for (auto [map, base, width] : {std::tuple{&maps->w, p.w, k_dim}, std::tuple{&maps->kg, p.kg, k_dim},
                                  std::tuple{&maps->kg_lo, p.kg_lo, k_dim},
                                  std::tuple{&maps->qg, p.o ? p.qg : nullptr, k_dim},
                                  std::tuple{&maps->Aqk, p.o ? p.Aqk : nullptr, k_chunk}}) {
    if (!base) continue;
    if (const cudaError_t e = make_tile_map(map, base, p.num_tiles, width); e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

int choose_state_vtile(int num_seqs, int heads, int sm_count) {
  // Measured on the H200 (docs/perf-log.md, fwd v1): 64-column tiles win once there are about
  // half as many CTAs as SMs (1doc: 128 CTAs, 0.94 ms vs 1.37 ms with 32); short rows (m2: 16
  // CTAs) gain from splitting V finer (0.093 ms vs 0.126 ms). A chunk step is a latency-bound
  // chain, so while every CTA of 16 columns still gets an SM of its own (R2: 96), the narrow
  // tiles, whose warps split the step by role, shorten it (docs/perf-log.md, v7).
  const long long chains = static_cast<long long>(num_seqs) * heads;
  if (chains * (v_dim / 16) <= sm_count) return 16;
  return 2 * chains * (v_dim / 64) >= sm_count ? 64 : 32;
}

cudaError_t launch_fwd_state(const fwd_state_params& p, int num_seqs, int vtile, serial_launch how,
                             cudaStream_t stream) {
  switch (vtile) {
  case 16: return launch_fwd_state_narrow(p, num_seqs, how, stream);
  case 32: return launch_vt<32>(p, num_seqs, how, stream);
  default: return launch_fwd_state_wg(p, num_seqs, how, stream); // 64: the chain on wgmma (v22)
  }
}

} // namespace kda::dev
