#pragma once
// A row's kernel outputs brought back to the host, packed like the inputs; bf16 tensors as the
// float values they hold.
#include <vector>

namespace kda {

struct host_outputs {
  std::vector<float> o;                 // [T, H, V]
  std::vector<float> dq, dk, dv, dbeta; // bf16 gradients
  std::vector<float> dgate;             // dg or dx, fp32 [T, H, K]
  std::vector<float> dA_log, ddt_bias;  // raw form: [H], [H, K]
  bool has_backward = false;
};

} // namespace kda
