// Backward stages 1+2 (see dh_pass.cuh). 8 warps; per chunk, last first, with the inputs of the
// chunk before it in flight (cp.async double buffer):
//   step 1  dh (FP32 registers) -> bf16 in smem (B operand of kg dh); written out as dh of the chunk
//   step 2  warp (row block, column half): dv_new = Aqk^T do + kg dh       (K = 64, then 128)
//   step 3  warp = 16 state rows: dh = diag(exp(gamma_C)) dh + qg^T do + w^T (-dv_new)  (K = 64;
//           qg as hi + lo). The terms without dv_new are issued before step 2's barrier.
#include "bwd/dh_pass.cuh"
#include "bwd/dh_stage.cuh"

#include <cstdint>

#include "common/mma.cuh"
#include "common/schedule.cuh"
#include "common/serial_copies.cuh"

namespace kda::dev {
namespace {


template <int VT>
struct dh_smem {
  static constexpr int ld = VT + 8; // bf16 row stride of [.][VT] tiles (do, dh, dv_new)
  static constexpr std::size_t w = 0;
  static constexpr std::size_t qg = w + 64 * k_ld_wide * 2;
  static constexpr std::size_t qg_lo = qg + 64 * k_ld_wide * 2;
  static constexpr std::size_t kg = qg_lo + 64 * k_ld_wide * 2;
  static constexpr std::size_t dO = kg + 64 * k_ld_wide * 2;
  static constexpr std::size_t Aqk = dO + 64 * ld * 2;
  static constexpr std::size_t gC = Aqk + 64 * k_ld_aqk * 2;
  static constexpr std::size_t stage = gC + 128 * 4;
  static constexpr std::size_t dh = 2 * stage;
  static constexpr std::size_t dvn = dh + 128 * ld * 2;
  static constexpr std::size_t dvn_neg = dvn + 64 * ld * 2;
  static constexpr std::size_t dvn_lo = dvn_neg + 64 * ld * 2;
  static constexpr std::size_t bytes = dvn_lo + 64 * ld * 2;
  static_assert(bytes <= 227 * 1024, "one CTA per SM");
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

// The copies of one step (common/serial_copies.cuh): w, qg, qg_lo, kg [64][128] bf16 in 16 segments per
// row, do [64][VT] bf16 in VT / 8 (token rows of [T, H, V]), Aqk [64][64] bf16 in 8; and dh out
// [128][VT] and dv_new out [64][VT] bf16 in VT / 8.
template <int VT>
struct step_copies {
  row_copies<16> wide;
  row_copies<VT / 8> dO, out;
  row_copies<8> aqk;
  __device__ step_copies(int tid, int vt, int heads)
      : wide(tid, k_dim, k_ld_wide, 8), dO(tid, heads * v_dim, dh_smem<VT>::ld, 8, VT * vt),
        out(tid, v_dim, dh_smem<VT>::ld, 8, VT * vt), aqk(tid, k_chunk, k_ld_aqk, 8) {}
};

template <int VT>
__global__ void __launch_bounds__(k_dh_threads, 1) bwd_dh_kernel(bwd_dh_params p) {
  using L = dh_smem<VT>;
  constexpr int ld = L::ld;
  constexpr int NT3 = VT / 8;  // n-tiles of a warp's state rows (step 3)
  constexpr int NT2 = VT / 16; // n-tiles of a warp's dv_new columns (step 2)
  extern __shared__ __align__(16) unsigned char smem[];
  auto* s_dh = reinterpret_cast<__nv_bfloat16*>(smem + L::dh);
  auto* s_dvn = reinterpret_cast<__nv_bfloat16*>(smem + L::dvn);
  auto* s_dvn_neg = reinterpret_cast<__nv_bfloat16*>(smem + L::dvn_neg);
  auto* s_dvn_lo = reinterpret_cast<__nv_bfloat16*>(smem + L::dvn_lo);

  const serial_cta cta = serial_cta_of(blockIdx.x, p.heads, v_dim / VT);
  const seq_info sq = p.seqs[p.seq_order[cta.seq_rank]];
  const int head = cta.head, vt = cta.vt, H = p.heads;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int gid = lane >> 2, tig = lane & 3;
  const int RB = warp & 3, R0 = 16 * RB, C0 = (warp >> 2) * (VT / 2);
  const int n = sq.num_chunks;

  frag_c dhf[1][NT3] = {}; // dh rows 16 warp + gid (+8), cols 8 nt + 2 tig (+1); zero after the last chunk
  const step_copies<VT> copies(tid, vt, H);
  if (n > 0) load_dh_stage(p, stage_at<VT>(smem, 0), sq, n - 1, head, copies, L::ld, tid);
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
    cp_async_wait<0>();
    __syncthreads();
    if (c > 0) load_dh_stage(p, stage_at<VT>(smem, (it + 1) & 1), sq, c - 1, head, copies, L::ld, tid);
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
      load_a_bf16_trans(a, s.Aqk + 16 * kk * k_ld_aqk + R0, k_ld_aqk, lane);
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
      load_a_bf16(a, s.kg + R0 * k_ld_wide + 16 * kk, k_ld_wide, lane);
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
    __syncthreads();
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
  return launch_serial<bwd_dh_kernel<VT>>(p, num_seqs, v_dim / VT, k_dh_threads, dh_smem<VT>::bytes, stream);
}

} // namespace

cudaError_t launch_bwd_dh(const bwd_dh_params& p, int num_seqs, int vtile, cudaStream_t stream) {
  switch (vtile) {
  case 16: return launch_bwd_dh_narrow(p, num_seqs, stream);
  case 32: return launch_vt<32>(p, num_seqs, stream);
  default: return launch_vt<64>(p, num_seqs, stream);
  }
}

} // namespace kda::dev
