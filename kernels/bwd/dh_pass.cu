// Backward stages 1+2 (see dh_pass.cuh). 8 warps compute and a producer warp copies w, qg, qg_lo,
// kg and Aqk as whole [64][64] swizzled boxes with the copy engine (common/tile_maps.cuh, completing
// on mbarriers: common/mbarrier.cuh; v19, as v18 in the 16-column pass); the 8 warps copy do and
// exp(gamma_C) (cp.async). Per chunk, last first, with the inputs of the chunk before it in flight
// (double buffer):
//   step 1  dh (FP32 registers) -> bf16 in smem (B operand of kg dh); written out as dh of the chunk
//   step 2  warp (row block, column half): dv_new = Aqk^T do + kg dh       (K = 64, then 128)
//   step 3  warp = 16 state rows: dh = diag(exp(gamma_C)) dh + qg^T do + w^T (-dv_new)  (K = 64;
//           qg as hi + lo). The terms without dv_new are issued before step 2's barrier.
#include "bwd/dh_pass.cuh"
#include "bwd/dh_stage.cuh"

#include <cstdint>

#include "common/mbarrier.cuh"
#include "common/mma.cuh"
#include "common/named_barrier.cuh"
#include "common/schedule.cuh"
#include "common/serial_copies.cuh"
#include "common/tile_maps.cuh"
#include "common/timeline.cuh"

namespace kda::dev {
namespace {


constexpr int k_threads = k_dh_threads + 32; // 8 computing warps, the producer warp
constexpr int k_bar_compute = 1;             // named barrier of the 8 computing warps

template <int VT>
struct dh_smem {
  static constexpr int ld = VT + 8; // bf16 row stride of [.][VT] tiles (do, dh, dv_new)
  // stage: w, qg, qg_lo, kg [64][128] (in the maps' order) and Aqk [64][64] bf16 swizzled
  // (tile_maps.cuh), do [64][ld] bf16, exp(gamma_C) [128] fp32; stages on 1024-byte boundaries
  static constexpr std::size_t w = 0;
  static constexpr std::size_t qg = w + 2 * k_box_bytes;
  static constexpr std::size_t qg_lo = qg + 2 * k_box_bytes;
  static constexpr std::size_t kg = qg_lo + 2 * k_box_bytes;
  static constexpr std::size_t Aqk = kg + 2 * k_box_bytes;
  static constexpr std::size_t dO = Aqk + k_box_bytes;
  static constexpr std::size_t gC = dO + 64 * ld * 2;
  static constexpr std::size_t stage = box_aligned(gC + 128 * 4);
  static constexpr std::size_t dh = 2 * stage;
  static constexpr std::size_t dvn = dh + 128 * ld * 2;
  static constexpr std::size_t dvn_neg = dvn + 64 * ld * 2;
  static constexpr std::size_t dvn_lo = dvn_neg + 64 * ld * 2;
  static constexpr std::size_t bars = dvn_lo + 64 * ld * 2; // full [2], empty [2] (mbarrier.cuh)
  static constexpr std::size_t bytes = bars + 4 * 8;
  static_assert(bars % 8 == 0, "mbarrier alignment");
  static_assert(bytes <= 227 * 1024, "one CTA per SM");
  static constexpr std::uint32_t copy_bytes = 9 * k_box_bytes; // w, qg, qg_lo, kg, Aqk
};

template <int VT>
__device__ __forceinline__ dh_stage stage_at(unsigned char* smem, int buf) {
  using L = dh_smem<VT>;
  unsigned char* b = smem + buf * L::stage;
  return {reinterpret_cast<__nv_bfloat16*>(b + L::w),   reinterpret_cast<__nv_bfloat16*>(b + L::qg),
          reinterpret_cast<__nv_bfloat16*>(b + L::qg_lo), reinterpret_cast<__nv_bfloat16*>(b + L::kg),
          reinterpret_cast<__nv_bfloat16*>(b + L::dO),    reinterpret_cast<__nv_bfloat16*>(b + L::Aqk),
          reinterpret_cast<float*>(b + L::gC)};
}

// The computing threads' copies (common/serial_copies.cuh): do [64][VT] bf16 in VT / 8 segments
// per row (token rows of [T, H, V]); and dh out [128][VT] and dv_new out [64][VT] bf16 in VT / 8.
template <int VT>
struct step_copies {
  row_copies<VT / 8> dO, out;
  __device__ step_copies(int tid, int vt, int heads)
      : dO(tid, heads * v_dim, dh_smem<VT>::ld, 8, VT * vt), out(tid, v_dim, dh_smem<VT>::ld, 8, VT * vt) {}
};

// The producer warp: iteration it's (chunk n - 1 - it's) boxes into stage it % 2 (lanes 0-7: w,
// qg, qg_lo, kg; lane 8: Aqk), once the computing warps have released the stage's previous use.
template <int VT>
__device__ void produce(const bwd_dh_params& p, const dh_maps& maps, unsigned char* smem, const seq_info& sq, int head,
                        int lane) {
  using L = dh_smem<VT>;
  auto* const bars = reinterpret_cast<std::uint64_t*>(smem + L::bars); // full [2], empty [2]
  const int n = sq.num_chunks;
  for (int it = 0; it < n; ++it) {
    const int st = it & 1, use = it >> 1;
    const std::size_t tile = seq_tile(sq, n - 1 - it, p.heads, head);
    produce_begin(bars + st, bars + 2 + st, use, L::copy_bytes, lane);
    unsigned char* const stage = smem + st * L::stage;
    if (lane < 8) {
      static_assert(L::kg - L::w == 3 * 2 * k_box_bytes, "wide tiles in map order");
      copy_tile_box(stage + L::w + (lane >> 1) * 2 * k_box_bytes, maps.wide[lane >> 1], lane & 1, tile, bars + st);
    } else if (lane == 8) {
      copy_tile_box(stage + L::Aqk, maps.Aqk, 0, tile, bars + st);
    }
  }
}

template <int VT>
__global__ void __launch_bounds__(k_threads, 1) bwd_dh_kernel(const bwd_dh_params p, const __grid_constant__ dh_maps maps) {
  const tl_stamp stamp(tl_dh); // the timeline build's record of this block (common/timeline.cuh)
  using L = dh_smem<VT>;
  constexpr int ld = L::ld;
  constexpr int NT3 = VT / 8;  // n-tiles of a warp's state rows (step 3)
  constexpr int NT2 = VT / 16; // n-tiles of a warp's dv_new columns (step 2)
  extern __shared__ __align__(1024) unsigned char smem[]; // the swizzled boxes need 1024-byte alignment
  auto* const bars = reinterpret_cast<std::uint64_t*>(smem + L::bars); // full [2], empty [2]
  auto* s_dh = reinterpret_cast<__nv_bfloat16*>(smem + L::dh);
  auto* s_dvn = reinterpret_cast<__nv_bfloat16*>(smem + L::dvn);
  auto* s_dvn_neg = reinterpret_cast<__nv_bfloat16*>(smem + L::dvn_neg);
  auto* s_dvn_lo = reinterpret_cast<__nv_bfloat16*>(smem + L::dvn_lo);

  const serial_cta cta = serial_cta_of(blockIdx.x, p.heads, v_dim / VT);
  const seq_info sq = p.seqs[p.seq_order[cta.seq_rank]];
  const int head = cta.head, vt = cta.vt, H = p.heads;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  if (tid < 4) mbar_init(bars + tid, 1);
  if (tid == 0) fence_mbar_init();
  __syncthreads(); // the barriers exist before any copy or arrival reaches them
  if (warp == 8) {
    produce<VT>(p, maps, smem, sq, head, lane);
    return;
  }
  const int gid = lane >> 2, tig = lane & 3;
  const int RB = warp & 3, R0 = 16 * RB, C0 = (warp >> 2) * (VT / 2);
  const int n = sq.num_chunks;

  frag_c dhf[1][NT3] = {}; // dh rows 16 warp + gid (+8), cols 8 nt + 2 tig (+1); zero after the last chunk
  const step_copies<VT> copies(tid, vt, H);
  if (n > 0) load_do_gC(p, stage_at<VT>(smem, 0), sq, n - 1, head, copies.dO, ld, tid);
  cp_async_commit();

  for (int it = 0; it < n; ++it) {
    const int c = n - 1 - it;
    const std::size_t tile = seq_tile(sq, c, H, head);
    const dh_stage s = stage_at<VT>(smem, it & 1);

    // step 1
#pragma unroll
    for (int nt = 0; nt < NT3; ++nt) {
      const int r = 16 * warp + gid, col = 8 * nt + 2 * tig;
      *reinterpret_cast<std::uint32_t*>(s_dh + r * ld + col) = pack_bf16(dhf[0][nt].x[0], dhf[0][nt].x[1]);
      *reinterpret_cast<std::uint32_t*>(s_dh + (r + 8) * ld + col) = pack_bf16(dhf[0][nt].x[2], dhf[0][nt].x[3]);
    }
    cp_async_wait<0>();                        // this chunk's do, exp(gamma_C)
    mbar_wait(bars + (it & 1), (it >> 1) & 1); // its boxes
    named_sync(k_bar_compute, k_dh_threads);
    // every warp is past iteration it - 1: its stage may be refilled for iteration it + 1
    if (it >= 1 && it + 1 < n && tid == 0) mbar_arrive(bars + 2 + ((it + 1) & 1));
    if (c > 0) load_do_gC(p, stage_at<VT>(smem, (it + 1) & 1), sq, c - 1, head, copies.dO, ld, tid);
    cp_async_commit();
    {
      const auto& oc = copies.out;
      __nv_bfloat16* const dst = p.dh_out + tile * tile_sizes::kv + oc.g;
#pragma unroll
      for (int m = 0; m < 128 / oc.rows; ++m) {
        *reinterpret_cast<uint4*>(dst + m * oc.rows * v_dim) =
            *reinterpret_cast<const uint4*>(s_dh + oc.s + m * oc.rows * ld);
      }
    }

    // step 2: Aqk is lower-triangular, so rows j of block RB need only token blocks kk >= RB.
    frag_c dv[NT2] = {};
    for (int kk = RB; kk < 4; ++kk) {
      std::uint32_t a[4];
      load_a_bf16_trans_swz(a, s.Aqk, 16 * kk, R0, lane);
#pragma unroll
      for (int np = 0; np < NT2 / 2; ++np) {
        std::uint32_t b0[2], b1[2];
        load_b_bf16_x2(b0, b1, s.dO + 16 * kk * ld + C0 + 16 * np, ld, lane);
        mma_bf16_16816(dv[2 * np], a, b0);
        mma_bf16_16816(dv[2 * np + 1], a, b1);
      }
    }
#pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      std::uint32_t a[4];
      load_a_bf16_swz(a, s.kg, R0, 16 * kk, lane);
#pragma unroll
      for (int np = 0; np < NT2 / 2; ++np) {
        std::uint32_t b0[2], b1[2];
        load_b_bf16_x2(b0, b1, s_dh + 16 * kk * ld + C0 + 16 * np, ld, lane);
        mma_bf16_16816(dv[2 * np], a, b0);
        mma_bf16_16816(dv[2 * np + 1], a, b1);
      }
    }
#pragma unroll
    for (int nt = 0; nt < NT2; ++nt) {
#pragma unroll
      for (int hh = 0; hh < 2; ++hh) {
        const int r = R0 + gid + 8 * hh, col = C0 + 8 * nt + 2 * tig;
        const float v0 = dv[nt].x[2 * hh], v1 = dv[nt].x[2 * hh + 1];
        std::uint32_t hi, lo;
        split_bf16x2(v0, v1, hi, lo);
        *reinterpret_cast<std::uint32_t*>(s_dvn + r * ld + col) = hi;
        // -bf16(x) == bf16(-x) exactly: step 3 subtracts w^T dv_new by accumulating w^T (-dv_new).
        *reinterpret_cast<std::uint32_t*>(s_dvn_neg + r * ld + col) = pack_bf16(-v0, -v1);
        *reinterpret_cast<std::uint32_t*>(s_dvn_lo + r * ld + col) = lo; // for bwd_grad alone
      }
    }
    // step 3, the terms that need no dv_new: their mma run while the warp waits at the barrier
    dh_decay_and_qg_terms(dhf, s, ld, 16 * warp, lane);
    named_sync(k_bar_compute, k_dh_threads);
    {
      const auto& oc = copies.out;
      __nv_bfloat16* const dst = p.dvn_out + tile * tile_sizes::ck + oc.g;
      __nv_bfloat16* const dst_lo = p.dvn_lo_out + tile * tile_sizes::ck + oc.g;
#pragma unroll
      for (int m = 0; m < 64 / oc.rows; ++m) {
        *reinterpret_cast<uint4*>(dst + m * oc.rows * v_dim) =
            *reinterpret_cast<const uint4*>(s_dvn + oc.s + m * oc.rows * ld);
        *reinterpret_cast<uint4*>(dst_lo + m * oc.rows * v_dim) =
            *reinterpret_cast<const uint4*>(s_dvn_lo + oc.s + m * oc.rows * ld);
      }
    }

    // step 3: w^T (-dv_new)
    dh_w_terms(dhf, s, s_dvn_neg, ld, 16 * warp, lane);
    // No barrier here: the next chunk's step 2 writes s_dvn only after its step-1 barrier, which
    // every warp reaches after finishing this step 3.
  }
}

template <int VT>
cudaError_t launch_vt(const bwd_dh_params& p, int num_seqs, cudaStream_t stream) {
  dh_maps maps{}; // gC stays empty: this pass computes exp(gamma_C) itself (dh_stage.cuh)
  if (const cudaError_t e = make_dh_maps(p, &maps); e != cudaSuccess) return e;
  return launch_serial<bwd_dh_kernel<VT>>(p, num_seqs, v_dim / VT, k_threads, dh_smem<VT>::bytes,
                                          serial_launch::plain, stream, maps);
}

} // namespace

cudaError_t make_dh_maps(const bwd_dh_params& p, dh_maps* maps) {
  const __nv_bfloat16* const wide[4] = {p.w, p.qg, p.qg_lo, p.kg};
  for (int t = 0; t < 4; ++t) {
    if (const cudaError_t e = make_tile_map(&maps->wide[t], wide[t], p.num_tiles, k_dim); e != cudaSuccess) return e;
  }
  return make_tile_map(&maps->Aqk, p.Aqk, p.num_tiles, k_chunk);
}

cudaError_t launch_bwd_dh(const bwd_dh_params& p, int num_seqs, int vtile, cudaStream_t stream) {
  switch (vtile) {
  case 16: return launch_bwd_dh_narrow(p, num_seqs, stream);
  case 32: return launch_vt<32>(p, num_seqs, stream);
  default: return launch_vt<64>(p, num_seqs, stream);
  }
}

} // namespace kda::dev
