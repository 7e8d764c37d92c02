#pragma once
// Parsing of the main job's list options (--ops, --decay). Errors are std::invalid_argument
// naming the bad word and the valid ones; main() turns them into exit code 2.
#include <string_view>
#include <vector>

#include "core/variant.hpp"

namespace kda::cli {

std::vector<op_kind> parse_ops(std::string_view list);
// "" -> {normal} for timing, {normal, fast} when checking accuracy.
std::vector<decay_regime> parse_decays(std::string_view list, bool checking);

} // namespace kda::cli
