#pragma once
// CUDA-event timing of one op (or kernel stage) of a row. The default method is the seed's: median
// of 15 samples, one sample = event time of 20 back-to-back calls / 20, warm L2, eager launches,
// after 3 warm-up calls. Options (timing_method):
//  - cold_l2: before each call, write twice the L2 size on the same stream (l2_flush.hpp); each
//    call is then timed alone between its own events, so the flush is not timed; a sample is the
//    mean of its `calls` call times;
//  - graph: the sample's `calls` calls (one call with cold_l2) are captured once into a CUDA graph
//    and the sample times replays of it (cuda_graph.hpp);
//  - the SM clock (sm_clock.hpp), when NVML is there, is read while each sample runs and after it;
//    a sample whose lowest reading is below 90 % of the maximum clock counts as throttled, and
//    retake_throttled takes it once more (the retake replaces it).
// Several callables can be timed interleaved (A B A B ...: one sample of each in turn), so that
// clock and thermal drift hit all of them alike (--before).
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/l2_flush.hpp"
#include "gpu/sm_clock.hpp"

namespace kda {

// One call of the timed work on the given stream.
using call_fn = std::function<void(cudaStream_t)>;

struct timing_method {
  int samples = 15;
  int calls = 20; // per sample
  int warmup = 3; // calls before the first sample
  bool cold_l2 = false;
  bool graph = false;
  bool retake_throttled = false;
};

// A sample is throttled when the SM clock fell below this fraction of its maximum.
inline constexpr double k_throttle_fraction = 0.9;

struct sample_set {
  std::vector<double> ms;     // milliseconds per call, one per sample, in the order taken
  std::vector<double> sm_mhz; // per sample, the lowest SM clock read around it; empty without NVML
  int throttled = 0;          // samples still below k_throttle_fraction x max (after retakes)
  int retaken = 0;            // samples retaken because they were throttled
};

// Owns the timing stream, its events and the cold-L2 buffer; each CUDA object must be destroyed
// exactly once, so the engine is non-copyable.
class timing_engine {
public:
  // l2_bytes: the device's L2 size (used with cold_l2). clock: may be null (no NVML).
  timing_engine(const timing_method& method, std::size_t l2_bytes, const sm_clock* clock);
  ~timing_engine();
  timing_engine(const timing_engine&) = delete;
  timing_engine& operator=(const timing_engine&) = delete;

  cudaStream_t stream() const { return m_stream; }
  const timing_method& method() const { return m_method; }

  // `what` names the work in errors (a failed graph capture).
  sample_set time(const call_fn& fn, const std::string& what);
  // One sample of each callable in turn, `samples` rounds; results in the order of `fns`.
  std::vector<sample_set> time_interleaved(const std::vector<call_fn>& fns, const std::vector<std::string>& whats);

private:
  timing_method m_method;
  const sm_clock* m_clock = nullptr;
  cudaStream_t m_stream = nullptr;
  std::unique_ptr<l2_flush> m_flush; // only with cold_l2
};

} // namespace kda
