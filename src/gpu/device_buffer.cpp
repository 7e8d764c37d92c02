#include "gpu/device_buffer.hpp"

#include <utility>

namespace kda {

void throw_cuda_error(cudaError_t e, const char* call, const char* file, int line) {
  std::string msg = std::string(call) + " failed: " + cudaGetErrorString(e) + " (" + file + ":" +
                    std::to_string(line) + ")";
  if (e == cudaErrorMemoryAllocation) msg += "; the GPU is out of memory for this row";
  throw cuda_error(e, msg);
}

device_buffer::device_buffer(std::size_t bytes) : m_bytes(bytes) {
  KDA_CUDA_CHECK(cudaMalloc(&m_ptr, bytes ? bytes : 1));
}

device_buffer::~device_buffer() {
  if (m_ptr) cudaFree(m_ptr);
}

device_buffer::device_buffer(device_buffer&& o) noexcept
    : m_ptr(std::exchange(o.m_ptr, nullptr)), m_bytes(std::exchange(o.m_bytes, 0)) {}

device_buffer& device_buffer::operator=(device_buffer&& o) noexcept {
  if (this != &o) {
    if (m_ptr) cudaFree(m_ptr);
    m_ptr = std::exchange(o.m_ptr, nullptr);
    m_bytes = std::exchange(o.m_bytes, 0);
  }
  return *this;
}

void device_buffer::upload(const void* src, std::size_t bytes) {
  KDA_CUDA_CHECK(cudaMemcpy(m_ptr, src, bytes, cudaMemcpyHostToDevice));
}

void device_buffer::download(void* dst, std::size_t bytes) const {
  KDA_CUDA_CHECK(cudaMemcpy(dst, m_ptr, bytes, cudaMemcpyDeviceToHost));
}

void device_buffer::fill_bytes(int byte) { KDA_CUDA_CHECK(cudaMemset(m_ptr, byte, m_bytes)); }

} // namespace kda
