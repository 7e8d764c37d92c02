// Forward stage 3 behind the 16-column state pass (output_pass.cuh): o = qg h + Aqk v_new for one
// (chunk, head) per block, 8 warps, two blocks an SM.
//   warp (M = warp & 3, ch = warp >> 2): o rows [16 M, +16), columns [64 ch, +64) (8 n-tiles)
// The products are those of the state passes' output warps, element for element: qg h over the
// 8 k steps in order, then Aqk v_new with v_new as the bf16 hi + lo pair the chain formed (hi,
// then lo, per k step), FP32 accumulation from zero; v_new is split here from the saved set's FP32
// copy exactly as the chain split it, and h is the chain's own bf16 copy. So o's bits do not
// depend on which pass forms it.
#include "fwd/output_pass.cuh"

#include <cstdint>

#include "common/launch.cuh"
#include "common/mma.cuh"
#include "common/ready_flags.cuh"
#include "common/timeline.cuh"

namespace kda::dev {
namespace {

constexpr int k_threads = 256;
constexpr int k_ld = 136; // bf16 rows of 128 columns (+8: conflict-free ldmatrix)
constexpr int k_lda = 72; // bf16 rows of 64 columns (Aqk)

struct out_smem {
  static constexpr std::size_t qg = 0;                  // [64][136] bf16; o [64][136] bf16 at the end
  static constexpr std::size_t h = qg + 64 * k_ld * 2;  // [128][136] bf16
  static constexpr std::size_t hi = h + 128 * k_ld * 2; // [64][136] bf16, v_new hi
  static constexpr std::size_t lo = hi + 64 * k_ld * 2; // [64][136] bf16, v_new lo
  static constexpr std::size_t Aqk = lo + 64 * k_ld * 2; // [64][72] bf16
  static constexpr std::size_t bytes = Aqk + 64 * k_lda * 2;
  static_assert(2 * bytes <= 227 * 1024, "two blocks per SM");
};

__global__ void __launch_bounds__(k_threads, 2) fwd_output_kernel(const fwd_output_params p) {
  const tl_stamp stamp(tl_output); // the timeline build's record of this block (common/timeline.cuh)
  extern __shared__ __align__(16) unsigned char smem[];
  auto* s_qg = reinterpret_cast<__nv_bfloat16*>(smem + out_smem::qg);
  auto* s_o = s_qg; // qg is dead once the products are formed
  auto* s_h = reinterpret_cast<__nv_bfloat16*>(smem + out_smem::h);
  auto* s_hi = reinterpret_cast<__nv_bfloat16*>(smem + out_smem::hi);
  auto* s_lo = reinterpret_cast<__nv_bfloat16*>(smem + out_smem::lo);
  auto* s_A = reinterpret_cast<__nv_bfloat16*>(smem + out_smem::Aqk);

  const int H = p.heads, head = blockIdx.x % H;
  const ordered_chunk ci = p.order[blockIdx.x / H];
  const int chunk = ci.chunk;
  const std::size_t tile = static_cast<std::size_t>(chunk) * H + head;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

  // The tile's h and v_new from all 8 chains' CTAs, and qg, Aqk from the intra stage.
  if (p.state_ready) {
    if (warp == 0) await_vtile_slots(p.state_ready, tile, p.state_epoch, lane, p.intra_ready, p.intra_epoch);
    __syncthreads();
  }
#pragma unroll 1
  for (int idx = tid; idx < 64 * 16; idx += k_threads) {
    const int i = idx >> 4, seg = idx & 15;
    cp_async_16(s_qg + i * k_ld + seg * 8, p.qg + tile * tile_sizes::ck + i * k_dim + seg * 8);
  }
#pragma unroll 1
  for (int idx = tid; idx < 128 * 16; idx += k_threads) {
    const int i = idx >> 4, seg = idx & 15;
    cp_async_16(s_h + i * k_ld + seg * 8, p.h + tile * tile_sizes::kv + i * v_dim + seg * 8);
  }
#pragma unroll 1
  for (int idx = tid; idx < 64 * 8; idx += k_threads) {
    const int i = idx >> 3, seg = idx & 7;
    cp_async_16(s_A + i * k_lda + seg * 8, p.Aqk + tile * tile_sizes::cc + i * k_chunk + seg * 8);
  }
  cp_async_commit();
  {
    // v_new -> hi = bf16(v_new), lo = bf16(v_new - hi), the chain's split; all loads issued first
    constexpr int per_thread = 64 * 32 / k_threads; // float4 pieces
    const float* const src = p.vn + tile * tile_sizes::ck;
    float4 vv[per_thread];
#pragma unroll
    for (int n = 0; n < per_thread; ++n) {
      const int idx = tid + n * k_threads;
      vv[n] = *reinterpret_cast<const float4*>(src + (idx >> 5) * v_dim + (idx & 31) * 4);
    }
#pragma unroll
    for (int n = 0; n < per_thread; ++n) {
      const int idx = tid + n * k_threads, at = (idx >> 5) * k_ld + (idx & 31) * 4;
      std::uint32_t hi[2], lo[2];
      split_bf16x2(vv[n].x, vv[n].y, hi[0], lo[0]);
      split_bf16x2(vv[n].z, vv[n].w, hi[1], lo[1]);
      *reinterpret_cast<uint2*>(s_hi + at) = make_uint2(hi[0], hi[1]);
      *reinterpret_cast<uint2*>(s_lo + at) = make_uint2(lo[0], lo[1]);
    }
  }
  cp_async_wait<0>();
  __syncthreads();

  const int R0 = 16 * (warp & 3), C0 = 64 * (warp >> 2);
  frag_c acc[8] = {};
  // qg h, k steps in order
#pragma unroll
  for (int kk = 0; kk < 8; ++kk) {
    std::uint32_t a[4];
    load_a_bf16(a, s_qg + R0 * k_ld + 16 * kk, k_ld, lane);
    mma_a_rows(acc, a, s_h + 16 * kk * k_ld + C0, k_ld, lane);
  }
  // + Aqk v_new, v_new = hi + lo (per k step hi, then lo)
#pragma unroll
  for (int kk = 0; kk < 4; ++kk) {
    std::uint32_t a[4];
    load_a_bf16(a, s_A + R0 * k_lda + 16 * kk, k_lda, lane);
#pragma unroll
    for (const __nv_bfloat16* part : {s_hi, s_lo}) mma_a_rows(acc, a, part + 16 * kk * k_ld + C0, k_ld, lane);
  }

  // o through shared memory (over qg), then rows of 16-byte stores
  __syncthreads(); // every warp is done with qg
  const int gid = lane >> 2, tig = lane & 3;
#pragma unroll
  for (int nt = 0; nt < 8; ++nt) {
#pragma unroll
    for (int hh = 0; hh < 2; ++hh) {
      *reinterpret_cast<std::uint32_t*>(s_o + (R0 + gid + 8 * hh) * k_ld + C0 + 8 * nt + 2 * tig) =
          pack_bf16(acc[nt].x[2 * hh], acc[nt].x[2 * hh + 1]);
    }
  }
  __syncthreads();
#pragma unroll 1
  for (int idx = tid; idx < 64 * 16; idx += k_threads) {
    const int i = idx >> 4, seg = idx & 15;
    if (i >= ci.len) continue; // padding rows of a short last chunk
    *reinterpret_cast<uint4*>(p.o + (static_cast<std::size_t>(ci.start + i) * H + head) * v_dim + seg * 8) =
        *reinterpret_cast<const uint4*>(s_o + i * k_ld + seg * 8);
  }
  if (p.state_ready) complete_after_prerequisite_grids(); // later work in the stream after the state pass
}

} // namespace

cudaError_t launch_fwd_output(const fwd_output_params& p, int num_chunks, cudaStream_t stream) {
  static const cudaError_t attr = cudaFuncSetAttribute(fwd_output_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                       static_cast<int>(out_smem::bytes));
  if (attr != cudaSuccess) return attr;
  const dim3 grid(static_cast<unsigned>(num_chunks) * static_cast<unsigned>(p.heads));
  return launch_kernel<fwd_output_kernel>(grid, k_threads, out_smem::bytes, p.state_ready != nullptr, stream, p);
}

} // namespace kda::dev
