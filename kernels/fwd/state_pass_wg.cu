// Forward stage 2 (state_pass.cuh) on wgmma for V tiles of 64 (v22; docs/perf-log.md). One CTA
// per (sequence, head, 64 V columns): a warpgroup carries the whole chunk step, warp w the columns
// [16 w, +16) of the tile, with the state transposed in registers as in v20 (h^T: the m64n128
// accumulator, 64 FP32 registers a thread), and a producer warp brings every input as copy-engine
// boxes (as v21). Per chunk, four groups of asynchronous products on the tensor cores:
//   G1  v_new^T = h^T w^T             A = bf16(h^T) (registers), B = w (K-major)    m64n64k16 x 8
//   G2  o^T     = h^T qg^T                                      B = qg (K-major)   m64n64k16 x 8
//       v_new = u - v_new^T (FP32), split into bf16 hi + lo A-fragments, written back over u
//   G3  h^T     = h^T diag(exp(gamma_C)) + v_new^T kg  A = hi, lo  B = kg (MN-major)  m64n128k16 x 8
//                                    + hi^T kg_lo (v45)        B = kg_lo (MN-major)    m64n128k16 x 4
//   G4  o^T    += v_new^T Aqk^T                                  B = Aqk (K-major)  m64n64k16 x 8
// v_new is formed while G2 runs, and o leaves one chunk late, while the next chunk's G1 runs. The
// saved set's h and o (transposed back to [row][column] by stmatrix into swizzled boxes) and v_new
// (written over u) leave through the copy engine (tensor stores, issued by one thread); only a
// sequence's partial last chunk of o is copied by the threads (a box would spill into the next
// sequence's rows). The same operands and k order as the mma.sync
// kernels (v19, v21), and wgmma gives mma.sync's bits (docs/analysis/wgmma_probe.cu, session 14).
#include <cstdint>

#include "common/mbarrier.cuh"
#include "common/mma.cuh"
#include "common/named_barrier.cuh"
#include "common/ready_flags.cuh"
#include "common/schedule.cuh"
#include "common/tile_maps.cuh"
#include "common/timeline.cuh"
#include "common/wgmma.cuh"
#include "fwd/state_pass.cuh"

namespace kda::dev {
namespace {

constexpr int VT = 64;
constexpr int k_chain = 128;             // the warpgroup
constexpr int k_threads = k_chain + 32;  // and the producer warp
constexpr int k_bar_group = 1;           // named barrier of the warpgroup

struct wg_smem {
  // stage: w, kg, kg_lo, qg [64][128], Aqk [64][64] bf16 swizzled; u [64][64] fp32 as two
  // swizzled [64][32] boxes (v_new is written over it); exp(gamma_C) [128]
  static constexpr std::size_t w = 0;
  static constexpr std::size_t kg = w + 2 * k_box_bytes;
  static constexpr std::size_t kg_lo = kg + 2 * k_box_bytes;
  static constexpr std::size_t qg = kg_lo + 2 * k_box_bytes;
  static constexpr std::size_t Aqk = qg + 2 * k_box_bytes;
  static constexpr std::size_t u = Aqk + k_box_bytes;
  static constexpr std::size_t gC = u + 64 * VT * 4;
  static constexpr std::size_t stage = box_aligned(gC + 128 * 4);
  static constexpr std::size_t h_out = 2 * stage;              // [128][64] bf16, swizzled (swz_offset)
  static constexpr std::size_t o_out = h_out + 128 * 64 * 2;   // [64][64] bf16, swizzled
  static constexpr std::size_t bars = o_out + 64 * 64 * 2;     // full [2], empty [2]
  static constexpr std::size_t bytes = bars + 4 * 8;
  static_assert(u % 1024 == 0 && stage % 1024 == 0 && h_out % 1024 == 0 && o_out % 1024 == 0,
                "swizzled boxes start 1024-byte aligned");
  static_assert(bars % 8 == 0, "mbarrier alignment");
  static_assert(bytes <= 227 * 1024, "one CTA per SM");
  static constexpr std::uint32_t copy_bytes(bool o) { return (o ? 9 : 6) * k_box_bytes + 64 * VT * 4 + 128 * 4; }
};

struct stage_ptrs {
  unsigned char *w, *kg, *kg_lo, *qg, *Aqk, *u;
  float* gC;
};
__device__ __forceinline__ stage_ptrs stage_at(unsigned char* smem, int st) {
  unsigned char* b = smem + st * wg_smem::stage;
  return {b + wg_smem::w, b + wg_smem::kg, b + wg_smem::kg_lo, b + wg_smem::qg, b + wg_smem::Aqk, b + wg_smem::u,
          reinterpret_cast<float*>(b + wg_smem::gC)};
}

// The producer warp: every input of chunk c into stage c % 2 once the warpgroup has released the
// stage and the intra stage has published the tile (lanes 0-3 w, kg; 4-6 qg, Aqk; 7-8 u; 9 gC;
// 10-11 kg_lo).
__device__ void produce(const fwd_state_params& p, const state_maps& maps, unsigned char* smem, const seq_info& sq,
                        int head, int vt, int lane) {
  auto* const bars = reinterpret_cast<std::uint64_t*>(smem + wg_smem::bars);
  const auto tile_of = [&](int c) { return seq_tile(sq, c, p.heads, head); };
  tile_waiter published;
  for (int c = 0; c < sq.num_chunks; ++c) {
    const int st = c & 1, use = c >> 1;
    const std::size_t tile = tile_of(c);
    const stage_ptrs s = stage_at(smem, st);
    published.await(c, sq.num_chunks, p.ready, p.epoch, tile_of, lane);
    produce_begin(bars + st, bars + 2 + st, use, wg_smem::copy_bytes(p.o != nullptr), lane);
    if (lane < 4) {
      copy_tile_box(lane < 2 ? s.w : s.kg, lane < 2 ? maps.w : maps.kg, lane & 1, tile, bars + st);
    } else if (p.o && lane < 6) {
      copy_tile_box(s.qg, maps.qg, lane & 1, tile, bars + st);
    } else if (p.o && lane == 6) {
      copy_tile_box(s.Aqk, maps.Aqk, 0, tile, bars + st);
    } else if (lane == 7 || lane == 8) {
      copy_box(s.u + (lane - 7) * k_box_bytes, maps.u, VT * vt + 32 * (lane - 7), 64 * tile, bars + st);
    } else if (lane == 9) {
      copy_box(s.gC, maps.gC, 0, tile, bars + st);
    } else if (lane == 10 || lane == 11) {
      copy_tile_box(s.kg_lo, maps.kg_lo, lane & 1, tile, bars + st);
    }
  }
}

// bf16 A-fragment of k step kk from the C-fragments 2 kk and 2 kk + 1 of an accumulator.
template <int N>
__device__ __forceinline__ void a_from_c(std::uint32_t (&a)[4], const float (&d)[N], int kk) {
  a[0] = pack_bf16(d[8 * kk + 0], d[8 * kk + 1]);
  a[1] = pack_bf16(d[8 * kk + 2], d[8 * kk + 3]);
  a[2] = pack_bf16(d[8 * kk + 4], d[8 * kk + 5]);
  a[3] = pack_bf16(d[8 * kk + 6], d[8 * kk + 7]);
}

// o of one chunk from its accumulator: [token][column] into the swizzled s_o box (stmatrix at
// this lane's row address so_at, 16 rows further each k step), ordered before the copy engine's
// read of it.
__device__ __forceinline__ void stage_o(const float (&ot)[32], std::uint32_t so_at) {
#pragma unroll
  for (int kk = 0; kk < 4; ++kk) {
    std::uint32_t a[4];
    a_from_c(a, ot, kk);
    stmatrix_x4_trans_at(a, so_at + 2048 * kk);
  }
  fence_proxy_async_shared();
}

// After the barrier that follows stage_o: chunk c's o to global, a copy-engine box (thread 0) if
// the chunk is whole, else its `valid` rows by every thread in 16-byte copies.
__device__ __forceinline__ void store_o(const CUtensorMap& map, __nv_bfloat16* o, const unsigned char* s_o, int heads,
                                        int head, int vt, int t0, int valid, int tid) {
  if (valid >= k_chunk) {
    if (tid == 0) {
      store_box_3d(map, s_o, VT * vt, head, t0);
      bulk_commit();
    }
    return;
  }
  for (int i = tid; i < valid * 8; i += k_chain) {
    const int r = i >> 3, seg = i & 7;
    *reinterpret_cast<uint4*>(o + (static_cast<std::size_t>(t0 + r) * heads + head) * v_dim + VT * vt + seg * 8) =
        *reinterpret_cast<const uint4*>(s_o + swz_offset(r, seg * 8));
  }
}

// Where the copy engine stores the saved set: h ([tile][128][128] bf16 in boxes of [128][64]) and
// v_new ([tile][64][128] fp32 in swizzled boxes of [64][32], as u arrives).
struct store_maps {
  CUtensorMap h, vn, o;
};

// O: the o products (G2, G4) and o's stores; a template argument so that no wgmma sits on a
// path the compiler must treat as divergent (it would serialise them all).
template <bool O>
__global__ void __launch_bounds__(k_threads, 1)
    fwd_state_wg_kernel(const fwd_state_params p, const __grid_constant__ state_maps maps,
                        const __grid_constant__ store_maps out) {
  const tl_stamp stamp(tl_state); // the timeline build's record of this block (common/timeline.cuh)
  extern __shared__ __align__(1024) unsigned char smem[];
  auto* const bars = reinterpret_cast<std::uint64_t*>(smem + wg_smem::bars);
  auto* const s_h = reinterpret_cast<__nv_bfloat16*>(smem + wg_smem::h_out);
  const unsigned char* const s_o = smem + wg_smem::o_out;
  const serial_cta cta = serial_cta_of(blockIdx.x, p.heads, v_dim / VT);
  const seq_info sq = p.seqs[p.seq_order[cta.seq_rank]];
  const int head = cta.head, vt = cta.vt, H = p.heads;
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, tig = lane & 3;
  if (tid < 4) mbar_init(bars + tid, 1);
  if (tid == 0) fence_mbar_init();
  __syncthreads();
  if (warp == 4) {
    produce(p, maps, smem, sq, head, vt, lane);
    if (lane == 0) wait_prerequisite_grids();
    return;
  }
  const int n = sq.num_chunks, col0 = 16 * warp, gid = lane >> 2; // this warp's columns of the tile
  // stmatrix into the swizzled s_h, s_o: this lane's row of k step 0 (rows 16 kk further: + 2048 kk)
  const std::uint32_t st_lane = swz_offset(((lane >> 3) >> 1) * 8 + (lane & 7), col0 + ((lane >> 3) & 1) * 8);
  const std::uint32_t sh_at = smem_addr(s_h) + st_lane, so_at = smem_addr(s_o) + st_lane;
  // accumulator element (j, e) of u / v_new in the stage (swz_offset_f32 of row 8 j + 2 tig + (e & 1),
  // column col0 + gid + 8 (e >> 1)) is float u_off[e] + 256 j: the row's bits below 8, which the
  // swizzle reads, do not depend on j
  int u_off[4];
#pragma unroll
  for (int e = 0; e < 4; ++e) u_off[e] = static_cast<int>(swz_offset_f32(2 * tig + (e & 1), col0 + gid + 8 * (e >> 1)) / 4);

  float hT[64] = {}; // h^T: column col0 + gid (+8), state rows 8 j + 2 tig (+1)
  float vn[32], ot[32];
  std::uint32_t ha[8][4] = {}, vh[4][4] = {}, vl[4][4] = {}; // A operands, live until their group ends
  for (int c = 0; c < n; ++c) {
    const int st = c & 1;
    const std::size_t tile = seq_tile(sq, c, H, head);
    const stage_ptrs s = stage_at(smem, st);

    // every group of chunk c - 1 done: h^T and its o final, its A operands free, its stage no
    // longer read by the tensor cores. (Waiting here for G3 alone, G4 still running, makes ptxas
    // serialise every wgmma: warning C7514.)
    wgmma_wait<0>();
    keep(hT);
    keep(ot);
    keep(ha);
    keep(vh);
    keep(vl);
    mbar_wait(bars + st, (c >> 1) & 1);

    // h entering the chunk: bf16 A-fragments, and [row][column] in s_h for the saved set
#pragma unroll
    for (int kk = 0; kk < 8; ++kk) a_from_c(ha[kk], hT, kk);
    if (p.h_out) {
#pragma unroll
      for (int kk = 0; kk < 8; ++kk) stmatrix_x4_trans_at(ha[kk], sh_at + 2048 * kk);
      fence_proxy_async_shared();
    }
    const std::uint32_t w_s = smem_addr(s.w), qg_s = smem_addr(s.qg);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 8; ++kk) wgmma_m64n64k16<0>(vn, ha[kk], desc_kmajor(w_s, kk), kk > 0);
    wgmma_commit(); // G1

    if (O && c > 0) stage_o(ot, so_at);
    if (O) {
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 8; ++kk) wgmma_m64n64k16<0>(ot, ha[kk], desc_kmajor(qg_s, kk), kk > 0);
    }
    wgmma_commit(); // G2 (empty without o: every chunk commits four groups, so the waits count alike)
    named_sync(k_bar_group, k_chain); // s_h, s_o complete; every thread done with chunk c - 1's stage
    if (tid == 0) {
      bulk_wait_read<0>(); // the copy engine has read chunk c - 1's v_new from its stage
      if (c > 0 && c + 1 < n) mbar_arrive(bars + 2 + (st ^ 1)); // the stage may take chunk c + 1
      if (p.h_out) {
        store_box(out.h, s_h, VT * vt, tile * k_dim);
        bulk_commit();
      }
    }
    if (O && c > 0) store_o(out.o, p.o, s_o, H, head, vt, sq.start + k_chunk * (c - 1), sq.len - k_chunk * (c - 1), tid);

    // h^T diag(exp(gamma_C)) while G1 runs (no group reads h^T now)
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      const float2 g = *reinterpret_cast<const float2*>(s.gC + 8 * j + 2 * tig);
      hT[4 * j + 0] *= g.x;
      hT[4 * j + 1] *= g.y;
      hT[4 * j + 2] *= g.x;
      hT[4 * j + 3] *= g.y;
    }

    // G1 done (G2 may run): v_new = u - v_new^T (FP32) as hi + lo A-fragments (k step kk =
    // tokens [16 kk, +16)), and over u for the saved set
    wgmma_wait<1>();
    keep(vn);
    // (every load before any store: the compiler cannot tell the swizzled addresses apart, and
    // a store between two loads would serialise them, a shared-memory round trip each)
    const float* const u_s = reinterpret_cast<const float*>(s.u);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
#pragma unroll
      for (int e = 0; e < 4; ++e) vn[4 * j + e] = u_s[u_off[e] + 256 * j] - vn[4 * j + e];
    }
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const int kk = j >> 1, r = 2 * (j & 1);
      split_bf16x2(vn[4 * j + 0], vn[4 * j + 1], vh[kk][r], vl[kk][r]);
      split_bf16x2(vn[4 * j + 2], vn[4 * j + 3], vh[kk][r + 1], vl[kk][r + 1]);
    }
    if (p.vn_out) {
      float* const v_s = reinterpret_cast<float*>(s.u);
#pragma unroll
      for (int j = 0; j < 8; ++j) {
#pragma unroll
        for (int e = 0; e < 4; ++e) v_s[u_off[e] + 256 * j] = vn[4 * j + e];
      }
      fence_proxy_async_shared();
    }
    // G3: h^T += v_new^T kg; G4: o^T += v_new^T Aqk^T (per element the k steps in order, hi
    // before lo; in G3 per k step hi^T kg, lo^T kg, hi^T kg_lo, as the mma.sync passes)
    const std::uint32_t Aqk_s = smem_addr(s.Aqk), kg_s = smem_addr(s.kg), kg_lo_s = smem_addr(s.kg_lo);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      wgmma_m64n128k16<1>(hT, vh[kk], desc_mnmajor(kg_s, kk), 1);
      wgmma_m64n128k16<1>(hT, vl[kk], desc_mnmajor(kg_s, kk), 1);
      wgmma_m64n128k16<1>(hT, vh[kk], desc_mnmajor(kg_lo_s, kk), 1);
    }
    wgmma_commit(); // G3
    if (O) {
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        wgmma_m64n64k16<0>(ot, vh[kk], desc_kmajor(Aqk_s, kk), 1);
        wgmma_m64n64k16<0>(ot, vl[kk], desc_kmajor(Aqk_s, kk), 1);
      }
    }
    wgmma_commit(); // G4 (empty without o)
    if (tid == 0) bulk_wait_read<0>(); // the copy engine has read s_h and s_o: the next chunk may write them
    named_sync(k_bar_group, k_chain); // v_new complete in the stage
    if (p.vn_out && tid == 0) {
      store_box(out.vn, s.u, VT * vt, 64 * tile);
      store_box(out.vn, s.u + k_box_bytes, VT * vt + 32, 64 * tile);
      bulk_commit();
    }
  }
  // the last chunk's o
  wgmma_wait<0>();
  keep(ot);
  keep(hT);
  keep(vh);
  keep(vl);
  if (O && n > 0) {
    stage_o(ot, so_at);
    named_sync(k_bar_group, k_chain);
    store_o(out.o, p.o, s_o, H, head, vt, sq.start + k_chunk * (n - 1), sq.len - k_chunk * (n - 1), tid);
  }
  if (tid == 0) bulk_wait<0>(); // the saved set's stores complete before the CTA ends
}

} // namespace

cudaError_t launch_fwd_state_wg(const fwd_state_params& p, int num_seqs, serial_launch how, cudaStream_t stream) {
  state_maps maps;
  // u in two swizzled [64][32] boxes a tile (swz_offset_f32), for conflict-free accumulator-layout reads
  if (const cudaError_t e = make_state_maps(p, 32, true, &maps); e != cudaSuccess) return e;
  store_maps out{};
  if (p.h_out) {
    if (const cudaError_t e = make_rows_map(&out.h, p.h_out, p.num_tiles * k_dim, v_dim, k_dim); e != cudaSuccess) return e;
  }
  if (p.vn_out) {
    if (const cudaError_t e = make_f32_map(&out.vn, p.vn_out, p.num_tiles * 64, 32, 64, true); e != cudaSuccess) return e;
  }
  if (p.o) {
    if (const cudaError_t e = make_token_head_map(&out.o, p.o, p.tokens, p.heads); e != cudaSuccess) return e;
    return launch_serial<fwd_state_wg_kernel<true>>(p, num_seqs, v_dim / VT, k_threads, wg_smem::bytes, how, stream,
                                                    maps, out);
  }
  return launch_serial<fwd_state_wg_kernel<false>>(p, num_seqs, v_dim / VT, k_threads, wg_smem::bytes, how, stream,
                                                   maps, out);
}

} // namespace kda::dev
