// check_outputs on host data (no GPU): the reference's own values as "kernel outputs" pass, and a
// dA_log off by a known amount carries the cancellation note with that amount.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "check/row_check.hpp"
#include "core/inputs.hpp"

namespace kda {
namespace {

std::vector<float> as_float(const std::vector<double>& v) { return {v.begin(), v.end()}; }

TEST(row_check, dA_log_note_gives_the_error_on_the_scale_of_its_terms) {
  problem_dims d;
  d.cu_seqlens = {0, 70};
  d.heads = 1;
  const host_inputs in = generate_inputs(d, gate_form::raw, input_spec{"note", 3, decay_regime::fast, l2n_mode::off}, 1);
  const ref::row_result ref = reference_for(in, {0}, true, 1, {});
  ASSERT_EQ(ref.dA_log_abs_terms.size(), 1u);
  ASSERT_GT(ref.dA_log_abs_terms[0], std::abs(ref.dA_log[0]));

  host_outputs got;
  got.has_backward = true;
  got.o = as_float(ref.o);
  got.dq = as_float(ref.dq);
  got.dk = as_float(ref.dk);
  got.dv = as_float(ref.dv);
  got.dbeta = as_float(ref.dbeta);
  got.dgate = as_float(ref.dgate);
  got.ddt_bias = as_float(ref.ddt_bias);
  // Off by 1e-4 of sum |dg g| (representable in float at this scale).
  got.dA_log = {static_cast<float>(ref.dA_log[0] + 1e-4 * ref.dA_log_abs_terms[0])};

  const auto checks = check_outputs(in, got, ref, decay_regime::fast);
  bool found = false;
  for (const auto& c : checks) {
    if (c.error.tensor != "dA_log") {
      EXPECT_TRUE(c.error.note.empty()) << c.error.tensor << ": " << c.error.note;
      continue;
    }
    found = true;
    EXPECT_NE(c.error.note.find("err / sum|dg g| 1.0e-04"), std::string::npos) << c.error.note;
    EXPECT_NE(c.error.note.find("cancellation x"), std::string::npos) << c.error.note;
  }
  EXPECT_TRUE(found);
}

} // namespace
} // namespace kda
