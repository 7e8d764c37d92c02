#pragma once
// Cold-L2 timing (--cold-l2): a buffer of twice the device's L2 size, written on the timing stream
// before each timed call so that the call finds none of its data in L2.
#include <cstddef>

#include "gpu/device_buffer.hpp"

namespace kda {

class l2_flush {
public:
  explicit l2_flush(std::size_t l2_bytes);

  // Enqueues the flush on `stream`; the caller records its start event after it.
  void flush(cudaStream_t stream);
  std::size_t bytes() const { return m_buffer.bytes(); }

private:
  device_buffer m_buffer; // owns the allocation; l2_flush is move-only through it
  int m_value = 0;        // alternated, so no flush writes what the buffer already holds
};

} // namespace kda
