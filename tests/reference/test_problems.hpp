#pragma once
// Small random head problems for the reference's tests, drawn like the project's inputs
// (core/generator.hpp) but at test sizes and with an optional initial state.
#include <cstdint>
#include <ostream>
#include <string>

#include "kda_reference.hpp"

namespace kda::ref::testing {

struct random_case {
  gate_form gate = gate_form::g;
  l2n_mode l2n = l2n_mode::off;
  decay_regime decay = decay_regime::normal;
  bool with_state = false; // non-zero S0 and dS_final, and an explicit scale
  int T = 16;
  int K = 8;
  int V = 6;
  std::uint64_t seed = 1;
};

// q, k ~ N(0,1): rows L2-normalised when l2n is off (the recurrence is stable only then),
// scaled by 1/4 when fused (far from unit length, so the norm's chain rule matters);
// v, d_o ~ N(0,1); beta = sigmoid(N(0,1)); x ~ N(0,1); A_log = log U(1,16);
// dt_bias = softplus^-1(logU(1e-3, 1e-1)) (normal) or N(0,1) (fast); g form: g from those.
head_problem random_head_problem(const random_case& c);

// One head of the kernels' size (K = V = 128) for the analysis printouts (bench/*_analysis.cpp).
head_problem full_size_problem(gate_form gate, decay_regime decay, int T, std::uint64_t seed);

std::string case_name(const random_case& c);

// gtest prints parameters with this (found by ADL) instead of as raw bytes.
void PrintTo(const random_case& c, std::ostream* os);

} // namespace kda::ref::testing
