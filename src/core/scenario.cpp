#include "core/scenario.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

namespace kda {
namespace {

constexpr std::array<const char*, 4> k_seed_order{"1doc", "4doc", "R2", "m2"};
constexpr std::array<const char*, 7> k_fields{"name",  "description", "seq_lens", "heads",
                                              "k_dim", "v_dim",       "comment"};

int seed_rank(const std::string& name) {
  for (std::size_t i = 0; i < k_seed_order.size(); ++i) {
    if (name == k_seed_order[i]) return static_cast<int>(i);
  }
  return static_cast<int>(k_seed_order.size());
}

[[noreturn]] void fail(const std::string& source, const std::string& what) {
  throw scenario_error("scenario " + source + ": " + what);
}

int positive_int(const nlohmann::json& j, const char* field, const std::string& source) {
  if (!j.is_number_integer() || j.get<std::int64_t>() < 1 ||
      j.get<std::int64_t>() > std::numeric_limits<int>::max()) {
    fail(source, std::string("'") + field + "' must be an integer >= 1, got " + j.dump());
  }
  return j.get<int>();
}

} // namespace

std::int64_t scenario::total_tokens() const {
  std::int64_t t = 0;
  for (auto l : seq_lens) t += l;
  return t;
}

std::vector<std::int32_t> scenario::cu_seqlens() const {
  std::vector<std::int32_t> cu{0};
  for (auto l : seq_lens) cu.push_back(cu.back() + static_cast<std::int32_t>(l));
  return cu;
}

scenario parse_scenario_json(const std::string& text, const std::string& source) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    fail(source, std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) fail(source, "must be a JSON object");
  for (const auto& [key, value] : j.items()) {
    if (std::find_if(k_fields.begin(), k_fields.end(), [&](const char* f) { return key == f; }) ==
        k_fields.end()) {
      std::string valid;
      for (auto f : k_fields) valid += std::string(valid.empty() ? "" : ", ") + f;
      fail(source, "unknown field '" + key + "' (valid fields: " + valid + ")");
    }
  }
  scenario s;
  s.source = source;
  if (!j.contains("name") || !j["name"].is_string() || j["name"].get<std::string>().empty()) {
    fail(source, "'name' must be a non-empty string");
  }
  s.name = j["name"].get<std::string>();
  if (s.name.find_first_of(":,* \t") != std::string::npos || s.name == "all") {
    fail(source, "'name' may not be 'all' or contain ':', ',', '*' or spaces: '" + s.name + "'");
  }
  if (j.contains("description")) {
    if (!j["description"].is_string()) fail(source, "'description' must be a string");
    s.description = j["description"].get<std::string>();
  }
  if (!j.contains("seq_lens") || !j["seq_lens"].is_array() || j["seq_lens"].empty()) {
    fail(source, "'seq_lens' must be a non-empty array of integers");
  }
  std::int64_t total = 0;
  for (std::size_t i = 0; i < j["seq_lens"].size(); ++i) {
    const auto& l = j["seq_lens"][i];
    if (!l.is_number_integer() || l.get<std::int64_t>() < 1) {
      fail(source, "'seq_lens[" + std::to_string(i) + "]' must be an integer >= 1, got " + l.dump());
    }
    s.seq_lens.push_back(l.get<std::int64_t>());
    total += s.seq_lens.back();
  }
  if (total > std::numeric_limits<std::int32_t>::max()) {
    fail(source, "total tokens exceed 2^31 - 1 (cu_seqlens are int32)");
  }
  if (!j.contains("heads")) fail(source, "'heads' is required");
  s.heads = positive_int(j["heads"], "heads", source);
  if (j.contains("k_dim")) s.k_dim = positive_int(j["k_dim"], "k_dim", source);
  if (j.contains("v_dim")) s.v_dim = positive_int(j["v_dim"], "v_dim", source);
  return s;
}

scenario load_scenario_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw scenario_error("scenario " + file.string() + ": cannot open");
  std::stringstream buf;
  buf << in.rdbuf();
  return parse_scenario_json(buf.str(), file.string());
}

void scenario_catalog::add(scenario s) {
  if (const scenario* old = find(s.name)) {
    throw scenario_error("scenario " + s.source + ": duplicate name '" + s.name +
                         "' (already defined by " + old->source + ")");
  }
  m_scenarios.push_back(std::move(s));
  std::stable_sort(m_scenarios.begin(), m_scenarios.end(), [](const scenario& a, const scenario& b) {
    const int ra = seed_rank(a.name), rb = seed_rank(b.name);
    return ra != rb ? ra < rb : a.name < b.name;
  });
}

void scenario_catalog::add_directory(const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir)) {
    throw scenario_error("scenario directory " + dir.string() + " does not exist");
  }
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) add(load_scenario_file(f));
}

const scenario* scenario_catalog::find(const std::string& name) const {
  for (const auto& s : m_scenarios) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::vector<std::string> scenario_catalog::names() const {
  std::vector<std::string> n;
  for (const auto& s : m_scenarios) n.push_back(s.name);
  return n;
}

std::filesystem::path default_scenario_dir() {
  if (const char* env = std::getenv("KDA_SCENARIOS"); env && *env) return env;
#ifdef KDA_SOURCE_SCENARIO_DIR
  if (std::filesystem::is_directory(KDA_SOURCE_SCENARIO_DIR)) return KDA_SOURCE_SCENARIO_DIR;
#endif
  return "scenarios";
}

} // namespace kda
