#include "core/inputs.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

namespace kda {
namespace {

gen::stream stream_of(const input_spec& spec, gen::tensor_id t) {
  return gen::make_stream(spec.seed, gen::name_hash(spec.scenario_name.c_str()), t);
}

std::uint64_t flat(const problem_dims& d, std::int64_t token, int head, int width, int col) {
  return (static_cast<std::uint64_t>(token) * d.heads + head) * width + col;
}

// Runs body(token_begin, token_end) over [0, tokens) split across threads.
template <typename F>
void parallel_tokens(std::int64_t tokens, int threads, F body) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::int64_t n = std::max<std::int64_t>(1, std::min<std::int64_t>(threads, tokens / 256 + 1));
  std::vector<std::thread> pool;
  for (std::int64_t i = 0; i < n; ++i) {
    pool.emplace_back(body, tokens * i / n, tokens * (i + 1) / n);
  }
  for (auto& th : pool) th.join();
}

} // namespace

problem_dims dims_of(const scenario& s) {
  return problem_dims{s.cu_seqlens(), s.heads, s.k_dim, s.v_dim};
}

namespace element {

void qk_row(const input_spec& spec, gen::tensor_id t, const problem_dims& d, std::int64_t token,
            int head, float* out) {
  const auto s = stream_of(spec, t);
  const int K = d.k_dim;
  thread_local std::vector<double> raw;
  raw.resize(K);
  double ss = 0.0;
  for (int c = 0; c < K; ++c) {
    raw[c] = gen::normal(s, flat(d, token, head, K, c));
    ss = pmath::fma_(raw[c], raw[c], ss);
  }
  const double inv = spec.l2n == l2n_mode::off ? 1.0 / std::sqrt(ss) : 1.0;
  for (int c = 0; c < K; ++c) out[c] = round_to_bf16(static_cast<float>(raw[c] * inv));
}

float v(const input_spec& spec, const problem_dims& d, std::int64_t token, int head, int col) {
  return round_to_bf16(static_cast<float>(
      gen::normal(stream_of(spec, gen::tensor_id::v), flat(d, token, head, d.v_dim, col))));
}

float d_o(const input_spec& spec, const problem_dims& d, std::int64_t token, int head, int col) {
  return round_to_bf16(static_cast<float>(
      gen::normal(stream_of(spec, gen::tensor_id::d_o), flat(d, token, head, d.v_dim, col))));
}

float beta(const input_spec& spec, const problem_dims& d, std::int64_t token, int head) {
  return round_to_bf16(static_cast<float>(
      gen::beta_value(stream_of(spec, gen::tensor_id::beta), flat(d, token, head, 1, 0))));
}

float x(const input_spec& spec, const problem_dims& d, std::int64_t token, int head, int col) {
  return static_cast<float>(
      gen::normal(stream_of(spec, gen::tensor_id::x), flat(d, token, head, d.k_dim, col)));
}

float A_log(const input_spec& spec, int head) {
  return static_cast<float>(gen::A_log_value(stream_of(spec, gen::tensor_id::A_log), head));
}

float dt_bias(const input_spec& spec, const problem_dims& d, int head, int col) {
  return static_cast<float>(gen::dt_bias_value(stream_of(spec, gen::tensor_id::dt_bias),
                                               static_cast<std::uint64_t>(head) * d.k_dim + col,
                                               spec.decay == decay_regime::fast));
}

float g(const input_spec& spec, const problem_dims& d, std::int64_t token, int head, int col) {
  return gen::g_value(x(spec, d, token, head, col), A_log(spec, head), dt_bias(spec, d, head, col));
}

} // namespace element

host_inputs generate_inputs(const problem_dims& d, gate_form gate, const input_spec& spec,
                            int threads) {
  host_inputs in;
  in.dims = d;
  in.gate = gate;
  in.l2n = spec.l2n;
  const std::int64_t T = d.tokens();
  const int H = d.heads, K = d.k_dim, V = d.v_dim;
  in.q.resize(T * H * K);
  in.k.resize(T * H * K);
  in.v.resize(T * H * V);
  in.d_o.resize(T * H * V);
  in.beta.resize(T * H);
  in.gate_input.resize(T * H * K);
  in.A_log.resize(H);
  in.dt_bias.resize(static_cast<std::size_t>(H) * K);
  for (int h = 0; h < H; ++h) {
    in.A_log[h] = element::A_log(spec, h);
    for (int c = 0; c < K; ++c) in.dt_bias[h * K + c] = element::dt_bias(spec, d, h, c);
  }
  parallel_tokens(T, threads, [&](std::int64_t t0, std::int64_t t1) {
    std::vector<float> row(K);
    for (std::int64_t t = t0; t < t1; ++t) {
      for (int h = 0; h < H; ++h) {
        const std::size_t qk = (static_cast<std::size_t>(t) * H + h) * K;
        const std::size_t vo = (static_cast<std::size_t>(t) * H + h) * V;
        element::qk_row(spec, gen::tensor_id::q, d, t, h, row.data());
        for (int c = 0; c < K; ++c) in.q[qk + c] = float_to_bf16(row[c]);
        element::qk_row(spec, gen::tensor_id::k, d, t, h, row.data());
        for (int c = 0; c < K; ++c) in.k[qk + c] = float_to_bf16(row[c]);
        for (int c = 0; c < V; ++c) {
          in.v[vo + c] = float_to_bf16(element::v(spec, d, t, h, c));
          in.d_o[vo + c] = float_to_bf16(element::d_o(spec, d, t, h, c));
        }
        in.beta[static_cast<std::size_t>(t) * H + h] = float_to_bf16(element::beta(spec, d, t, h));
        for (int c = 0; c < K; ++c) {
          const float xv = element::x(spec, d, t, h, c);
          in.gate_input[qk + c] =
              gate == gate_form::raw ? xv : gen::g_value(xv, in.A_log[h], in.dt_bias[h * K + c]);
        }
      }
    }
  });
  return in;
}

} // namespace kda
