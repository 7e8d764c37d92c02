#pragma once
// The inputs of one row in the kernels' packed, token-major layout (kda-algorithm.md, Shapes),
// with bf16 tensors held as raw bits. Generated from the counter-based generator or loaded from
// a dump (--inputs).
#include <cstdint>
#include <string>
#include <vector>

#include "core/bf16.hpp"
#include "core/generator.hpp"
#include "core/scenario.hpp"
#include "core/variant.hpp"

namespace kda {

struct problem_dims {
  std::vector<std::int32_t> cu_seqlens; // N + 1 entries
  int heads = 0;
  int k_dim = 128;
  int v_dim = 128;

  std::int64_t tokens() const { return cu_seqlens.empty() ? 0 : cu_seqlens.back(); }
  int sequences() const { return static_cast<int>(cu_seqlens.size()) - 1; }
  std::int64_t seq_len(int s) const { return cu_seqlens[s + 1] - cu_seqlens[s]; }
};

problem_dims dims_of(const scenario& s);

// What decides every generated value (besides the element's index).
struct input_spec {
  std::string scenario_name;
  std::uint64_t seed = 0;
  decay_regime decay = decay_regime::normal;
  l2n_mode l2n = l2n_mode::off; // off: q and k are L2-normalised at generation
};

struct host_inputs {
  problem_dims dims;
  gate_form gate = gate_form::g;
  l2n_mode l2n = l2n_mode::off;
  std::vector<bf16_bits> q, k;    // [T, H, K]
  std::vector<bf16_bits> v;       // [T, H, V]
  std::vector<bf16_bits> beta;    // [T, H]
  std::vector<float> gate_input;  // g or x: [T, H, K] fp32
  std::vector<float> A_log;       // [H]    (raw form input; for the g form, what g was made from)
  std::vector<float> dt_bias;     // [H, K] (likewise)
  std::vector<bf16_bits> d_o;     // [T, H, V] the output gradient
};

// Generates a whole row on the host with `threads` threads (0: all hardware threads).
host_inputs generate_inputs(const problem_dims& dims, gate_form gate, const input_spec& spec,
                            int threads = 0);

// Element generators shared by generate_inputs and the reference's per-head regeneration.
// Each returns the exact stored value (bf16-rounded for bf16 tensors) as float.
namespace element {
// One token's q or k row of length K (normalised first when spec.l2n == off).
void qk_row(const input_spec& spec, gen::tensor_id t, const problem_dims& d, std::int64_t token,
            int head, float* out);
float v(const input_spec& spec, const problem_dims& d, std::int64_t token, int head, int col);
float d_o(const input_spec& spec, const problem_dims& d, std::int64_t token, int head, int col);
float beta(const input_spec& spec, const problem_dims& d, std::int64_t token, int head);
float x(const input_spec& spec, const problem_dims& d, std::int64_t token, int head, int col);
float A_log(const input_spec& spec, int head);
float dt_bias(const input_spec& spec, const problem_dims& d, int head, int col);
// g form gate input: g = fp32(-exp(A_log) softplus(x + dt_bias)).
float g(const input_spec& spec, const problem_dims& d, std::int64_t token, int head, int col);
} // namespace element

} // namespace kda
