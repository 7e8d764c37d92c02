#pragma once
// CUDA-event timing of one op of a row. The default method is the seed's: median of 15 samples,
// one sample = event time of 20 back-to-back calls / 20, warm L2, eager launches, after warm-up.
#include <functional>
#include <vector>

#include "gpu/cuda_check.hpp"

namespace kda {

struct timing_method {
  int samples = 15;
  int calls = 20;  // per sample
  int warmup = 3;  // calls before the first sample
};

// An owned cudaStream_t / cudaEvent_t pair set; non-copyable because each must be destroyed once.
class timing_stream {
public:
  timing_stream();
  ~timing_stream();
  timing_stream(const timing_stream&) = delete;
  timing_stream& operator=(const timing_stream&) = delete;
  cudaStream_t get() const { return m_stream; }

  // Times `calls` back-to-back calls of fn(stream); returns milliseconds per call.
  double time_calls(const std::function<void(cudaStream_t)>& fn, int calls);

private:
  cudaStream_t m_stream = nullptr;
  cudaEvent_t m_start = nullptr, m_stop = nullptr;
};

// Every sample in milliseconds per call.
std::vector<double> time_samples(timing_stream& ts, const std::function<void(cudaStream_t)>& fn,
                                 const timing_method& m);

} // namespace kda
