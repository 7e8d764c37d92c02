#include "gpu/timing.hpp"

#include <algorithm>
#include <optional>

#include "gpu/cuda_graph.hpp"

namespace kda {
namespace {

// Owns `n` (start, stop) CUDA event pairs, each destroyed exactly once: non-copyable.
class event_pairs {
public:
  explicit event_pairs(int n) : m_start(n, nullptr), m_stop(n, nullptr) {
    for (int i = 0; i < n; ++i) {
      KDA_CUDA_CHECK(cudaEventCreate(&m_start[i]));
      KDA_CUDA_CHECK(cudaEventCreate(&m_stop[i]));
    }
  }
  ~event_pairs() {
    for (cudaEvent_t e : m_start) {
      if (e) cudaEventDestroy(e);
    }
    for (cudaEvent_t e : m_stop) {
      if (e) cudaEventDestroy(e);
    }
  }
  event_pairs(const event_pairs&) = delete;
  event_pairs& operator=(const event_pairs&) = delete;

  cudaEvent_t start(int i) const { return m_start[i]; }
  cudaEvent_t stop(int i) const { return m_stop[i]; }
  double elapsed_ms(int i) const {
    float ms = 0.f;
    KDA_CUDA_CHECK(cudaEventElapsedTime(&ms, m_start[i], m_stop[i]));
    return ms;
  }

private:
  std::vector<cudaEvent_t> m_start, m_stop;
};

struct one_sample {
  double ms = 0;             // per call
  std::optional<double> mhz; // lowest SM clock read around the sample
};

// Takes samples of one callable under one method. A sample is `units` timed units: with a warm L2
// one unit of `calls` back-to-back calls; with a cold L2 `calls` units of one call, each after
// a flush that lies outside its events. With --graph a unit is one replay of a graph of its calls.
class sampler {
public:
  sampler(const call_fn& fn, const std::string& what, const timing_method& m, cudaStream_t stream, l2_flush* flush,
          const sm_clock* clock)
      : m_fn(fn), m_what(what), m_stream(stream), m_flush(flush), m_clock(clock), m_units(m.cold_l2 ? m.calls : 1),
        m_calls_per_unit(m.cold_l2 ? 1 : m.calls), m_calls(m.calls), m_use_graph(m.graph), m_events(m_units) {}

  // Warm-up calls, then (with --graph) the capture and one untimed replay: the first launch of a
  // graph uploads it, which a sample must not include.
  void warm_up(int warmup) {
    for (int i = 0; i < warmup; ++i) m_fn(m_stream);
    if (m_use_graph) {
      m_graph.emplace(cuda_graph::capture(
          m_stream,
          [&] {
            for (int c = 0; c < m_calls_per_unit; ++c) m_fn(m_stream);
          },
          m_what));
      m_graph->launch(m_stream);
    }
  }

  one_sample take() {
    one_sample s;
    for (int u = 0; u < m_units; ++u) {
      if (m_flush) m_flush->flush(m_stream);
      KDA_CUDA_CHECK(cudaEventRecord(m_events.start(u), m_stream));
      if (m_graph) {
        m_graph->launch(m_stream);
      } else {
        for (int c = 0; c < m_calls_per_unit; ++c) m_fn(m_stream);
      }
      KDA_CUDA_CHECK(cudaEventRecord(m_events.stop(u), m_stream));
    }
    probe_clock(s); // while the enqueued work runs
    KDA_CUDA_CHECK(cudaEventSynchronize(m_events.stop(m_units - 1)));
    probe_clock(s); // as it ends
    double total = 0;
    for (int u = 0; u < m_units; ++u) total += m_events.elapsed_ms(u);
    s.ms = total / m_calls;
    return s;
  }

private:
  void probe_clock(one_sample& s) const {
    if (!m_clock) return;
    if (const auto mhz = m_clock->current_mhz()) s.mhz = s.mhz ? std::min(*s.mhz, *mhz) : *mhz;
  }

  const call_fn& m_fn;
  const std::string& m_what;
  cudaStream_t m_stream;
  l2_flush* m_flush;
  const sm_clock* m_clock;
  int m_units, m_calls_per_unit, m_calls;
  bool m_use_graph;
  event_pairs m_events;
  std::optional<cuda_graph> m_graph;
};

} // namespace

timing_engine::timing_engine(const timing_method& method, std::size_t l2_bytes, const sm_clock* clock)
    : m_method(method), m_clock(clock) {
  KDA_CUDA_CHECK(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking));
  if (method.cold_l2) m_flush = std::make_unique<l2_flush>(l2_bytes);
}

timing_engine::~timing_engine() {
  m_flush.reset(); // frees its buffer before the stream goes
  if (m_stream) cudaStreamDestroy(m_stream);
}

sample_set timing_engine::time(const call_fn& fn, const std::string& what) {
  return time_interleaved({fn}, {what}).front();
}

std::vector<sample_set> timing_engine::time_interleaved(const std::vector<call_fn>& fns,
                                                        const std::vector<std::string>& whats) {
  std::vector<std::unique_ptr<sampler>> samplers;
  for (std::size_t i = 0; i < fns.size(); ++i) {
    samplers.push_back(std::make_unique<sampler>(fns[i], whats.at(i), m_method, m_stream, m_flush.get(), m_clock));
  }
  for (auto& s : samplers) s->warm_up(m_method.warmup);
  KDA_CUDA_CHECK(cudaStreamSynchronize(m_stream));

  const double max_mhz = m_clock && m_clock->max_mhz() ? *m_clock->max_mhz() : 0.0;
  const auto throttled = [&](const one_sample& s) {
    return max_mhz > 0 && s.mhz && *s.mhz < k_throttle_fraction * max_mhz;
  };
  std::vector<sample_set> out(fns.size());
  for (int round = 0; round < m_method.samples; ++round) {
    for (std::size_t i = 0; i < samplers.size(); ++i) {
      one_sample s = samplers[i]->take();
      if (throttled(s) && m_method.retake_throttled) {
        s = samplers[i]->take();
        ++out[i].retaken;
      }
      if (throttled(s)) ++out[i].throttled;
      out[i].ms.push_back(s.ms);
      if (s.mhz) out[i].sm_mhz.push_back(*s.mhz);
    }
  }
  return out;
}

} // namespace kda
