// Forward stage 1 ("intra"): one CTA of 8 warps per (chunk, head). See intra.cuh for the maths.
//
// Exponent safety (numerics contract): every exp() argument is a difference gamma_i - gamma_n
// with a reference row n of the 16-row sub-block, bounded as follows.
//  - Off-diagonal sub-blocks (I > J): n = first row of I, so i >= n > j and both
//    exp(gamma_i - gamma_n) and exp(gamma_n - gamma_j) are <= 1 (g <= 0).
//  - Diagonal sub-blocks: the same factorisation with n = first row of the block needs
//    exp(gamma_n - gamma_j) for j >= n, up to exp(span) where span is the gamma range inside the
//    block. Used only when span <= k_span_limit (normal decay); otherwise ("slow" block, fast
//    decay) each pair is computed elementwise from exp(gamma_i - gamma_j), i >= j, in FP32.
// Exponentials: exp_ftz (common/fast_exp.cuh), denormal results flushed to zero; the gate itself
// (common/gate.cuh) keeps __expf, so g and gamma are the backward's bits.
// Precision: Akk/Aqk and w/u products in TF32 with FP32 accumulation, the triangular inverse's
// diagonal blocks in FP32 and its off-diagonal products as 3xTF32 (FP32-level); outputs for the
// state pass in bf16 but u in FP32. Every reduction has a fixed order:
// deterministic.
#include "fwd/intra.cuh"

#include <cstdint>

#include "common/fast_exp.cuh"
#include "common/gate.cuh"
#include "common/mma.cuh"
#include "common/ready_flags.cuh"
#include "common/rows.cuh"
#include "common/timeline.cuh"

namespace kda::dev {
namespace {

// Row strides chosen so the vector loads of the Akk/Aqk fragments (4 consecutive d per thread:
// 8-byte bf16, 16-byte fp32) hit distinct banks within each load phase.
constexpr int k_ld_bf = 144; // bf16 [64][128] tiles: 72 words per row, 8 (mod 32)
constexpr int k_ld_g = 144;  // fp32 [64][128] gamma, later beta k' exp(gamma): 16 (mod 32)
constexpr int k_ld_a = 68;           // row stride of fp32 [64][64] Akk -> X

struct intra_smem {
  static constexpr std::size_t q = 0;
  static constexpr std::size_t k = q + 64 * k_ld_bf * 2;
  static constexpr std::size_t v = k + 64 * k_ld_bf * 2;
  static constexpr std::size_t g = v + 64 * k_ld_bf * 2; // gamma, later beta k' exp(gamma)
  static constexpr std::size_t A = g + 64 * k_ld_g * 4;  // Akk, inverted in place into X
  static constexpr std::size_t P = A + 64 * k_ld_a * 4;  // [3][16][17] inversion scratch
  static constexpr std::size_t beta = P + 3 * 16 * 17 * 4;
  static constexpr std::size_t rq = beta + 64 * 4; // rsqrt(q.q + eps) * scale, rk after it (fused l2n only)
  static constexpr std::size_t rk = rq + 64 * 4;
  static constexpr std::size_t gamC = rk + 64 * 4; // gamma_C [128]
  static constexpr std::size_t tot = P;             // first-half gamma totals [128], then 4 wide flags: P is free then
  static constexpr std::size_t bytes = gamC + 128 * 4;
  // Two CTAs per SM: 228 KB per SM, 1 KB of it reserved per CTA.
  static_assert(2 * (bytes + 1024) <= 228 * 1024, "two intra CTAs must fit on one SM");
};

// Without the L2 norm the row scales are constants (rq = scale, rk = 1; L2N = false): the
// compiler drops the multiplies by 1 and the shared-memory reads, the bits stay (x * 1.0f == x).
template <bool L2N>
struct intra_ctx {
  const __nv_bfloat16* s_q;
  const __nv_bfloat16* s_k;
  const float* s_g;
  float* s_A;
  const float* s_beta;
  const float* s_rq_; // includes the scale
  const float* s_rk_;
  __nv_bfloat16* Aqk; // this tile in global memory
  float scale;
  __device__ float rq(int i) const { return L2N ? s_rq_[i] : scale; }
  __device__ float rk(int i) const { return L2N ? s_rk_[i] : 1.f; }
};

// Four consecutive bf16 of smem as floats (one 8-byte load).
__device__ __forceinline__ float4 bf4(const __nv_bfloat16* p) {
  const uint2 raw = *reinterpret_cast<const uint2*>(p);
  const __nv_bfloat162 lo = *reinterpret_cast<const __nv_bfloat162*>(&raw.x);
  const __nv_bfloat162 hi = *reinterpret_cast<const __nv_bfloat162*>(&raw.y);
  return make_float4(__low2float(lo), __high2float(lo), __low2float(hi), __high2float(hi));
}

__device__ __forceinline__ float4 f4(const float* p) { return *reinterpret_cast<const float4*>(p); }

// Eight consecutive floats, or bf16 widened to float, of smem (16-byte aligned / 8-byte aligned).
__device__ __forceinline__ void load8(const float* p, float (&out)[8]) {
  const float4 a = f4(p), b = f4(p + 4);
  out[0] = a.x, out[1] = a.y, out[2] = a.z, out[3] = a.w, out[4] = b.x, out[5] = b.y, out[6] = b.z, out[7] = b.w;
}
__device__ __forceinline__ void load8(const __nv_bfloat16* p, float (&out)[8]) {
  const float4 a = bf4(p), b = bf4(p + 4);
  out[0] = a.x, out[1] = a.y, out[2] = a.z, out[3] = a.w, out[4] = b.x, out[5] = b.y, out[6] = b.z, out[7] = b.w;
}

// Akk and Aqk of the NJ sub-blocks (I, J0), ..., (I, J0 + NJ - 1), all J <= I, with tensor cores
// (reference row n = 16 I). The A operands (rows of block I gated to n: k' and q' times
// exp(gamma_i - gamma_n)) do not depend on J: formed once per k step for all NJ sub-blocks (v14;
// before, once per sub-block). Each sub-block's sums take the same operands in the same order as
// one sub-block alone would: the same bits.
// The contraction index d may be assigned to fragment k-slots in any order, as long as A and B
// agree: thread (gid, tig) takes d = d0 + 4 tig + {0, 1} for the first k8 step (slots tig,
// tig + 4) and {2, 3} for the second, so all its operands come from 4 consecutive columns (one
// vector load per row instead of eight scalar ones).
template <int NJ, bool L2N>
__device__ void intra_block_mma(const intra_ctx<L2N>& c, int I, int J0, int lane) {
  const int gid = lane >> 2, tig = lane & 3;
  const int n = 16 * I;
  const int i0 = n + gid, i1 = i0 + 8;
  const float rq0 = c.rq(i0), rq1 = c.rq(i1), rk0 = c.rk(i0), rk1 = c.rk(i1);
  int jr[NJ][2];     // B rows of n-tiles 0 and 1 of each sub-block
  float rkj[NJ][2];
#pragma unroll
  for (int t = 0; t < NJ; ++t) {
    jr[t][0] = 16 * (J0 + t) + gid;
    jr[t][1] = jr[t][0] + 8;
    rkj[t][0] = c.rk(jr[t][0]);
    rkj[t][1] = c.rk(jr[t][1]);
  }
  frag_c kk[NJ][2] = {}, qk[NJ][2] = {};
#pragma unroll 2
  for (int d0 = 0; d0 < k_dim; d0 += 16) {
    const int d = d0 + 4 * tig;
    const float4 gn = f4(c.s_g + n * k_ld_g + d);
    const float4 g0 = f4(c.s_g + i0 * k_ld_g + d), g1 = f4(c.s_g + i1 * k_ld_g + d);
    const float4 k0 = bf4(c.s_k + i0 * k_ld_bf + d), k1 = bf4(c.s_k + i1 * k_ld_bf + d);
    const float4 q0 = bf4(c.s_q + i0 * k_ld_bf + d), q1 = bf4(c.s_q + i1 * k_ld_bf + d);
    const float gnv[4] = {gn.x, gn.y, gn.z, gn.w};
    const float g0v[4] = {g0.x, g0.y, g0.z, g0.w}, g1v[4] = {g1.x, g1.y, g1.z, g1.w};
    const float k0v[4] = {k0.x, k0.y, k0.z, k0.w}, k1v[4] = {k1.x, k1.y, k1.z, k1.w};
    const float q0v[4] = {q0.x, q0.y, q0.z, q0.w}, q1v[4] = {q1.x, q1.y, q1.z, q1.w};
    float gjv[NJ][2][4], kjv[NJ][2][4];
#pragma unroll
    for (int t = 0; t < NJ; ++t) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float4 gj = f4(c.s_g + jr[t][h] * k_ld_g + d), kj = bf4(c.s_k + jr[t][h] * k_ld_bf + d);
        gjv[t][h][0] = gj.x, gjv[t][h][1] = gj.y, gjv[t][h][2] = gj.z, gjv[t][h][3] = gj.w;
        kjv[t][h][0] = kj.x, kjv[t][h][1] = kj.y, kjv[t][h][2] = kj.z, kjv[t][h][3] = kj.w;
      }
    }
#pragma unroll
    for (int step = 0; step < 2; ++step) {
      const int a = 2 * step, b = a + 1; // the two d of this k8 step: slots tig and tig + 4
      const float e0a = exp_ftz(g0v[a] - gnv[a]), e1a = exp_ftz(g1v[a] - gnv[a]);
      const float e0b = exp_ftz(g0v[b] - gnv[b]), e1b = exp_ftz(g1v[b] - gnv[b]);
      const std::uint32_t ak[4] = {to_tf32(k0v[a] * rk0 * e0a), to_tf32(k1v[a] * rk1 * e1a),
                                   to_tf32(k0v[b] * rk0 * e0b), to_tf32(k1v[b] * rk1 * e1b)};
      const std::uint32_t aq[4] = {to_tf32(q0v[a] * rq0 * e0a), to_tf32(q1v[a] * rq1 * e1a),
                                   to_tf32(q0v[b] * rq0 * e0b), to_tf32(q1v[b] * rq1 * e1b)};
#pragma unroll
      for (int t = 0; t < NJ; ++t) {
        const std::uint32_t b0[2] = {to_tf32(kjv[t][0][a] * rkj[t][0] * exp_ftz(gnv[a] - gjv[t][0][a])),
                                     to_tf32(kjv[t][0][b] * rkj[t][0] * exp_ftz(gnv[b] - gjv[t][0][b]))};
        const std::uint32_t b1[2] = {to_tf32(kjv[t][1][a] * rkj[t][1] * exp_ftz(gnv[a] - gjv[t][1][a])),
                                     to_tf32(kjv[t][1][b] * rkj[t][1] * exp_ftz(gnv[b] - gjv[t][1][b]))};
        mma_tf32_1688(kk[t][0], ak, b0);
        mma_tf32_1688(qk[t][0], aq, b0);
        mma_tf32_1688(kk[t][1], ak, b1);
        mma_tf32_1688(qk[t][1], aq, b1);
      }
    }
  }
#pragma unroll
  for (int t = 0; t < NJ; ++t) {
#pragma unroll
    for (int nt = 0; nt < 2; ++nt) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int i = n + gid + 8 * half;
        const int j = 16 * (J0 + t) + 8 * nt + 2 * tig;
        float a0 = kk[t][nt].x[2 * half], a1 = kk[t][nt].x[2 * half + 1];
        float q0 = qk[t][nt].x[2 * half], q1 = qk[t][nt].x[2 * half + 1];
        c.s_A[i * k_ld_a + j] = i > j ? c.s_beta[i] * a0 : 0.f;
        c.s_A[i * k_ld_a + j + 1] = i > j + 1 ? c.s_beta[i] * a1 : 0.f;
        q0 = i >= j ? q0 : 0.f;
        q1 = i >= j + 1 ? q1 : 0.f;
        *reinterpret_cast<std::uint32_t*>(c.Aqk + i * k_chunk + j) = pack_bf16(q0, q1);
      }
    }
  }
}

// Akk and Aqk of the pairs i >= j of a diagonal sub-block whose gamma span is too large for
// the factorised form: one pair per thread, FP32, exp(gamma_i - gamma_j) <= 1 directly.
template <bool L2N>
__device__ void intra_pair_exact(const intra_ctx<L2N>& c, int I, int pair) {
  int ii = 0;
  while ((ii + 1) * (ii + 2) / 2 <= pair) ++ii;
  const int jj = pair - ii * (ii + 1) / 2;
  const int i = 16 * I + ii, j = 16 * I + jj;
  float skk = 0.f, sqk = 0.f;
  for (int d = 0; d < k_dim; ++d) {
    const float e = exp_ftz(c.s_g[i * k_ld_g + d] - c.s_g[j * k_ld_g + d]);
    const float kje = bf(c.s_k, j * k_ld_bf + d) * e;
    skk = fmaf(bf(c.s_k, i * k_ld_bf + d), kje, skk);
    sqk = fmaf(bf(c.s_q, i * k_ld_bf + d), kje, sqk);
  }
  const float rkj = c.rk(j);
  c.s_A[i * k_ld_a + j] = i > j ? c.s_beta[i] * (c.rk(i) * rkj * skk) : 0.f;
  c.Aqk[i * k_chunk + j] = __float2bfloat16_rn(c.rq(i) * rkj * sqk);
  if (i != j) {
    c.s_A[j * k_ld_a + i] = 0.f;
    c.Aqk[j * k_chunk + i] = __float2bfloat16_rn(0.f);
  }
}

static_assert(k_intra_threads == k_gate_threads, "the gate scan takes every intra thread");

template <bool RAW, bool L2N>
__global__ void __launch_bounds__(k_intra_threads, 2) fwd_intra_kernel(fwd_intra_params p) {
  const tl_stamp stamp(tl_intra); // the timeline build's record of this block (common/timeline.cuh)
  extern __shared__ __align__(16) unsigned char smem[];
  auto* s_q = reinterpret_cast<__nv_bfloat16*>(smem + intra_smem::q);
  auto* s_k = reinterpret_cast<__nv_bfloat16*>(smem + intra_smem::k);
  auto* s_v = reinterpret_cast<__nv_bfloat16*>(smem + intra_smem::v);
  auto* s_g = reinterpret_cast<float*>(smem + intra_smem::g);
  auto* s_A = reinterpret_cast<float*>(smem + intra_smem::A);
  auto* s_P = reinterpret_cast<float*>(smem + intra_smem::P);
  auto* s_beta = reinterpret_cast<float*>(smem + intra_smem::beta);
  auto* s_rq = reinterpret_cast<float*>(smem + intra_smem::rq);
  auto* s_rk = reinterpret_cast<float*>(smem + intra_smem::rk);
  auto* s_gamC = reinterpret_cast<float*>(smem + intra_smem::gamC);
  auto* s_tot = reinterpret_cast<float*>(smem + intra_smem::tot);

  allow_dependent_launch(); // the state pass may be scheduled once every intra CTA has started
  const chunk_info ci = p.chunks[blockIdx.x];
  const int head = blockIdx.y, H = p.heads, L = ci.len;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const std::size_t tile = static_cast<std::size_t>(blockIdx.x) * H + head;
  const auto row_of = [&](int i) { return static_cast<std::size_t>(ci.start + i) * H + head; };

  // ---- q, k, v, the gate, beta -> smem; rows past the chunk's end are zero ----
  // (cp.async: straight to smem, all in flight together; the gate into gamma's place, v40)
  for (int idx = tid; idx < k_chunk * 16; idx += k_intra_threads) {
    const int i = idx >> 4, seg = idx & 15;
    __nv_bfloat16* dq = s_q + i * k_ld_bf + seg * 8;
    __nv_bfloat16* dk = s_k + i * k_ld_bf + seg * 8;
    __nv_bfloat16* dv = s_v + i * k_ld_bf + seg * 8;
    if (i < L) {
      const std::size_t off = row_of(i) * k_dim + seg * 8;
      cp_async_16(dq, p.q + off);
      cp_async_16(dk, p.k + off);
      cp_async_16(dv, p.v + off);
    } else {
      const uint4 z = make_uint4(0, 0, 0, 0);
      *reinterpret_cast<uint4*>(dq) = z;
      *reinterpret_cast<uint4*>(dk) = z;
      *reinterpret_cast<uint4*>(dv) = z;
    }
  }
  gate_copy_rows(p.gate_in, row_of(0), H, L, tid, k_intra_threads, s_g, k_ld_g);
  cp_async_commit();
  const gate_consts gc = gate_consts_of<RAW>(p.A_log, p.dt_bias, head, tid);
  if (tid < k_chunk) s_beta[tid] = tid < L ? __bfloat162float(p.beta[row_of(tid)]) : 0.f;

  // ---- gamma = cumsum(g): thread (d, half) owns column d of rows [32 half, +32); gamma replaces
  // the gate in s_g once the barrier after mark_wide has published the first half's totals ----
  int* const s_wide = reinterpret_cast<int*>(s_tot + 128); // 4 flags after the totals
  clear_wide_flags(s_wide, tid);
  cp_async_wait<0>();
  __syncthreads();
  float gam[32];
  gate_read(s_g, k_ld_g, tid, gam);
  gate_scan<RAW>(gc, L, tid, gam, s_tot);
  bool wide[2];
  wide_sub_blocks(gam, wide);
  mark_wide(wide, tid, s_wide);
  __syncthreads();
  bool slow[4];
  read_slow(s_wide, slow);
  store_gamma(gam, s_tot, s_g, k_ld_g, s_gamC, tid);

  // ---- rsqrt(q.q + eps) per row (fused L2 norm); fixed-order warp tree: deterministic ----
  if constexpr (L2N) {
    for (int i = warp * 8; i < warp * 8 + 8; ++i) {
      float sq, sk;
      row_square_sums(s_q, s_k, k_ld_bf, i, lane, sq, sk);
      if (lane == 0) {
        s_rq[i] = rsqrtf(sq + 1e-6f) * p.scale;
        s_rk[i] = rsqrtf(sk + 1e-6f);
      }
    }
  } // without the norm the scales are constants (intra_ctx)
  __syncthreads();

  // ---- Akk (into s_A) and Aqk (to global) by 16x16 sub-blocks ----
  const intra_ctx<L2N> c{s_q, s_k, s_g, s_A, s_beta, s_rq, s_rk, p.Aqk + tile * tile_sizes::cc, p.scale};
  {
    // Units of sub-blocks sharing their row block I (A operands formed once a unit), one per
    // warp 0-5: (3; 0, 1) (3; 2, 3) (2; 0, 1) (2; 2) (1; 0, 1) (0; 0), as nibbles per warp of I,
    // the first J and the count. A diagonal block with a wide gamma span (slow) is left out of its
    // unit (it is the unit's last): intra_pair_exact takes it below.
    if (warp < 6) {
      const int I = (0x012233 >> (4 * warp)) & 0xf, J0 = (0x002020 >> (4 * warp)) & 0xf;
      int nj = (0x121222 >> (4 * warp)) & 0xf;
      const int slow_mask = (slow[0] ? 1 : 0) | (slow[1] ? 2 : 0) | (slow[2] ? 4 : 0) | (slow[3] ? 8 : 0);
      if (J0 + nj - 1 == I && ((slow_mask >> I) & 1)) --nj;
      if (nj == 2) {
        intra_block_mma<2>(c, I, J0, lane);
      } else if (nj == 1) {
        intra_block_mma<1>(c, I, J0, lane);
      }
    }
    // Warps 3, 5, 6 and 7 (the one-block units and the free warps) write qg (and for the
    // backward its bf16 lo half), kg and exp(gamma_C) meanwhile (they only read gamma, q, k,
    // which nothing changes before the barrier). The 1024 row pieces are shared 1 : 1 : 3 : 3
    // (v26; before, evenly): warps 3 and 5 also carry a sub-block, 6 and 7 nothing else.
    if (warp == 3 || warp >= 5) {
      const int writer = (warp == 3 ? 0 : warp - 4) * 32 + lane; // 0 .. 127
      const int first = warp == 3 ? 0 : (warp == 5 ? 128 : 256 + 384 * (warp - 6));
      const int end = warp == 3 ? 128 : (warp == 5 ? 256 : first + 384);
      for (int idx = first + lane; idx < end; idx += 32) {
        const int i = idx >> 4, d0 = (idx & 15) * 8;
        // 8 consecutive d per thread: vector shared loads (2 x 16 B of gamma and gamma_C,
        // 2 x 8 B of q and k) instead of 32 scalar ones; the arithmetic per element is unchanged.
        float gm[8], gc[8], qv[8], kv[8];
        load8(s_g + i * k_ld_g + d0, gm);
        load8(s_gamC + d0, gc);
        load8(s_q + i * k_ld_bf + d0, qv);
        load8(s_k + i * k_ld_bf + d0, kv);
        const float rq = c.rq(i), rk = c.rk(i);
        std::uint32_t qg_out[4], qg_lo[4], kg_out[4], kg_lo[4];
#pragma unroll
        for (int e = 0; e < 8; e += 2) {
          split_bf16x2(qv[e] * rq * exp_ftz(gm[e]), qv[e + 1] * rq * exp_ftz(gm[e + 1]), qg_out[e / 2], qg_lo[e / 2]);
          split_bf16x2(kv[e] * rk * exp_ftz(gc[e] - gm[e]), kv[e + 1] * rk * exp_ftz(gc[e + 1] - gm[e + 1]), kg_out[e / 2],
                       kg_lo[e / 2]);
        }
        const std::size_t off = tile * tile_sizes::ck + i * k_dim + d0;
        *reinterpret_cast<uint4*>(p.qg + off) = make_uint4(qg_out[0], qg_out[1], qg_out[2], qg_out[3]);
        if (p.qg_lo) *reinterpret_cast<uint4*>(p.qg_lo + off) = make_uint4(qg_lo[0], qg_lo[1], qg_lo[2], qg_lo[3]);
        *reinterpret_cast<uint4*>(p.kg + off) = make_uint4(kg_out[0], kg_out[1], kg_out[2], kg_out[3]);
        *reinterpret_cast<uint4*>(p.kg_lo + off) = make_uint4(kg_lo[0], kg_lo[1], kg_lo[2], kg_lo[3]);
      }
      p.gC[tile * k_dim + writer] = expf(s_gamC[writer]); // 128 writers, one per column
    }
    for (int pp = tid; pp < 4 * 136; pp += k_intra_threads) {
      const int I = pp / 136;
      if (slow[I]) intra_pair_exact(c, I, pp % 136);
    }
    // Aqk above the diagonal sub-blocks is zero.
    for (int e = tid; e < 6 * 128; e += k_intra_threads) {
      const int b = e >> 7, r = (e >> 3) & 15, cpair = e & 7;
      const int up_I = b < 3 ? 0 : (b < 5 ? 1 : 2); // upper blocks (0,1) (0,2) (0,3) (1,2) (1,3) (2,3)
      const int up_J = b < 3 ? b + 1 : (b < 5 ? b - 1 : 3);
      *reinterpret_cast<std::uint32_t*>(c.Aqk + (16 * up_I + r) * k_chunk + 16 * up_J + 2 * cpair) = 0u;
    }
  }
  __syncthreads();

  // Two independent jobs side by side (v26; before, every warp took a share of the first and
  // warps 0-3 then did the second while 4-7 waited at the barrier):
  // ---- warps 4-7: s_g <- beta k' exp(gamma), the B operand of w (gamma is not read after this) ----
  // (4 consecutive d per thread: one 16-byte load and store of gamma, one 8-byte load of k)
  if (warp >= 4) {
    for (int idx = tid - 128; idx < k_chunk * k_dim / 4; idx += k_intra_threads - 128) {
      const int i = idx >> 5, d4 = (idx & 31) * 4;
      float* gp = s_g + i * k_ld_g + d4;
      const float4 gm = f4(gp), kv = bf4(s_k + i * k_ld_bf + d4);
      const float b = s_beta[i], rk = c.rk(i);
      *reinterpret_cast<float4*>(gp) = make_float4(b * kv.x * rk * exp_ftz(gm.x), b * kv.y * rk * exp_ftz(gm.y),
                                                   b * kv.z * rk * exp_ftz(gm.z), b * kv.w * rk * exp_ftz(gm.w));
    }
  } else if (lane < 16) {
    // ---- warps 0-3: X = (I + Akk)^-1, in place. Diagonal 16x16 blocks by forward substitution ----
    const int I = warp, col = lane;
    float x[16];
#pragma unroll
    for (int i = 0; i < 16; ++i) {
      float s = i == col ? 1.f : 0.f;
#pragma unroll
      for (int j = 0; j < i; ++j) s = fmaf(-s_A[(16 * I + i) * k_ld_a + 16 * I + j], x[j], s);
      x[i] = s;
    }
    __syncwarp(0x0000ffffu);
#pragma unroll
    for (int i = 0; i < 16; ++i) s_A[(16 * I + i) * k_ld_a + 16 * I + col] = x[i];
  }
  __syncthreads();
  // Off-diagonal blocks, row block I after row block I-1, on tensor cores:
  //   P_IJ = sum_{K=J}^{I-1} A_IK X_KJ,   X_IJ = -X_II P_IJ   (reads A_IK, K >= J, before any is overwritten)
  // Warp w < 2 I takes the 8 columns nt = w & 1 of block J = w >> 1. Operands as TF32 hi + lo pairs,
  // three products each (hi hi + hi lo + lo hi), FP32 accumulation: FP32-level accuracy (v11; the
  // scalar FMA loops it replaces were a quarter of the stage's stall samples, docs/perf-log.md).
  {
    const int gid = lane >> 2, tig = lane & 3;
    // acc += M[16 rows at r0][8 k at k0] * N[8 k at k0][8 cols at c0], both fp32 smem of stride ld.
    const auto mma_3xtf32 = [&](frag_c& acc, const float* M, int ldm, const float* N, int ldn) {
      std::uint32_t ah[4], al[4], bh[2], bl[2];
      split_tf32(M[gid * ldm + tig], ah[0], al[0]);
      split_tf32(M[(gid + 8) * ldm + tig], ah[1], al[1]);
      split_tf32(M[gid * ldm + tig + 4], ah[2], al[2]);
      split_tf32(M[(gid + 8) * ldm + tig + 4], ah[3], al[3]);
      split_tf32(N[tig * ldn + gid], bh[0], bl[0]);
      split_tf32(N[(tig + 4) * ldn + gid], bh[1], bl[1]);
      mma_tf32_1688(acc, al, bh);
      mma_tf32_1688(acc, ah, bl);
      mma_tf32_1688(acc, ah, bh);
    };
    for (int I = 1; I < 4; ++I) {
      const int J = warp >> 1, c0 = 16 * J + 8 * (warp & 1);
      if (warp < 2 * I) {
        frag_c acc = {};
        for (int K = J; K < I; ++K) {
#pragma unroll
          for (int k0 = 0; k0 < 16; k0 += 8) {
            mma_3xtf32(acc, s_A + 16 * I * k_ld_a + 16 * K + k0, k_ld_a, s_A + (16 * K + k0) * k_ld_a + c0, k_ld_a);
          }
        }
        float* const P = s_P + J * 16 * 17 + 8 * (warp & 1); // P_IJ [16][16], row stride 17
#pragma unroll
        for (int x = 0; x < 4; ++x) P[(gid + 8 * (x >> 1)) * 17 + 2 * tig + (x & 1)] = acc.x[x];
      }
      __syncthreads();
      if (warp < 2 * I) {
        frag_c acc = {};
#pragma unroll
        for (int k0 = 0; k0 < 16; k0 += 8) {
          mma_3xtf32(acc, s_A + 16 * I * k_ld_a + 16 * I + k0, k_ld_a, s_P + (J * 16 + k0) * 17 + 8 * (warp & 1), 17);
        }
#pragma unroll
        for (int x = 0; x < 4; ++x) {
          s_A[(16 * I + gid + 8 * (x >> 1)) * k_ld_a + c0 + 2 * tig + (x & 1)] = -acc.x[x];
        }
      }
      __syncthreads();
    }
  }

  // The backward (bwd_grad) reads X instead of inverting again. Sub-blocks above the diagonal
  // are never written in s_A (nothing here reads them): store their zeros explicitly.
  if (p.X) {
    for (int idx = tid; idx < k_chunk * 16; idx += k_intra_threads) {
      const int i = idx >> 4, c4 = (idx & 15) * 4;
      const float4 x = (c4 >> 4) > (i >> 4) ? make_float4(0.f, 0.f, 0.f, 0.f)
                                            : *reinterpret_cast<const float4*>(s_A + i * k_ld_a + c4);
      *reinterpret_cast<float4*>(p.X + tile * tile_sizes::cc + i * k_chunk + c4) = x;
    }
  }

  // ---- w = X (beta k' exp(gamma)), u = X (beta v): TF32, X lower-triangular ----
  // Warp `warp` takes the 16 columns [16 warp, +16) of every row block M (v26). Row block M sums
  // over j < 16 (M + 1), so the work per row block grows 1 : 2 : 3 : 4; with a warp per row block
  // and column half (before v26) the M = 3 warps did four times the M = 0 warps' products and the
  // others waited at the barrier below (a fifth of the stage's stall samples, session 11's
  // profile). Each accumulator still sums its k steps j0 = 0, 8, ... in ascending order with the
  // same operands: the bits are unchanged. The B operands of a k step are formed once for all the
  // row blocks that take it.
  {
    const int gid = lane >> 2, tig = lane & 3;
    frag_c aw[4][2] = {}, au[4][2] = {}; // [row block M][n-tile]
#pragma unroll
    for (int j0 = 0; j0 < k_chunk; j0 += 8) {
      const int ja = j0 + tig, jb = ja + 4;
      const float ba = s_beta[ja], bb = s_beta[jb];
      std::uint32_t bw[2][2], bu[2][2];
#pragma unroll
      for (int nt = 0; nt < 2; ++nt) {
        const int col = 16 * warp + 8 * nt + gid;
        bw[nt][0] = to_tf32(s_g[ja * k_ld_g + col]);
        bw[nt][1] = to_tf32(s_g[jb * k_ld_g + col]);
        bu[nt][0] = to_tf32(ba * bf(s_v, ja * k_ld_bf + col));
        bu[nt][1] = to_tf32(bb * bf(s_v, jb * k_ld_bf + col));
      }
#pragma unroll
      for (int M = j0 / 16; M < 4; ++M) { // the row blocks whose sum reaches j0
        const int ra = (16 * M + gid) * k_ld_a, rb = ra + 8 * k_ld_a;
        const std::uint32_t a[4] = {to_tf32(s_A[ra + j0 + tig]), to_tf32(s_A[rb + j0 + tig]),
                                    to_tf32(s_A[ra + j0 + tig + 4]), to_tf32(s_A[rb + j0 + tig + 4])};
#pragma unroll
        for (int nt = 0; nt < 2; ++nt) {
          mma_tf32_1688(aw[M][nt], a, bw[nt]);
          mma_tf32_1688(au[M][nt], a, bu[nt]);
        }
      }
    }
    // Stage w through smem (s_q is dead) so its global stores are whole 16-byte rows; u goes out
    // in FP32 straight from the fragments (8-byte stores, 32 contiguous bytes per row and quad).
    float* const u_tile = p.u + tile * tile_sizes::ck;
#pragma unroll
    for (int M = 0; M < 4; ++M) {
#pragma unroll
      for (int nt = 0; nt < 2; ++nt) {
#pragma unroll
        for (int hh = 0; hh < 2; ++hh) {
          const int row = 16 * M + gid + 8 * hh, col = 16 * warp + 8 * nt + 2 * tig;
          *reinterpret_cast<std::uint32_t*>(s_q + row * k_ld_bf + col) =
              pack_bf16(aw[M][nt].x[2 * hh], aw[M][nt].x[2 * hh + 1]);
          *reinterpret_cast<float2*>(u_tile + row * k_dim + col) =
              make_float2(au[M][nt].x[2 * hh], au[M][nt].x[2 * hh + 1]);
        }
      }
    }
  }
  __syncthreads();
  for (int idx = tid; idx < k_chunk * 16; idx += k_intra_threads) {
    const int i = idx >> 4, seg = idx & 15;
    const std::size_t off = tile * tile_sizes::ck + i * k_dim + seg * 8;
    *reinterpret_cast<uint4*>(p.w + off) = *reinterpret_cast<const uint4*>(s_q + i * k_ld_bf + seg * 8);
  }
  __syncthreads(); // every store of the tile is made: publish it to the state pass
  if (tid == 0) publish_ready(p.ready + tile, p.epoch);
}

template <bool RAW, bool L2N>
cudaError_t launch_instance(const fwd_intra_params& p, int num_chunks, cudaStream_t stream) {
  static const cudaError_t attr = cudaFuncSetAttribute(
      fwd_intra_kernel<RAW, L2N>, cudaFuncAttributeMaxDynamicSharedMemorySize,
      static_cast<int>(intra_smem::bytes));
  if (attr != cudaSuccess) return attr;
  fwd_intra_kernel<RAW, L2N><<<dim3(num_chunks, p.heads), k_intra_threads, intra_smem::bytes, stream>>>(p);
  return cudaGetLastError();
}

} // namespace

std::size_t fwd_intra_smem_bytes() { return intra_smem::bytes; }

cudaError_t launch_fwd_intra(const fwd_intra_params& p, int num_chunks, bool raw_gate, bool l2n_fused,
                             cudaStream_t stream) {
  if (raw_gate) {
    return l2n_fused ? launch_instance<true, true>(p, num_chunks, stream)
                     : launch_instance<true, false>(p, num_chunks, stream);
  }
  return l2n_fused ? launch_instance<false, true>(p, num_chunks, stream)
                   : launch_instance<false, false>(p, num_chunks, stream);
}

} // namespace kda::dev
