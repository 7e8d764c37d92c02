// The segment-parallel forward (forward_segmented, kda_reference_chunked.hpp) against the serial
// chunked forward: with exact storage the three phases give o and the final state to FP64
// rounding, for any segment length, ragged last chunks and a non-zero initial state.
#include <gtest/gtest.h>

#include <stdexcept>

#include "kda_reference_chunked.hpp"
#include "test_problems.hpp"

namespace kda::ref {
namespace {

using testing::random_case;

double rel(const mat& a, const mat& b) { return (a - b).norm() / b.norm(); }

class reference_segmented : public ::testing::TestWithParam<random_case> {};

TEST_P(reference_segmented, equals_the_serial_pass_for_every_segment_length) {
  const head_problem p = testing::random_head_problem(GetParam());
  const head_outputs serial = forward_chunked(p);
  const Eigen::Index chunks = (p.q.rows() + k_chunk - 1) / k_chunk;
  for (const Eigen::Index L : {Eigen::Index{1}, Eigen::Index{2}, Eigen::Index{3}, chunks, chunks + 5}) {
    segmented_options o;
    o.segment_chunks = L;
    const head_outputs seg = forward_segmented(p, o);
    EXPECT_LT(rel(seg.o, serial.o), 1e-12) << "segments of " << L << " chunks";
    EXPECT_LT(rel(seg.S_final, serial.S_final), 1e-12) << "segments of " << L << " chunks";
  }
}

std::vector<random_case> segmented_cases() {
  return {
      {gate_form::g, l2n_mode::off, decay_regime::normal, true, 300, 16, 8, 901},  // 4 full + 44 rows
      {gate_form::raw, l2n_mode::fused, decay_regime::fast, true, 257, 8, 12, 902}, // ... + 1 row
      {gate_form::raw, l2n_mode::off, decay_regime::normal, false, 64, 8, 6, 903},  // one chunk
  };
}

INSTANTIATE_TEST_SUITE_P(cases, reference_segmented, ::testing::ValuesIn(segmented_cases()),
                         [](const auto& info) { return testing::case_name(info.param); });

TEST(reference_segmented_options, a_segment_needs_a_chunk) {
  const head_problem p = testing::random_head_problem({});
  segmented_options o;
  o.segment_chunks = 0;
  EXPECT_THROW(forward_segmented(p, o), std::invalid_argument);
}

} // namespace
} // namespace kda::ref
