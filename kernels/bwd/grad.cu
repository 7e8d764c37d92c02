// Backward stages 3-5 ("grad"): one CTA of 8 or 16 warps per (chunk, head). See grad.cuh for the
// maths and docs/backward-design.md for the derivation; symbols as there (qs = scaled q', k' = k
// after the optional L2 norm, gamma = cumsum of g in the chunk, kgp = k' exp(gamma), kgC =
// k' exp(gamma_C - gamma), qg = qs exp(gamma), Tm = X diag(beta)).
//
// Ownership: every [64][128] (token x feature) result is held as mma C fragments with one fixed
// map, warp (M = warp & 3, ch = warp >> 2) -> rows 16 M + gid (+8), columns 8 k_nt ch + 8 nt +
// 2 tig (+1), nt < k_nt (the warp grid: grad_col_groups). The gradients of qs, k' and gamma (dqs,
// dkp, dgm) accumulate in those registers through all stages, so the elementwise terms never leave
// the thread that owns them.
//
// Exponent safety (numerics contract): exponentials are exp(gamma_i - gamma_j) with i >= j, or
// factors exp(gamma_i - gamma_n) exp(gamma_n - gamma_j) with a reference row n of the 16-row
// sub-block, as in the forward: for off-diagonal sub-block pairs both factors are <= 1; diagonal
// sub-blocks use the factorised (tensor-core) form only when their gamma span is <= k_span_limit
// (factors within exp(+-64)), otherwise ("slow", fast decay) they go pair by pair in FP32 from
// exp(gamma_i - gamma_j) <= 1.
//
// Precision: bf16 operands for products of bf16 data (do h^T, dv_new h^T); v_new (FP32 in the saved
// set) as a bf16 hi + lo pair in v_new dh^T and do v_new^T, as the forward state pass uses it
// (docs/backward-design.md: its bf16 rounding bounded the gate gradients), and dv_new as bwd_dh's
// hi + lo pair in dv_new v^T (its bf16 rounding there bounded dbeta; the other two products with
// dv_new do not move any gradient: "dv and dbeta", docs/backward-design.md); TF32 for
// everything through X and the gated operands; FP32 accumulation and elementwise terms. Every
// reduction has a fixed order: deterministic. Exponentials are exp_ftz (common/fast_exp.cuh):
// results below 2^-126 flush to zero.
//
// Code size was speed here: one CTA per SM runs the whole unrolled body once per tile, and the
// time tracked the instruction count until v5 (bwd v5a, docs/perf-log.md: 10 352 -> 8 384
// instructions for the raw form took bwd_grad from 8.9 to 6.3 ms); since v8a it no longer does
// (-6 % instructions, -0.8 % time): what holds it now is latency and issue (v9a profile). Keep copy
// loops rolled and addresses hoisted all the same.
#include "bwd/grad.cuh"

#include <cstdint>

#include "common/fast_exp.cuh"
#include "common/gate.cuh"
#include "common/launch.cuh"
#include "common/mbarrier.cuh"
#include "common/mma.cuh"
#include "common/ready_flags.cuh"
#include "common/rows.cuh"
#include "common/tile_maps.cuh"
#include "common/timeline.cuh"

namespace kda::dev {
namespace {

constexpr int k_ld = 136;  // bf16 [rows][128] tiles (conflict-free ldmatrix)
constexpr int k_ldf = 132; // fp32 [64][128] tiles
constexpr int k_lds = 68;  // fp32 [64][64] tiles

// The warp grid: 4 row blocks of 16 tokens x CG groups of feature columns, 128 CG threads; a warp
// owns 16 / CG 8-column fragments of each [64][128] result and 8 / CG of each [64][64] one. Its
// shared memory allows one CTA per SM. The raw form runs 16 warps (CG = 4, at most 128 registers
// a thread), the g form 8 (CG = 2, 255 registers): measured on the H200 (docs/perf-log.md, v9a),
// 16 warps took 4doc's bwd_grad -11 % (raw, fused norm) and -2 % (raw), +1 % on both g forms.
constexpr int grad_col_groups(bool raw) { return raw ? 4 : 2; }
constexpr int grad_threads(bool raw) { return 128 * grad_col_groups(raw); }
constexpr int k_max_col_groups = 4;

// Row i's total of per-column-group partials s[group][64], groups in order (a fixed order).
template <int CG>
__device__ __forceinline__ float group_sum(const float* s, int i) {
  float t = s[i];
#pragma unroll
  for (int g = 1; g < CG; ++g) t += s[64 * g + i];
  return t;
}

// Shared memory, by phase (regions are reused once their contents are dead). h, dh, dv_new and its
// lo half arrive through the copy engine (v32) in the 128-byte swizzle (common/box_layout.cuh):
// h and dh as two [128][64] boxes each (swz_rows_offset<128>), dv_new and lo as two [64][64]
// (swz_offset); the other tiles by 16-byte cp.async into rows of k_ld.
struct grad_smem {
  static constexpr std::size_t q = 0;                    // bf16 [64][136] raw q
  static constexpr std::size_t k = q + 64 * k_ld * 2;    // bf16 [64][136] raw k
  static constexpr std::size_t g = k + 64 * k_ld * 2;    // fp32 [64][132] gamma
  static constexpr std::size_t A = g + 64 * k_ldf * 4;   // h bf16 [128][128] boxed | dw (TF32-rounded) [64][132] | dgamma (g) or x (raw)
  static constexpr std::size_t B = A + 128 * k_ld * 2;   // dh bf16 [128][128] boxed | dAqk, kgp rows 0-31 / Z fp32 [64][68] | dx (raw)
  static constexpr std::size_t C = B + 128 * k_ld * 2;   // do bf16 [64][136] | v | dgamma (raw, over C and D)
  static constexpr std::size_t D = C + 64 * k_ld * 2;    // v_new bf16 | kgp rows 32-63 | dTm fp32 [64][68]
  static constexpr std::size_t E = D + 64 * k_ld * 2;    // dv_new bf16 [64][128] boxed
  static constexpr std::size_t X = E + 64 * k_ld * 2;    // fp32 [64][68]
  static constexpr std::size_t dAkk = X + 64 * k_lds * 4; // v_new lo | dv_new lo bf16 [64][128] boxed | dAkk fp32 [64][68]
  static constexpr std::size_t beta = dAkk + 64 * k_lds * 4;
  static constexpr std::size_t rq = beta + 64 * 4;   // rsqrt(q.q + eps) * scale (fused l2n only)
  static constexpr std::size_t rqn = rq + 64 * 4;    // rsqrt(q.q + eps) (fused l2n only)
  static constexpr std::size_t rk = rqn + 64 * 4;    // rsqrt(k.k + eps) (fused l2n only)
  static constexpr std::size_t dbwy = rk + 64 * 4;   // dbeta, WY part
  static constexpr std::size_t gamC = dbwy + 64 * 4; // gamma_C [128]
  static constexpr std::size_t dgc = gamC + 128 * 4; // dgamma_C [128]
  static constexpr std::size_t colpart = dgc + 128 * 4; // [4][128] kgC column sums; gate totals and 4 wide flags first
  static constexpr std::size_t red = colpart + 512 * 4;  // [128] dA_log tree
  static constexpr std::size_t bars = red + 128 * 4;     // mbarriers: h; dh and dv_new; dv_new's lo half
  static constexpr std::size_t bytes = bars + 3 * 8;
  // Per-row partial sums, one per column group, in region X (dead once dAkk is formed):
  static constexpr std::size_t dbkk = X;                        // [groups][64] dbeta, KK part
  static constexpr std::size_t dotq = dbkk + k_max_col_groups * 64 * 4; // [groups][64] q'.dq' (fused l2n)
  static constexpr std::size_t dotk = dotq + k_max_col_groups * 64 * 4; // [groups][64] k'.dk'
  static_assert(3 * k_max_col_groups * 64 * 4 <= 64 * k_lds * 4, "row partials fit in region X");
  static_assert(64 * k_ldf * 4 <= 128 * k_ld * 2, "dw and dgamma fit in region A");
  static_assert(2 * 64 * k_lds * 4 <= 128 * k_ld * 2, "dAqk and Z fit in region B");
  static_assert(64 * k_lds * 4 <= 64 * k_ld * 2, "dTm fits in region D");
  static_assert(32 * k_ldf * 4 <= 64 * k_lds * 4 && 32 * k_ldf * 4 <= 64 * k_ld * 2, "kgp's halves fit Z's place and D");
  static_assert(64 * k_ld * 2 <= 64 * k_lds * 4, "v_new's lo half fits in region dAkk");
  static_assert(64 * k_ldf * 4 <= 2 * 64 * k_ld * 2 && D == C + 64 * k_ld * 2, "raw stage 5: dgamma fits in regions C and D");
  static_assert(A % 1024 == 0 && B % 1024 == 0 && E % 1024 == 0 && dAkk % 1024 == 0, "boxes 1024-byte aligned");
  static_assert(128 * 128 * 2 <= 128 * k_ld * 2 && 64 * 128 * 2 <= 64 * k_lds * 4, "boxed tiles fit their regions");
  static_assert(bars % 8 == 0, "mbarrier alignment");
  static_assert(bytes <= 227 * 1024, "one CTA per SM");
};

// The copy engine's maps (made per launch): h and dh [tiles * 128][128] in boxes of [128][64],
// dv_new and its lo half [tiles * 64][128] in boxes of [64][64], all with the 128-byte swizzle.
struct grad_maps {
  CUtensorMap h, dh, dvn, dvn_lo;
};
constexpr std::uint32_t k_kv_bytes = 128 * 128 * 2, k_ck_bytes = 64 * 128 * 2;

// Where a bf16 [rows][128] operand tile sits in shared memory, for mma_abt_bf16_sum's ldmatrix
// addresses (shared-state space): base(r, c) of element (r, c), c = 0 or 8 (the lane's half of the
// first k step); down(a, n), n rows further; step(a, kk), k step kk (columns + 16 kk). Rows of k_ld
// (cp.async) ...
struct padded_tile {
  const __nv_bfloat16* p;
  __device__ std::uint32_t base(int r, int c) const { return smem_addr(p + r * k_ld + c); }
  __device__ static std::uint32_t down(std::uint32_t a, int n) { return a + n * k_ld * 2; }
  __device__ static std::uint32_t step(std::uint32_t a, int kk) { return a + 32 * kk; }
};
// ... or the copy engine's swizzled boxes of [ROWS][64] (swz_rows_offset, 1024-byte aligned): the
// k step's 16-byte chunk 2 kk + c / 8 of its box is chunk0 ^ 2 (kk & 3), so one XOR of the lane's
// address per k step (then the box), no per-step offsets held in registers.
template <int ROWS>
struct boxed_tile {
  const unsigned char* p;
  __device__ std::uint32_t base(int r, int c) const { return smem_addr(p + swz_rows_offset<ROWS>(r, c)); }
  __device__ static std::uint32_t down(std::uint32_t a, int n) { return a + n * 128; } // n % 8 == 0
  __device__ static std::uint32_t step(std::uint32_t a, int kk) {
    return (a ^ ((kk & 3) << 5)) + (kk >> 2) * ROWS * 128;
  }
  // the element at byte offset `offset` (swz_rows_offset<ROWS> of its row and column)
  __device__ float elem_at(std::uint32_t offset) const {
    return __bfloat162float(*reinterpret_cast<const __nv_bfloat16*>(p + offset));
  }
  // the 16-byte piece (8 elements of a row) at byte offset `offset`
  __device__ uint4 piece_at(std::uint32_t offset) const { return *reinterpret_cast<const uint4*>(p + offset); }
};

// acc[nt] += (A_0 + ... + A_{NA-1})[rows ar + 16][128] * B[rows br + 8 NT][128]^T, bf16 smem
// tiles (padded_tile or boxed_tile), ar the warp's first row, br its first output column. NA = 2
// takes a bf16 hi + lo pair; each k step's B fragments serve every A. The fragments are
// load_a_bf16's and load_b_bf16_nk_x2's (common/mma.cuh), addressed through the tile's layout.
template <int NT, int NA, class TA, class TB>
__device__ __forceinline__ void mma_abt_bf16_sum(frag_c (&acc)[NT], const TA (&A)[NA], int ar, const TB& B, int br,
                                                 int lane) {
  const int mat = lane >> 3, r = lane & 7;
  std::uint32_t a_at[NA];
#pragma unroll
  for (int t = 0; t < NA; ++t) a_at[t] = A[t].base(ar + (lane & 15), (lane >> 4) * 8);
  const std::uint32_t b_at = B.base(br + (mat >> 1) * 8 + r, (mat & 1) * 8);
  mma_sum_products<8, 1, NT, NA>(
      reinterpret_cast<frag_c (&)[1][NT]>(acc),
      [&](std::uint32_t (&a)[4], int t, int, int kk) { ldmatrix_x4_at(a, TA::step(a_at[t], kk)); },
      [&](std::uint32_t (&b0)[2], std::uint32_t (&b1)[2], int np, int kk) {
        load_b_bf16_nk_x2_at(b0, b1, TB::step(TB::down(b_at, 16 * np), kk));
      });
}

template <int NT, class TA, class TB>
__device__ __forceinline__ void mma_abt_bf16(frag_c (&acc)[NT], const TA& A, int ar, const TB& B, int br, int lane) {
  const TA one[1] = {A};
  mma_abt_bf16_sum(acc, one, ar, B, br, lane);
}

// Element reads of qs, k' and gamma. Without the L2 norm the row scales are constants: rq = scale
// (a kernel parameter, no shared-memory read) and rk = 1, whose multiply is left out (x * 1.0f == x
// bit for bit, denormals included: no ftz), so the same bits with fewer instructions.
template <bool L2N>
struct grad_ctx {
  const __nv_bfloat16* q;
  const __nv_bfloat16* k;
  const float* g;
  const float* rq;
  const float* rk;
  float scale;
  __device__ float qs(int i, int d) const { return bf(q, i * k_ld + d) * (L2N ? rq[i] : scale); }
  __device__ float kp(int i, int d) const {
    if constexpr (L2N) return bf(k, i * k_ld + d) * rk[i];
    return bf(k, i * k_ld + d);
  }
  __device__ float gam(int i, int d) const { return g[i * k_ldf + d]; }
};

template <bool RAW, bool L2N>
__global__ void __launch_bounds__(grad_threads(RAW), 1)
    bwd_grad_kernel(bwd_grad_params p, const __grid_constant__ grad_maps maps) {
  const tl_stamp stamp(tl_grad); // the timeline build's record of this block (common/timeline.cuh)
  constexpr int k_col_groups = grad_col_groups(RAW), k_grad_threads = grad_threads(RAW);
  constexpr int k_nt = 16 / k_col_groups, k_ntj = 8 / k_col_groups, k_warps = k_grad_threads / 32;
  using S = grad_smem;
  extern __shared__ __align__(1024) unsigned char smem[]; // the swizzled boxes need 1024-byte alignment
  auto* s_q = reinterpret_cast<__nv_bfloat16*>(smem + S::q);
  auto* s_k = reinterpret_cast<__nv_bfloat16*>(smem + S::k);
  auto* s_g = reinterpret_cast<float*>(smem + S::g);
  const boxed_tile<128> t_h{smem + S::A}, t_dh{smem + S::B};
  const boxed_tile<64> t_dvn{smem + S::E}, t_dvn_lo{smem + S::dAkk};
  auto* s_dw = reinterpret_cast<float*>(smem + S::A);
  // dgamma [64][132] in stage 5: region A (g form), regions C and D (raw form, whose x takes A; v41)
  auto* s_dgm = reinterpret_cast<float*>(smem + (RAW ? S::C : S::A));
  auto* s_dAqk = reinterpret_cast<float*>(smem + S::B);
  auto* s_Z = reinterpret_cast<float*>(smem + S::B + 64 * k_lds * 4);
  auto* s_do = reinterpret_cast<__nv_bfloat16*>(smem + S::C);
  auto* s_v = reinterpret_cast<__nv_bfloat16*>(smem + S::C);
  auto* s_vn = reinterpret_cast<__nv_bfloat16*>(smem + S::D);
  auto* s_vn_lo = reinterpret_cast<__nv_bfloat16*>(smem + S::dAkk); // dead before dAkk is formed
  auto* s_dTm = reinterpret_cast<float*>(smem + S::D);
  // kgp = k' exp(gamma) [64][k_ldf] (TF32-rounded: read as an operand only) from stage 3c to 3d,
  // in two halves of 32 rows: Z's place in region B and region D (both free from stage 3c until 3d
  // ends). A warp's 3d rows (J0 ..) lie in one half.
  const auto kgp_row = [&](int j) {
    return reinterpret_cast<float*>(smem + (j < 32 ? S::B + 64 * k_lds * 4 : S::D)) + (j & 31) * k_ldf;
  };
  auto* s_X = reinterpret_cast<float*>(smem + S::X);
  auto* s_dAkk = reinterpret_cast<float*>(smem + S::dAkk);
  auto* s_beta = reinterpret_cast<float*>(smem + S::beta);
  auto* s_rq = reinterpret_cast<float*>(smem + S::rq);
  auto* s_rqn = reinterpret_cast<float*>(smem + S::rqn);
  auto* s_rk = reinterpret_cast<float*>(smem + S::rk);
  auto* s_dbwy = reinterpret_cast<float*>(smem + S::dbwy);
  auto* s_gamC = reinterpret_cast<float*>(smem + S::gamC);
  auto* s_dgc = reinterpret_cast<float*>(smem + S::dgc);
  auto* s_colpart = reinterpret_cast<float*>(smem + S::colpart);
  auto* s_dotq = reinterpret_cast<float*>(smem + S::dotq);
  auto* s_dotk = reinterpret_cast<float*>(smem + S::dotk);
  auto* s_dbkk = reinterpret_cast<float*>(smem + S::dbkk);
  auto* s_red = reinterpret_cast<float*>(smem + S::red);
  auto* const bar_h = reinterpret_cast<std::uint64_t*>(smem + S::bars); // h
  std::uint64_t* const bar_dh = bar_h + 1;                              // dh, dv_new
  std::uint64_t* const bar_lo = bar_h + 2;                              // dv_new's lo half

  const int H = p.heads, head = blockIdx.x % H;
  const ordered_chunk ci = p.order[blockIdx.x / H];
  const int chunk = ci.chunk, L = ci.len;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, gid = lane >> 2, tig = lane & 3;
  const std::size_t tile = static_cast<std::size_t>(chunk) * H + head;
  const auto row_of = [&](int i) { return static_cast<std::size_t>(ci.start + i) * H + head; };
  const int M = warp & 3, ch = warp >> 2, R0 = 16 * M, C0 = 8 * k_nt * ch, J0 = 8 * k_ntj * ch;
  // Owned element x (0..3) of fragment nt: row R0 + gid + 8 (x >> 1), column C0 + 8 nt + 2 tig + (x & 1).
  const auto orow = [&](int x) { return R0 + gid + 8 * (x >> 1); };
  const auto ocol = [&](int nt, int x) { return C0 + 8 * nt + 2 * tig + (x & 1); };
  // The same for the [64][64] (token x token) results: 4 fragments, columns J0 + 8 nt + 2 tig (+1).
  const auto jcol = [&](int nt, int x) { return J0 + 8 * nt + 2 * tig + (x & 1); };
  // TF32 A fragment of X^T for the k step at X rows [m0, m0 + 8) (this thread: m0 + tig, + 4) and
  // output rows c0, c1 (X columns): X^T is read from X in place.
  const auto xt_frag = [&](int m0, int c0, int c1, std::uint32_t (&a)[4]) {
    const int ma = m0 + tig, mb = ma + 4;
    a[0] = to_tf32(s_X[ma * k_lds + c0]);
    a[1] = to_tf32(s_X[ma * k_lds + c1]);
    a[2] = to_tf32(s_X[mb * k_lds + c0]);
    a[3] = to_tf32(s_X[mb * k_lds + c1]);
  };
  // A [64][64] result's owned fragments into fp32 smem of row stride k_lds.
  const auto store_jtile = [&](float* dst, const frag_c (&f)[k_ntj]) {
#pragma unroll
    for (int nt = 0; nt < k_ntj; ++nt) {
#pragma unroll
      for (int x = 0; x < 4; ++x) dst[orow(x) * k_lds + jcol(nt, x)] = f[nt].x[x];
    }
  };
  const grad_ctx<L2N> c{s_q, s_k, s_g, s_rq, s_rk, p.scale};

  // Replay path, beside bwd_state_replay (v38): h, v_new and X of this tile are read only once
  // the state pass and the intra stage have published it (warp 0 acquires, the barrier passes it
  // on to every thread; the proxy fence orders the copy engine's read of h after it).
  if (p.state_ready) {
    if (warp == 0) {
      await_vtile_slots(p.state_ready, tile, p.state_epoch, lane, p.intra_ready, p.intra_epoch);
      __syncwarp();
      fence_proxy_async_global();
    }
    __syncthreads();
  }

  // ---- phase 0: loads. Copy engine (thread 0; v32): h, then bwd_dh's dh and dv_new once their
  // flags are published (when this launch overlaps bwd_dh). cp.async: the gate first (v40: into
  // gamma's place, where the gate scan reads it), then q and k, then do and X. Without the norm
  // the gate is a group of its own, the only one the gate scan waits for (v53: session 34's
  // profile put the gate's landing and the scan on the load phase's critical path; the copy
  // engine's h and dh were in by then). With the norm, q and k join the gate's group: the row
  // norms right after the scan need them, and a wait and barrier of their own there cost the
  // g:fused form 3 - 8 % (session 34, call C). (Before v32 every thread copied h, dh, dv_new and
  // its lo half in 16-byte pieces: 6 144 requests a tile.) The copy loops stay rolled (unroll 1):
  // they only issue cp.async, and unrolled they were 5 % of a kernel whose size costs
  // instruction-cache misses (docs/perf-log.md, bwd v5).
  if (tid == 0) {
    for (std::uint64_t* b : {bar_h, bar_dh, bar_lo}) mbar_init(b, 1);
    fence_mbar_init(); // before the copies complete on them; the other threads wait after a barrier
    mbar_expect_bytes(bar_h, k_kv_bytes);
    for (int cb = 0; cb < 2; ++cb) copy_box(smem + S::A + cb * (k_kv_bytes / 2), maps.h, 64 * cb, 128 * tile, bar_h);
  }
  // The register loads first (v44): v_new's 16-byte loads, whose split is the first consumer, and
  // beta's (stored after the split; v40: stored at once, its load waited behind v_new's), and the
  // raw gate's constants, so that none of them waits alone or behind the copies issued next
  // (v9b: the split waited for v_new, then the gate loads only started).
  const gate_consts gc = tid < k_gate_threads ? gate_consts_of<RAW>(p.A_log, p.dt_bias, head, tid) : gate_consts{};
  const __nv_bfloat16 beta_in = tid < k_chunk && tid < L ? p.beta[row_of(tid)] : __float2bfloat16_rn(0.f);
  constexpr int vn_per_thread = 64 * 16 / k_grad_threads;
  float4 vv[2 * vn_per_thread];
  {
    const float* src = p.v_new + tile * tile_sizes::ck;
#pragma unroll
    for (int n = 0; n < vn_per_thread; ++n) {
      const int idx = tid + n * k_grad_threads, i = idx >> 4, seg = idx & 15;
      vv[2 * n] = *reinterpret_cast<const float4*>(src + i * v_dim + seg * 8);
      vv[2 * n + 1] = *reinterpret_cast<const float4*>(src + i * v_dim + seg * 8 + 4);
    }
  }
  gate_copy_rows(p.gate_in, row_of(0), H, L, tid, k_grad_threads, s_g, k_ldf);
  if constexpr (!L2N) cp_async_commit();
#pragma unroll 1
  for (int idx = tid; idx < 64 * 16; idx += k_grad_threads) {
    const int i = idx >> 4, seg = idx & 15;
    if (i < L) {
      cp_async_16(s_q + i * k_ld + seg * 8, p.q + row_of(i) * k_dim + seg * 8);
      cp_async_16(s_k + i * k_ld + seg * 8, p.k + row_of(i) * k_dim + seg * 8);
    } else {
      *reinterpret_cast<uint4*>(s_q + i * k_ld + seg * 8) = make_uint4(0, 0, 0, 0);
      *reinterpret_cast<uint4*>(s_k + i * k_ld + seg * 8) = make_uint4(0, 0, 0, 0);
    }
  }
  cp_async_commit();
#pragma unroll 1
  for (int idx = tid; idx < 64 * 16; idx += k_grad_threads) {
    const int i = idx >> 4, seg = idx & 15;
    if (i < L) {
      cp_async_16(s_do + i * k_ld + seg * 8, p.d_o + row_of(i) * v_dim + seg * 8);
    } else {
      *reinterpret_cast<uint4*>(s_do + i * k_ld + seg * 8) = make_uint4(0, 0, 0, 0);
    }
    cp_async_16(s_X + i * k_lds + seg * 4, p.X + tile * tile_sizes::cc + i * k_chunk + seg * 4);
  }
  cp_async_commit();
  if (warp == 0) {
    if (lane == 0) stamp.mark(0); // timeline build: warp 0's loads are issued, its flag wait next
    if (p.dh_ready) {
      await_vtile_slots(p.dh_ready, tile, p.dh_epoch, lane);
      __syncwarp();               // lane 0's copies after every lane's acquire
      fence_proxy_async_global(); // and, as copy-engine reads, after what the acquire made visible
    }
    if (lane == 0) {
      stamp.mark(1); // timeline build: bwd_dh's flags for this tile acquired (or none awaited)
      mbar_expect_bytes(bar_dh, k_kv_bytes + k_ck_bytes);
      for (int cb = 0; cb < 2; ++cb) {
        copy_box(smem + S::B + cb * (k_kv_bytes / 2), maps.dh, 64 * cb, 128 * tile, bar_dh);
        copy_tile_box(smem + S::E, maps.dvn, cb, tile, bar_dh);
      }
    }
  }
  // v_new, FP32 in the saved set, into smem as hi = bf16(v_new) and lo = bf16(v_new - hi), the
  // split the forward state pass used: its loads went out first (above), the split comes after
  // every copy is issued.
  {
#pragma unroll
    for (int n = 0; n < vn_per_thread; ++n) {
      const int idx = tid + n * k_grad_threads, i = idx >> 4, seg = idx & 15;
      const float v[8] = {vv[2 * n].x,     vv[2 * n].y,     vv[2 * n].z,     vv[2 * n].w,
                          vv[2 * n + 1].x, vv[2 * n + 1].y, vv[2 * n + 1].z, vv[2 * n + 1].w};
      std::uint32_t hi[4], lo[4];
#pragma unroll
      for (int e = 0; e < 4; ++e) split_bf16x2(v[2 * e], v[2 * e + 1], hi[e], lo[e]);
      *reinterpret_cast<uint4*>(s_vn + i * k_ld + seg * 8) = make_uint4(hi[0], hi[1], hi[2], hi[3]);
      *reinterpret_cast<uint4*>(s_vn_lo + i * k_ld + seg * 8) = make_uint4(lo[0], lo[1], lo[2], lo[3]);
    }
    if (tid < k_chunk) s_beta[tid] = __bfloat162float(beta_in);
  }
  // gamma = cumsum(g), exactly as the forward intra stage forms it, by the first k_gate_threads
  // threads (2 per column: gate_scan's map); the others hold no column and mark no wide
  // sub-block. slow[I]: the gamma span of sub-block I exceeds k_span_limit in some column (its
  // diagonal block goes pair by pair). The barrier after mark_wide also publishes the first half's
  // column totals (s_colpart) that store_gamma adds to the second half, in place of the gate.
  bool slow[4];
  {
    int* const s_wide = reinterpret_cast<int*>(s_colpart + 128); // 4 flags after the totals
    clear_wide_flags(s_wide, tid);
    cp_async_wait<L2N ? 1 : 2>(); // group 0: the gate (with the norm also q, k)
    __syncthreads();
    float gam[32];
    if (tid < k_gate_threads) {
      bool wide[2];
      gate_read(s_g, k_ldf, tid, gam);
      gate_scan<RAW>(gc, L, tid, gam, s_colpart);
      wide_sub_blocks(gam, wide);
      mark_wide(wide, tid, s_wide);
    }
    __syncthreads();
    read_slow(s_wide, slow);
    if (tid < k_gate_threads) store_gamma(gam, s_colpart, s_g, k_ldf, s_gamC, tid);
  }
  // rsqrt(x.x + eps) per row, the forward's fixed-order warp tree (same bits)
  if constexpr (L2N) {
    for (int i = warp * (64 / k_warps); i < (warp + 1) * (64 / k_warps); ++i) {
      float sq, sk;
      row_square_sums(s_q, s_k, k_ld, i, lane, sq, sk);
      if (lane == 0) {
        const float r = rsqrtf(sq + 1e-6f);
        s_rqn[i] = r;
        s_rq[i] = r * p.scale;
        s_rk[i] = rsqrtf(sk + 1e-6f);
      }
    }
  } // without the norm the scales are constants (grad_ctx); s_rq, s_rqn, s_rk are not read
  cp_async_wait<0>();
  mbar_wait(bar_h, 0);
  mbar_wait(bar_dh, 0);
  __syncthreads();
  if (tid == 0) stamp.mark(2); // timeline build: every input in shared memory, the gate scanned

  frag_c dqs[k_nt] = {}, dkp[k_nt] = {}, dgm[k_nt] = {}; // d/dqs, d/dk', d/dgamma of the owned elements

  // ---- stage 3a: dqg = do h^T (elementwise into dqs, dgamma), dw = -dv_new h^T ----
  {
    frag_c acc[k_nt] = {};
    mma_abt_bf16(acc, padded_tile{s_do}, R0, t_h, C0, lane);
#pragma unroll
    for (int nt = 0; nt < k_nt; ++nt) {
#pragma unroll
      for (int x = 0; x < 4; ++x) {
        const int i = orow(x), d = ocol(nt, x);
        const float eg = exp_ftz(c.gam(i, d)), v = acc[nt].x[x];
        dqs[nt].x[x] = fmaf(v, eg, dqs[nt].x[x]);       // qg = qs exp(gamma)
        dgm[nt].x[x] = fmaf(v, c.qs(i, d) * eg, dgm[nt].x[x]);
      }
    }
  }
  frag_c dwf[k_nt] = {};
  mma_abt_bf16(dwf, t_dvn, R0, t_h, C0, lane);
  if (tid < 2 * k_dim) { // the first 8 warps
    // dgamma_C, state part: d/dgamma_C of diag(exp(gamma_C)) h, = exp(gamma_C) rowsum_V(h .* dh)
    // (v in order: the 16-byte pieces of row d in box hv, addressed once each, then their
    // elements. Read as one 16-byte load each, except in the g form with the L2 norm, where those
    // 8 registers more made the allocator spill 41 instructions instead of 11 and the pass 3.5 %
    // slower; in the other forms element loads cost 3 % (session 18, calls B and C).)
    const int d = tid >> 1, hv = tid & 1;
    float s = 0.f;
    for (int v0 = 64 * hv; v0 < 64 * hv + 64; v0 += 8) {
      const std::uint32_t at = swz_rows_offset<128>(d, v0);
      if constexpr (!RAW && L2N) {
#pragma unroll
        for (int e = 0; e < 8; ++e) s = fmaf(t_h.elem_at(at + 2 * e), t_dh.elem_at(at + 2 * e), s);
      } else {
        const uint4 hp = t_h.piece_at(at), dp = t_dh.piece_at(at);
        const auto* const hh = reinterpret_cast<const __nv_bfloat162*>(&hp);
        const auto* const dd = reinterpret_cast<const __nv_bfloat162*>(&dp);
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const float2 hf = __bfloat1622float2(hh[e]), df = __bfloat1622float2(dd[e]);
          s = fmaf(hf.x, df.x, s);
          s = fmaf(hf.y, df.y, s);
        }
      }
    }
    s += __shfl_xor_sync(0xffffffffu, s, 1);
    if (hv == 0) s_dgc[d] = s * expf(s_gamC[d]);
  }
  __syncthreads(); // h is dead: region A takes dw
#pragma unroll
  for (int nt = 0; nt < k_nt; ++nt) {
#pragma unroll
    for (int x = 0; x < 4; ++x) s_dw[orow(x) * k_ldf + ocol(nt, x)] = tf32_rounded(-dwf[nt].x[x]); // read as TF32 only
  }

  // ---- stage 3b: dkgC = v_new dh^T (elementwise), dAqk = lower(do v_new^T) ----
  {
    frag_c acc[k_nt] = {};
    mma_abt_bf16(acc, padded_tile{s_vn}, R0, t_dh, C0, lane); // v_new = hi + lo
    mma_abt_bf16(acc, padded_tile{s_vn_lo}, R0, t_dh, C0, lane);
    float csum[k_nt][2] = {};
#pragma unroll
    for (int nt = 0; nt < k_nt; ++nt) {
#pragma unroll
      for (int x = 0; x < 4; ++x) {
        const int i = orow(x), d = ocol(nt, x);
        const float ec = exp_ftz(s_gamC[d] - c.gam(i, d)), v = acc[nt].x[x];
        dkp[nt].x[x] = fmaf(v, ec, dkp[nt].x[x]); // kgC = k' exp(gamma_C - gamma)
        // Cancelling pair 2 (docs/backward-design.md): for i = len - 1, kgC = k' exp(0) and the
        // terms -dkgC kgC (to row i) and +dkgC kgC (to gamma_C, i.e. row len - 1) cancel
        // exactly. Neither is formed, so no rounding residue reaches dg, dA_log, dt_bias.
        if (i != L - 1) {
          const float t = v * (c.kp(i, d) * ec);
          dgm[nt].x[x] -= t;
          csum[nt][x & 1] += t;
        }
      }
    }
#pragma unroll
    for (int nt = 0; nt < k_nt; ++nt) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        float s = csum[nt][e];
        s += __shfl_xor_sync(0xffffffffu, s, 4);
        s += __shfl_xor_sync(0xffffffffu, s, 8);
        s += __shfl_xor_sync(0xffffffffu, s, 16);
        if (gid == 0) s_colpart[M * 128 + C0 + 8 * nt + 2 * tig + e] = s;
      }
    }
  }
  frag_c aqk[k_ntj] = {};
  mma_abt_bf16(aqk, padded_tile{s_do}, R0, padded_tile{s_vn}, J0, lane);
  mma_abt_bf16(aqk, padded_tile{s_do}, R0, padded_tile{s_vn_lo}, J0, lane);
  fence_proxy_async_shared(); // this thread's accesses to region dAkk before the copy engine's write
  __syncthreads(); // do, v_new, dh are dead: regions B, C, D free (and dAkk's, v_new's lo half)
  if (tid == 0) {
    mbar_expect_bytes(bar_lo, k_ck_bytes);
    for (int cb = 0; cb < 2; ++cb) copy_tile_box(smem + S::dAkk, maps.dvn_lo, cb, tile, bar_lo);
  }
#pragma unroll 1
  for (int idx = tid; idx < 64 * 16; idx += k_grad_threads) {
    const int i = idx >> 4, seg = idx & 15;
    if (i < L) {
      cp_async_16(s_v + i * k_ld + seg * 8, p.v + row_of(i) * v_dim + seg * 8);
    } else {
      *reinterpret_cast<uint4*>(s_v + i * k_ld + seg * 8) = make_uint4(0, 0, 0, 0);
    }
  }
  cp_async_commit();
#pragma unroll
  for (int nt = 0; nt < k_ntj; ++nt) {
#pragma unroll
    for (int x = 0; x < 4; ++x) {
      const int i = orow(x), j = jcol(nt, x);
      s_dAqk[i * k_lds + j] = i >= j ? aqk[nt].x[x] : 0.f;
    }
  }
  if (tid < 128) {
    s_dgc[tid] = s_dgc[tid] + s_colpart[tid] + s_colpart[128 + tid] + s_colpart[256 + tid] + s_colpart[384 + tid];
  }
  __syncthreads();

  // ---- stage 3c: dv = diag(beta) X^T dv_new (out), dkgp = diag(beta) X^T dw (elementwise) ----
  {
    frag_c av[k_nt] = {}, ak[k_nt] = {};
    const int j0 = R0 + gid, j1 = j0 + 8;
    // dv_new (ia, C0 + 8 nt + gid) sits at ia * 128 + (dvn_at ^ (nt << 4)) of its boxes (ia = tig
    // mod 8; the warp's k_nt column chunks are aligned, so they differ in the XOR term alone), and
    // row ib = ia + 4 one more XOR away (swz_rows_offset)
    const std::uint32_t dvn_at = swz_rows_offset<64>(tig, C0 + gid) - tig * 128;
    for (int i0 = R0; i0 < 64; i0 += 8) { // X[i][j] = 0 for i < j
      const int ia = i0 + tig, ib = ia + 4;
      std::uint32_t a[4];
      xt_frag(i0, j0, j1, a);
#pragma unroll
      for (int nt = 0; nt < k_nt; ++nt) {
        const int col = C0 + 8 * nt + gid;
        const std::uint32_t bv[2] = {to_tf32(t_dvn.elem_at(ia * 128 + (dvn_at ^ (nt << 4)))),
                                     to_tf32(t_dvn.elem_at(ib * 128 + (dvn_at ^ (nt << 4) ^ 64)))};
        const std::uint32_t bk[2] = {__float_as_uint(s_dw[ia * k_ldf + col]), __float_as_uint(s_dw[ib * k_ldf + col])};
        mma_tf32_1688(av[nt], a, bv);
        mma_tf32_1688(ak[nt], a, bk);
      }
    }
    // the owned rows' dv, addressed once (64-bit row products per store were 9 % of the code)
    __nv_bfloat16* const dv_row[2] = {p.dv + row_of(j0) * v_dim + C0 + 2 * tig,
                                      p.dv + row_of(j1) * v_dim + C0 + 2 * tig};
#pragma unroll
    for (int nt = 0; nt < k_nt; ++nt) {
#pragma unroll
      for (int hh = 0; hh < 2; ++hh) {
        const int j = R0 + gid + 8 * hh, col = C0 + 8 * nt + 2 * tig;
        const float bj = s_beta[j];
        if (j < L) {
          *reinterpret_cast<std::uint32_t*>(dv_row[hh] + 8 * nt) =
              pack_bf16(bj * av[nt].x[2 * hh], bj * av[nt].x[2 * hh + 1]);
        }
        float kg[2];
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int x = 2 * hh + e, d = col + e;
          const float v = bj * ak[nt].x[x], eg = exp_ftz(c.gam(j, d));
          kg[e] = c.kp(j, d) * eg; // kgp = k' exp(gamma)
          dkp[nt].x[x] = fmaf(v, eg, dkp[nt].x[x]);
          dgm[nt].x[x] = fmaf(v, kg[e], dgm[nt].x[x]);
        }
        *reinterpret_cast<float2*>(kgp_row(j) + col) = make_float2(tf32_rounded(kg[0]), tf32_rounded(kg[1]));
      }
    }
  }
  if (tid == 0) stamp.mark(3); // timeline build: thread 0 is through stages 3a - 3c
  cp_async_wait<0>();
  mbar_wait(bar_lo, 0);
  __syncthreads(); // v and dv_new's lo half are in
  if (tid == 0) stamp.mark(4); // timeline build: v and dv_new's lo half are in

  // ---- stage 3d: dTm = dv_new v^T + dw kgp^T [64][64] ----
  // (v39: kgp comes from stage 3c, each element formed once. Formed here, every warp formed its
  // 32 rows again: 4 times the exponentials and products of 3c, at the same bits.)
  {
    frag_c at[k_ntj] = {};
    const boxed_tile<64> dvn_hilo[2] = {t_dvn, t_dvn_lo}; // dv_new = hi + lo
    mma_abt_bf16_sum(at, dvn_hilo, R0, padded_tile{s_v}, J0, lane);
    const int i0 = R0 + gid, i1 = i0 + 8;
    const float* const kr = kgp_row(J0 + gid); // row J0 + 8 nt + gid is kr + 8 nt k_ldf
    for (int d0 = 0; d0 < k_dim; d0 += 8) {
      const int da = d0 + tig, db = da + 4;
      const std::uint32_t a[4] = {__float_as_uint(s_dw[i0 * k_ldf + da]), __float_as_uint(s_dw[i1 * k_ldf + da]),
                                  __float_as_uint(s_dw[i0 * k_ldf + db]), __float_as_uint(s_dw[i1 * k_ldf + db])};
#pragma unroll
      for (int nt = 0; nt < k_ntj; ++nt) {
        const std::uint32_t b[2] = {__float_as_uint(kr[8 * nt * k_ldf + da]), __float_as_uint(kr[8 * nt * k_ldf + db])};
        mma_tf32_1688(at[nt], a, b);
      }
    }
    __syncthreads(); // every warp is done with kgp: region D takes dTm
    store_jtile(s_dTm, at);
  }
  __syncthreads();
  // dbeta_j (WY part) = sum_i dTm_ij X_ij  (Tm = X diag(beta)); dX = dTm diag(beta)
  if (tid < k_chunk) {
    float s = 0.f;
    for (int i = tid; i < k_chunk; ++i) s = fmaf(s_dTm[i * k_lds + tid], s_X[i * k_lds + tid], s);
    s_dbwy[tid] = s;
  }
  // Z = X^T dX
  {
    frag_c az[k_ntj] = {};
    const int i0 = R0 + gid, i1 = i0 + 8;
    for (int m0 = R0; m0 < 64; m0 += 8) { // X[m][i] = 0 for m < i
      const int ma = m0 + tig, mb = ma + 4;
      std::uint32_t a[4];
      xt_frag(m0, i0, i1, a);
#pragma unroll
      for (int nt = 0; nt < k_ntj; ++nt) {
        const int j = J0 + 8 * nt + gid;
        const float bj = s_beta[j];
        const std::uint32_t b[2] = {to_tf32(s_dTm[ma * k_lds + j] * bj), to_tf32(s_dTm[mb * k_lds + j] * bj)};
        mma_tf32_1688(az[nt], a, b);
      }
    }
#pragma unroll
    for (int nt = 0; nt < k_ntj; ++nt) {
#pragma unroll
      for (int x = 0; x < 4; ++x) az[nt].x[x] = tf32_rounded(az[nt].x[x]); // Z is read as TF32 only
    }
    store_jtile(s_Z, az);
  }
  __syncthreads();
  // dAkk = strictly_lower(-(Z X^T))
  {
    frag_c aa[k_ntj] = {};
    const int i0 = R0 + gid, i1 = i0 + 8;
    if (R0 + 15 > J0) { // some i > j in this warp's [16 x 32] block
      for (int m0 = 0; m0 < J0 + 8 * k_ntj; m0 += 8) { // X[j][m] = 0 for m > j
        const int ma = m0 + tig, mb = ma + 4;
        const std::uint32_t a[4] = {__float_as_uint(s_Z[i0 * k_lds + ma]), __float_as_uint(s_Z[i1 * k_lds + ma]),
                                    __float_as_uint(s_Z[i0 * k_lds + mb]), __float_as_uint(s_Z[i1 * k_lds + mb])};
#pragma unroll
        for (int nt = 0; nt < k_ntj; ++nt) {
          const int j = J0 + 8 * nt + gid;
          const std::uint32_t b[2] = {to_tf32(s_X[j * k_lds + ma]), to_tf32(s_X[j * k_lds + mb])};
          mma_tf32_1688(aa[nt], a, b);
        }
      }
    }
#pragma unroll
    for (int nt = 0; nt < k_ntj; ++nt) {
#pragma unroll
      for (int x = 0; x < 4; ++x) {
        const int i = orow(x), j = jcol(nt, x);
        s_dAkk[i * k_lds + j] = i > j ? -aa[nt].x[x] : 0.f;
      }
    }
  }
  __syncthreads();
  // Raw form: stage 5's gate input x [64][132] into region A (dw is dead since stage 3d), in flight
  // through stage 4 (v41; issued after stage 4, its wait came before dx). Through smem rather than
  // registers because stage 5's column loop stores dx between its reads of x, and a load after a
  // possibly aliasing store would wait for it (one memory latency per row).
  auto* s_x = reinterpret_cast<float*>(smem + S::A);
  if constexpr (RAW) {
#pragma unroll 1
    for (int idx = tid; idx < L * 32; idx += k_grad_threads) {
      const int i = idx >> 5, seg = idx & 31;
      cp_async_16(s_x + i * k_ldf + seg * 4, p.gate_in + row_of(i) * k_dim + seg * 4);
    }
    cp_async_commit();
  }

  // ---- stage 4, row side: for rows i of block M, sums over j < i ----
  //   Rq_i = sum_j dAqk_ij k'_j exp(gamma_i - gamma_j),  Rk_i = sum_j dAkk_ij k'_j exp(...)
  // dqs += Rq, dgamma += qs Rq + beta k' Rk, dk' += beta Rk, dbeta (KK part) += sum_d k' Rk.
  // (dP of KK is diag(beta) dAkk; dbeta's KK term is sum_j dAkk_ij KK_ij = k'_i . Rk_i.)
  {
    frag_c rq[k_nt] = {}, rk[k_nt] = {};
    // Reference row n = R0: exp(gamma_i - gamma_n) <= 1 and, for j < n, exp(gamma_n - gamma_j) <= 1.
    // The diagonal block (j >= n) joins the tensor-core sum when its span is <= k_span_limit
    // (exp(gamma_n - gamma_j) <= exp(64)); dAqk is masked to j < i there: the Aqk diagonal is
    // never formed (cancelling pair 1, below).
    const int n = R0;
    const int i0 = R0 + gid, i1 = i0 + 8;
    for (int jb = 0; jb < R0 + (slow[M] ? 0 : 16); jb += 8) {
      const int ja = jb + tig, jc = ja + 4;
      const std::uint32_t aq[4] = {to_tf32(i0 > ja ? s_dAqk[i0 * k_lds + ja] : 0.f),
                                   to_tf32(i1 > ja ? s_dAqk[i1 * k_lds + ja] : 0.f),
                                   to_tf32(i0 > jc ? s_dAqk[i0 * k_lds + jc] : 0.f),
                                   to_tf32(i1 > jc ? s_dAqk[i1 * k_lds + jc] : 0.f)};
      const std::uint32_t ak[4] = {to_tf32(s_dAkk[i0 * k_lds + ja]), to_tf32(s_dAkk[i1 * k_lds + ja]),
                                   to_tf32(s_dAkk[i0 * k_lds + jc]), to_tf32(s_dAkk[i1 * k_lds + jc])};
#pragma unroll
      for (int nt = 0; nt < k_nt; ++nt) {
        const int d = C0 + 8 * nt + gid;
        const float gn = c.gam(n, d);
        // The gated operand as TF32 hi + lo (dP stays TF32): rounded once, its row-side and
        // column-side members of each (i, j) term round differently and the residue reaches the
        // raw form's token sums (docs/backward-design.md, "What v6 left").
        std::uint32_t b[2], bl[2];
        split_tf32(c.kp(ja, d) * exp_ftz(gn - c.gam(ja, d)), b[0], bl[0]);
        split_tf32(c.kp(jc, d) * exp_ftz(gn - c.gam(jc, d)), b[1], bl[1]);
        mma_tf32_1688(rq[nt], aq, b);
        mma_tf32_1688(rq[nt], aq, bl);
        mma_tf32_1688(rk[nt], ak, b);
        mma_tf32_1688(rk[nt], ak, bl);
      }
    }
#pragma unroll
    for (int nt = 0; nt < k_nt; ++nt) {
#pragma unroll
      for (int x = 0; x < 4; ++x) {
        const float left = exp_ftz(c.gam(orow(x), ocol(nt, x)) - c.gam(n, ocol(nt, x)));
        rq[nt].x[x] *= left;
        rk[nt].x[x] *= left;
      }
    }
    // Wide diagonal sub-block, pair by pair (j = R0 + jj < i): an outer loop over j keeps the
    // code small (one unrolled body instead of one loop per owned element).
#pragma unroll 1
    for (int jj = 0; jj < (slow[M] ? 15 : 0); ++jj) {
      const int j = R0 + jj;
      const float aq[2] = {s_dAqk[i0 * k_lds + j], s_dAqk[i1 * k_lds + j]};
      const float ak[2] = {s_dAkk[i0 * k_lds + j], s_dAkk[i1 * k_lds + j]};
#pragma unroll
      for (int nt = 0; nt < k_nt; ++nt) {
#pragma unroll
        for (int x = 0; x < 4; ++x) {
          const int hh = x >> 1, d = ocol(nt, x);
          if (gid + 8 * hh > jj) { // i > j
            const float kj = c.kp(j, d) * exp_ftz(c.gam(orow(x), d) - c.gam(j, d));
            rq[nt].x[x] = fmaf(aq[hh], kj, rq[nt].x[x]);
            rk[nt].x[x] = fmaf(ak[hh], kj, rk[nt].x[x]);
          }
        }
      }
    }
    float dbk[2] = {0.f, 0.f};
#pragma unroll
    for (int nt = 0; nt < k_nt; ++nt) {
#pragma unroll
      for (int x = 0; x < 4; ++x) {
        const int i = orow(x), d = ocol(nt, x);
        const float sq = rq[nt].x[x], sk = rk[nt].x[x];
        const float qs = c.qs(i, d), kp = c.kp(i, d), b = s_beta[i];
        dqs[nt].x[x] += sq;
        dkp[nt].x[x] = fmaf(b, sk, dkp[nt].x[x]);
        dgm[nt].x[x] += fmaf(qs, sq, b * (kp * sk));
        dbk[x >> 1] = fmaf(kp, sk, dbk[x >> 1]);
        // Cancelling pair 1 (docs/backward-design.md): the Aqk diagonal (i == j, decay exp(0) = 1)
        // gives +qs_i k'_i dAqk_ii to dgamma_i through the q side and -k'_i qs_i dAqk_ii through
        // the k side; they cancel exactly, so neither is formed (both sums above and the column
        // side below are strictly off-diagonal). Only its dq and dk parts are added, here.
        const float aii = s_dAqk[i * k_lds + i];
        dqs[nt].x[x] = fmaf(aii, kp, dqs[nt].x[x]);
        dkp[nt].x[x] = fmaf(aii, qs, dkp[nt].x[x]);
#if KDA_BWD_MISMATCHED_DIAGONAL
        // Regression self-test build only (issue 7, docs/accuracy-selftest.md): forms both members
        // of the pair, each from a different TF32-rounded operand (k' on the q side, qs on the k
        // side), as the published gate-gradient bug did. Their residue lands in dgamma_i.
        dgm[nt].x[x] += aii * (qs * __uint_as_float(to_tf32(kp))) - aii * (kp * __uint_as_float(to_tf32(qs)));
#endif
      }
    }
#pragma unroll
    for (int hh = 0; hh < 2; ++hh) {
      dbk[hh] += __shfl_xor_sync(0xffffffffu, dbk[hh], 1);
      dbk[hh] += __shfl_xor_sync(0xffffffffu, dbk[hh], 2);
    }
    if (tig == 0) {
      s_dbkk[ch * 64 + i0] = dbk[0];
      s_dbkk[ch * 64 + i1] = dbk[1];
    }
  }

  // ---- stage 4, column side: for rows j of block M, sums over i > j ----
  //   Cj = sum_i [dAqk_ij qs_i + beta_i dAkk_ij k'_i] exp(gamma_i - gamma_j);  dk' += C, dgamma -= k' C
  {
    frag_c cc[k_nt] = {};
    // Reference row m = R0 + 15: for i > m, exp(gamma_i - gamma_m) <= 1; exp(gamma_m - gamma_j) <= 1.
    // The diagonal block (i <= m) joins when its span is <= k_span_limit, dAqk masked to i > j.
    const int m = R0 + 15;
    const int j0 = R0 + gid, j1 = j0 + 8;
    for (int ib = R0 + (slow[M] ? 16 : 0); ib < 64; ib += 8) {
      const int ia = ib + tig, ic = ia + 4;
      const float ba = s_beta[ia], bc = s_beta[ic];
      const std::uint32_t aq[4] = {to_tf32(ia > j0 ? s_dAqk[ia * k_lds + j0] : 0.f),
                                   to_tf32(ia > j1 ? s_dAqk[ia * k_lds + j1] : 0.f),
                                   to_tf32(ic > j0 ? s_dAqk[ic * k_lds + j0] : 0.f),
                                   to_tf32(ic > j1 ? s_dAqk[ic * k_lds + j1] : 0.f)};
      const std::uint32_t ak[4] = {to_tf32(ba * s_dAkk[ia * k_lds + j0]), to_tf32(ba * s_dAkk[ia * k_lds + j1]),
                                   to_tf32(bc * s_dAkk[ic * k_lds + j0]), to_tf32(bc * s_dAkk[ic * k_lds + j1])};
#pragma unroll
      for (int nt = 0; nt < k_nt; ++nt) {
        const int d = C0 + 8 * nt + gid;
        const float gm = c.gam(m, d);
        const float ea = exp_ftz(c.gam(ia, d) - gm), ec = exp_ftz(c.gam(ic, d) - gm);
        std::uint32_t bq[2], bql[2], bk[2], bkl[2]; // hi + lo, as on the row side
        split_tf32(c.qs(ia, d) * ea, bq[0], bql[0]);
        split_tf32(c.qs(ic, d) * ec, bq[1], bql[1]);
        split_tf32(c.kp(ia, d) * ea, bk[0], bkl[0]);
        split_tf32(c.kp(ic, d) * ec, bk[1], bkl[1]);
        mma_tf32_1688(cc[nt], aq, bq);
        mma_tf32_1688(cc[nt], aq, bql);
        mma_tf32_1688(cc[nt], ak, bk);
        mma_tf32_1688(cc[nt], ak, bkl);
      }
    }
#pragma unroll
    for (int nt = 0; nt < k_nt; ++nt) {
#pragma unroll
      for (int x = 0; x < 4; ++x) {
        const int d = ocol(nt, x);
        cc[nt].x[x] *= exp_ftz(c.gam(m, d) - c.gam(orow(x), d));
      }
    }
    // Wide diagonal sub-block, pair by pair (i = R0 + ii > j).
#pragma unroll 1
    for (int ii = 1; ii < (slow[M] ? 16 : 1); ++ii) {
      const int i = R0 + ii;
      const float bi = s_beta[i];
      const float aq[2] = {s_dAqk[i * k_lds + j0], s_dAqk[i * k_lds + j1]};
      const float ak[2] = {bi * s_dAkk[i * k_lds + j0], bi * s_dAkk[i * k_lds + j1]};
#pragma unroll
      for (int nt = 0; nt < k_nt; ++nt) {
#pragma unroll
        for (int x = 0; x < 4; ++x) {
          const int hh = x >> 1, d = ocol(nt, x);
          if (ii > gid + 8 * hh) { // i > j
            const float e = exp_ftz(c.gam(i, d) - c.gam(orow(x), d));
            cc[nt].x[x] = fmaf(aq[hh], c.qs(i, d) * e, cc[nt].x[x]);
            cc[nt].x[x] = fmaf(ak[hh], c.kp(i, d) * e, cc[nt].x[x]);
          }
        }
      }
    }
#pragma unroll
    for (int nt = 0; nt < k_nt; ++nt) {
#pragma unroll
      for (int x = 0; x < 4; ++x) {
        const int j = orow(x), d = ocol(nt, x);
        dkp[nt].x[x] += cc[nt].x[x];
        dgm[nt].x[x] = fmaf(-c.kp(j, d), cc[nt].x[x], dgm[nt].x[x]);
      }
    }
  }

  // ---- stage 5: chains to the inputs ----
  // Fused L2 norm: q' = q rqn, k' and dq' = scale dqs (in place of dqs) of the owned elements are
  // formed once here and kept in registers (dgamma's are free once it is in smem) for the outputs
  // below, which used to read and multiply them again (the same values: the same bits).
  float dotq[2] = {0.f, 0.f}, dotk[2] = {0.f, 0.f};
  float qn[k_nt][4], kn[k_nt][4];
#pragma unroll
  for (int nt = 0; nt < k_nt; ++nt) {
#pragma unroll
    for (int x = 0; x < 4; ++x) {
      const int i = orow(x), d = ocol(nt, x);
      s_dgm[i * k_ldf + d] = dgm[nt].x[x]; // region A (dw dead since stage 3d) or C and D (raw: v, dTm dead)
      if constexpr (L2N) {
        dqs[nt].x[x] = p.scale * dqs[nt].x[x];
        qn[nt][x] = bf(s_q, i * k_ld + d) * s_rqn[i];
        kn[nt][x] = c.kp(i, d);
        dotq[x >> 1] = fmaf(qn[nt][x], dqs[nt].x[x], dotq[x >> 1]);
        dotk[x >> 1] = fmaf(kn[nt][x], dkp[nt].x[x], dotk[x >> 1]);
      }
    }
  }
  if constexpr (L2N) {
#pragma unroll
    for (int hh = 0; hh < 2; ++hh) {
      dotq[hh] += __shfl_xor_sync(0xffffffffu, dotq[hh], 1);
      dotq[hh] += __shfl_xor_sync(0xffffffffu, dotq[hh], 2);
      dotk[hh] += __shfl_xor_sync(0xffffffffu, dotk[hh], 1);
      dotk[hh] += __shfl_xor_sync(0xffffffffu, dotk[hh], 2);
    }
    if (tig == 0) {
      s_dotq[ch * 64 + R0 + gid] = dotq[0];
      s_dotq[ch * 64 + R0 + gid + 8] = dotq[1];
      s_dotk[ch * 64 + R0 + gid] = dotk[0];
      s_dotk[ch * 64 + R0 + gid + 8] = dotk[1];
    }
  }
  __syncthreads(); // dgamma complete; stage 4 is done with dAqk and Z: region B is free
  if (tid == 0) stamp.mark(5); // timeline build: stages 3 - 4 done, stage 5's outputs next
  if (tid < L) p.dbeta[row_of(tid)] = __float2bfloat16_rn(s_dbwy[tid] + group_sum<k_col_groups>(s_dbkk, tid));
  // dq = scale dqs (then the L2-norm backward r (dx' - x' (x' . dx'))), dk likewise, as bf16
  // tiles in smem (regions E and dAkk are dead), written out as whole 16-byte row pieces after
  // the next barrier (v9b: 4-byte stores straight from the fragments stalled on their source
  // registers, and every store touched 8 rows).
  auto* s_dqo = reinterpret_cast<__nv_bfloat16*>(smem + S::E);
  auto* s_dko = reinterpret_cast<__nv_bfloat16*>(smem + S::dAkk);
  const auto store_dq_dk = [&]() {
#pragma unroll 1
    for (int idx = tid; idx < L * 16; idx += k_grad_threads) {
      const int i = idx >> 4, seg = idx & 15;
      const std::size_t off = row_of(i) * k_dim + seg * 8;
      *reinterpret_cast<uint4*>(p.dq + off) = *reinterpret_cast<const uint4*>(s_dqo + i * k_ld + seg * 8);
      *reinterpret_cast<uint4*>(p.dk + off) = *reinterpret_cast<const uint4*>(s_dko + i * k_ld + seg * 8);
    }
  };
#pragma unroll
  for (int nt = 0; nt < k_nt; ++nt) {
#pragma unroll
    for (int hh = 0; hh < 2; ++hh) {
      const int i = R0 + gid + 8 * hh;
      if (i >= L) continue;
      float oq[2], ok[2];
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int x = 2 * hh + e;
        if constexpr (L2N) {
          const float rqn = s_rqn[i], rk = s_rk[i];
          const float tq = group_sum<k_col_groups>(s_dotq, i), tk = group_sum<k_col_groups>(s_dotk, i);
          oq[e] = rqn * (dqs[nt].x[x] - qn[nt][x] * tq); // dqs holds dq' here
          ok[e] = rk * (dkp[nt].x[x] - kn[nt][x] * tk);
        } else {
          oq[e] = p.scale * dqs[nt].x[x];
          ok[e] = dkp[nt].x[x];
        }
      }
      const int col = C0 + 8 * nt + 2 * tig;
      *reinterpret_cast<std::uint32_t*>(s_dqo + i * k_ld + col) = pack_bf16(oq[0], oq[1]);
      *reinterpret_cast<std::uint32_t*>(s_dko + i * k_ld + col) = pack_bf16(ok[0], ok[1]);
    }
  }
  // dg_s = sum_{i >= s} dgamma_i, with dgamma_C folded into row len - 1 (gamma_C is its gamma);
  // raw form: dx = dg (-exp(A_log)) sigmoid(x + dt_bias), dA_log += dg g, dt_bias += dx.
  // Column d's suffix sums, s = L - 1 down to 0, each handed to sink(s, dg_s) as it is formed: one
  // serial chain of additions in one order for both forms (the same bits wherever they go).
  const auto column_suffix_sums = [&](int d, auto&& sink) {
    float acc = s_dgc[d];
    for (int s = L - 1; s >= 0; --s) {
      acc += s_dgm[s * k_ldf + d];
      sink(s, acc);
    }
  };
  if constexpr (!RAW) {
    // g form: dg is the suffix sum itself, one serial column per thread of 4 warps; dq and dk go
    // out from the other warps meanwhile (the copy loop's share of warps 0-3 comes after dg).
    __syncthreads(); // dq, dk tiles complete
    if (tid < k_dim && L > 0) {
      const std::size_t step = static_cast<std::size_t>(H) * k_dim;
      float* dst = p.dgate + row_of(L - 1) * k_dim + tid;
      column_suffix_sums(tid, [&](int, float dg) {
        *dst = dg;
        dst -= step;
      });
    }
    store_dq_dk();
  } else {
    // Raw form, in three steps so that only additions stay serial (bwd v3: the whole raw
    // arithmetic in one 64-row loop on 4 warps, the other 4 waiting, was 15 % of the kernel's
    // stall samples; splitting it gained 2 - 4 %. The g form lost 1.5 % the same way: it keeps
    // its single loop above):
    //  A. per column, the suffix sums in place in s_dgm (the same additions in the same order)
    //  B. every thread, elementwise: dx out and to smem, g = log_gate in place of x
    //  C. per column: dA and ddt summed over s = len-1 .. 0 as in one loop (same bits).
    // B's constants are loaded before A (v52: loaded after A and the dq, dk stores, they kept
    // every warp waiting at B's first row, 1 % of the raw form's stall samples in session 34).
    const int d4 = (tid & 31) * 4; // fixed for the thread: a warp per row, 32 column quads
    const float A_log = p.A_log[head];
    const float* b = p.dt_bias + head * k_dim + d4; // scalar reads: the API asks no 16-byte alignment
    const float4 bias = make_float4(b[0], b[1], b[2], b[3]);
    if (tid < k_dim && L > 0) column_suffix_sums(tid, [&](int s, float dg) { s_dgm[s * k_ldf + tid] = dg; });
    cp_async_wait<0>(); // x is in region A
    __syncthreads();    // and the dq, dk tiles are complete
    store_dq_dk();
    auto* s_dx = reinterpret_cast<float*>(smem + S::B); // dx [64][132] (dAqk and Z are dead)
    {
      const float neg_A = neg_A_of(A_log);
      const auto dxf = [&](float a, float x, float bb) { return a * neg_A * (1.f / (1.f + exp_ftz(-(x + bb)))); };
      for (int sr = tid >> 5; sr < L; sr += k_grad_threads / 32) {
        const float4 acc = *reinterpret_cast<const float4*>(s_dgm + sr * k_ldf + d4);
        float4* xp = reinterpret_cast<float4*>(s_x + sr * k_ldf + d4);
        const float4 xin = *xp;
        const float4 v = make_float4(dxf(acc.x, xin.x, bias.x), dxf(acc.y, xin.y, bias.y),
                                     dxf(acc.z, xin.z, bias.z), dxf(acc.w, xin.w, bias.w));
        *reinterpret_cast<float4*>(p.dgate + row_of(sr) * k_dim + d4) = v;
        *reinterpret_cast<float4*>(s_dx + sr * k_ldf + d4) = v;
        *xp = make_float4(log_gate<true>(xin.x, neg_A, bias.x), log_gate<true>(xin.y, neg_A, bias.y),
                          log_gate<true>(xin.z, neg_A, bias.z), log_gate<true>(xin.w, neg_A, bias.w));
      }
    }
    __syncthreads();
    float dA = 0.f;
    if (tid < k_dim && L > 0) {
      const int d = tid;
      float ddt = 0.f;
      for (int s = L - 1; s >= 0; --s) {
        dA = fmaf(s_dgm[s * k_ldf + d], s_x[s * k_ldf + d], dA); // dg g (s_x holds g now)
        ddt += s_dx[s * k_ldf + d];
      }
      p.ddt_part[tile * k_dim + d] = ddt;
    }
    if (tid < k_dim) s_red[tid] = dA;
    __syncthreads();
    for (int w = 64; w >= 1; w >>= 1) {
      if (tid < w) s_red[tid] += s_red[tid + w];
      __syncthreads();
    }
    if (tid == 0) p.dA_part[tile] = s_red[0];
  }
  // Launched beside bwd_dh: complete only after it, so that later work in the stream is after both.
  if (p.dh_ready) complete_after_prerequisite_grids();
}

// bwd_reduce: dt_bias[head][d] = sum over chunks c of ddt_part[c][head][d], dA_log[head] likewise
// over dA_part[c][head], each added chunk after chunk in chunk order from 0 (the bits are the
// serial loop's, in every version). v49: a block for each head and group of k_reduce_cols columns
// (v47: one block a head, 512 threads, segments of 64 chunks). Its threads copy a segment of
// k_reduce_seg chunks at once into shared memory, the next segment's loads in flight while lanes
// 0 - 15 of warp 0 add the current one's (column d each) and, in the head's first block, lane 0 of
// warp 1 adds dA_log's. Why: v47 measured 9.4 - 9.9 us for R2's 257 chunks, of which the additions
// are about 1 us (unrolled by 16: 16 shared loads, then the dependent adds); the rest was five
// rounds of global loads after one another on 4 SMs. Now R2 takes one round of 16 loads a thread
// (and a second for its last chunk) on 32 SMs.
constexpr int k_reduce_cols = 16;                  // columns a block
constexpr int k_reduce_groups = k_dim / k_reduce_cols;
constexpr int k_reduce_seg = 256;                  // chunks a segment: 16 KB of partials
constexpr int k_reduce_threads = 256;
constexpr int k_reduce_per_thread = k_reduce_seg * k_reduce_cols / k_reduce_threads; // ddt_part elements a segment

// Segment [c0, c0 + m) of columns [col0, col0 + k_reduce_cols) of one head's ddt_part into
// registers: element i = tid + r * threads is chunk c0 + i / k_reduce_cols, column col0 + i %
// k_reduce_cols (rows past m repeat row m - 1: loads only, never stored).
__device__ __forceinline__ void load_segment(float (&v)[k_reduce_per_thread], const float* ddt_part, int c0, int m,
                                             int heads, int head, int col0, int tid) {
#pragma unroll
  for (int r = 0; r < k_reduce_per_thread; ++r) {
    const int i = tid + r * k_reduce_threads;
    const std::size_t c = static_cast<std::size_t>(c0 + min(i / k_reduce_cols, m - 1));
    v[r] = ddt_part[(c * heads + head) * k_dim + col0 + i % k_reduce_cols];
  }
}

__global__ void __launch_bounds__(k_reduce_threads) bwd_reduce_kernel(const float* dA_part, const float* ddt_part,
                                                                      int num_chunks, int heads, float* dA_log,
                                                                      float* ddt_bias) {
  const tl_stamp stamp(tl_reduce); // the timeline build's record of this block (common/timeline.cuh)
  __shared__ float s_ddt[k_reduce_seg * k_reduce_cols]; // [chunk of the segment][column of the group]
  __shared__ float s_dA[k_reduce_seg];
  const int head = blockIdx.x / k_reduce_groups, col0 = blockIdx.x % k_reduce_groups * k_reduce_cols;
  const int tid = threadIdx.x;
  const bool adds_dA = col0 == 0 && tid == 32; // dA_log's adder, a warp of its own
  float s = 0.f;                               // column col0 + tid's ddt_bias (tid < k_reduce_cols), or dA_log
  float v[k_reduce_per_thread];
  if (num_chunks > 0) load_segment(v, ddt_part, 0, min(k_reduce_seg, num_chunks), heads, head, col0, tid);
  for (int c0 = 0; c0 < num_chunks; c0 += k_reduce_seg) {
    const int m = min(k_reduce_seg, num_chunks - c0);
#pragma unroll
    for (int r = 0; r < k_reduce_per_thread; ++r) {
      const int i = tid + r * k_reduce_threads;
      if (i < m * k_reduce_cols) s_ddt[i] = v[r];
    }
    if (col0 == 0 && tid < m) s_dA[tid] = dA_part[static_cast<std::size_t>(c0 + tid) * heads + head];
    __syncthreads();
    const int next = c0 + k_reduce_seg;
    if (next < num_chunks) {
      load_segment(v, ddt_part, next, min(k_reduce_seg, num_chunks - next), heads, head, col0, tid);
    }
    if (tid < k_reduce_cols) {
#pragma unroll 16
      for (int i = 0; i < m; ++i) s += s_ddt[i * k_reduce_cols + tid];
    }
    if (adds_dA) {
#pragma unroll 16
      for (int i = 0; i < m; ++i) s += s_dA[i];
    }
    __syncthreads(); // the segment is read before the next one is stored
  }
  if (tid < k_reduce_cols) ddt_bias[head * k_dim + col0 + tid] = s;
  if (adds_dA) dA_log[head] = s;
}

template <bool RAW, bool L2N>
cudaError_t launch_instance(const bwd_grad_params& p, const grad_maps& maps, int num_chunks, cudaStream_t stream) {
  static const cudaError_t attr = cudaFuncSetAttribute(
      bwd_grad_kernel<RAW, L2N>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(grad_smem::bytes));
  if (attr != cudaSuccess) return attr;
  const dim3 grid(static_cast<unsigned>(num_chunks) * static_cast<unsigned>(p.heads));
  return launch_kernel<bwd_grad_kernel<RAW, L2N>>(grid, grad_threads(RAW), grad_smem::bytes, p.dh_ready != nullptr,
                                                 stream, p, maps);
}

} // namespace

cudaError_t launch_bwd_grad(const bwd_grad_params& p, int num_chunks, bool raw_gate, bool l2n_fused,
                            cudaStream_t stream) {
  const std::size_t tiles = static_cast<std::size_t>(num_chunks) * p.heads;
  grad_maps maps;
  for (auto [map, base] : {std::pair{&maps.h, p.h}, std::pair{&maps.dh, p.dh}}) {
    if (const cudaError_t e = make_rows_map(map, base, tiles * k_dim, v_dim, k_dim); e != cudaSuccess) return e;
  }
  for (auto [map, base] : {std::pair{&maps.dvn, p.dv_new}, std::pair{&maps.dvn_lo, p.dv_new_lo}}) {
    if (const cudaError_t e = make_tile_map(map, base, tiles, v_dim); e != cudaSuccess) return e;
  }
  if (raw_gate) {
    return l2n_fused ? launch_instance<true, true>(p, maps, num_chunks, stream)
                     : launch_instance<true, false>(p, maps, num_chunks, stream);
  }
  return l2n_fused ? launch_instance<false, true>(p, maps, num_chunks, stream)
                   : launch_instance<false, false>(p, maps, num_chunks, stream);
}

cudaError_t launch_bwd_reduce(const float* dA_part, const float* ddt_part, int num_chunks, int heads, float* dA_log,
                              float* ddt_bias, cudaStream_t stream) {
  bwd_reduce_kernel<<<heads * k_reduce_groups, k_reduce_threads, 0, stream>>>(dA_part, ddt_part, num_chunks, heads,
                                                                             dA_log, ddt_bias);
  return cudaGetLastError();
}

} // namespace kda::dev
