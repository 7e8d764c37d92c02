#include "gpu/cuda_graph.hpp"

#include <stdexcept>
#include <utility>

namespace kda {
namespace {

[[noreturn]] void capture_failed(const std::string& what, const std::string& why) {
  (void)cudaGetLastError(); // clear the error a failed capture leaves, so later calls do not see it
  throw std::runtime_error("--graph: capturing " + what + " into a CUDA graph failed: " + why +
                           ". Time it without --graph.");
}

} // namespace

cuda_graph cuda_graph::capture(cudaStream_t stream, const std::function<void()>& enqueue, const std::string& what) {
  KDA_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  std::string error;
  try {
    enqueue();
  } catch (const std::exception& e) {
    error = e.what();
  }
  cudaGraph_t graph = nullptr;
  // Always end the capture, also after a failure, so the stream can be used again.
  const cudaError_t end = cudaStreamEndCapture(stream, &graph);
  if (!error.empty() || end != cudaSuccess) {
    if (graph) cudaGraphDestroy(graph);
    capture_failed(what, error.empty() ? cudaGetErrorString(end) : error);
  }
  cudaGraphExec_t exec = nullptr;
  const cudaError_t inst = cudaGraphInstantiate(&exec, graph, 0);
  if (inst != cudaSuccess) {
    cudaGraphDestroy(graph);
    capture_failed(what, std::string("cudaGraphInstantiate: ") + cudaGetErrorString(inst));
  }
  return cuda_graph(graph, exec);
}

cuda_graph::cuda_graph(cuda_graph&& o) noexcept
    : m_graph(std::exchange(o.m_graph, nullptr)), m_exec(std::exchange(o.m_exec, nullptr)) {}

cuda_graph& cuda_graph::operator=(cuda_graph&& o) noexcept {
  if (this != &o) {
    release();
    m_graph = std::exchange(o.m_graph, nullptr);
    m_exec = std::exchange(o.m_exec, nullptr);
  }
  return *this;
}

cuda_graph::~cuda_graph() { release(); }

void cuda_graph::release() {
  if (m_exec) cudaGraphExecDestroy(m_exec);
  if (m_graph) cudaGraphDestroy(m_graph);
  m_exec = nullptr;
  m_graph = nullptr;
}

void cuda_graph::launch(cudaStream_t stream) const { KDA_CUDA_CHECK(cudaGraphLaunch(m_exec, stream)); }

} // namespace kda
