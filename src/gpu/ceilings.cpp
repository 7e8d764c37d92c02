#include "gpu/ceilings.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <cublas_v2.h>

#include "core/bf16.hpp"
#include "gpu/device_buffer.hpp"

namespace kda {
namespace {

void check_cublas(cublasStatus_t s, const char* call) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(call) + " failed: " + cublasGetStatusString(s));
  }
}

// Owns a cuBLAS handle, destroyed exactly once: non-copyable.
class cublas_handle {
public:
  explicit cublas_handle(cudaStream_t stream) {
    check_cublas(cublasCreate(&m_handle), "cublasCreate");
    check_cublas(cublasSetStream(m_handle, stream), "cublasSetStream");
  }
  ~cublas_handle() { cublasDestroy(m_handle); }
  cublas_handle(const cublas_handle&) = delete;
  cublas_handle& operator=(const cublas_handle&) = delete;
  cublasHandle_t get() const { return m_handle; }

private:
  cublasHandle_t m_handle = nullptr;
};

// Owns a start/stop event pair, each destroyed exactly once: non-copyable.
class stopwatch {
public:
  explicit stopwatch(cudaStream_t stream) : m_stream(stream) {
    KDA_CUDA_CHECK(cudaEventCreate(&m_start));
    KDA_CUDA_CHECK(cudaEventCreate(&m_stop));
  }
  ~stopwatch() {
    cudaEventDestroy(m_start);
    cudaEventDestroy(m_stop);
  }
  stopwatch(const stopwatch&) = delete;
  stopwatch& operator=(const stopwatch&) = delete;

  // Seconds per repetition of `fn`, best of `samples` samples of `reps` repetitions each, after
  // one untimed repetition.
  template <typename F> double best_seconds(F fn, int samples, int reps) {
    fn();
    double best = 1e30;
    for (int s = 0; s < samples; ++s) {
      KDA_CUDA_CHECK(cudaEventRecord(m_start, m_stream));
      for (int r = 0; r < reps; ++r) fn();
      KDA_CUDA_CHECK(cudaEventRecord(m_stop, m_stream));
      KDA_CUDA_CHECK(cudaEventSynchronize(m_stop));
      float ms = 0.f;
      KDA_CUDA_CHECK(cudaEventElapsedTime(&ms, m_start, m_stop));
      best = std::min(best, static_cast<double>(ms) * 1e-3 / reps);
    }
    return best;
  }

private:
  cudaStream_t m_stream;
  cudaEvent_t m_start = nullptr, m_stop = nullptr;
};

// Random bf16 in [-1, 1): a GEMM on zeros or constants draws less power and runs faster than on
// real data, which would overstate the ceiling.
std::vector<bf16_bits> random_bf16(std::size_t n, std::uint64_t seed) {
  std::vector<bf16_bits> v(n);
  std::uint64_t x = seed;
  for (auto& e : v) {
    x ^= x << 13; // xorshift64
    x ^= x >> 7;
    x ^= x << 17;
    e = float_to_bf16(static_cast<float>(static_cast<double>(x >> 11) * 0x1.0p-52 - 1.0));
  }
  return v;
}

double copy_rate(cudaStream_t stream, std::size_t bytes) {
  device_buffer src(bytes), dst(bytes);
  KDA_CUDA_CHECK(cudaMemsetAsync(src.get(), 1, bytes, stream));
  stopwatch w(stream);
  const double s = w.best_seconds(
      [&] { KDA_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream)); }, 5, 1);
  return 2.0 * static_cast<double>(bytes) / s; // each byte read once and written once
}

double gemm_rate(cudaStream_t stream, int n) {
  const std::size_t elems = static_cast<std::size_t>(n) * n;
  const device_buffer a = device_buffer::from(random_bf16(elems, 0x9e3779b97f4a7c15ull));
  const device_buffer b = device_buffer::from(random_bf16(elems, 0xd1b54a32d192ed03ull));
  device_buffer c(elems * sizeof(bf16_bits));
  cublas_handle h(stream);
  const float alpha = 1.f, beta = 0.f;
  stopwatch w(stream);
  const double s = w.best_seconds(
      [&] {
        check_cublas(cublasGemmEx(h.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a.get(), CUDA_R_16BF, n, b.get(),
                                  CUDA_R_16BF, n, &beta, c.get(), CUDA_R_16BF, n, CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT),
                     "cublasGemmEx");
      },
      5, 3);
  return 2.0 * static_cast<double>(n) * n * n / s;
}

} // namespace

device_ceilings measure_ceilings(cudaStream_t stream, std::size_t copy_bytes, int gemm_size) {
  std::size_t free_bytes = 0, total_bytes = 0;
  KDA_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // Source and destination must fit with room to spare; a smaller copy still streams at full rate
  // as long as it is far larger than L2.
  copy_bytes = std::min(copy_bytes, free_bytes / 4) & ~((std::size_t{1} << 20) - 1);
  device_ceilings c;
  c.copy_bytes = copy_bytes;
  c.gemm_size = gemm_size;
  c.copy_bytes_per_s = copy_rate(stream, copy_bytes);
  c.gemm_flops_per_s = gemm_rate(stream, gemm_size);
  return c;
}

} // namespace kda
