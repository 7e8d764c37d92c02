// run_row: every (sequence, head) pair of a packed row through the reference, on a thread pool.
//
// Determinism: each pair is computed by one thread from its own problem and writes only its own
// slice of the outputs; the only cross-pair values (dA_log, ddt_bias) are per-pair partials summed
// over sequences in ascending order after every pair is done. So no bit depends on the thread
// count, on the scheduling, or on the other sequences of the row.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "kda_reference.hpp"

namespace kda::ref {
namespace {

using strided_rows = Eigen::Map<mat, Eigen::Unaligned, Eigen::OuterStride<>>;

void validate_row(const std::vector<std::int32_t>& cu_seqlens, const std::vector<int>& heads,
                  int k_dim, int v_dim, const row_options& options) {
  if (cu_seqlens.size() < 2 || cu_seqlens.front() != 0) {
    throw std::invalid_argument("kda::ref::run_row: cu_seqlens must be [0, l0, l0+l1, ...] with "
                                "at least one sequence");
  }
  for (std::size_t s = 0; s + 1 < cu_seqlens.size(); ++s) {
    if (cu_seqlens[s + 1] <= cu_seqlens[s]) {
      throw std::invalid_argument("kda::ref::run_row: sequence " + std::to_string(s) +
                                  " has length " +
                                  std::to_string(cu_seqlens[s + 1] - cu_seqlens[s]) +
                                  " (cu_seqlens must increase strictly; lengths >= 1)");
    }
  }
  if (heads.empty()) throw std::invalid_argument("kda::ref::run_row: no heads requested");
  std::vector<int> sorted = heads;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    throw std::invalid_argument("kda::ref::run_row: a head is requested twice");
  }
  if (sorted.front() < 0) {
    throw std::invalid_argument("kda::ref::run_row: negative head " +
                                std::to_string(sorted.front()));
  }
  if (options.head_count > 0 && sorted.back() >= options.head_count) {
    throw std::invalid_argument("kda::ref::run_row: head " + std::to_string(sorted.back()) +
                                " out of range [0, " + std::to_string(options.head_count) + ")");
  }
  if (k_dim < 1 || v_dim < 1) {
    throw std::invalid_argument("kda::ref::run_row: k_dim and v_dim must be >= 1");
  }
  if (options.threads < 0) throw std::invalid_argument("kda::ref::run_row: threads < 0");
}

// The source must hand back the pair's own shape; anything else would write outside its slice.
void check_problem(const head_problem& p, std::int64_t len, int k_dim, int v_dim, int seq,
                   int head) {
  if (p.q.rows() != len || p.q.cols() != k_dim || p.v.cols() != v_dim) {
    throw std::invalid_argument(
        "kda::ref::run_row: source gave sequence " + std::to_string(seq) + " head " +
        std::to_string(head) + " q " + std::to_string(p.q.rows()) + " x " +
        std::to_string(p.q.cols()) + ", v width " + std::to_string(p.v.cols()) + "; expected " +
        std::to_string(len) + " x " + std::to_string(k_dim) + ", " + std::to_string(v_dim));
  }
}

class row_job {
public:
  row_job(const std::vector<std::int32_t>& cu_seqlens, const std::vector<int>& heads, int k_dim,
          int v_dim, const head_source& source, const row_options& options)
      : m_cu(cu_seqlens), m_source(source), m_options(options) {
    m_result.heads = heads;
    m_result.tokens = cu_seqlens.back();
    m_result.k_dim = k_dim;
    m_result.v_dim = v_dim;
    m_result.has_backward = options.backward;
    const std::size_t T = static_cast<std::size_t>(m_result.tokens);
    const std::size_t Hs = heads.size();
    m_result.o.assign(T * Hs * v_dim, 0.0);
    if (options.backward) {
      m_result.dq.assign(T * Hs * k_dim, 0.0);
      m_result.dk.assign(T * Hs * k_dim, 0.0);
      m_result.dgate.assign(T * Hs * k_dim, 0.0);
      m_result.dv.assign(T * Hs * v_dim, 0.0);
      m_result.dbeta.assign(T * Hs, 0.0);
      m_dA_log_part.assign(sequences() * Hs, 0.0);
      m_dA_log_abs_part.assign(sequences() * Hs, 0.0);
      m_ddt_bias_part.assign(sequences() * Hs * k_dim, 0.0);
    }
    // Longest sequences first, so the tail of the schedule is short pairs.
    for (int s = 0; s < sequences(); ++s) {
      for (std::size_t hs = 0; hs < Hs; ++hs) m_pairs.push_back({s, static_cast<int>(hs)});
    }
    std::stable_sort(m_pairs.begin(), m_pairs.end(),
                     [&](const pair& a, const pair& b) { return seq_len(a.seq) > seq_len(b.seq); });
  }

  row_result run() {
    unsigned threads = static_cast<unsigned>(m_options.threads);
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    threads = std::min<unsigned>(threads, static_cast<unsigned>(m_pairs.size()));
    if (threads == 1) {
      work();
    } else {
      std::vector<std::thread> pool;
      for (unsigned i = 0; i < threads; ++i) pool.emplace_back([this] { work(); });
      for (auto& th : pool) th.join();
    }
    if (m_error) std::rethrow_exception(m_error);
    if (m_options.backward) reduce_head_sums();
    return std::move(m_result);
  }

private:
  struct pair {
    int seq;
    int hs; // index into heads
  };

  int sequences() const { return static_cast<int>(m_cu.size()) - 1; }
  std::int64_t seq_len(int s) const { return m_cu[s + 1] - m_cu[s]; }

  void work() {
    for (;;) {
      const std::size_t i = m_next.fetch_add(1);
      if (i >= m_pairs.size() || m_failed.load()) return;
      try {
        run_pair(m_pairs[i]);
        if (m_options.progress) {
          const std::lock_guard<std::mutex> lock(m_mutex);
          m_options.progress(++m_done, static_cast<std::int64_t>(m_pairs.size()));
        }
      } catch (...) {
        // The first error wins; the other workers stop at their next pair.
        const std::lock_guard<std::mutex> lock(m_mutex);
        if (!m_error) m_error = std::current_exception();
        m_failed.store(true);
        return;
      }
    }
  }

  // The pair's rows of a head-compact [T, Hs, width] tensor.
  strided_rows slice(std::vector<double>& tensor, const pair& pr, int width) {
    const std::size_t Hs = m_result.heads.size();
    double* first = tensor.data() + (static_cast<std::size_t>(m_cu[pr.seq]) * Hs + pr.hs) * width;
    return strided_rows(first, seq_len(pr.seq), width,
                        Eigen::OuterStride<>(static_cast<Eigen::Index>(Hs) * width));
  }

  void run_pair(const pair& pr) {
    const int head = m_result.heads[pr.hs];
    const int K = m_result.k_dim, V = m_result.v_dim;
    const head_problem p = m_source(pr.seq, head);
    check_problem(p, seq_len(pr.seq), K, V, pr.seq, head);
    if (!m_options.backward) {
      slice(m_result.o, pr, V) = forward(p).o;
      return;
    }
    const head_results r = forward_backward(p);
    const head_gradients& gr = r.gradients;
    slice(m_result.o, pr, V) = r.outputs.o;
    slice(m_result.dq, pr, K) = gr.dq;
    slice(m_result.dk, pr, K) = gr.dk;
    slice(m_result.dgate, pr, K) = gr.dgate;
    slice(m_result.dv, pr, V) = gr.dv;
    slice(m_result.dbeta, pr, 1) = gr.dbeta;
    const std::size_t part = static_cast<std::size_t>(pr.seq) * m_result.heads.size() + pr.hs;
    m_dA_log_part[part] = gr.dA_log;
    m_dA_log_abs_part[part] = gr.dA_log_abs_terms;
    std::copy(gr.ddt_bias.data(), gr.ddt_bias.data() + K, m_ddt_bias_part.begin() + part * K);
  }

  void reduce_head_sums() {
    const std::size_t Hs = m_result.heads.size(), K = m_result.k_dim;
    m_result.dA_log.assign(Hs, 0.0);
    m_result.dA_log_abs_terms.assign(Hs, 0.0);
    m_result.ddt_bias.assign(Hs * K, 0.0);
    for (int s = 0; s < sequences(); ++s) {
      for (std::size_t hs = 0; hs < Hs; ++hs) {
        const std::size_t part = static_cast<std::size_t>(s) * Hs + hs;
        m_result.dA_log[hs] += m_dA_log_part[part];
        m_result.dA_log_abs_terms[hs] += m_dA_log_abs_part[part];
        for (std::size_t c = 0; c < K; ++c) {
          m_result.ddt_bias[hs * K + c] += m_ddt_bias_part[part * K + c];
        }
      }
    }
  }

  const std::vector<std::int32_t>& m_cu;
  const head_source& m_source;
  const row_options& m_options;
  row_result m_result;
  std::vector<pair> m_pairs;
  std::vector<double> m_dA_log_part;   // [sequences, Hs]
  std::vector<double> m_dA_log_abs_part; // [sequences, Hs]
  std::vector<double> m_ddt_bias_part; // [sequences, Hs, K]
  std::atomic<std::size_t> m_next{0};
  std::atomic<bool> m_failed{false};
  std::mutex m_mutex; // serialises progress calls and the first error
  std::int64_t m_done = 0;
  std::exception_ptr m_error;
};

} // namespace

row_result run_row(const std::vector<std::int32_t>& cu_seqlens, const std::vector<int>& heads,
                   int k_dim, int v_dim, const head_source& source, const row_options& options) {
  validate_row(cu_seqlens, heads, k_dim, v_dim, options);
  return row_job(cu_seqlens, heads, k_dim, v_dim, source, options).run();
}

} // namespace kda::ref
