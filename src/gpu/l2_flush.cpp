#include "gpu/l2_flush.hpp"

#include <algorithm>

namespace kda {

// 2x L2: L2 lines are not evicted in strict LRU order, so writing exactly its size can leave some
// of the previous data resident. At least 1 MiB if the device reports no L2 size.
l2_flush::l2_flush(std::size_t l2_bytes) : m_buffer(std::max<std::size_t>(2 * l2_bytes, 1u << 20)) {}

void l2_flush::flush(cudaStream_t stream) {
  m_value ^= 1;
  KDA_CUDA_CHECK(cudaMemsetAsync(m_buffer.get(), m_value, m_buffer.bytes(), stream));
}

} // namespace kda
