#pragma once
// The peer's accuracy level (flash-linear-attention chunk_kda, rel-L2 against FP64 on m2/R2,
// measured on our H200 2026-12-02: ../shared/docs/peers.md), used as pass thresholds:
// every tensor <= 1.0 x FLA, gate gradients (dg/dx, dA_log, ddt_bias) <= 0.5 x FLA. Tensor names
// are the gradients' names: ddt_bias is the gradient of dt_bias.
// Where peers.md gives a range, the upper end.
#include <optional>
#include <string_view>

#include "core/variant.hpp"

namespace kda {

std::optional<double> fla_level(std::string_view tensor, decay_regime decay);
// The factor of the FLA level a tensor must stay under (1.0, or 0.5 for the gate gradients).
double target_factor(std::string_view tensor);

} // namespace kda
