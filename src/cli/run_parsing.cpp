#include "cli/run_parsing.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace kda::cli {
namespace {

template <typename E>
std::vector<E> parse_list(std::string_view list, const char* option, std::span<const std::string_view> words,
                          std::optional<E> (*parse)(std::string_view)) {
  std::vector<E> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find(',', start), list.size());
    const std::string_view w = list.substr(start, end - start);
    const auto v = parse(w);
    if (!v) {
      std::string valid;
      for (auto x : words) valid += std::string(valid.empty() ? "" : ", ") + std::string(x);
      throw std::invalid_argument(std::string(option) + ": unknown value '" + std::string(w) + "' (valid: " + valid + ")");
    }
    if (std::find(out.begin(), out.end(), *v) == out.end()) out.push_back(*v);
    start = end + 1;
  }
  return out;
}

} // namespace

std::vector<op_kind> parse_ops(std::string_view list) {
  return parse_list<op_kind>(list, "--ops", op_kind_words(), parse_op_kind);
}

std::vector<decay_regime> parse_decays(std::string_view list, bool checking) {
  if (list.empty()) {
    return checking ? std::vector<decay_regime>{decay_regime::normal, decay_regime::fast}
                    : std::vector<decay_regime>{decay_regime::normal};
  }
  return parse_list<decay_regime>(list, "--decay", decay_regime_words(), parse_decay_regime);
}

} // namespace kda::cli
