// The bridge from the project's inputs to head problems: regenerating one head element by element
// gives exactly what slicing the generated row gives.
#include <gtest/gtest.h>

#include <stdexcept>

#include "core/inputs.hpp"
#include "kda_reference_inputs.hpp"

namespace kda::ref {
namespace {

void expect_same_problem(const head_problem& a, const head_problem& b) {
  EXPECT_EQ(a.gate, b.gate);
  EXPECT_EQ(a.l2n, b.l2n);
  EXPECT_EQ(a.scale, b.scale);
  EXPECT_TRUE(a.q == b.q);
  EXPECT_TRUE(a.k == b.k);
  EXPECT_TRUE(a.v == b.v);
  EXPECT_TRUE(a.beta == b.beta);
  EXPECT_TRUE(a.gate_in == b.gate_in);
  EXPECT_EQ(a.A_log, b.A_log);
  EXPECT_TRUE(a.dt_bias == b.dt_bias);
  EXPECT_EQ(a.S0.size(), 0);
  EXPECT_EQ(b.S0.size(), 0);
  EXPECT_TRUE(a.d_o == b.d_o);
  EXPECT_EQ(a.dS_final.size(), 0);
  EXPECT_EQ(b.dS_final.size(), 0);
}

TEST(reference_inputs, generate_head_problem_equals_slice_of_generated_row) {
  const problem_dims d{{0, 5, 70, 75}, 3, 16, 8};
  for (const gate_form gate : {gate_form::g, gate_form::raw}) {
    for (const l2n_mode l2n : {l2n_mode::off, l2n_mode::fused}) {
      for (const decay_regime decay : {decay_regime::normal, decay_regime::fast}) {
        const input_spec spec{"reference-bridge", 7, decay, l2n};
        const host_inputs in = generate_inputs(d, gate, spec, 2);
        for (int s = 0; s < d.sequences(); ++s) {
          for (int h = 0; h < d.heads; ++h) {
            SCOPED_TRACE(::testing::Message()
                         << "gate " << to_string(gate) << " l2n " << to_string(l2n) << " decay "
                         << to_string(decay) << " seq " << s << " head " << h);
            expect_same_problem(make_head_problem(in, s, h),
                                generate_head_problem(d, gate, spec, s, h));
          }
        }
      }
    }
  }
}

TEST(reference_inputs, problem_holds_the_row_values) {
  const problem_dims d{{0, 3, 7}, 2, 8, 4};
  const host_inputs in = generate_inputs(d, gate_form::raw, {"reference-bridge", 3}, 1);
  const head_problem p = make_head_problem(in, 1, 1);
  ASSERT_EQ(p.q.rows(), 4);
  // token 3 + 2 = 5, head 1: flat [T, H, width] indexing
  EXPECT_EQ(p.k(2, 5), bf16_to_float(in.k[(5 * 2 + 1) * 8 + 5]));
  EXPECT_EQ(p.v(2, 3), bf16_to_float(in.v[(5 * 2 + 1) * 4 + 3]));
  EXPECT_EQ(p.beta(2), bf16_to_float(in.beta[5 * 2 + 1]));
  EXPECT_EQ(p.gate_in(2, 5), in.gate_input[(5 * 2 + 1) * 8 + 5]);
  EXPECT_EQ(p.dt_bias(5), in.dt_bias[1 * 8 + 5]);
  EXPECT_EQ(p.A_log, in.A_log[1]);
}

TEST(reference_inputs, out_of_range_pairs_are_rejected) {
  const problem_dims d{{0, 3, 7}, 2, 8, 4};
  EXPECT_THROW(generate_head_problem(d, gate_form::g, {"x", 1}, 2, 0), std::invalid_argument);
  EXPECT_THROW(generate_head_problem(d, gate_form::g, {"x", 1}, 0, 2), std::invalid_argument);
  EXPECT_THROW(generate_head_problem(d, gate_form::g, {"x", 1}, -1, 0), std::invalid_argument);
}

} // namespace
} // namespace kda::ref
