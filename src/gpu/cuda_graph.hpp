#pragma once
// --graph: a sequence of launches captured once from a stream into a CUDA graph, then replayed.
#include <functional>
#include <string>

#include "gpu/cuda_check.hpp"

namespace kda {

// Owns a cudaGraph_t and its cudaGraphExec_t, each destroyed exactly once: move-only.
class cuda_graph {
public:
  // Captures what `enqueue` launches on `stream` (thread-local capture mode: a CUDA call that is
  // illegal during capture, such as cudaMalloc, fails the capture). Throws std::runtime_error
  // naming `what` and the reason when the capture or the instantiation fails; the stream is left
  // usable.
  static cuda_graph capture(cudaStream_t stream, const std::function<void()>& enqueue, const std::string& what);

  cuda_graph(cuda_graph&& o) noexcept;
  cuda_graph& operator=(cuda_graph&& o) noexcept;
  cuda_graph(const cuda_graph&) = delete;
  cuda_graph& operator=(const cuda_graph&) = delete;
  ~cuda_graph();

  void launch(cudaStream_t stream) const;

private:
  cuda_graph(cudaGraph_t graph, cudaGraphExec_t exec) : m_graph(graph), m_exec(exec) {}
  void release();

  cudaGraph_t m_graph = nullptr;
  cudaGraphExec_t m_exec = nullptr;
};

} // namespace kda
