#include "core/variant.hpp"

#include <array>
#include <cstddef>

namespace kda {
namespace {

constexpr std::array<std::string_view, 2> k_gate{"g", "raw"};
constexpr std::array<std::string_view, 2> k_l2n{"off", "fused"};
constexpr std::array<std::string_view, 2> k_path{"saved", "replay"};
constexpr std::array<std::string_view, 2> k_decay{"normal", "fast"};
constexpr std::array<std::string_view, 3> k_op{"fwd", "bwd", "fwd+bwd"};

// Enum values are declared in the same order as their word tables.
template <typename E, std::size_t N>
std::optional<E> parse_word(const std::array<std::string_view, N>& words, std::string_view s) {
  for (std::size_t i = 0; i < N; ++i) {
    if (words[i] == s) return static_cast<E>(i);
  }
  return std::nullopt;
}

} // namespace

std::string_view to_string(gate_form v) { return k_gate[static_cast<std::size_t>(v)]; }
std::string_view to_string(l2n_mode v) { return k_l2n[static_cast<std::size_t>(v)]; }
std::string_view to_string(bwd_path v) { return k_path[static_cast<std::size_t>(v)]; }
std::string_view to_string(decay_regime v) { return k_decay[static_cast<std::size_t>(v)]; }
std::string_view to_string(op_kind v) { return k_op[static_cast<std::size_t>(v)]; }

std::optional<gate_form> parse_gate_form(std::string_view s) { return parse_word<gate_form>(k_gate, s); }
std::optional<l2n_mode> parse_l2n_mode(std::string_view s) { return parse_word<l2n_mode>(k_l2n, s); }
std::optional<bwd_path> parse_bwd_path(std::string_view s) { return parse_word<bwd_path>(k_path, s); }
std::optional<decay_regime> parse_decay_regime(std::string_view s) {
  return parse_word<decay_regime>(k_decay, s);
}
std::optional<op_kind> parse_op_kind(std::string_view s) { return parse_word<op_kind>(k_op, s); }

std::span<const std::string_view> gate_form_words() { return k_gate; }
std::span<const std::string_view> l2n_mode_words() { return k_l2n; }
std::span<const std::string_view> bwd_path_words() { return k_path; }
std::span<const std::string_view> decay_regime_words() { return k_decay; }
std::span<const std::string_view> op_kind_words() { return k_op; }

} // namespace kda
