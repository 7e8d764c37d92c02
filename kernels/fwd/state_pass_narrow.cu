// Forward stage 2 for V tiles of 16 columns (state_pass.cuh): the same per-chunk maths as
// state_pass.cu, with the warps split by role so that a chunk step of the recurrence waits for
// nothing but its own two products.
//   chain warps 0-3   v_new = u - w h              (row block `warp`, 16 columns, K = 128)
//                     h = diag(exp(gamma_C)) h + kg^T v_new   (state rows [32 warp, +32), K = 64;
//                     kg = kg + kg_lo, v_new = hi + lo since v45)
//   output warps 4-7  o = qg h + Aqk v_new         (row block `warp - 4`, 16 columns)
//                     o's stores; one thread has the copy engine store the saved set's h (v28)
//                     and, where o is left to fwd_output (o_apart: the saved path's long
//                     sequences, v34, all but their last o_tail chunks, v47), publishes the
//                     tiles' flags for it instead (common/ready_flags.cuh)
// The serial chain of a chunk (h -> smem -> w h -> v_new -> smem -> kg^T v_new -> h) runs on the
// chain warps with two 128-thread barriers; the output warps work on the same chunk beside them,
// on copies of h and v_new kept for two chunks (double buffers), and never hold the chain up unless
// they fall two chunks behind.
//   producer warp 8   copies w, kg, kg_lo, u, exp(gamma_C) (chain stage) and qg, Aqk (output
//                     stage), up to k_chain_stages / k_out_stages chunks ahead, each chunk once
//                     the intra stage has published it
//                     (common/ready_flags.cuh: this pass may start while the intra stage runs)
// The producer's w, kg, kg_lo, qg and Aqk are whole [64][64] boxes for the copy engine
// (common/tile_maps.cuh: 8 KB a copy, 128-byte swizzled shared layout), u and exp(gamma_C) dense
// fp32 boxes ([64][16], [1][128]), all completing on mbarriers (common/mbarrier.cuh). Before v18
// both groups loaded every tile with 16-byte cp.async, one chunk ahead (v18: the chunk step 1.7 ->
// 1.2 us); before v21 the chain warps copied u and exp(gamma_C) themselves.
// Every element goes through the same mma in the same order as in state_pass.cu (u in FP32, v_new
// as a bf16 hi + lo pair), so the bits are those of every other V tile.
#include <cstdint>

#include "common/mbarrier.cuh"
#include "common/mma.cuh"
#include "common/named_barrier.cuh"
#include "common/ready_flags.cuh"
#include "common/schedule.cuh"
#include "common/tile_maps.cuh"
#include "common/timeline.cuh"
#include "fwd/state_pass.cuh"

namespace kda::dev {
namespace {

constexpr int VT = 16;
// Chunks of the inputs in flight or in use, per group (at least two: a stage is released when
// the next chunk's has arrived). Three of each until v45; with kg_lo (16 KB a chunk) the chain
// keeps three (two cost the pass 46 % on R2: session 25, call B) and the output warps, off the
// chain, get two. The producer issues a chunk's chain copies before its output copies, so output
// warps that lag two chunks behind can now also delay the chain's copies by one.
constexpr int k_chain_stages = 3;
constexpr int k_out_stages = 2;
constexpr int k_group = 128;   // threads of the chain role and of the output role
constexpr int k_threads = 2 * k_group + 32; // chain, output, producer warp
constexpr int k_ld = VT + 8;   // bf16 row stride of [.][16] tiles (v_new hi and lo)
constexpr int k_ldu = VT;      // fp32 row stride of u [64][16] (the copy engine's dense box)
constexpr int k_publish_early = 0; // fwd_output's flags: in groups of k_publish_every from the first (publish_first)

// Barrier ids (common/named_barrier.cuh). The two groups meet only at h_full, vn_full (chain
// arrives, output waits) and buf_free (output arrives, chain waits), one of each per buffer.
constexpr int k_bar_chain = 1, k_bar_out = 2;
__device__ __forceinline__ int bar_h_full(int b) { return 3 + b; }
__device__ __forceinline__ int bar_vn_full(int b) { return 5 + b; }
__device__ __forceinline__ int bar_buf_free(int b) { return 7 + b; }

struct narrow_smem {
  // chain stage: w, kg, kg_lo [64][128] bf16 swizzled (tile_maps.cuh; 1024-byte boundaries), and
  // apart from them (so that no stage rounds up to 1 KB) u [64][16] fp32, exp(gamma_C) [128] fp32
  static constexpr std::size_t c_w = 0;
  static constexpr std::size_t c_kg = c_w + 2 * k_box_bytes;
  static constexpr std::size_t c_kg_lo = c_kg + 2 * k_box_bytes;
  static constexpr std::size_t c_stage = c_kg_lo + 2 * k_box_bytes;
  // output stage: qg [64][128], Aqk [64][64] bf16 swizzled
  static constexpr std::size_t o_base = k_chain_stages * c_stage;
  static constexpr std::size_t o_qg = 0;
  static constexpr std::size_t o_Aqk = o_qg + 2 * k_box_bytes;
  static constexpr std::size_t o_stage = o_Aqk + k_box_bytes;
  // per buffer b: h [128][16] bf16 (h_layout), v_new hi [64][24], lo [64][24] (bf16)
  static constexpr std::size_t x_base = o_base + k_out_stages * o_stage;
  static constexpr std::size_t x_h = 0;
  static constexpr std::size_t x_hi = x_h + 128 * VT * 2;
  static constexpr std::size_t x_lo = x_hi + 64 * k_ld * 2;
  static constexpr std::size_t x_buf = x_lo + 64 * k_ld * 2;
  static_assert(x_base % 1024 == 0 && x_buf % 1024 == 0, "h's swizzle needs its buffers 256-byte aligned");
  // per chain stage: u [64][16] fp32 (128-byte aligned for its box), exp(gamma_C) [128] fp32
  static constexpr std::size_t u_base = x_base + 2 * x_buf;
  static constexpr std::size_t u_gC = 64 * k_ldu * 4;
  static constexpr std::size_t u_stage = u_gC + 128 * 4;
  static_assert(u_base % 128 == 0 && u_stage % 128 == 0, "u's and exp(gamma_C)'s boxes start 128-byte aligned");
  // mbarriers per stage: chain full, output full, chain empty, output empty (mbarrier.cuh)
  static constexpr std::size_t bars = u_base + k_chain_stages * u_stage;
  static constexpr std::size_t bytes = bars + 2 * (k_chain_stages + k_out_stages) * 8;
  static_assert(bars % 8 == 0, "mbarrier alignment");
  static_assert(bytes <= 227 * 1024, "one CTA per SM");
  // What the producer's copies bring per chunk: w, kg, kg_lo, u, exp(gamma_C) (chain stage); qg,
  // Aqk (output stage).
  static constexpr std::uint32_t c_bytes = 6 * k_box_bytes + 64 * VT * 4 + 128 * 4;
  static constexpr std::uint32_t o_bytes = 3 * k_box_bytes;
};


struct stage_bars {
  std::uint64_t* base;
  __device__ std::uint64_t* chain_full(int b) const { return base + b; }
  __device__ std::uint64_t* out_full(int b) const { return base + k_chain_stages + b; }
  __device__ std::uint64_t* chain_empty(int b) const { return base + k_chain_stages + k_out_stages + b; }
  __device__ std::uint64_t* out_empty(int b) const { return base + 2 * k_chain_stages + k_out_stages + b; }
};
__device__ __forceinline__ stage_bars bars_of(unsigned char* smem) {
  return {reinterpret_cast<std::uint64_t*>(smem + narrow_smem::bars)};
}

struct chain_stage {
  __nv_bfloat16 *w, *kg, *kg_lo;
  float *u, *gC;
};
struct out_stage {
  __nv_bfloat16 *qg, *Aqk;
};
struct shared_buf {
  __nv_bfloat16 *h, *hi, *lo; // h entering the chunk, v_new = hi + lo
};

__device__ __forceinline__ chain_stage chain_at(unsigned char* smem, int b) {
  unsigned char* s = smem + b * narrow_smem::c_stage;
  unsigned char* u = smem + narrow_smem::u_base + b * narrow_smem::u_stage;
  return {reinterpret_cast<__nv_bfloat16*>(s + narrow_smem::c_w), reinterpret_cast<__nv_bfloat16*>(s + narrow_smem::c_kg),
          reinterpret_cast<__nv_bfloat16*>(s + narrow_smem::c_kg_lo), reinterpret_cast<float*>(u),
          reinterpret_cast<float*>(u + narrow_smem::u_gC)};
}
__device__ __forceinline__ out_stage out_at(unsigned char* smem, int b) {
  unsigned char* s = smem + narrow_smem::o_base + b * narrow_smem::o_stage;
  return {reinterpret_cast<__nv_bfloat16*>(s + narrow_smem::o_qg), reinterpret_cast<__nv_bfloat16*>(s + narrow_smem::o_Aqk)};
}
__device__ __forceinline__ shared_buf buf_at(unsigned char* smem, int b) {
  unsigned char* s = smem + narrow_smem::x_base + b * narrow_smem::x_buf;
  return {reinterpret_cast<__nv_bfloat16*>(s + narrow_smem::x_h), reinterpret_cast<__nv_bfloat16*>(s + narrow_smem::x_hi),
          reinterpret_cast<__nv_bfloat16*>(s + narrow_smem::x_lo)};
}

// The producer warp: chunk c's boxes (lanes 0-3: w, kg, lane 4: u of this V tile, lane 5:
// exp(gamma_C), lanes 6-7: kg_lo; lanes 0-2: qg, Aqk of the chunks from o_from on), each stage
// once the group reading it has released its previous chunk and the intra stage has published the
// chunk's tile (common/ready_flags.cuh). The output stages go round the chunks from o_from on.
__device__ void producer_role(const fwd_state_params& p, const state_maps& maps, unsigned char* smem,
                              const seq_info& sq, int head, int vt, int o_from, int lane) {
  const stage_bars bars = bars_of(smem);
  const auto tile_of = [&](int c) { return seq_tile(sq, c, p.heads, head); };
  tile_waiter published;
  for (int c = 0; c < sq.num_chunks; ++c) {
    const int st = c % k_chain_stages, use = c / k_chain_stages;
    const std::size_t tile = tile_of(c);
    const chain_stage s = chain_at(smem, st);
    published.await(c, sq.num_chunks, p.ready, p.epoch, tile_of, lane);
    produce_begin(bars.chain_full(st), bars.chain_empty(st), use, narrow_smem::c_bytes, lane);
    if (lane < 4) {
      copy_tile_box(lane < 2 ? s.w : s.kg, lane < 2 ? maps.w : maps.kg, lane & 1, tile, bars.chain_full(st));
    } else if (lane == 4) {
      copy_box(s.u, maps.u, VT * vt, 64 * tile, bars.chain_full(st));
    } else if (lane == 5) {
      copy_box(s.gC, maps.gC, 0, tile, bars.chain_full(st));
    } else if (lane == 6 || lane == 7) {
      copy_tile_box(s.kg_lo, maps.kg_lo, lane & 1, tile, bars.chain_full(st));
    }
    if (c < o_from) continue; // no o here (the replay pass; o_apart, v34): no qg, Aqk
    const int j = c - o_from, ot = j % k_out_stages;
    produce_begin(bars.out_full(ot), bars.out_empty(ot), j / k_out_stages, narrow_smem::o_bytes, lane);
    const out_stage o = out_at(smem, ot);
    if (lane < 2) {
      copy_tile_box(o.qg, maps.qg, lane, tile, bars.out_full(ot));
    } else if (lane == 2) {
      copy_tile_box(o.Aqk, maps.Aqk, 0, tile, bars.out_full(ot));
    }
  }
}

// Where h ([128][16] bf16) sits in its buffer: in the 32-byte swizzle (swz32_offset), so that one
// thread can have the copy engine store it as one box where the call wants the saved set's h (v28;
// before, the output warps' 16-byte stores cost the pass 15 %, docs/perf-log.md). Until v45 a pass
// without h stores kept padded rows (the swizzled addressing had made it 2 - 7 % slower); since
// v45 every pass swizzles: the unpadded buffers leave room for kg_lo's third chain stage.
struct h_layout {
  __device__ static std::uint32_t offset(int r, int c) { return swz32_offset(r, c); }
  // load_b_bf16_x2 of rows [k0, +16)
  __device__ static void load_b(std::uint32_t (&b0)[2], std::uint32_t (&b1)[2], const __nv_bfloat16* h, int k0,
                                int lane) {
    load_b_bf16_x2_swz32(b0, b1, h, k0, lane);
  }
};

// acc += A h for rows [r0, +16) of A ([64][128] bf16, swizzled) and the 16 columns of h
// (h_layout): w h on the chain warps, qg h on the output warps; k steps in order.
__device__ __forceinline__ void rows_times_h(frag_c (&acc)[2], const __nv_bfloat16* A, int r0, const __nv_bfloat16* h,
                                             int lane) {
#pragma unroll
  for (int kk = 0; kk < 8; ++kk) {
    std::uint32_t a[4], b0[2], b1[2];
    load_a_bf16_swz(a, A, r0, 16 * kk, lane);
    h_layout::load_b(b0, b1, h, 16 * kk, lane);
    mma_bf16_16816(acc[0], a, b0);
    mma_bf16_16816(acc[1], a, b1);
  }
}

// Chain warp `warp` (0-3) over the sequence's chunks.
template <bool BOX>
__device__ void chain_role(const fwd_state_params& p, unsigned char* smem, const seq_info& sq, int head, int vt,
                           int warp, int lane) {
  const int g = warp * 32 + lane, gid = lane >> 2, tig = lane & 3, H = p.heads;
  const int R0 = 16 * warp, S0 = 32 * warp; // v_new rows [R0, +16); state rows [S0, +32)
  const auto tile_of = [&](int c) { return seq_tile(sq, c, H, head); };
  const stage_bars bars = bars_of(smem);
  const int n = sq.num_chunks;
  frag_c hf[2][2] = {}; // h rows S0 + 16 mt + gid (+8), cols 8 nt + 2 tig (+1)

  for (int c = 0; c < n; ++c) {
    const int b = c & 1, st = c % k_chain_stages;
    const std::size_t tile = tile_of(c);
    const chain_stage s = chain_at(smem, st);
    const shared_buf x = buf_at(smem, b);

    // h (FP32 registers) -> bf16 in buffer b, once the output warps are done with chunk c - 2's
    // (and the copy engine has read it)
    if (c >= 2) named_sync(bar_buf_free(b), 2 * k_group);
    unsigned char* const xh = reinterpret_cast<unsigned char*>(x.h);
#pragma unroll
    for (int mt = 0; mt < 2; ++mt) {
#pragma unroll
      for (int nt = 0; nt < 2; ++nt) {
        const int r = S0 + 16 * mt + gid, col = 8 * nt + 2 * tig;
        *reinterpret_cast<std::uint32_t*>(xh + h_layout::offset(r, col)) = pack_bf16(hf[mt][nt].x[0], hf[mt][nt].x[1]);
        *reinterpret_cast<std::uint32_t*>(xh + h_layout::offset(r + 8, col)) =
            pack_bf16(hf[mt][nt].x[2], hf[mt][nt].x[3]);
      }
    }
    if constexpr (BOX) fence_proxy_async_shared(); // h is read by the copy engine after bar_h_full
    mbar_wait(bars.chain_full(st), (c / k_chain_stages) & 1); // this chunk's w, kg, kg_lo, u, exp(gamma_C)
    named_sync(k_bar_chain, k_group); // h and this chunk's chain stage visible to every chain warp
    named_arrive(bar_h_full(b), 2 * k_group);
    // every chain warp is past chunk c - 1: its stage may be refilled (only stages that will be, so
    // that no phase is left open)
    if (c >= 1 && c - 1 + k_chain_stages < n && g == 0) mbar_arrive(bars.chain_empty((c - 1) % k_chain_stages));

    // v_new = u - w h for rows [R0, +16)
    frag_c av[2] = {};
    rows_times_h(av, s.w, R0, x.h, lane);
    float* const vn_dst = p.vn_out ? p.vn_out + tile * tile_sizes::ck + VT * vt : nullptr;
#pragma unroll
    for (int nt = 0; nt < 2; ++nt) {
#pragma unroll
      for (int hh = 0; hh < 2; ++hh) {
        const int r = R0 + gid + 8 * hh, col = 8 * nt + 2 * tig;
        const float2 uu = *reinterpret_cast<const float2*>(s.u + r * k_ldu + col);
        const float vn0 = uu.x - av[nt].x[2 * hh];
        const float vn1 = uu.y - av[nt].x[2 * hh + 1];
        std::uint32_t hi, lo;
        split_bf16x2(vn0, vn1, hi, lo);
        *reinterpret_cast<std::uint32_t*>(x.hi + r * k_ld + col) = hi;
        *reinterpret_cast<std::uint32_t*>(x.lo + r * k_ld + col) = lo;
        if (vn_dst) *reinterpret_cast<float2*>(vn_dst + r * v_dim + col) = make_float2(vn0, vn1);
      }
    }
    named_sync(k_bar_chain, k_group); // v_new visible to every chain warp
    named_arrive(bar_vn_full(b), 2 * k_group);

    // h = diag(exp(gamma_C)) h + kg^T v_new for state rows [S0, +32)
#pragma unroll
    for (int mt = 0; mt < 2; ++mt) scale_frag_rows(hf[mt], s.gC, S0 + 16 * mt, lane);
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      std::uint32_t a[2][4], a_lo[2][4], b0[2], b1[2], l0[2], l1[2];
#pragma unroll
      for (int mt = 0; mt < 2; ++mt) {
        load_a_bf16_trans_swz(a[mt], s.kg, 16 * kk, S0 + 16 * mt, lane);
        load_a_bf16_trans_swz(a_lo[mt], s.kg_lo, 16 * kk, S0 + 16 * mt, lane);
      }
      load_b_bf16_x2(b0, b1, x.hi + 16 * kk * k_ld, k_ld, lane);
      load_b_bf16_x2(l0, l1, x.lo + 16 * kk * k_ld, k_ld, lane);
      // kg^T hi, kg^T lo, kg_lo^T hi (kg_lo^T lo is below FP32 rounding): the order of every pass
#pragma unroll
      for (int mt = 0; mt < 2; ++mt) {
        mma_bf16_16816(hf[mt][0], a[mt], b0);
        mma_bf16_16816(hf[mt][1], a[mt], b1);
        mma_bf16_16816(hf[mt][0], a[mt], l0);
        mma_bf16_16816(hf[mt][1], a[mt], l1);
        mma_bf16_16816(hf[mt][0], a_lo[mt], b0);
        mma_bf16_16816(hf[mt][1], a_lo[mt], b1);
      }
    }
  }
}

// Output warp `ow` (0-3, warp 4 + ow) over the sequence's chunks, o of those from o_from on. With
// BOX its thread g = 0 has the copy engine store h ([128][16] of the saved set) from buffer b and
// waits until it is read before buffer b may be refilled.
template <bool BOX>
__device__ void output_role(const fwd_state_params& p, const CUtensorMap& h_map, unsigned char* smem,
                            const seq_info& sq, int head, int vt, int o_from, int ow, int lane) {
  const int g = ow * 32 + lane, gid = lane >> 2, tig = lane & 3, H = p.heads;
  const int R0 = 16 * ow; // o rows [R0, +16)
  const auto tile_of = [&](int c) { return seq_tile(sq, c, H, head); };
  const stage_bars bars = bars_of(smem);
  const int n = sq.num_chunks;

  for (int c = 0; c < n; ++c) {
    // j: the chunk's use of the output stages, which go round the chunks with o
    const bool with_o = c >= o_from;
    const int b = c & 1, j = c - o_from, st = with_o ? j % k_out_stages : 0;
    const std::size_t tile = tile_of(c);
    const out_stage s = out_at(smem, st);
    const shared_buf x = buf_at(smem, b);
    if (with_o) mbar_wait(bars.out_full(st), (j / k_out_stages) & 1); // this chunk's qg, Aqk
    named_sync(k_bar_out, k_group); // every output warp is past chunk c - 1: its stage may be refilled
    if (with_o && j >= 1 && j - 1 + k_out_stages < n - o_from && g == 0) {
      mbar_arrive(bars.out_empty((j - 1) % k_out_stages));
    }

    named_sync(bar_h_full(b), 2 * k_group);
    if (BOX && g == 0) {
      store_box(h_map, x.h, VT * vt, tile * k_dim); // rows [128 tile, +128) of [tiles * 128][128]
      bulk_commit();
    }
    frag_c ao[2] = {};
    if (with_o) rows_times_h(ao, s.qg, R0, x.h, lane);
    named_sync(bar_vn_full(b), 2 * k_group);
    if (with_o) {
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        std::uint32_t a[4];
        load_a_bf16_swz(a, s.Aqk, R0, 16 * kk, lane);
#pragma unroll
        for (const __nv_bfloat16* part : {x.hi, x.lo}) { // v_new = hi + lo
          std::uint32_t b0[2], b1[2];
          load_b_bf16_x2(b0, b1, part + 16 * kk * k_ld, k_ld, lane);
          mma_bf16_16816(ao[0], a, b0);
          mma_bf16_16816(ao[1], a, b1);
        }
      }
    }
    // h and v_new of buffer b are read: the chain may refill it for chunk c + 2
    if (c + 2 < n) {
      if (BOX && g == 0) bulk_wait_read<0>();
      named_arrive(bar_buf_free(b), 2 * k_group);
    }
    // fwd_output's flags (every k_publish_every chunks and after the last without o): h by the copy
    // engine, v_new by the chain warps before bar_vn_full
    if (const int first = publish_first(c, o_from - 1, k_publish_early);
        BOX && !with_o && p.out_ready && first >= 0 && g == 0) {
      publish_vtile_slots(p.out_ready, p.out_epoch, first, c, tile_of, vt);
    }
    if (with_o) {
#pragma unroll
      for (int hh = 0; hh < 2; ++hh) {
        const int t = k_chunk * c + R0 + gid + 8 * hh;
        if (t >= sq.len) continue;
        __nv_bfloat16* const o_row = p.o + (static_cast<std::size_t>(sq.start + t) * H + head) * v_dim + VT * vt + 2 * tig;
#pragma unroll
        for (int nt = 0; nt < 2; ++nt) {
          *reinterpret_cast<std::uint32_t*>(o_row + 8 * nt) = pack_bf16(ao[nt].x[2 * hh], ao[nt].x[2 * hh + 1]);
        }
      }
    }
  }
  if (BOX && g == 0) bulk_wait<0>(); // the saved set's h is written before the CTA ends
}

// BOX: the call stores h (p.h_out set), through the copy engine (h_layout).
template <bool BOX>
__global__ void __launch_bounds__(k_threads, 1)
    fwd_state_narrow_kernel(const fwd_state_params p, const __grid_constant__ state_maps maps,
                            const __grid_constant__ CUtensorMap h_map) {
  const tl_stamp stamp(tl_state); // the timeline build's record of this block (common/timeline.cuh)
  extern __shared__ __align__(1024) unsigned char smem[]; // the swizzled boxes need 1024-byte alignment
  const serial_cta cta = serial_cta_of(blockIdx.x, p.heads, v_dim / VT);
  const int s = p.seq_order[cta.seq_rank];
  const seq_info sq = p.seqs[s];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  // o here from chunk o_from on: every chunk, none without o (the replay pass), or (o_apart: the
  // saved path's long sequences, v34; every sequence since v48) its last chunks (v47: a fixed
  // tail; v48: more for a shorter sequence, fwd/o_split.cuh, worked out by the host), the others
  // by fwd_output, which may then be scheduled beside this pass
  const int o_from = !p.o ? sq.num_chunks : p.o_first ? p.o_first[s] : 0;
  if (p.out_ready) allow_dependent_launch();
  if (threadIdx.x == 0) {
    const stage_bars bars = bars_of(smem);
    for (int b = 0; b < k_chain_stages; ++b) {
      mbar_init(bars.chain_full(b), 1);
      mbar_init(bars.chain_empty(b), 1);
    }
    for (int b = 0; b < k_out_stages; ++b) {
      mbar_init(bars.out_full(b), 1);
      mbar_init(bars.out_empty(b), 1);
    }
    fence_mbar_init();
  }
  __syncthreads(); // the barriers exist before any copy or arrival reaches them
  if (warp < 4) {
    chain_role<BOX>(p, smem, sq, cta.head, cta.vt, warp, lane);
  } else if (warp < 8) {
    output_role<BOX>(p, h_map, smem, sq, cta.head, cta.vt, o_from, warp - 4, lane);
  } else {
    producer_role(p, maps, smem, sq, cta.head, cta.vt, o_from, lane);
  }
  if (threadIdx.x == 0) wait_prerequisite_grids();
}

} // namespace

cudaError_t launch_fwd_state_narrow(const fwd_state_params& p, int num_seqs, serial_launch how, cudaStream_t stream) {
  state_maps maps;
  if (const cudaError_t e = make_state_maps(p, VT, false, &maps); e != cudaSuccess) return e;
  CUtensorMap h_map{}; // the saved set's h, [tiles * 128][128], boxes of [128][16]
  if (!p.h_out) {
    return launch_serial<fwd_state_narrow_kernel<false>>(p, num_seqs, v_dim / VT, k_threads, narrow_smem::bytes, how,
                                                         stream, maps, h_map);
  }
  if (const cudaError_t e = make_rows_map(&h_map, p.h_out, p.num_tiles * k_dim, v_dim, k_dim, VT); e != cudaSuccess) {
    return e;
  }
  return launch_serial<fwd_state_narrow_kernel<true>>(p, num_seqs, v_dim / VT, k_threads, narrow_smem::bytes, how,
                                                      stream, maps, h_map);
}

} // namespace kda::dev
