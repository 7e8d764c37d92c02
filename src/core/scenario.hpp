#pragma once
// Scenarios: the `rows` word of a row key. Each is a human-editable JSON file in scenarios/
// (docs/scenarios.md): a name, a description, the sequence lengths of one variable-length batch
// and the head count. K = V = 128 unless a file says otherwise (the reference takes any size; the
// kernels only 128).
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace kda {

struct scenario {
  std::string name;
  std::string description;
  std::vector<std::int64_t> seq_lens;
  int heads = 0;
  int k_dim = 128;
  int v_dim = 128;
  std::string source; // the file it came from, for messages

  std::int64_t total_tokens() const;
  std::vector<std::int32_t> cu_seqlens() const; // [0, l0, l0+l1, ...]
};

// A scenario file or set that fails validation; the message names the file and field.
struct scenario_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

scenario parse_scenario_json(const std::string& text, const std::string& source);
scenario load_scenario_file(const std::filesystem::path& file);

// The catalogue of known scenarios, in a stable order: the seed rows (1doc, 4doc, R2, m2) first,
// then the others by name. Duplicate names are an error.
class scenario_catalog {
public:
  void add(scenario s);                                 // throws scenario_error on a duplicate
  void add_directory(const std::filesystem::path& dir); // every *.json in dir
  const scenario* find(const std::string& name) const;
  const std::vector<scenario>& all() const { return m_scenarios; }
  std::vector<std::string> names() const;

private:
  std::vector<scenario> m_scenarios;
};

// Where the scenarios/ folder is: $KDA_SCENARIOS, else next to the executable's source tree
// (compiled-in path), else ./scenarios.
std::filesystem::path default_scenario_dir();

} // namespace kda
