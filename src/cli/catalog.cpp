#include "cli/commands.hpp"

namespace kda::cli {

scenario_catalog load_catalog(const scenario_options& o) {
  scenario_catalog c;
  c.add_directory(o.dir.empty() ? default_scenario_dir() : std::filesystem::path(o.dir));
  for (const auto& f : o.files) c.add(load_scenario_file(f));
  return c;
}

} // namespace kda::cli
