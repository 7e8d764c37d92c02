#include "core/row_key.hpp"

#include <algorithm>
#include <optional>

namespace kda {
namespace {

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t pos = s.find(sep, start);
    out.emplace_back(s.substr(start, pos == std::string_view::npos ? s.npos : pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

std::vector<std::string> to_strings(std::span<const std::string_view> words) {
  return {words.begin(), words.end()};
}

[[noreturn]] void bad_field(std::string_view key, const char* field, const std::string& value,
                            const std::vector<std::string>& valid) {
  throw row_key_error("row key '" + std::string(key) + "': unknown " + field + " '" + value +
                      "' (valid " + field + " values: " + join(valid) + ", or *)");
}

// The values of one field that a pattern word selects, in expansion order.
template <typename E>
std::vector<E> select(std::string_view key, const char* field, const std::string& word,
                      std::span<const std::string_view> words,
                      std::optional<E> (*parse)(std::string_view)) {
  std::vector<E> out;
  if (word == "*") {
    for (auto w : words) out.push_back(*parse(w));
  } else if (auto v = parse(word)) {
    out.push_back(*v);
  } else {
    bad_field(key, field, word, to_strings(words));
  }
  return out;
}

} // namespace

std::string row_key::str() const {
  return rows + ":" + std::string(to_string(gate)) + ":" + std::string(to_string(l2n)) + ":" +
         std::string(to_string(path));
}

row_key parse_row_key(std::string_view key, const scenario_catalog& catalog) {
  auto keys = expand_row_keys(key, catalog);
  if (keys.size() != 1 || key.find('*') != std::string_view::npos || key == "all") {
    throw row_key_error("row key '" + std::string(key) + "': expected one exact key rows:gate:l2n:path");
  }
  return keys.front();
}

std::vector<row_key> expand_row_keys(std::string_view patterns, const scenario_catalog& catalog) {
  std::vector<row_key> out;
  if (patterns.empty()) throw row_key_error("empty row list (expected rows:gate:l2n:path, e.g. 4doc:raw:off:saved)");
  for (const std::string& raw : split(patterns, ',')) {
    const std::string pattern = raw == "all" ? "*:*:*:*" : raw;
    const auto fields = split(pattern, ':');
    if (fields.size() != 4 || std::any_of(fields.begin(), fields.end(), [](auto& f) { return f.empty(); })) {
      throw row_key_error("row key '" + raw +
                          "': malformed, expected 4 non-empty fields rows:gate:l2n:path "
                          "(e.g. 4doc:raw:off:saved, '4doc:*:off:*' or all)");
    }
    std::vector<std::string> rows;
    if (fields[0] == "*") {
      rows = catalog.names();
    } else if (catalog.find(fields[0])) {
      rows.push_back(fields[0]);
    } else {
      bad_field(raw, "rows", fields[0], catalog.names());
    }
    const auto gates = select<gate_form>(raw, "gate", fields[1], gate_form_words(), parse_gate_form);
    const auto l2ns = select<l2n_mode>(raw, "l2n", fields[2], l2n_mode_words(), parse_l2n_mode);
    const auto paths = select<bwd_path>(raw, "path", fields[3], bwd_path_words(), parse_bwd_path);
    for (const auto& r : rows)
      for (auto g : gates)
        for (auto l : l2ns)
          for (auto p : paths) {
            row_key k{r, g, l, p};
            if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
          }
  }
  return out;
}

} // namespace kda
