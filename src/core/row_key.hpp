#pragma once
// Row keys `rows:gate:l2n:path` (e.g. 4doc:raw:off:saved) and their expansion from patterns:
// a comma list of keys, `*` for any value of a field, or `all` for every key.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/scenario.hpp"
#include "core/variant.hpp"

namespace kda {

struct row_key {
  std::string rows; // scenario name
  gate_form gate = gate_form::g;
  l2n_mode l2n = l2n_mode::off;
  bwd_path path = bwd_path::saved;

  std::string str() const; // canonical spelling
  bool operator==(const row_key&) const = default;
};

// A bad pattern: the message names the key, the field, and lists the valid values.
struct row_key_error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Parses one exact key (no wildcards).
row_key parse_row_key(std::string_view key, const scenario_catalog& catalog);

// Expands a pattern list into keys, in a stable order: the order of the patterns, and inside a
// pattern the catalogue's scenario order, then g before raw, off before fused, saved before
// replay. Duplicates keep their first place.
std::vector<row_key> expand_row_keys(std::string_view patterns, const scenario_catalog& catalog);

} // namespace kda
