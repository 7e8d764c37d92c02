// Head problems from packed host inputs, or regenerated element by element.
#include <stdexcept>
#include <string>
#include <vector>

#include "kda_reference_inputs.hpp"

namespace kda::ref {
namespace {

void check_pair(const problem_dims& d, int seq, int head) {
  if (seq < 0 || seq >= d.sequences() || head < 0 || head >= d.heads) {
    throw std::invalid_argument("kda::ref: no (sequence " + std::to_string(seq) + ", head " +
                                std::to_string(head) + ") in a row of " +
                                std::to_string(d.sequences()) + " sequences and " +
                                std::to_string(d.heads) + " heads");
  }
}

// Shapes every tensor of the pair's problem; the values come after.
head_problem empty_problem(const problem_dims& d, gate_form gate, l2n_mode l2n, int seq) {
  const Eigen::Index T = d.seq_len(seq), K = d.k_dim, V = d.v_dim;
  head_problem p;
  p.gate = gate;
  p.l2n = l2n;
  p.q.resize(T, K);
  p.k.resize(T, K);
  p.v.resize(T, V);
  p.beta.resize(T);
  p.gate_in.resize(T, K);
  p.dt_bias.resize(K);
  p.d_o.resize(T, V);
  return p;
}

} // namespace

head_problem make_head_problem(const host_inputs& in, int seq, int head) {
  const problem_dims& d = in.dims;
  check_pair(d, seq, head);
  head_problem p = empty_problem(d, in.gate, in.l2n, seq);
  const std::size_t H = d.heads, K = d.k_dim, V = d.v_dim;
  for (Eigen::Index t = 0; t < p.q.rows(); ++t) {
    const std::size_t th = static_cast<std::size_t>(d.cu_seqlens[seq] + t) * H + head;
    for (std::size_t c = 0; c < K; ++c) {
      p.q(t, c) = bf16_to_float(in.q[th * K + c]);
      p.k(t, c) = bf16_to_float(in.k[th * K + c]);
      p.gate_in(t, c) = in.gate_input[th * K + c];
    }
    for (std::size_t c = 0; c < V; ++c) {
      p.v(t, c) = bf16_to_float(in.v[th * V + c]);
      p.d_o(t, c) = bf16_to_float(in.d_o[th * V + c]);
    }
    p.beta(t) = bf16_to_float(in.beta[th]);
  }
  p.A_log = in.A_log[head];
  for (std::size_t c = 0; c < K; ++c) p.dt_bias(c) = in.dt_bias[head * K + c];
  return p;
}

head_problem generate_head_problem(const problem_dims& d, gate_form gate, const input_spec& spec,
                                   int seq, int head) {
  check_pair(d, seq, head);
  head_problem p = empty_problem(d, gate, spec.l2n, seq);
  const int K = d.k_dim, V = d.v_dim;
  // A_log and dt_bias once per head: element::g would regenerate them for every element.
  const float A_log = element::A_log(spec, head);
  std::vector<float> dt_bias(K), row(K);
  for (int c = 0; c < K; ++c) dt_bias[c] = element::dt_bias(spec, d, head, c);

  for (Eigen::Index t = 0; t < p.q.rows(); ++t) {
    const std::int64_t token = d.cu_seqlens[seq] + t;
    element::qk_row(spec, gen::tensor_id::q, d, token, head, row.data());
    for (int c = 0; c < K; ++c) p.q(t, c) = row[c];
    element::qk_row(spec, gen::tensor_id::k, d, token, head, row.data());
    for (int c = 0; c < K; ++c) p.k(t, c) = row[c];
    for (int c = 0; c < V; ++c) {
      p.v(t, c) = element::v(spec, d, token, head, c);
      p.d_o(t, c) = element::d_o(spec, d, token, head, c);
    }
    p.beta(t) = element::beta(spec, d, token, head);
    for (int c = 0; c < K; ++c) {
      const float x = element::x(spec, d, token, head, c);
      // The same function element::g and generate_inputs apply, with the per-head values cached.
      p.gate_in(t, c) = gate == gate_form::raw ? x : gen::g_value(x, A_log, dt_bias[c]);
    }
  }
  p.A_log = A_log;
  for (int c = 0; c < K; ++c) p.dt_bias(c) = dt_bias[c];
  return p;
}

} // namespace kda::ref
