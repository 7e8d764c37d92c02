// Forward stage 2 for V tiles of 16 columns (state_pass.cuh): the same per-chunk maths as
// state_pass.cu, with the warps split by role so that a chunk step of the recurrence waits for
// nothing but its own two products.
//   chain warps 0-3   v_new = u - w h              (row block `warp`, 16 columns, K = 128)
//                     h = diag(exp(gamma_C)) h + kg^T v_new   (state rows [32 warp, +32), K = 64)
//   output warps 4-7  o = qg h + Aqk v_new         (row block `warp - 4`, 16 columns)
//                     the saved set's h, o's stores
// The serial chain of a chunk (h -> smem -> w h -> v_new -> smem -> kg^T v_new -> h) runs on the
// chain warps with two 128-thread barriers; the output warps work on the same chunk beside them,
// on copies of h and v_new kept for two chunks (double buffers), and never hold the chain up unless
// they fall two chunks behind. Each group loads its own tiles (cp.async double buffers).
// Every element goes through the same mma in the same order as in state_pass.cu (u in FP32, v_new
// as a bf16 hi + lo pair), so the bits are those of every other V tile.
#include <cstdint>

#include "common/chunk_tile_copies.cuh"
#include "common/mma.cuh"
#include "common/named_barrier.cuh"
#include "common/schedule.cuh"
#include "common/serial_copies.cuh"
#include "fwd/state_pass.cuh"

namespace kda::dev {
namespace {

constexpr int VT = 16;
constexpr int k_group = 128;   // threads of each role
constexpr int k_ld = VT + 8;   // bf16 row stride of [.][16] tiles (h, v_new hi and lo)
constexpr int k_ldu = VT + 8;  // fp32 row stride of u [64][16]

// Barrier ids (common/named_barrier.cuh). The two groups meet only at h_full, vn_full (chain
// arrives, output waits) and buf_free (output arrives, chain waits), one of each per buffer.
constexpr int k_bar_chain = 1, k_bar_out = 2;
__device__ __forceinline__ int bar_h_full(int b) { return 3 + b; }
__device__ __forceinline__ int bar_vn_full(int b) { return 5 + b; }
__device__ __forceinline__ int bar_buf_free(int b) { return 7 + b; }

struct narrow_smem {
  // chain stage: w, kg [64][136] bf16, u [64][24] fp32, exp(gamma_C) [128] fp32
  static constexpr std::size_t c_w = 0;
  static constexpr std::size_t c_kg = c_w + 64 * k_ld_wide * 2;
  static constexpr std::size_t c_u = c_kg + 64 * k_ld_wide * 2;
  static constexpr std::size_t c_gC = c_u + 64 * k_ldu * 4;
  static constexpr std::size_t c_stage = c_gC + 128 * 4;
  // output stage: qg [64][136] bf16, Aqk [64][72] bf16
  static constexpr std::size_t o_base = 2 * c_stage;
  static constexpr std::size_t o_qg = 0;
  static constexpr std::size_t o_Aqk = o_qg + 64 * k_ld_wide * 2;
  static constexpr std::size_t o_stage = o_Aqk + 64 * k_ld_aqk * 2;
  // per buffer b: h [128][24], v_new hi [64][24], lo [64][24] (bf16)
  static constexpr std::size_t x_base = o_base + 2 * o_stage;
  static constexpr std::size_t x_h = 0;
  static constexpr std::size_t x_hi = x_h + 128 * k_ld * 2;
  static constexpr std::size_t x_lo = x_hi + 64 * k_ld * 2;
  static constexpr std::size_t x_buf = x_lo + 64 * k_ld * 2;
  static constexpr std::size_t bytes = x_base + 2 * x_buf;
  static_assert(bytes <= 227 * 1024, "one CTA per SM");
};

struct chain_stage {
  __nv_bfloat16 *w, *kg;
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
  return {reinterpret_cast<__nv_bfloat16*>(s + narrow_smem::c_w), reinterpret_cast<__nv_bfloat16*>(s + narrow_smem::c_kg),
          reinterpret_cast<float*>(s + narrow_smem::c_u), reinterpret_cast<float*>(s + narrow_smem::c_gC)};
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

// The 16-byte copies of one group thread (g = 0..127; common/serial_copies.cuh).
struct chain_copies {
  row_copies<16, k_group> wide; // w, kg
  row_copies<4, k_group> u;     // u [64][16] fp32 of this V tile
  __device__ chain_copies(int g, int vt) : wide(g, k_dim, k_ld_wide, 8), u(g, v_dim, k_ldu, 4, VT * vt) {}
};
struct out_copies {
  row_copies<16, k_group> wide; // qg
  row_copies<8, k_group> aqk;
  row_copies<2, k_group> h; // h out [128][16] bf16
  __device__ out_copies(int g, int vt)
      : wide(g, k_dim, k_ld_wide, 8), aqk(g, k_chunk, k_ld_aqk, 8), h(g, v_dim, k_ld, 8, VT * vt) {}
};

__device__ __forceinline__ void load_chain(const fwd_state_params& p, const chain_stage& s, std::size_t tile,
                                           const chain_copies& o, int g) {
  const std::size_t ck = tile * tile_sizes::ck;
  copy_wide_tiles<2>({s.w, s.kg}, {p.w, p.kg}, ck, o.wide);
#pragma unroll
  for (int n = 0; n < 64 / o.u.rows; ++n) {
    cp_async_16(s.u + o.u.s + n * o.u.rows * k_ldu, p.u + ck + o.u.g + n * o.u.rows * v_dim);
  }
  copy_gamma_C(s.gC, p.gC, tile, g);
}

__device__ __forceinline__ void load_out(const fwd_state_params& p, const out_stage& s, std::size_t tile,
                                         const out_copies& o) {
  const std::size_t ck = tile * tile_sizes::ck;
  copy_wide_tiles<1>({s.qg}, {p.qg}, ck, o.wide);
  copy_aqk_tile(s.Aqk, p.Aqk, tile, o.aqk);
}

// acc += A h for 16 rows of A ([.][128] bf16, row stride k_ld_wide) and the 16 columns of h
// ([128][16] bf16): w h on the chain warps, qg h on the output warps; k steps in order.
__device__ __forceinline__ void rows_times_h(frag_c (&acc)[2], const __nv_bfloat16* a_rows, const __nv_bfloat16* h,
                                             int lane) {
#pragma unroll
  for (int kk = 0; kk < 8; ++kk) {
    std::uint32_t a[4], b0[2], b1[2];
    load_a_bf16(a, a_rows + 16 * kk, k_ld_wide, lane);
    load_b_bf16_x2(b0, b1, h + 16 * kk * k_ld, k_ld, lane);
    mma_bf16_16816(acc[0], a, b0);
    mma_bf16_16816(acc[1], a, b1);
  }
}

// Chain warp `warp` (0-3) over the sequence's chunks.
__device__ void chain_role(const fwd_state_params& p, unsigned char* smem, const seq_info& sq, int head, int vt,
                           int warp, int lane) {
  const int g = warp * 32 + lane, gid = lane >> 2, tig = lane & 3, H = p.heads;
  const int R0 = 16 * warp, S0 = 32 * warp; // v_new rows [R0, +16); state rows [S0, +32)
  const auto tile_of = [&](int c) { return seq_tile(sq, c, H, head); };
  const chain_copies copies(g, vt);
  frag_c hf[2][2] = {}; // h rows S0 + 16 mt + gid (+8), cols 8 nt + 2 tig (+1)
  if (sq.num_chunks > 0) load_chain(p, chain_at(smem, 0), tile_of(0), copies, g);
  cp_async_commit();

  for (int c = 0; c < sq.num_chunks; ++c) {
    const int b = c & 1;
    const std::size_t tile = tile_of(c);
    const chain_stage s = chain_at(smem, b);
    const shared_buf x = buf_at(smem, b);

    // h (FP32 registers) -> bf16 in buffer b, once the output warps are done with chunk c - 2's
    if (c >= 2) named_sync(bar_buf_free(b), 2 * k_group);
#pragma unroll
    for (int mt = 0; mt < 2; ++mt) {
#pragma unroll
      for (int nt = 0; nt < 2; ++nt) {
        const int r = S0 + 16 * mt + gid, col = 8 * nt + 2 * tig;
        *reinterpret_cast<std::uint32_t*>(x.h + r * k_ld + col) = pack_bf16(hf[mt][nt].x[0], hf[mt][nt].x[1]);
        *reinterpret_cast<std::uint32_t*>(x.h + (r + 8) * k_ld + col) = pack_bf16(hf[mt][nt].x[2], hf[mt][nt].x[3]);
      }
    }
    cp_async_wait<0>();
    named_sync(k_bar_chain, k_group); // h and this chunk's chain stage visible to every chain warp
    named_arrive(bar_h_full(b), 2 * k_group);
    if (c + 1 < sq.num_chunks) load_chain(p, chain_at(smem, b ^ 1), tile_of(c + 1), copies, g);
    cp_async_commit();

    // v_new = u - w h for rows [R0, +16)
    frag_c av[2] = {};
    rows_times_h(av, s.w + R0 * k_ld_wide, x.h, lane);
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
      std::uint32_t a[2][4];
#pragma unroll
      for (int mt = 0; mt < 2; ++mt) load_a_bf16_trans(a[mt], s.kg + 16 * kk * k_ld_wide + S0 + 16 * mt, k_ld_wide, lane);
#pragma unroll
      for (const __nv_bfloat16* part : {x.hi, x.lo}) { // v_new = hi + lo
        std::uint32_t b0[2], b1[2];
        load_b_bf16_x2(b0, b1, part + 16 * kk * k_ld, k_ld, lane);
#pragma unroll
        for (int mt = 0; mt < 2; ++mt) {
          mma_bf16_16816(hf[mt][0], a[mt], b0);
          mma_bf16_16816(hf[mt][1], a[mt], b1);
        }
      }
    }
  }
}

// Output warp `ow` (0-3, warp 4 + ow) over the sequence's chunks.
__device__ void output_role(const fwd_state_params& p, unsigned char* smem, const seq_info& sq, int head, int vt,
                            int ow, int lane) {
  const int g = ow * 32 + lane, gid = lane >> 2, tig = lane & 3, H = p.heads;
  const int R0 = 16 * ow; // o rows [R0, +16)
  const auto tile_of = [&](int c) { return seq_tile(sq, c, H, head); };
  const out_copies copies(g, vt);
  if (sq.num_chunks > 0 && p.o) load_out(p, out_at(smem, 0), tile_of(0), copies);
  cp_async_commit();

  for (int c = 0; c < sq.num_chunks; ++c) {
    const int b = c & 1;
    const std::size_t tile = tile_of(c);
    const out_stage s = out_at(smem, b);
    const shared_buf x = buf_at(smem, b);
    cp_async_wait<0>();
    named_sync(k_bar_out, k_group); // this chunk's output stage visible to every output warp
    if (c + 1 < sq.num_chunks && p.o) load_out(p, out_at(smem, b ^ 1), tile_of(c + 1), copies);
    cp_async_commit();

    named_sync(bar_h_full(b), 2 * k_group);
    if (p.h_out) {
      __nv_bfloat16* const h_dst = p.h_out + tile * tile_sizes::kv + copies.h.g;
#pragma unroll
      for (int n = 0; n < 128 / copies.h.rows; ++n) {
        *reinterpret_cast<uint4*>(h_dst + n * copies.h.rows * v_dim) =
            *reinterpret_cast<const uint4*>(x.h + copies.h.s + n * copies.h.rows * k_ld);
      }
    }
    frag_c ao[2] = {};
    if (p.o) rows_times_h(ao, s.qg + R0 * k_ld_wide, x.h, lane);
    named_sync(bar_vn_full(b), 2 * k_group);
    if (p.o) {
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        std::uint32_t a[4];
        load_a_bf16(a, s.Aqk + R0 * k_ld_aqk + 16 * kk, k_ld_aqk, lane);
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
    if (c + 2 < sq.num_chunks) named_arrive(bar_buf_free(b), 2 * k_group);
    if (p.o) {
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
}

__global__ void __launch_bounds__(k_state_threads, 1) fwd_state_narrow_kernel(fwd_state_params p) {
  extern __shared__ __align__(16) unsigned char smem[];
  const serial_cta cta = serial_cta_of(blockIdx.x, p.heads, v_dim / VT);
  const seq_info sq = p.seqs[p.seq_order[cta.seq_rank]];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (warp < 4) {
    chain_role(p, smem, sq, cta.head, cta.vt, warp, lane);
  } else {
    output_role(p, smem, sq, cta.head, cta.vt, warp - 4, lane);
  }
}

} // namespace

cudaError_t launch_fwd_state_narrow(const fwd_state_params& p, int num_seqs, cudaStream_t stream) {
  static_assert(k_state_threads == 2 * k_group, "chain and output warps");
  return launch_serial<fwd_state_narrow_kernel>(p, num_seqs, v_dim / VT, k_state_threads, narrow_smem::bytes, stream);
}

} // namespace kda::dev
