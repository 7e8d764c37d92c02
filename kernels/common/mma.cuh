#pragma once
// Warp-level tensor-core and copy primitives (sm_80+ PTX, used on sm_90a): mma.sync bf16 and tf32,
// ldmatrix, cp.async. Fragment layouts (PTX ISA, "Matrix fragments for mma.m16n8k16/k8"), with
// lane = 4 * gid + tig:
//   A 16x16 bf16: a0 (gid, 2tig..+1) a1 (gid+8, 2tig..) a2 (gid, 2tig+8..) a3 (gid+8, 2tig+8..)
//   B 16x8  bf16: b0 (k 2tig..+1, n gid) b1 (k 2tig+8..+9, n gid)
//   A 16x8  tf32: a0 (gid, tig) a1 (gid+8, tig) a2 (gid, tig+4) a3 (gid+8, tig+4)
//   B 8x8   tf32: b0 (k tig, n gid) b1 (k tig+4, n gid)
//   C 16x8  f32 : c0 (gid, 2tig) c1 (gid, 2tig+1) c2 (gid+8, 2tig) c3 (gid+8, 2tig+1)
#include <cstdint>

#include <cuda_bf16.h>

namespace kda::dev {

struct frag_c {
  float x[4];
};

__device__ __forceinline__ void mma_bf16_16816(frag_c& d, const std::uint32_t (&a)[4],
                                               const std::uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d.x[0]), "+f"(d.x[1]), "+f"(d.x[2]), "+f"(d.x[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// diag(f) M on the C fragments of one m-tile (rows r0 + gid, r0 + gid + 8) and NT n-tiles: the
// serial passes' decay of the state or its gradient by the rows of exp(gamma_C).
template <int NT>
__device__ __forceinline__ void scale_frag_rows(frag_c (&m)[NT], const float* f, int r0, int lane) {
  const float g0 = f[r0 + (lane >> 2)], g1 = f[r0 + (lane >> 2) + 8];
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
    m[nt].x[0] *= g0;
    m[nt].x[1] *= g0;
    m[nt].x[2] *= g1;
    m[nt].x[3] *= g1;
  }
}

__device__ __forceinline__ void mma_tf32_1688(frag_c& d, const std::uint32_t (&a)[4],
                                              const std::uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d.x[0]), "+f"(d.x[1]), "+f"(d.x[2]), "+f"(d.x[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// fp32 -> tf32 operand, round to nearest (ties away), as cuBLAS does.
__device__ __forceinline__ std::uint32_t to_tf32(float f) {
  std::uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(f));
  return r;
}

// x rounded to TF32 and kept as a float, for a tile stored once and read as an operand many times:
// its operand is then __float_as_uint of the stored value, the same bits as to_tf32 of the
// unrounded one, with no conversion per read (cvt.rna leaves the 13 low bits zero, which
// split_tf32 relies on as well; kda-bench --same-bits checked it, docs/perf-log.md v39).
__device__ __forceinline__ float tf32_rounded(float f) { return __uint_as_float(to_tf32(f)); }

// x = hi + lo in TF32, hi = tf32(x), lo = tf32(x - hi): about 21 significant bits from two mma.
__device__ __forceinline__ void split_tf32(float x, std::uint32_t& hi, std::uint32_t& lo) {
  hi = to_tf32(x);
  lo = to_tf32(x - __uint_as_float(hi));
}

__device__ __forceinline__ std::uint32_t pack_bf16(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<std::uint32_t*>(&v);
}

// x0, x1 as bf16 pairs hi = bf16(x), lo = bf16(x - hi): two mma on hi and lo carry x with 16
// significant bits (u and v_new in the state pass and bwd_grad: docs/backward-design.md).
__device__ __forceinline__ void split_bf16x2(float x0, float x1, std::uint32_t& hi, std::uint32_t& lo) {
  hi = pack_bf16(x0, x1);
  const __nv_bfloat162 h2 = *reinterpret_cast<const __nv_bfloat162*>(&hi);
  lo = pack_bf16(x0 - __low2float(h2), x1 - __high2float(h2));
}

__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// ldmatrix x4 at a shared-state-space address (for callers that form it themselves, e.g. bwd_grad's
// swizzled tiles, an XOR per k step) or at a generic pointer into shared memory.
__device__ __forceinline__ void ldmatrix_x4_at(std::uint32_t (&r)[4], std::uint32_t a) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(a));
}
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], const void* p) { ldmatrix_x4_at(r, smem_addr(p)); }

__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p)));
}

__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(smem)), "l"(gmem));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// A 16x16 bf16 A-fragment from a row-major smem tile (row stride in elements).
__device__ __forceinline__ void load_a_bf16(std::uint32_t (&a)[4], const __nv_bfloat16* tile,
                                            int stride, int lane) {
  ldmatrix_x4(a, tile + (lane & 15) * stride + (lane >> 4) * 8);
}

// A 16x16 bf16 A-fragment of the TRANSPOSE of a row-major smem tile: A[m][k] = tile[k][m].
__device__ __forceinline__ void load_a_bf16_trans(std::uint32_t (&a)[4], const __nv_bfloat16* tile,
                                                  int stride, int lane) {
  // matrices: (k 0-7, m 0-7), (k 0-7, m 8-15), (k 8-15, m 0-7), (k 8-15, m 8-15)
  const int mat = lane >> 3, r = lane & 7;
  ldmatrix_x4_trans(a, tile + ((mat >> 1) * 8 + r) * stride + (mat & 1) * 8);
}

// stmatrix, the inverse of ldmatrix_x4_trans: r[i] is the fragment of matrix i, stored transposed
// at the row addresses (shared-memory address) of lanes 8i..8i+7.
__device__ __forceinline__ void stmatrix_x4_trans_at(const std::uint32_t (&r)[4], std::uint32_t addr) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};\n" ::"r"(addr), "r"(r[0]), "r"(r[1]),
               "r"(r[2]), "r"(r[3])
               : "memory");
}

// Where lane's row of the 8x8 matrices of load_a_bf16_trans lies in a row-major tile (elements,
// row stride `stride`); stmatrix_x4_trans_at at this offset is its inverse, storing an A-fragment
// (A[m][k]) as tile[k][m].
__device__ __forceinline__ int a_trans_offset(int stride, int lane) {
  const int mat = lane >> 3, r = lane & 7;
  return ((mat >> 1) * 8 + r) * stride + (mat & 1) * 8;
}

// Two 16x8 bf16 B-fragments (n-tiles n0 and n0+8) of a [k][n] smem tile, given this lane's row
// address: row k = (lane >> 3 & 1) * 8 + (lane & 7), columns (lane >> 4) * 8 .. +8 (matrices
// (k 0-7, n 0-7), (k 8-15, n 0-7), (k 0-7, n 8-15), (k 8-15, n 8-15)). The tile's layout is the
// caller's: load_b_bf16_x2 (padded rows), load_b_bf16_x2_swz32 (common/tile_maps.cuh).
__device__ __forceinline__ void load_b_bf16_x2_at(std::uint32_t (&b0)[2], std::uint32_t (&b1)[2], const void* row) {
  std::uint32_t t[4];
  ldmatrix_x4_trans(t, row);
  b0[0] = t[0];
  b0[1] = t[1];
  b1[0] = t[2];
  b1[1] = t[3];
}

// The same from a row-major [k][n] smem tile of row stride `stride`.
__device__ __forceinline__ void load_b_bf16_x2(std::uint32_t (&b0)[2], std::uint32_t (&b1)[2],
                                               const __nv_bfloat16* tile, int stride, int lane) {
  const int mat = lane >> 3, r = lane & 7;
  load_b_bf16_x2_at(b0, b1, tile + ((mat & 1) * 8 + r) * stride + (mat >> 1) * 8);
}

// acc[n] += a B for the NT n-tiles of a row-major [k][n] smem tile (row stride `stride`), B's k
// step starting at `row` (its first column included): one A fragment against 8 NT columns.
template <int NT>
__device__ __forceinline__ void mma_a_rows(frag_c (&acc)[NT], const std::uint32_t (&a)[4], const __nv_bfloat16* row,
                                           int stride, int lane) {
  static_assert(NT % 2 == 0, "n-tiles in pairs");
#pragma unroll
  for (int np = 0; np < NT / 2; ++np) {
    std::uint32_t b0[2], b1[2];
    load_b_bf16_x2(b0, b1, row + 16 * np, stride, lane);
    mma_bf16_16816(acc[2 * np], a, b0);
    mma_bf16_16816(acc[2 * np + 1], a, b1);
  }
}

// Two 16x8 bf16 B-fragments (n-tiles n0 and n0+8) from a row-major [n][k] smem tile, i.e. B given
// transposed (B[k][n] = tile[n][k]), as in A B^T products.
// The same given this lane's shared-state-space address: row n = (lane >> 4) * 8 + (lane & 7),
// columns (lane >> 3 & 1) * 8 .. +8 (matrices (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7),
// (n 8-15, k 8-15)); the tile's layout is the caller's (bwd_grad's padded and swizzled tiles).
__device__ __forceinline__ void load_b_bf16_nk_x2_at(std::uint32_t (&b0)[2], std::uint32_t (&b1)[2], std::uint32_t a) {
  std::uint32_t t[4];
  ldmatrix_x4_at(t, a);
  b0[0] = t[0];
  b0[1] = t[1];
  b1[0] = t[2];
  b1[1] = t[3];
}
__device__ __forceinline__ void load_b_bf16_nk_x2(std::uint32_t (&b0)[2], std::uint32_t (&b1)[2],
                                                  const __nv_bfloat16* tile, int stride, int lane) {
  const int mat = lane >> 3, r = lane & 7;
  load_b_bf16_nk_x2_at(b0, b1, smem_addr(tile + ((mat >> 1) * 8 + r) * stride + (mat & 1) * 8));
}

// acc[mt][n] += sum over the KSTEPS k steps and the NA A operands t of A_t(mt, kk) B(kk): the loop
// bwd_dh's state-gradient products and bwd_grad's A B^T products share. Per k step every A
// fragment is loaded once (load_a(a, t, mt, kk)), then per pair of n-tiles the two B fragments
// (load_b(b0, b1, np, kk): n-tiles 2 np, 2 np + 1) serve every m-tile and A; so each element sums
// its products in the order k step, then t (a bf16 hi + lo pair: hi first).
template <int KSTEPS, int MT, int NT, int NA, typename LoadA, typename LoadB>
__device__ __forceinline__ void mma_sum_products(frag_c (&acc)[MT][NT], const LoadA& load_a, const LoadB& load_b) {
  static_assert(NT % 2 == 0, "n-tiles in pairs");
#pragma unroll
  for (int kk = 0; kk < KSTEPS; ++kk) {
    std::uint32_t a[NA][MT][4];
#pragma unroll
    for (int t = 0; t < NA; ++t) {
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) load_a(a[t][mt], t, mt, kk);
    }
#pragma unroll
    for (int np = 0; np < NT / 2; ++np) {
      std::uint32_t b0[2], b1[2];
      load_b(b0, b1, np, kk);
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
        for (int t = 0; t < NA; ++t) {
          mma_bf16_16816(acc[mt][2 * np], a[t][mt], b0);
          mma_bf16_16816(acc[mt][2 * np + 1], a[t][mt], b1);
        }
      }
    }
  }
}

} // namespace kda::dev
