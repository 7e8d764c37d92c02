// The FLA accuracy levels used as pass thresholds (shared/docs/peers.md) and the target factors:
// 1.0 x FLA for every tensor, 0.5 x FLA for the gate gradients.
#include <gtest/gtest.h>

#include "check/fla_levels.hpp"

namespace kda {
namespace {

TEST(check_fla_levels, values_per_tensor_and_decay) {
  struct row {
    const char* tensor;
    double normal, fast;
  };
  for (const row r : {row{"o", 4.2e-3, 3.3e-3}, row{"dq", 3.8e-3, 2.9e-3}, row{"dk", 3.9e-3, 2.9e-3},
                      row{"dv", 3.7e-3, 3.0e-3}, row{"dbeta", 3.8e-3, 2.9e-3}, row{"dg", 4.9e-3, 2.5e-3},
                      row{"dx", 4.9e-3, 2.5e-3}, row{"dA_log", 5.4e-3, 8.5e-3}, row{"ddt_bias", 4.2e-3, 4.8e-3}}) {
    SCOPED_TRACE(r.tensor);
    ASSERT_TRUE(fla_level(r.tensor, decay_regime::normal).has_value());
    EXPECT_DOUBLE_EQ(*fla_level(r.tensor, decay_regime::normal), r.normal);
    EXPECT_DOUBLE_EQ(*fla_level(r.tensor, decay_regime::fast), r.fast);
  }
}

TEST(check_fla_levels, unknown_tensor_has_no_level) {
  EXPECT_FALSE(fla_level("", decay_regime::normal).has_value());
  EXPECT_FALSE(fla_level("O", decay_regime::normal).has_value());
  EXPECT_FALSE(fla_level("q", decay_regime::fast).has_value());
}

TEST(check_fla_levels, gate_gradients_must_reach_half_the_fla_level) {
  for (const char* t : {"dg", "dx", "dA_log", "ddt_bias"}) EXPECT_EQ(target_factor(t), 0.5) << t;
  for (const char* t : {"o", "dq", "dk", "dv", "dbeta"}) EXPECT_EQ(target_factor(t), 1.0) << t;
}

} // namespace
} // namespace kda
