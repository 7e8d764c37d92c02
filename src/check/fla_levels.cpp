#include "check/fla_levels.hpp"

#include <array>

namespace kda {
namespace {

struct level {
  std::string_view tensor;
  double normal, fast;
};

constexpr std::array<level, 9> k_levels{{
    {"o", 4.2e-3, 3.3e-3},
    {"dq", 3.8e-3, 2.9e-3},
    {"dk", 3.9e-3, 2.9e-3},
    {"dv", 3.7e-3, 3.0e-3},
    {"dbeta", 3.8e-3, 2.9e-3},
    {"dg", 4.9e-3, 2.5e-3},
    {"dx", 4.9e-3, 2.5e-3},
    {"dA_log", 5.4e-3, 8.5e-3},
    {"ddt_bias", 4.2e-3, 4.8e-3}, // the gradient of dt_bias
}};

} // namespace

std::optional<double> fla_level(std::string_view tensor, decay_regime decay) {
  for (const auto& l : k_levels) {
    if (l.tensor == tensor) return decay == decay_regime::fast ? l.fast : l.normal;
  }
  return std::nullopt;
}

double target_factor(std::string_view tensor) {
  return tensor == "dg" || tensor == "dx" || tensor == "dA_log" || tensor == "ddt_bias" ? 0.5 : 1.0;
}

} // namespace kda
