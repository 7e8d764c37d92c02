// Backward stages 1+2 for V tiles of 16 columns (dh_pass.cuh): the same per-chunk maths as
// dh_pass.cu, with the warps split by role so that a chunk step of the reverse recurrence waits
// for nothing but its own products. A CTA carries NV V tiles of 16 columns (NV = 1 or 2,
// bwd_dh_params::narrow_tiles; v35): per V tile t
//   chain warps 4t..4t+3  dv_new = Aqk^T do + kg dh     (row block `warp`, 16 columns)
//                     dh = diag(exp(gamma_C)) dh + qg^T do + w^T (-dv_new)  (state rows [32 warp, +32))
//   output warp 4NV + t   the stores of dh and dv_new (from double-buffered shared copies; its lane
//                     0 has the copy engine store them, v29), then the tile's ready flag for
//                     bwd_grad, which may already run beside this pass
// The V tiles of a CTA share the producer's copies of w, qg, qg_lo, kg and Aqk and nothing else:
// each has its own do, exp(gamma_C), buffers and barriers. The CTAs of a sequence and head form a
// cluster (8 / NV CTAs) that shares the copies of w, qg, qg_lo and kg as well (v56: each copies a
// share, multicast to all; common/cluster.cuh). Two chains on one SM lengthen the chain
// step (R2: 0.152 -> 0.184 ms for the pass) but hold half as many SMs, which bwd_grad beside the
// pass uses (docs/perf-log.md, v35 and v37).
// Aqk^T do needs no dh: the chain warps compute it for the next chunk at the end of a step, off
// the dh -> dh chain, from do and Aqk loaded two chunks ahead (three stages of the small tiles);
// the [64][128] tiles (w, qg and its lo half, kg) are loaded one chunk ahead (two stages: three of
// them and the x buffers would not fit in shared memory since v10's qg_lo).
//   producer warp 5NV copies w, qg, qg_lo, kg (wide stage), Aqk and each V tile's exp(gamma_C)
//                     (small stage); on the replay path beside bwd_state_replay (v38) each chunk
//                     once the intra stage has published it (common/ready_flags.cuh)
// The producer's copies are whole [64][64] boxes for the copy engine (common/tile_maps.cuh: 8 KB a
// copy, 128-byte swizzled shared layout), completing on mbarriers (common/mbarrier.cuh); the chain
// warps copy do of the small stage themselves (cp.async; exp(gamma_C) too before v38). Before v18 the chain
// warps loaded every tile with 16-byte cp.async (v18: the chunk step 2.1 -> 1.4 us on R2). Each
// element goes through the same mma in the same order as in dh_pass.cu: the bits of every other
// V tile.
#include <cstdint>
#include <tuple>

#include "bwd/dh_pass.cuh"
#include "bwd/dh_stage.cuh"
#include "common/cluster.cuh"
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

constexpr int VT = 16;
constexpr int k_chain = 128;   // threads of a V tile's chain role
constexpr int k_out = 32;      // threads of a V tile's output role (its lane 0 stores)
constexpr int k_tile_group = k_chain + k_out; // the threads that meet at a V tile's buffer barriers
// chain warps of every V tile, their output warps, the producer warp
constexpr int threads_for(int nv) { return nv * k_tile_group + 32; }
constexpr int k_ld = VT + 8; // bf16 row stride of the padded [.][16] tiles (do, -dv_new)
constexpr int k_small_stages = 3; // do, Aqk, exp(gamma_C): two chunks ahead
constexpr int k_publish_early = 8; // chain steps published one by one for bwd_grad's first wave (publish_first)
constexpr int k_wide_stages = 2;  // w, qg, qg_lo, kg: one chunk ahead
// The CTAs of one sequence and head (every V tile) form a cluster and share the wide tiles'
// copies (v56; common/cluster.cuh): each CTA copies k_wide_boxes / cluster of the boxes into the
// shared memory of all of them. Before v56 each CTA copied all eight, so R2's 48 CTAs read about
// 2 TB/s of the same tiles through L2, and bwd_grad's blocks beside the pass ran 20 - 40 % slower
// than after it (docs/perf-log.md, session 37).
template <int NV>
constexpr int k_cluster = v_dim / VT / NV;
constexpr int k_wide_boxes = 8; // w, qg, qg_lo, kg: two [64][64] boxes each

// Barrier ids (common/named_barrier.cuh), 7 per V tile t of the CTA: the groups meet at dh_full,
// dvn_full (chain arrives, output waits) and buf_free (output arrives, chain waits), one of each
// per buffer; chain is the chain group's own. NV = 2 uses ids 1 - 14 of 16.
__device__ __forceinline__ int bar_chain(int t) { return 1 + 7 * t; }
__device__ __forceinline__ int bar_dh_full(int t, int b) { return 2 + 7 * t + b; }
__device__ __forceinline__ int bar_dvn_full(int t, int b) { return 4 + 7 * t + b; }
__device__ __forceinline__ int bar_buf_free(int t, int b) { return 6 + 7 * t + b; }

// Where the output thread's copy-engine stores go (common/tile_maps.cuh): dh, dv_new, its lo half.
struct dh_out_maps {
  CUtensorMap dh, dvn, lo;
};

template <int NV>
struct narrow_smem {
  // wide stage: w, qg, qg_lo, kg [64][128] bf16 swizzled (tile_maps.cuh), in this order
  static constexpr std::size_t w = 0;
  static constexpr std::size_t qg = w + 2 * k_box_bytes;
  static constexpr std::size_t qg_lo = qg + 2 * k_box_bytes;
  static constexpr std::size_t kg = qg_lo + 2 * k_box_bytes;
  static constexpr std::size_t wide_stage = kg + 2 * k_box_bytes;
  // small stage: Aqk [64][64] bf16 swizzled, then per V tile do [64][24] bf16 (its chain warps
  // copy it) and exp(gamma_C) [128] fp32 (a box of the producer's, 128-byte aligned: one copy a V
  // tile, so that every read of it stays within the V tile's own part); stages on 1024-byte
  // boundaries for the swizzled boxes
  static constexpr std::size_t small_base = k_wide_stages * wide_stage;
  static constexpr std::size_t Aqk = 0;
  static constexpr std::size_t per_tile = Aqk + k_box_bytes;
  static constexpr std::size_t dO = 0; // within a V tile's part
  static constexpr std::size_t gC = dO + 64 * k_ld * 2;
  static constexpr std::size_t tile_part = gC + 128 * 4;
  static_assert((per_tile + gC) % 128 == 0 && tile_part % 128 == 0, "exp(gamma_C)'s boxes 128-byte aligned");
  static constexpr std::size_t small_stage = box_aligned(per_tile + NV * tile_part);
  // per V tile and buffer b: dh [128][16], dv_new and its lo half [64][16] in the 32-byte swizzle
  // (swz32_offset: the copy engine stores each as one box; before v29, [.][24] and 16-byte stores
  // by the output warps, which cost the pass 17 %), -dv_new [64][24] (bf16)
  static constexpr std::size_t x_base = small_base + k_small_stages * small_stage;
  static constexpr std::size_t x_dh = 0;
  static constexpr std::size_t x_dvn = x_dh + 128 * VT * 2;
  static constexpr std::size_t x_lo = x_dvn + 64 * VT * 2;
  static constexpr std::size_t x_neg = x_lo + 64 * VT * 2;
  static constexpr std::size_t x_buf = box_aligned(x_neg + 64 * k_ld * 2);
  static_assert(x_base % 1024 == 0, "the swizzled buffers need 256-byte alignment");
  // mbarriers: wide full [2], small full [3], wide empty [2], small empty [3] (mbarrier.cuh)
  static constexpr std::size_t bars = x_base + 2 * NV * x_buf;
  static constexpr std::size_t bytes = bars + 2 * (k_wide_stages + k_small_stages) * 8;
  static_assert(bars % 8 == 0, "mbarrier alignment");
  static_assert(bytes <= 227 * 1024, "one CTA per SM");
  // What the producer's copies bring per chunk: w, qg, qg_lo, kg (wide stage); Aqk and each V
  // tile's exp(gamma_C) (small stage).
  static constexpr std::uint32_t wide_bytes = 8 * k_box_bytes;
  static constexpr std::uint32_t small_bytes = k_box_bytes + NV * 128 * 4;
};

struct stage_bars {
  std::uint64_t* base;
  __device__ std::uint64_t* wide_full(int it) const { return base + it % k_wide_stages; }
  __device__ std::uint64_t* small_full(int it) const { return base + k_wide_stages + it % k_small_stages; }
  __device__ std::uint64_t* wide_empty(int it) const { return base + k_wide_stages + k_small_stages + it % k_wide_stages; }
  __device__ std::uint64_t* small_empty(int it) const {
    return base + 2 * k_wide_stages + k_small_stages + it % k_small_stages;
  }
};
template <int NV>
__device__ __forceinline__ stage_bars bars_of(unsigned char* smem) {
  return {reinterpret_cast<std::uint64_t*>(smem + narrow_smem<NV>::bars)};
}
// The phase parity of iteration it's use of its stage (stages of `depth` buffers).
__device__ __forceinline__ std::uint32_t use_parity(int it, int depth) { return (it / depth) & 1; }

struct shared_buf {
  __nv_bfloat16 *dh, *dvn, *neg, *lo;
};

// The stage of iteration it as V tile t of the CTA sees it: the wide tiles from wide stage it % 2,
// Aqk and the tile's own do and exp(gamma_C) from small stage it % 3 (the loads of chunk n - 1 - it
// go to the same places).
template <int NV>
__device__ __forceinline__ dh_stage stage_at(unsigned char* smem, int it, int t) {
  using L = narrow_smem<NV>;
  unsigned char* w = smem + (it % k_wide_stages) * L::wide_stage;
  unsigned char* s = smem + L::small_base + (it % k_small_stages) * L::small_stage;
  unsigned char* own = s + L::per_tile + t * L::tile_part;
  return {reinterpret_cast<__nv_bfloat16*>(w + L::w),  reinterpret_cast<__nv_bfloat16*>(w + L::qg),
          reinterpret_cast<__nv_bfloat16*>(w + L::qg_lo), reinterpret_cast<__nv_bfloat16*>(w + L::kg),
          reinterpret_cast<__nv_bfloat16*>(own + L::dO), reinterpret_cast<__nv_bfloat16*>(s + L::Aqk),
          reinterpret_cast<float*>(own + L::gC)};
}
// Buffer b of V tile t.
template <int NV>
__device__ __forceinline__ shared_buf buf_at(unsigned char* smem, int t, int b) {
  using L = narrow_smem<NV>;
  unsigned char* s = smem + L::x_base + (2 * t + b) * L::x_buf;
  return {reinterpret_cast<__nv_bfloat16*>(s + L::x_dh), reinterpret_cast<__nv_bfloat16*>(s + L::x_dvn),
          reinterpret_cast<__nv_bfloat16*>(s + L::x_neg), reinterpret_cast<__nv_bfloat16*>(s + L::x_lo)};
}

// The chain threads' 16-byte copies of do [64][16] of this V tile, token rows of [T, H, V]
// (g = 0..127; common/serial_copies.cuh).
using do_copies = row_copies<2, k_chain>;

// The producer warp: iteration it's (chunk n - 1 - it's) boxes (lane 0: Aqk, lane 1 + t: V tile
// t's exp(gamma_C); of the wide boxes w, qg, qg_lo, kg (lane j: box j, j < 8) those of this CTA's
// cluster rank, multicast to every CTA of the cluster), each stage once the chains of every V
// tile have released its previous use (the wide stage: in every CTA of the cluster) and, beside
// bwd_state_replay (p.intra_ready), once the intra stage has published the chunk. Small stage
// first: it runs two iterations ahead, the wide one one ahead.
template <int NV>
__device__ void producer_role(const bwd_dh_params& p, const dh_maps& maps, unsigned char* smem, const seq_info& sq,
                              int head, int lane, int rank) {
  using L = narrow_smem<NV>;
  const stage_bars bars = bars_of<NV>(smem);
  const int n = sq.num_chunks;
  const auto tile_of = [&](int it) { return seq_tile(sq, n - 1 - it, p.heads, head); }; // iteration it's
  tile_waiter published;
  for (int it = 0; it < n; ++it) {
    const dh_stage s = stage_at<NV>(smem, it, 0);
    const std::size_t tile = tile_of(it);
    if (p.intra_ready) published.await(it, n, p.intra_ready, p.intra_epoch, tile_of, lane);
    if (it >= k_small_stages) mbar_wait(bars.small_empty(it), use_parity(it, k_small_stages) ^ 1);
    if (lane == 0) mbar_expect_bytes(bars.small_full(it), L::small_bytes);
    __syncwarp();
    if (lane == 0) {
      copy_tile_box(s.Aqk, maps.Aqk, 0, tile, bars.small_full(it));
    } else if (lane <= NV) {
      copy_box(stage_at<NV>(smem, it, lane - 1).gC, maps.gC, 0, tile, bars.small_full(it));
    }
    // (produce_begin's steps, written out: its form compiles differently here, and this one is
    // the code measured in session 12)
    if (it >= k_wide_stages) mbar_wait(bars.wide_empty(it), use_parity(it, k_wide_stages) ^ 1);
    if (lane == 0) mbar_expect_bytes(bars.wide_full(it), L::wide_bytes);
    __syncwarp();
    if (lane < k_wide_boxes && lane % k_cluster<NV> == rank) {
      static_assert(L::kg - L::w == 3 * 2 * k_box_bytes, "wide tiles in map order");
      unsigned char* const dst = reinterpret_cast<unsigned char*>(s.w) + (lane >> 1) * 2 * k_box_bytes; // tile lane / 2
      copy_tile_box_multicast(dst, maps.wide[lane >> 1], lane & 1, tile, bars.wide_full(it), (1u << k_cluster<NV>) - 1);
    }
  }
}

// dv = Aqk^T do for rows [16 RB, +16): Aqk is lower-triangular, so only token blocks kk >= RB.
__device__ __forceinline__ void aqk_t_do(frag_c (&dv)[2], const dh_stage& s, int RB, int lane) {
  dv[0] = dv[1] = frag_c{};
  for (int kk = RB; kk < 4; ++kk) {
    std::uint32_t a[4], b0[2], b1[2];
    load_a_bf16_trans_swz(a, s.Aqk, 16 * kk, 16 * RB, lane);
    load_b_bf16_x2(b0, b1, s.dO + 16 * kk * k_ld, k_ld, lane);
    mma_bf16_16816(dv[0], a, b0);
    mma_bf16_16816(dv[1], a, b1);
  }
}

// Chain warp `warp` (0-3) of V tile t (of the CTA; vt of the head) over the sequence's chunks, last
// first.
template <int NV>
__device__ void chain_role(const bwd_dh_params& p, unsigned char* smem, const seq_info& sq, int head, int t, int vt,
                           int warp, int lane, const tl_stamp& stamp) {
  const int g = warp * 32 + lane, gid = lane >> 2, tig = lane & 3, n = sq.num_chunks;
  const int RB = warp, R0 = 16 * warp, S0 = 32 * warp; // dv_new rows [R0, +16); state rows [S0, +32)
  const do_copies copies(g, p.heads * v_dim, k_ld, 8, VT * vt);
  const stage_bars bars = bars_of<NV>(smem);
  // iteration it handles chunk n - 1 - it from stage_at(it): its small tiles loaded two
  // iterations ahead, its wide ones one iteration ahead
  if (n > 0) load_dh_do(p, stage_at<NV>(smem, 0, t).dO, sq, n - 1, head, copies, k_ld);
  cp_async_commit();
  if (n > 1) load_dh_do(p, stage_at<NV>(smem, 1, t).dO, sq, n - 2, head, copies, k_ld);
  cp_async_commit();
  cp_async_wait<1>();
  if (n > 0) mbar_wait(bars.small_full(0), 0);
  named_sync(bar_chain(t), k_chain); // stage 0's small tiles visible
  frag_c dv[2];
  if (n > 0) aqk_t_do(dv, stage_at<NV>(smem, 0, t), RB, lane);

  frag_c dhf[2][2] = {}; // dh rows S0 + 16 mt + gid (+8), cols 8 nt + 2 tig (+1); zero after the last chunk
  for (int it = 0; it < n; ++it) {
    const int b = it & 1;
    const dh_stage s = stage_at<NV>(smem, it, t);
    const shared_buf x = buf_at<NV>(smem, t, b);

    // dh (FP32 registers) -> bf16 in buffer b, once the output warps have stored iteration it - 2's
    if (it >= 2) named_sync(bar_buf_free(t, b), k_tile_group);
    unsigned char* const xdh = reinterpret_cast<unsigned char*>(x.dh);
#pragma unroll
    for (int mt = 0; mt < 2; ++mt) {
#pragma unroll
      for (int nt = 0; nt < 2; ++nt) {
        const int r = S0 + 16 * mt + gid, col = 8 * nt + 2 * tig;
        *reinterpret_cast<std::uint32_t*>(xdh + swz32_offset(r, col)) = pack_bf16(dhf[mt][nt].x[0], dhf[mt][nt].x[1]);
        *reinterpret_cast<std::uint32_t*>(xdh + swz32_offset(r + 8, col)) = pack_bf16(dhf[mt][nt].x[2], dhf[mt][nt].x[3]);
      }
    }
    fence_proxy_async_shared(); // dh is read by the copy engine after bar_dh_full
    cp_async_wait<0>();
    mbar_wait(bars.wide_full(it), use_parity(it, k_wide_stages));
    if (it + 1 < n) mbar_wait(bars.small_full(it + 1), use_parity(it + 1, k_small_stages));
    // dh visible to every chain warp; this iteration's wide tiles and the next one's small tiles too
    named_sync(bar_chain(t), k_chain);
    named_arrive(bar_dh_full(t, b), k_tile_group);
    if (it == 0 && t == 0 && g == 0) stamp.mark(1); // timeline build: the first chunk's wide tiles are in
    // every chain warp of this V tile is past iteration it - 1: its small stage may be refilled
    // once the other V tiles' are too (the empty barrier counts one arrival a V tile; it held
    // chunk it - 1's do, Aqk and exp(gamma_C), read through its dh step). The wide stage each
    // warp releases itself at the end of its step (below).
    if (it >= 1 && g == 0 && it - 1 + k_small_stages < n) mbar_arrive(bars.small_empty(it - 1));
    if (it + 2 < n) load_dh_do(p, stage_at<NV>(smem, it + 2, t).dO, sq, n - 3 - it, head, copies, k_ld);
    cp_async_commit();

    // dv_new = Aqk^T do (computed at the end of the last step) + kg dh
#pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      std::uint32_t a[4], b0[2], b1[2];
      load_a_bf16_swz(a, s.kg, R0, 16 * kk, lane);
      load_b_bf16_x2_swz32(b0, b1, x.dh, 16 * kk, lane);
      mma_bf16_16816(dv[0], a, b0);
      mma_bf16_16816(dv[1], a, b1);
    }
#pragma unroll
    for (int nt = 0; nt < 2; ++nt) {
#pragma unroll
      for (int hh = 0; hh < 2; ++hh) {
        const int r = R0 + gid + 8 * hh, col = 8 * nt + 2 * tig;
        const float v0 = dv[nt].x[2 * hh], v1 = dv[nt].x[2 * hh + 1];
        std::uint32_t hi, lo;
        split_bf16x2(v0, v1, hi, lo);
        *reinterpret_cast<std::uint32_t*>(reinterpret_cast<unsigned char*>(x.dvn) + swz32_offset(r, col)) = hi;
        // -bf16(x) == bf16(-x) exactly: the dh step subtracts w^T dv_new by accumulating w^T (-dv_new).
        *reinterpret_cast<std::uint32_t*>(x.neg + r * k_ld + col) = pack_bf16(-v0, -v1);
        *reinterpret_cast<std::uint32_t*>(reinterpret_cast<unsigned char*>(x.lo) + swz32_offset(r, col)) = lo; // bwd_grad's
      }
    }
    fence_proxy_async_shared(); // dv_new and its lo half are read by the copy engine after bar_dvn_full
    // dh = diag(exp(gamma_C)) dh + qg^T do + qg_lo^T do for state rows [S0, +32): no dv_new
    // needed, so issued before the barrier (dh_pass.cu's order)
    dh_decay_and_qg_terms(dhf, s, k_ld, S0, lane);
    named_sync(bar_chain(t), k_chain); // dv_new visible to every chain warp
    named_arrive(bar_dvn_full(t, b), k_tile_group);

    // dh += w^T (-dv_new)
    dh_w_terms(dhf, s, x.neg, k_ld, S0, lane);
    // This warp's last read of the wide stage: it releases the stage on the empty barrier of every
    // CTA of the cluster, which all receive its copies (the barriers count one arrival per chain
    // warp of the cluster). Released at the next step's first barrier instead (v56's first form,
    // session 37), each refill waited for that step's own tiles and for the slowest CTA of the
    // cluster: the pass's step got 0.1 us longer and R2's backward gained nothing.
    if (it + k_wide_stages < n) {
      __syncwarp();
      if (lane == 0) {
        for (int r = 0; r < k_cluster<NV>; ++r) mbar_arrive_cluster(bars.wide_empty(it), r);
      }
    }
    // the next chunk's Aqk^T do: its stage is visible since this step's first barrier
    if (it + 1 < n) aqk_t_do(dv, stage_at<NV>(smem, it + 1, t), RB, lane);
  }
}

// The output warp of V tile t (of the CTA; vt of the head): dh and dv_new of each chunk to global
// memory. Its lane 0 has the copy engine store them from buffer b (three boxes) and waits until
// they are read before buffer b may be refilled; the other lanes only keep the barriers' counts.
// (Until v35 four output warps a V tile, from when they stored with 16-byte stores.)
// Publication (common/ready_flags.cuh: publish_first, publish_vtile_slots): chunk by chunk for the
// first k_publish_early steps (v54), then every k_publish_every chunks and after the last, one
// GPU-scope fence for a group's flags; the same thread. bwd_grad acquires the flags before it
// reads the tiles.
template <int NV>
__device__ void output_role(const bwd_dh_params& p, const dh_out_maps& out, unsigned char* smem, const seq_info& sq,
                            int head, int t, int vt, int lane, const tl_stamp& stamp) {
  const int n = sq.num_chunks;
  for (int it = 0; it < n; ++it) {
    const int b = it & 1;
    const std::size_t tile = seq_tile(sq, n - 1 - it, p.heads, head);
    const shared_buf x = buf_at<NV>(smem, t, b);
    named_sync(bar_dh_full(t, b), k_tile_group);
    if (lane == 0) store_box(out.dh, x.dh, VT * vt, tile * k_dim); // rows [128 tile, +128) of [tiles * 128][128]
    named_sync(bar_dvn_full(t, b), k_tile_group);
    if (lane == 0) {
      store_box(out.dvn, x.dvn, VT * vt, tile * k_chunk); // rows [64 tile, +64) of [tiles * 64][128]
      store_box(out.lo, x.lo, VT * vt, tile * k_chunk);
      bulk_commit();
    }
    // dh and dv_new of buffer b are read: the chain may refill it two iterations on
    if (it + 2 < n) {
      if (lane == 0) bulk_wait_read<0>();
      named_arrive(bar_buf_free(t, b), k_tile_group);
    }
    if (const int first = publish_first(it, n - 1, k_publish_early); p.ready && first >= 0 && lane == 0) {
      publish_vtile_slots(p.ready, p.epoch, first, it,
                          [&](int j) { return seq_tile(sq, n - 1 - j, p.heads, head); }, vt);
      if (it == 0 && t == 0) stamp.mark(2); // timeline build: the first chunk's flags published
    }
  }
  if (lane == 0) bulk_wait<0>(); // every store is written before the CTA ends
}

template <int NV>
__global__ void __launch_bounds__(threads_for(NV), 1)
    bwd_dh_narrow_kernel(const bwd_dh_params p, const __grid_constant__ dh_maps maps,
                         const __grid_constant__ dh_out_maps out) {
  const tl_stamp stamp(tl_dh); // the timeline build's record of this block (common/timeline.cuh)
  extern __shared__ __align__(1024) unsigned char smem[]; // the swizzled boxes need 1024-byte alignment
  const serial_cta cta = serial_cta_of(blockIdx.x, p.heads, v_dim / VT / NV); // cta.vt: the group of NV tiles
  const seq_info sq = p.seqs[p.seq_order[cta.seq_rank]];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  allow_dependent_launch(); // bwd_grad may be scheduled beside this pass (it waits per tile)
  if (threadIdx.x == 0) {
    const stage_bars bars = bars_of<NV>(smem);
    for (int it = 0; it < k_wide_stages; ++it) {
      mbar_init(bars.wide_full(it), 1);
      mbar_init(bars.wide_empty(it), 4 * NV * k_cluster<NV>); // one arrival per chain warp of the cluster
    }
    for (int it = 0; it < k_small_stages; ++it) {
      mbar_init(bars.small_full(it), 1);
      mbar_init(bars.small_empty(it), NV);
    }
    fence_mbar_init();
  }
  cluster_sync(); // the barriers of every CTA of the cluster exist before any copy or arrival reaches them
  if (threadIdx.x == 0) stamp.mark(0); // timeline build: past the cluster barrier
  // Chain warps first (V tile t: warps 4t..4t+3), so that each sub-partition (warp % 4) holds one
  // chain warp of every V tile; then the output warps, then the producer.
  if (warp < 4 * NV) {
    const int t = warp >> 2;
    chain_role<NV>(p, smem, sq, cta.head, t, NV * cta.vt + t, warp & 3, lane, stamp);
  } else if (warp < 5 * NV) {
    const int t = warp - 4 * NV;
    output_role<NV>(p, out, smem, sq, cta.head, t, NV * cta.vt + t, lane, stamp);
  } else {
    producer_role<NV>(p, maps, smem, sq, cta.head, lane, static_cast<int>(cluster_rank()));
  }
  // Beside bwd_state_replay: complete only after it (the last CTA waits; v37)
  if (p.intra_ready) complete_after_prerequisite_grids();
  cluster_sync(); // no CTA leaves while another may still copy into it or arrive on its barriers
}

} // namespace

cudaError_t launch_bwd_dh_narrow(const bwd_dh_params& p, int num_seqs, cudaStream_t stream) {
  dh_maps maps{};
  if (const cudaError_t e = make_dh_maps(p, &maps); e != cudaSuccess) return e;
  // exp(gamma_C) a tile a box: only this pass copies it (the wide pass computes it per chunk)
  if (const cudaError_t e = make_f32_map(&maps.gC, p.gC, p.num_tiles, 128, 1); e != cudaSuccess) return e;
  dh_out_maps out; // boxes of [128][16] (dh) and [64][16] (dv_new, lo), the 32-byte swizzle
  for (auto [map, base, rows] : {std::tuple{&out.dh, p.dh_out, k_dim}, std::tuple{&out.dvn, p.dvn_out, k_chunk},
                                 std::tuple{&out.lo, p.dvn_lo_out, k_chunk}}) {
    if (const cudaError_t e = make_rows_map(map, base, p.num_tiles * rows, v_dim, rows, VT); e != cudaSuccess) return e;
  }
  // beside bwd_state_replay: its programmatic dependent (the launch form of a state pass after
  // the intra stage)
  const serial_launch how = p.intra_ready ? serial_launch::after_intra : serial_launch::plain;
  if (p.narrow_tiles == 2) {
    return launch_serial_clustered<bwd_dh_narrow_kernel<2>>(p, num_seqs, k_cluster<2>, threads_for(2),
                                                            narrow_smem<2>::bytes, how, k_cluster<2>, stream, maps, out);
  }
  return launch_serial_clustered<bwd_dh_narrow_kernel<1>>(p, num_seqs, k_cluster<1>, threads_for(1),
                                                          narrow_smem<1>::bytes, how, k_cluster<1>, stream, maps, out);
}

} // namespace kda::dev
