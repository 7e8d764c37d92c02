#pragma once
// The words of a row key (`rows:gate:l2n:path`) and of the other run settings, with their
// spellings. One vocabulary everywhere: these strings are what the CLI, JSON and tables show.
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace kda {

enum class gate_form { g, raw };       // g: precomputed log gate; raw: g = -exp(A_log) softplus(x + dt_bias)
enum class l2n_mode { off, fused };    // Q/K L2 norm done by the caller (off) or inside the kernels
enum class bwd_path { saved, replay }; // backward from the forward's saved set, or from inputs only
enum class decay_regime { normal, fast };
enum class op_kind { fwd, bwd, fwd_bwd };

std::string_view to_string(gate_form v);
std::string_view to_string(l2n_mode v);
std::string_view to_string(bwd_path v);
std::string_view to_string(decay_regime v);
std::string_view to_string(op_kind v); // "fwd", "bwd", "fwd+bwd"

// Parsers return nullopt on an unknown word; callers report the valid words (valid_words()).
std::optional<gate_form> parse_gate_form(std::string_view s);
std::optional<l2n_mode> parse_l2n_mode(std::string_view s);
std::optional<bwd_path> parse_bwd_path(std::string_view s);
std::optional<decay_regime> parse_decay_regime(std::string_view s);
std::optional<op_kind> parse_op_kind(std::string_view s);

// Valid spellings, in the stable expansion order.
std::span<const std::string_view> gate_form_words();
std::span<const std::string_view> l2n_mode_words();
std::span<const std::string_view> bwd_path_words();
std::span<const std::string_view> decay_regime_words();
std::span<const std::string_view> op_kind_words();

} // namespace kda
