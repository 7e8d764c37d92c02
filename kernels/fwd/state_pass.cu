// Forward stage 2 ("state pass" + output): see state_pass.cuh. 8 warps; per chunk, with the
// inputs of the next chunk in flight (cp.async double buffer):
//   step 1  h (FP32 registers) -> bf16 in smem (the B operand of w h and qg h)
//   step 2  warp (row block, column half): v_new = u - w h, o = qg h          (K = 128)
//   step 3  o += Aqk v_new                                                      (K = 64)
//   step 4  warp = 16 state rows: h = diag(exp(gamma_C)) h + kg^T v_new        (K = 64)
// Without o (the replay backward's bwd_state_replay) the o terms of steps 2 and 3 and the loads
// of qg and Aqk are left out (template O).
// bf16 operands, FP32 accumulation, fixed k order: deterministic. u is read in FP32, and v_new
// enters steps 3 and 4 as hi = bf16(v_new) plus lo = bf16(v_new - hi): two mma per k step, each
// product exact in the FP32 accumulator, so v_new counts with 16 significant bits (its bf16
// rounding was the largest share of the gate gradients' error: docs/backward-design.md).
#include "fwd/state_pass.cuh"

#include <cstdint>

#include "common/chunk_tile_copies.cuh"
#include "common/mma.cuh"
#include "common/schedule.cuh"
#include "common/serial_copies.cuh"

namespace kda::dev {
namespace {


// VT: columns of V (and of the state) one CTA owns, 32 or 64 here (16: state_pass_narrow.cu).
// Smaller tiles give more CTAs (short rows); each output element is computed in the same order
// whatever VT is, so the bits do not change.
template <int VT>
struct state_smem {
  static constexpr int ld = VT + 8;  // bf16 row stride of [.][VT] tiles (h, v_new hi and lo)
  static constexpr int ldu = VT + 8; // fp32 row stride of u [64][VT] (conflict-free 8-byte reads)
  static constexpr std::size_t w = 0;
  static constexpr std::size_t qg = w + 64 * k_ld_wide * 2;
  static constexpr std::size_t kg = qg + 64 * k_ld_wide * 2;
  static constexpr std::size_t u = kg + 64 * k_ld_wide * 2;
  static constexpr std::size_t Aqk = u + 64 * ldu * 4;
  static constexpr std::size_t gC = Aqk + 64 * k_ld_aqk * 2;
  static constexpr std::size_t stage = gC + 128 * 4;
  static constexpr std::size_t h = 2 * stage;
  static constexpr std::size_t vn = h + 128 * ld * 2;
  static constexpr std::size_t vn_lo = vn + 64 * ld * 2;
  static constexpr std::size_t bytes = vn_lo + 64 * ld * 2;
  static_assert(bytes <= 227 * 1024, "one CTA per SM");
};

struct stage_ptrs {
  __nv_bfloat16 *w, *qg, *kg, *Aqk;
  float *u, *gC;
};

template <int VT>
__device__ __forceinline__ stage_ptrs stage_at(unsigned char* smem, int buf) {
  using L = state_smem<VT>;
  unsigned char* b = smem + buf * L::stage;
  return {reinterpret_cast<__nv_bfloat16*>(b + L::w), reinterpret_cast<__nv_bfloat16*>(b + L::qg),
          reinterpret_cast<__nv_bfloat16*>(b + L::kg), reinterpret_cast<__nv_bfloat16*>(b + L::Aqk),
          reinterpret_cast<float*>(b + L::u), reinterpret_cast<float*>(b + L::gC)};
}

// The copies of one stage (common/serial_copies.cuh): w, qg, kg [64][128] bf16 in 16 segments
// per row, u [64][VT] fp32 in VT / 4, Aqk [64][64] bf16 in 8; and h out [128][VT] bf16 in VT / 8.
template <int VT>
struct stage_copies {
  row_copies<16> wide;
  row_copies<VT / 4> u;
  row_copies<8> aqk;
  row_copies<VT / 8> h;
  __device__ stage_copies(int tid, int vt)
      : wide(tid, k_dim, k_ld_wide, 8), u(tid, v_dim, state_smem<VT>::ldu, 4, VT * vt),
        aqk(tid, k_chunk, k_ld_aqk, 8), h(tid, v_dim, state_smem<VT>::ld, 8, VT * vt) {}
};

// O: the pass writes o (the forward); without (the replay backward's h and v_new) qg and Aqk are
// not read.
template <int VT, bool O>
__device__ __forceinline__ void load_stage(const fwd_state_params& p, const stage_ptrs& s, std::size_t tile,
                                           const stage_copies<VT>& o, int tid) {
  const std::size_t ck = tile * tile_sizes::ck;
  if constexpr (O) {
    copy_wide_tiles<3>({s.w, s.qg, s.kg}, {p.w, p.qg, p.kg}, ck, o.wide);
  } else {
    copy_wide_tiles<2>({s.w, s.kg}, {p.w, p.kg}, ck, o.wide);
  }
#pragma unroll
  for (int n = 0; n < 64 / o.u.rows; ++n) {
    cp_async_16(s.u + o.u.s + n * o.u.rows * state_smem<VT>::ldu, p.u + ck + o.u.g + n * o.u.rows * v_dim);
  }
  if constexpr (O) copy_aqk_tile(s.Aqk, p.Aqk, tile, o.aqk);
  copy_gamma_C(s.gC, p.gC, tile, tid);
}

// O = (p.o != nullptr): without o (bwd_state_replay) the pass skips qg h, step 3 and the loads of
// qg and Aqk (v15: before, it computed o and dropped it); h and v_new are the same bits either way.
template <int VT, bool O>
__global__ void __launch_bounds__(k_state_threads, 1) fwd_state_kernel(fwd_state_params p) {
  using L = state_smem<VT>;
  constexpr int ld = L::ld;
  constexpr int NT4 = VT / 8;  // n-tiles of a warp's state rows (step 4)
  constexpr int NT2 = VT / 16; // n-tiles of a warp's v_new / o columns (steps 2, 3)
  extern __shared__ __align__(16) unsigned char smem[];
  auto* s_h = reinterpret_cast<__nv_bfloat16*>(smem + L::h);
  auto* s_vn = reinterpret_cast<__nv_bfloat16*>(smem + L::vn);
  auto* s_vn_lo = reinterpret_cast<__nv_bfloat16*>(smem + L::vn_lo);

  const serial_cta cta = serial_cta_of(blockIdx.x, p.heads, v_dim / VT);
  const seq_info sq = p.seqs[p.seq_order[cta.seq_rank]];
  const int head = cta.head, vt = cta.vt, H = p.heads;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int gid = lane >> 2, tig = lane & 3;
  const int R0 = 16 * (warp & 3), C0 = (warp >> 2) * (VT / 2); // steps 2/3: rows [R0, +16), cols [C0, +VT/2)
  const auto tile_of = [&](int c) { return seq_tile(sq, c, H, head); };

  frag_c hf[NT4] = {}; // h rows 16 warp + gid (+8), cols 8 nt + 2 tig (+1)
  const stage_copies<VT> copies(tid, vt);
  if (sq.num_chunks > 0) load_stage<VT, O>(p, stage_at<VT>(smem, 0), tile_of(0), copies, tid);
  cp_async_commit();

  for (int c = 0; c < sq.num_chunks; ++c) {
    const std::size_t tile = tile_of(c);
    const stage_ptrs s = stage_at<VT>(smem, c & 1);

    // step 1
#pragma unroll
    for (int nt = 0; nt < NT4; ++nt) {
      const int r = 16 * warp + gid, col = 8 * nt + 2 * tig;
      *reinterpret_cast<std::uint32_t*>(s_h + r * ld + col) = pack_bf16(hf[nt].x[0], hf[nt].x[1]);
      *reinterpret_cast<std::uint32_t*>(s_h + (r + 8) * ld + col) = pack_bf16(hf[nt].x[2], hf[nt].x[3]);
    }
    cp_async_wait<0>();
    __syncthreads();
    if (c + 1 < sq.num_chunks) load_stage<VT, O>(p, stage_at<VT>(smem, (c + 1) & 1), tile_of(c + 1), copies, tid);
    cp_async_commit();
    if (p.h_out) {
      const auto& hc = copies.h;
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
      load_a_bf16(aw, s.w + R0 * k_ld_wide + 16 * kk, k_ld_wide, lane);
      if constexpr (O) load_a_bf16(aq, s.qg + R0 * k_ld_wide + 16 * kk, k_ld_wide, lane);
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
    __syncthreads();

    // step 3 (o only)
    if constexpr (O) {
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        std::uint32_t a[4];
        load_a_bf16(a, s.Aqk + R0 * k_ld_aqk + 16 * kk, k_ld_aqk, lane);
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
        std::uint32_t a[4];
        load_a_bf16_trans(a, s.kg + 16 * kk * k_ld_wide + 16 * warp, k_ld_wide, lane);
#pragma unroll
        for (int np = 0; np < NT4 / 2; ++np) {
#pragma unroll
          for (const __nv_bfloat16* part : {s_vn, s_vn_lo}) { // v_new = hi + lo
            std::uint32_t b0[2], b1[2];
            load_b_bf16_x2(b0, b1, part + 16 * kk * ld + 16 * np, ld, lane);
            mma_bf16_16816(hf[2 * np], a, b0);
            mma_bf16_16816(hf[2 * np + 1], a, b1);
          }
        }
      }
    }
  }
}


template <int VT>
cudaError_t launch_vt(const fwd_state_params& p, int num_seqs, cudaStream_t stream) {
  if (p.o) {
    return launch_serial<fwd_state_kernel<VT, true>>(p, num_seqs, v_dim / VT, k_state_threads, state_smem<VT>::bytes,
                                                     stream);
  }
  return launch_serial<fwd_state_kernel<VT, false>>(p, num_seqs, v_dim / VT, k_state_threads, state_smem<VT>::bytes,
                                                    stream);
}

} // namespace

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

cudaError_t launch_fwd_state(const fwd_state_params& p, int num_seqs, int vtile, cudaStream_t stream) {
  switch (vtile) {
  case 16: return launch_fwd_state_narrow(p, num_seqs, stream);
  case 32: return launch_vt<32>(p, num_seqs, stream);
  default: return launch_vt<64>(p, num_seqs, stream);
  }
}

} // namespace kda::dev
