// wgmma probe (session 13; docs/perf-log.md "v20, v20b"): before the serial passes' chain moves to
// wgmma, check on the GPU (1) the shared-memory descriptors for B in the copy engine's 128-byte
// swizzled [64][64] boxes (common/box_layout.cuh), K-major (w^T in v_new^T = h^T w^T) and
// MN-major (kg in h^T += v_new^T kg), and (2) whether wgmma with A in registers gives the same
// bits as the mma.sync m16n8k16 products the kernels use now, in the same k order.
// Not part of the build: nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -Ikernels \
//   -o wgmma_probe docs/analysis/wgmma_probe.cu   (then ./wgmma_probe on an sm_90 device)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "common/box_layout.cuh"
#include "common/mma.cuh"
#include "common/tile_maps.cuh"
#include "common/wgmma.cuh"

using namespace kda::dev;
using bf16 = __nv_bfloat16;

// A-fragment (mma.sync / wgmma register layout) of rows [r0, +16), k [k0, +16) of a row-major
// global matrix with `ld` columns.
__device__ __forceinline__ void a_frag(std::uint32_t (&a)[4], const bf16* M, int ld, int r0, int k0, int lane) {
  const int gid = lane >> 2, tig = lane & 3;
  const auto at = [&](int r, int k) { return *reinterpret_cast<const std::uint32_t*>(M + r * ld + k); };
  a[0] = at(r0 + gid, k0 + 2 * tig);
  a[1] = at(r0 + gid + 8, k0 + 2 * tig);
  a[2] = at(r0 + gid, k0 + 8 + 2 * tig);
  a[3] = at(r0 + gid + 8, k0 + 8 + 2 * tig);
}

template <int N>
__device__ void store_c(float* D, const float (&d)[N / 2], int r0, int lane) {
  const int gid = lane >> 2, tig = lane & 3;
  for (int j = 0; j < N / 8; ++j)
    for (int e = 0; e < 4; ++e) D[(r0 + gid + 8 * (e >> 1)) * N + 8 * j + 2 * tig + (e & 1)] = d[4 * j + e];
}

template <int N>
__device__ void store_frags(float* D, const frag_c (&r)[N / 8], int r0, int lane) {
  float d[N / 2];
  for (int j = 0; j < N / 8; ++j)
    for (int e = 0; e < 4; ++e) d[4 * j + e] = r[j].x[e];
  store_c<N>(D, d, r0, lane);
}

// Test 1: D1 [64][64] = A [64][128] W^T (W [64 tokens][128], K-major B). Test 2: D2 [64][128] =
// V [64][64] KG (KG [64 tokens][128], MN-major B, transposed), with the descriptor's two byte
// offsets as (lbo, sbo) = (8192, 1024) and swapped.
__global__ void probe(const bf16* A, const bf16* W, const bf16* V, const bf16* KG, float* d1w, float* d1m, float* d2w,
                      float* d2ws, float* d2m) {
  __shared__ __align__(1024) unsigned char sW[2 * k_box_bytes], sKG[2 * k_box_bytes];
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  for (int i = tid; i < 64 * 128; i += 128) {
    *reinterpret_cast<bf16*>(sW + swz_offset(i / 128, i % 128)) = W[i];
    *reinterpret_cast<bf16*>(sKG + swz_offset(i / 128, i % 128)) = KG[i];
  }
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); // generic stores -> wgmma's reads
  __syncthreads();
  const std::uint32_t aW = smem_addr(sW), aKG = smem_addr(sKG);

  { // test 1, wgmma
    std::uint32_t a[8][4];
    for (int kk = 0; kk < 8; ++kk) a_frag(a[kk], A, 128, 16 * warp, 16 * kk, lane);
    float d[32];
    for (float& x : d) x = 0.f;
    keep(a);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 8; ++kk) wgmma_m64n64k16<0>(d, a[kk], desc_sw128(aW + (kk >> 2) * 8192 + (kk & 3) * 32, 16, 1024), kk > 0);
    wgmma_commit();
    wgmma_wait<0>();
    keep(d);
    keep(a);
    store_c<64>(d1w, d, 16 * warp, lane);
  }
  { // test 1, mma.sync in the same k order (the kernels' product loop, common/mma.cuh)
    frag_c r[1][8] = {};
    mma_sum_products<8, 1, 8, 1>(
        r, [&](std::uint32_t (&a)[4], int, int, int kk) { a_frag(a, A, 128, 16 * warp, 16 * kk, lane); },
        [&](std::uint32_t (&b0)[2], std::uint32_t (&b1)[2], int np, int kk) {
          std::uint32_t b[4];
          load_a_bf16_swz(b, reinterpret_cast<const bf16*>(sW), 16 * np, 16 * kk, lane);
          b0[0] = b[0], b0[1] = b[2], b1[0] = b[1], b1[1] = b[3];
        });
    store_frags<64>(d1m, r[0], 16 * warp, lane);
  }
  for (int variant = 0; variant < 2; ++variant) { // test 2, wgmma
    std::uint32_t a[4][4];
    for (int kk = 0; kk < 4; ++kk) a_frag(a[kk], V, 64, 16 * warp, 16 * kk, lane);
    float d[64];
    for (float& x : d) x = 0.f;
    keep(a);
    wgmma_fence();
    const std::uint32_t lbo = variant == 0 ? 8192 : 1024, sbo = variant == 0 ? 1024 : 8192;
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) wgmma_m64n128k16<1>(d, a[kk], desc_sw128(aKG + kk * 2048, lbo, sbo), kk > 0);
    wgmma_commit();
    wgmma_wait<0>();
    keep(d);
    keep(a);
    store_c<128>(variant == 0 ? d2w : d2ws, d, 16 * warp, lane);
  }
  { // test 2, mma.sync
    frag_c r[1][16] = {};
    mma_sum_products<4, 1, 16, 1>(
        r, [&](std::uint32_t (&a)[4], int, int, int kk) { a_frag(a, V, 64, 16 * warp, 16 * kk, lane); },
        [&](std::uint32_t (&b0)[2], std::uint32_t (&b1)[2], int np, int kk) {
          std::uint32_t b[4];
          load_a_bf16_trans_swz(b, reinterpret_cast<const bf16*>(sKG), 16 * kk, 16 * np, lane);
          b0[0] = b[0], b0[1] = b[2], b1[0] = b[1], b1[1] = b[3];
        });
    store_frags<128>(d2m, r[0], 16 * warp, lane);
  }
}

namespace {
std::vector<bf16> random_bf16(std::size_t n, std::mt19937& g) {
  std::normal_distribution<float> nd(0.f, 1.f);
  std::vector<bf16> v(n);
  for (auto& x : v) x = __float2bfloat16(nd(g));
  return v;
}
template <typename T>
T* upload(const std::vector<T>& v) {
  T* p = nullptr;
  cudaMalloc(&p, v.size() * sizeof(T));
  cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice);
  return p;
}
std::vector<float> download(const float* p, std::size_t n) {
  std::vector<float> v(n);
  cudaMemcpy(v.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost);
  return v;
}
// D = X Y^T (yt: Y stored [n][k]) or X Y (y stored [k][n]) in FP64.
std::vector<double> ref(const std::vector<bf16>& X, const std::vector<bf16>& Y, int m, int n, int k, bool y_nk) {
  std::vector<double> D(static_cast<std::size_t>(m) * n, 0.0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int t = 0; t < k; ++t)
        s += static_cast<double>(__bfloat162float(X[i * k + t])) *
             __bfloat162float(y_nk ? Y[j * k + t] : Y[t * n + j]);
      D[i * n + j] = s;
    }
  return D;
}
void report(const char* what, const std::vector<float>& got, const std::vector<float>& mma, const std::vector<double>& r) {
  std::size_t diff_bits = 0;
  double num = 0, den = 0, num_m = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &mma[i], 4) != 0) ++diff_bits;
    num += (got[i] - r[i]) * (got[i] - r[i]);
    num_m += (mma[i] - r[i]) * (mma[i] - r[i]);
    den += r[i] * r[i];
  }
  std::printf("%-44s rel_l2 vs FP64 %.3e (mma.sync %.3e); elements with other bits than mma.sync: %zu of %zu\n", what,
              std::sqrt(num / den), std::sqrt(num_m / den), diff_bits, got.size());
}
} // namespace

int main() {
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess || prop.major < 9) {
    std::printf("wgmma_probe: needs an sm_90 device\n");
    return 0;
  }
  std::mt19937 g(13);
  const auto A = random_bf16(64 * 128, g), W = random_bf16(64 * 128, g), V = random_bf16(64 * 64, g),
             KG = random_bf16(64 * 128, g);
  float* out = nullptr;
  cudaMalloc(&out, (2 * 64 * 64 + 3 * 64 * 128) * sizeof(float));
  float *d1w = out, *d1m = d1w + 64 * 64, *d2w = d1m + 64 * 64, *d2ws = d2w + 64 * 128, *d2m = d2ws + 64 * 128;
  probe<<<1, 128>>>(upload(A), upload(W), upload(V), upload(KG), d1w, d1m, d2w, d2ws, d2m);
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("wgmma_probe: %s\n", cudaGetErrorString(e));
    return 1;
  }
  const auto r1 = ref(A, W, 64, 64, 128, true), r2 = ref(V, KG, 64, 128, 64, false);
  report("K-major B (A W^T, m64n64k16 x 8)", download(d1w, 64 * 64), download(d1m, 64 * 64), r1);
  report("MN-major B (V KG, m64n128k16 x 4), lbo 8192", download(d2w, 64 * 128), download(d2m, 64 * 128), r2);
  report("MN-major B (V KG, m64n128k16 x 4), lbo 1024", download(d2ws, 64 * 128), download(d2m, 64 * 128), r2);
  return 0;
}
