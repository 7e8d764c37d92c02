#pragma once
// A row's kernel outputs brought back to the host, packed like the inputs; bf16 tensors as the
// float values they hold.
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/variant.hpp"

namespace kda {

struct host_outputs {
  std::vector<float> o;                 // [T, H, V]
  std::vector<float> dq, dk, dv, dbeta; // bf16 gradients
  std::vector<float> dgate;             // dg or dx, fp32 [T, H, K]
  std::vector<float> dA_log, ddt_bias;  // raw form: [H], [H, K]
  bool has_backward = false;
};

// The output tensors of a row by the names the results JSON and dumps use (o, dq, dk, dv, dbeta,
// dg or dx, then dA_log and ddt_bias for the raw form). Works for kernel outputs (float) and the
// reference's row_result (double): both hold members of these names.
template <typename Outputs>
auto named_tensors(const Outputs& r, gate_form gate) {
  using tensor = std::remove_cvref_t<decltype(r.o)>;
  std::vector<std::pair<std::string, const tensor*>> v;
  v.emplace_back("o", &r.o);
  if (r.has_backward) {
    v.emplace_back("dq", &r.dq);
    v.emplace_back("dk", &r.dk);
    v.emplace_back("dv", &r.dv);
    v.emplace_back("dbeta", &r.dbeta);
    v.emplace_back(gate == gate_form::raw ? "dx" : "dg", &r.dgate);
    if (gate == gate_form::raw) {
      v.emplace_back("dA_log", &r.dA_log);
      v.emplace_back("ddt_bias", &r.ddt_bias);
    }
  }
  return v;
}

} // namespace kda
