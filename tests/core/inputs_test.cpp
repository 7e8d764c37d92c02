// Generated rows: reproducible, independent of the thread count, equal element by element to the
// per-element generators, q/k unit rows when l2n = off, the g form computed from x, A_log, dt_bias,
// and every bf16 tensor holding exact bf16 values.
#include <cmath>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "core/inputs.hpp"

namespace kda {
namespace {

// 1100 tokens: enough for generate_inputs to split the tokens over 4 threads (256 per thread).
const problem_dims k_dims{{0, 500, 1037, 1100}, 2, 128, 64};

template <typename T> bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

void expect_same_bits(const host_inputs& a, const host_inputs& b) {
  EXPECT_TRUE(same_bits(a.q, b.q));
  EXPECT_TRUE(same_bits(a.k, b.k));
  EXPECT_TRUE(same_bits(a.v, b.v));
  EXPECT_TRUE(same_bits(a.beta, b.beta));
  EXPECT_TRUE(same_bits(a.gate_input, b.gate_input));
  EXPECT_TRUE(same_bits(a.A_log, b.A_log));
  EXPECT_TRUE(same_bits(a.dt_bias, b.dt_bias));
  EXPECT_TRUE(same_bits(a.d_o, b.d_o));
}

// Fraction of elements that differ between two generated tensors of equal size.
template <typename T> double differing(const std::vector<T>& a, const std::vector<T>& b) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) n += a[i] != b[i];
  return static_cast<double>(n) / static_cast<double>(a.size());
}

double row_norm(const std::vector<bf16_bits>& t, std::size_t row, int width) {
  double ss = 0;
  for (int c = 0; c < width; ++c) {
    const double x = bf16_to_float(t[row * width + c]);
    ss += x * x;
  }
  return std::sqrt(ss);
}

TEST(core_inputs, dims_of_a_scenario) {
  scenario s;
  s.name = "s";
  s.seq_lens = {4, 9, 1};
  s.heads = 3;
  s.k_dim = 64;
  s.v_dim = 32;
  const problem_dims d = dims_of(s);
  EXPECT_EQ(d.cu_seqlens, (std::vector<std::int32_t>{0, 4, 13, 14}));
  EXPECT_EQ(d.heads, 3);
  EXPECT_EQ(d.k_dim, 64);
  EXPECT_EQ(d.v_dim, 32);
  EXPECT_EQ(d.tokens(), 14);
  EXPECT_EQ(d.sequences(), 3);
  EXPECT_EQ(d.seq_len(1), 9);
}

TEST(core_inputs, shapes) {
  const host_inputs in = generate_inputs(k_dims, gate_form::raw, {"shapes", 1}, 2);
  const std::size_t T = 1100, H = 2, K = 128, V = 64;
  EXPECT_EQ(in.q.size(), T * H * K);
  EXPECT_EQ(in.k.size(), T * H * K);
  EXPECT_EQ(in.v.size(), T * H * V);
  EXPECT_EQ(in.d_o.size(), T * H * V);
  EXPECT_EQ(in.beta.size(), T * H);
  EXPECT_EQ(in.gate_input.size(), T * H * K);
  EXPECT_EQ(in.A_log.size(), H);
  EXPECT_EQ(in.dt_bias.size(), H * K);
  EXPECT_EQ(in.gate, gate_form::raw);
  EXPECT_EQ(in.dims.cu_seqlens, k_dims.cu_seqlens);
}

TEST(core_inputs, same_spec_gives_same_bits_for_any_thread_count) {
  for (const gate_form gate : {gate_form::g, gate_form::raw}) {
    const input_spec spec{"threads", 5, decay_regime::normal, l2n_mode::off};
    const host_inputs one = generate_inputs(k_dims, gate, spec, 1);
    SCOPED_TRACE(to_string(gate));
    expect_same_bits(one, generate_inputs(k_dims, gate, spec, 4));
    expect_same_bits(one, generate_inputs(k_dims, gate, spec, 1));
    expect_same_bits(one, generate_inputs(k_dims, gate, spec, 0));
  }
}

TEST(core_inputs, seed_and_scenario_change_every_tensor) {
  const host_inputs a = generate_inputs(k_dims, gate_form::raw, {"one", 1}, 2);
  for (const input_spec& other : {input_spec{"one", 2}, input_spec{"two", 1}}) {
    SCOPED_TRACE(other.scenario_name + " seed " + std::to_string(other.seed));
    const host_inputs b = generate_inputs(k_dims, gate_form::raw, other, 2);
    EXPECT_GT(differing(a.q, b.q), 0.95);
    EXPECT_GT(differing(a.k, b.k), 0.95);
    EXPECT_GT(differing(a.v, b.v), 0.95);
    EXPECT_GT(differing(a.d_o, b.d_o), 0.95);
    EXPECT_GT(differing(a.beta, b.beta), 0.9);
    EXPECT_GT(differing(a.gate_input, b.gate_input), 0.99);
    EXPECT_GT(differing(a.A_log, b.A_log), 0.99);
    EXPECT_GT(differing(a.dt_bias, b.dt_bias), 0.99);
  }
}

TEST(core_inputs, tensors_are_independent_streams) {
  const host_inputs in = generate_inputs(k_dims, gate_form::raw, {"streams", 1, decay_regime::normal, l2n_mode::fused}, 2);
  EXPECT_GT(differing(in.q, in.k), 0.95);
  EXPECT_GT(differing(in.v, in.d_o), 0.95);
}

TEST(core_inputs, decay_regime_changes_only_dt_bias) {
  const host_inputs n = generate_inputs(k_dims, gate_form::raw, {"decay", 1, decay_regime::normal}, 2);
  const host_inputs f = generate_inputs(k_dims, gate_form::raw, {"decay", 1, decay_regime::fast}, 2);
  EXPECT_TRUE(same_bits(n.q, f.q));
  EXPECT_TRUE(same_bits(n.v, f.v));
  EXPECT_TRUE(same_bits(n.gate_input, f.gate_input)); // x
  EXPECT_TRUE(same_bits(n.A_log, f.A_log));
  EXPECT_GT(differing(n.dt_bias, f.dt_bias), 0.99);
}

TEST(core_inputs, packed_row_equals_the_element_generators) {
  const input_spec spec{"elements", 3, decay_regime::fast, l2n_mode::off};
  const host_inputs in = generate_inputs(k_dims, gate_form::g, spec, 2);
  const int H = 2, K = 128, V = 64;
  std::vector<float> row(K);
  for (const std::int64_t t : {0, 499, 500, 1099}) {
    for (int h = 0; h < H; ++h) {
      SCOPED_TRACE(::testing::Message() << "token " << t << " head " << h);
      const std::size_t qk = (t * H + h) * K, vo = (t * H + h) * V;
      element::qk_row(spec, gen::tensor_id::q, k_dims, t, h, row.data());
      for (int c = 0; c < K; ++c) ASSERT_EQ(bf16_to_float(in.q[qk + c]), row[c]);
      element::qk_row(spec, gen::tensor_id::k, k_dims, t, h, row.data());
      for (int c = 0; c < K; ++c) ASSERT_EQ(bf16_to_float(in.k[qk + c]), row[c]);
      for (int c = 0; c < V; ++c) {
        ASSERT_EQ(bf16_to_float(in.v[vo + c]), element::v(spec, k_dims, t, h, c));
        ASSERT_EQ(bf16_to_float(in.d_o[vo + c]), element::d_o(spec, k_dims, t, h, c));
      }
      EXPECT_EQ(bf16_to_float(in.beta[t * H + h]), element::beta(spec, k_dims, t, h));
      for (int c = 0; c < K; ++c) ASSERT_EQ(in.gate_input[qk + c], element::g(spec, k_dims, t, h, c));
    }
  }
  for (int h = 0; h < H; ++h) {
    EXPECT_EQ(in.A_log[h], element::A_log(spec, h));
    for (int c = 0; c < K; ++c) EXPECT_EQ(in.dt_bias[h * K + c], element::dt_bias(spec, k_dims, h, c));
  }
}

TEST(core_inputs, g_form_is_g_value_of_the_raw_inputs) {
  const input_spec spec{"gate", 9};
  const host_inputs raw = generate_inputs(k_dims, gate_form::raw, spec, 2);
  const host_inputs g = generate_inputs(k_dims, gate_form::g, spec, 2);
  // Everything but the gate input is shared by the two forms.
  EXPECT_TRUE(same_bits(raw.q, g.q));
  EXPECT_TRUE(same_bits(raw.beta, g.beta));
  EXPECT_TRUE(same_bits(raw.A_log, g.A_log));
  EXPECT_TRUE(same_bits(raw.dt_bias, g.dt_bias));
  const int H = 2, K = 128;
  for (std::size_t i = 0; i < g.gate_input.size(); ++i) {
    const int h = static_cast<int>((i / K) % H), c = static_cast<int>(i % K);
    ASSERT_EQ(g.gate_input[i], gen::g_value(raw.gate_input[i], raw.A_log[h], raw.dt_bias[h * K + c])) << i;
    ASSERT_LT(g.gate_input[i], 0.0f) << i;
  }
  // The raw form's x is the unrounded fp32 normal.
  EXPECT_EQ(raw.gate_input[5], element::x(spec, k_dims, 0, 0, 5));
}

TEST(core_inputs, qk_rows_are_unit_norm_when_l2n_is_off) {
  const host_inputs in = generate_inputs(k_dims, gate_form::g, {"norm", 1, decay_regime::normal, l2n_mode::off}, 2);
  const std::size_t rows = in.q.size() / 128;
  for (std::size_t r = 0; r < rows; ++r) {
    // bf16 rounding moves each element by at most 2^-9 relative, so the norm by at most 2^-9.
    ASSERT_NEAR(row_norm(in.q, r, 128), 1.0, 0x1.0p-9) << r;
    ASSERT_NEAR(row_norm(in.k, r, 128), 1.0, 0x1.0p-9) << r;
  }
}

TEST(core_inputs, qk_rows_are_not_normalised_when_l2n_is_fused) {
  const host_inputs in = generate_inputs(k_dims, gate_form::g, {"norm", 1, decay_regime::normal, l2n_mode::fused}, 2);
  const std::size_t rows = in.q.size() / 128;
  double mean = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    const double n = row_norm(in.q, r, 128);
    ASSERT_GT(std::fabs(n - 1.0), 0.5) << r; // N(0,1)^128 rows have norm ~ sqrt(128) = 11.3
    mean += n / rows;
  }
  EXPECT_NEAR(mean, std::sqrt(128.0), 0.2);
  // Same raw normals: the fused row is the off row times its norm, up to bf16 rounding.
  const host_inputs off = generate_inputs(k_dims, gate_form::g, {"norm", 1, decay_regime::normal, l2n_mode::off}, 2);
  const double n0 = row_norm(in.q, 0, 128);
  for (int c = 0; c < 128; ++c) {
    EXPECT_NEAR(bf16_to_float(off.q[c]) * n0, bf16_to_float(in.q[c]), 0x1.0p-7 * (std::fabs(bf16_to_float(in.q[c])) + 0.01));
  }
}

TEST(core_inputs, bf16_tensors_hold_exact_bf16_values_in_range) {
  const input_spec spec{"values", 1, decay_regime::normal, l2n_mode::fused};
  const problem_dims d{{0, 300}, 2, 128, 128};
  for (std::int64_t t = 0; t < 300; t += 7) {
    for (int c = 0; c < 128; ++c) {
      const float v = element::v(spec, d, t, 1, c);
      ASSERT_EQ(round_to_bf16(v), v);
      const float o = element::d_o(spec, d, t, 1, c);
      ASSERT_EQ(round_to_bf16(o), o);
    }
    const float b = element::beta(spec, d, t, 0);
    ASSERT_EQ(round_to_bf16(b), b);
    ASSERT_GT(b, 0.0f);
    ASSERT_LT(b, 1.0f);
  }
}

TEST(core_inputs, per_head_parameters_are_in_range) {
  for (const decay_regime decay : {decay_regime::normal, decay_regime::fast}) {
    const host_inputs in = generate_inputs(k_dims, gate_form::raw, {"params", 1, decay}, 2);
    for (float a : in.A_log) {
      EXPECT_GE(a, 0.0f);
      EXPECT_LE(a, std::log(16.0f));
    }
    if (decay == decay_regime::normal) {
      for (float b : in.dt_bias) {
        const double dt = std::log1p(std::exp(static_cast<double>(b)));
        ASSERT_GE(dt, 1e-3 * (1 - 1e-6));
        ASSERT_LE(dt, 1e-1 * (1 + 1e-6));
      }
    } else {
      double mean = 0;
      for (float b : in.dt_bias) mean += b / in.dt_bias.size();
      EXPECT_NEAR(mean, 0.0, 0.3); // 256 samples of N(0,1)
    }
  }
}

} // namespace
} // namespace kda
