#pragma once
// Every CUDA runtime call of the harness goes through KDA_CUDA_CHECK: a failure becomes a
// kda::cuda_error naming the call, file and line.
#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>

namespace kda {

struct cuda_error : std::runtime_error {
  cudaError_t code;
  cuda_error(cudaError_t c, const std::string& what) : std::runtime_error(what), code(c) {}
};

[[noreturn]] void throw_cuda_error(cudaError_t e, const char* call, const char* file, int line);

} // namespace kda

#define KDA_CUDA_CHECK(call)                                                                       \
  do {                                                                                             \
    const cudaError_t kda_cuda_check_e = (call);                                                   \
    if (kda_cuda_check_e != cudaSuccess) ::kda::throw_cuda_error(kda_cuda_check_e, #call, __FILE__, __LINE__); \
  } while (0)
