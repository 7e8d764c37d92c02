#pragma once
// The device's practical ceilings, measured at run time for --roofline (docs/roofline.md): the
// device-to-device copy bandwidth and the cuBLAS bf16 GEMM rate. They stand for "what this GPU
// reaches at best" where datasheet peaks are never reached.
#include <cstddef>

#include "gpu/cuda_check.hpp"

namespace kda {

struct device_ceilings {
  double copy_bytes_per_s = 0; // cudaMemcpyAsync device to device: (bytes read + written) / time
  double gemm_flops_per_s = 0; // cublasGemmEx bf16 x bf16 -> bf16, FP32 accumulation: 2 n^3 / time
  std::size_t copy_bytes = 0;  // size of the copy (2 GiB, less if the GPU has less free memory)
  int gemm_size = 0;           // n of the n x n x n GEMM
};

// Best of a few repetitions of each, on `stream`. Allocates about 2 x copy_bytes + 3 n^2 x 2 bytes
// and frees it again. Throws cuda_error, or std::runtime_error for a cuBLAS failure.
device_ceilings measure_ceilings(cudaStream_t stream, std::size_t copy_bytes = std::size_t{2} << 30,
                                 int gemm_size = 8192);

} // namespace kda
