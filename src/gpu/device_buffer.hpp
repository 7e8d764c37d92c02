#pragma once
// device_buffer: owns one cudaMalloc allocation that must be freed exactly once, hence move-only.
#include <cstddef>
#include <cstring>
#include <vector>

#include "gpu/cuda_check.hpp"

namespace kda {

class device_buffer {
public:
  device_buffer() = default;
  explicit device_buffer(std::size_t bytes);
  ~device_buffer();
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& o) noexcept;
  device_buffer& operator=(device_buffer&& o) noexcept;

  void* get() const { return m_ptr; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(m_ptr);
  }
  std::size_t bytes() const { return m_bytes; }

  void upload(const void* src, std::size_t bytes);
  void download(void* dst, std::size_t bytes) const;
  // Fills every byte with `byte` (0xff poisons bf16 and fp32 alike with NaN).
  void fill_bytes(int byte);

  template <typename T>
  static device_buffer from(const std::vector<T>& v) {
    device_buffer b(v.size() * sizeof(T));
    b.upload(v.data(), v.size() * sizeof(T));
    return b;
  }
  template <typename T>
  std::vector<T> to_vector(std::size_t count) const {
    std::vector<T> v(count);
    download(v.data(), count * sizeof(T));
    return v;
  }

private:
  void* m_ptr = nullptr;
  std::size_t m_bytes = 0;
};

} // namespace kda
