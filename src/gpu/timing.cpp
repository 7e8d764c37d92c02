#include "gpu/timing.hpp"

namespace kda {

timing_stream::timing_stream() {
  KDA_CUDA_CHECK(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking));
  KDA_CUDA_CHECK(cudaEventCreate(&m_start));
  KDA_CUDA_CHECK(cudaEventCreate(&m_stop));
}

timing_stream::~timing_stream() {
  if (m_start) cudaEventDestroy(m_start);
  if (m_stop) cudaEventDestroy(m_stop);
  if (m_stream) cudaStreamDestroy(m_stream);
}

double timing_stream::time_calls(const std::function<void(cudaStream_t)>& fn, int calls) {
  KDA_CUDA_CHECK(cudaEventRecord(m_start, m_stream));
  for (int i = 0; i < calls; ++i) fn(m_stream);
  KDA_CUDA_CHECK(cudaEventRecord(m_stop, m_stream));
  KDA_CUDA_CHECK(cudaEventSynchronize(m_stop));
  float ms = 0.f;
  KDA_CUDA_CHECK(cudaEventElapsedTime(&ms, m_start, m_stop));
  return static_cast<double>(ms) / calls;
}

std::vector<double> time_samples(timing_stream& ts, const std::function<void(cudaStream_t)>& fn,
                                 const timing_method& m) {
  for (int i = 0; i < m.warmup; ++i) fn(ts.get());
  KDA_CUDA_CHECK(cudaStreamSynchronize(ts.get()));
  std::vector<double> samples;
  samples.reserve(m.samples);
  for (int s = 0; s < m.samples; ++s) samples.push_back(ts.time_calls(fn, m.calls));
  return samples;
}

} // namespace kda
