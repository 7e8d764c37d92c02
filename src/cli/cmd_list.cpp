// `kda-bench list`: the expanded row keys of a pattern, one per line, in the stable order; or the
// scenarios with their shapes.
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "core/row_key.hpp"

namespace kda::cli {

int cmd_list(const std::string& rows, const scenario_options& o, bool scenarios_only) {
  const scenario_catalog catalog = load_catalog(o);
  if (scenarios_only) {
    for (const auto& s : catalog.all()) {
      std::printf("%-10s %3d heads  %7lld tokens in %zu sequences  %s\n", s.name.c_str(), s.heads,
                  static_cast<long long>(s.total_tokens()), s.seq_lens.size(), s.description.c_str());
    }
    return k_exit_ok;
  }
  for (const auto& k : expand_row_keys(rows, catalog)) std::printf("%s\n", k.str().c_str());
  return k_exit_ok;
}

} // namespace kda::cli
