#pragma once
// Catalogues for the core tests: the shipped scenarios/ folder, and small in-memory ones.
#include <initializer_list>
#include <string>

#include "core/scenario.hpp"

namespace kda::test {

// The scenarios/ folder of the source tree (1doc, 4doc, R2, m2, ...).
inline scenario_catalog shipped_catalog() {
  scenario_catalog c;
  c.add_directory(std::filesystem::path(KDA_SOURCE_DIR) / "scenarios");
  return c;
}

// One small scenario (2 sequences, 2 heads) per name, added in the order given.
inline scenario_catalog catalog_of(std::initializer_list<const char*> names) {
  scenario_catalog c;
  for (const char* n : names) {
    scenario s;
    s.name = n;
    s.seq_lens = {3, 5};
    s.heads = 2;
    s.source = std::string("test:") + n;
    c.add(s);
  }
  return c;
}

} // namespace kda::test
