#include "io/dump_manifest.hpp"

#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace kda::io {
namespace {

// Keys stay in the order written: format first, files last.
using json = nlohmann::ordered_json;

std::string field_name(const std::string& where, const char* key) {
  return where.empty() ? std::string(key) : where + "." + key;
}

// The member `key` of object `j`, converted to T; dump_error naming `where.key` otherwise.
template <typename T> T field(const json& j, const char* key, const std::string& where) {
  const std::string name = field_name(where, key);
  if (!j.is_object() || !j.contains(key)) throw dump_error(fmt::format("missing field '{}'", name));
  try {
    return j.at(key).get<T>();
  } catch (const json::exception&) {
    throw dump_error(fmt::format("field '{}' has the wrong type: {}", name, j.at(key).dump()));
  }
}

template <typename E>
E enum_field(const json& j, const char* key, const std::string& where,
             std::optional<E> (*parse)(std::string_view)) {
  const auto text = field<std::string>(j, key, where);
  const auto v = parse(text);
  if (!v)
    throw dump_error(
        fmt::format("field '{}' has unknown value '{}'", field_name(where, key), text));
  return *v;
}

std::optional<dump_role> parse_dump_role(std::string_view s) {
  for (auto r : {dump_role::input, dump_role::output, dump_role::reference}) {
    if (to_string(r) == s) return r;
  }
  return std::nullopt;
}

const std::map<std::string, std::string, std::less<>>& descriptions() {
  static const std::map<std::string, std::string, std::less<>> d = {
      {"q", "queries [T, H, K]"},
      {"k", "keys [T, H, K]"},
      {"v", "values [T, H, V]"},
      {"beta", "delta-rule step sizes [T, H]"},
      {"g", "log gate, g form [T, H, K]"},
      {"x", "raw gate input, raw form: g = -exp(A_log) softplus(x + dt_bias) [T, H, K]"},
      {"A_log", "log decay rate per head [H] (for the g form: what g was made from)"},
      {"dt_bias", "gate bias [H, K] (for the g form: what g was made from)"},
      {"cu_seqlens", "sequence boundaries in the packed token axis [N + 1]"},
      {"do", "output gradient [T, H, V]"},
      {"o", "output [T, H, V]"},
      {"dq", "gradient of q [T, H, K]"},
      {"dk", "gradient of k [T, H, K]"},
      {"dv", "gradient of v [T, H, V]"},
      {"dbeta", "gradient of beta [T, H]"},
      {"dg", "gradient of g [T, H, K]"},
      {"dx", "gradient of x [T, H, K]"},
      {"dA_log", "gradient of A_log [H]"},
      {"ddt_bias", "gradient of dt_bias [H, K]"},
  };
  return d;
}

} // namespace

std::string_view to_string(dump_role r) {
  switch (r) {
  case dump_role::input: return "input";
  case dump_role::output: return "output";
  case dump_role::reference: return "reference";
  }
  return "?";
}

const dump_file_entry* dump_manifest::find(std::string_view name) const {
  for (const auto& f : files) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string describe_tensor(std::string_view name) {
  if (name == "ref_heads") {
    return "heads held by the head-compact ref_ arrays, in their order (their H axis)";
  }
  const bool ref = name.starts_with("ref_");
  const auto it = descriptions().find(ref ? name.substr(4) : name);
  if (it == descriptions().end()) return {};
  return ref ? "FP64 reference " + it->second + ", heads of ref_heads only" : it->second;
}

void to_json(json& j, const dump_manifest& m) {
  json files = json::array();
  for (const auto& f : m.files) {
    json e = {{"name", f.name},
              {"file", f.file},
              {"role", to_string(f.role)},
              {"dtype", f.dtype},
              {"shape", f.shape}};
    if (f.bf16_values) e["bf16_values"] = true;
    e["description"] = f.description;
    files.push_back(std::move(e));
  }
  j = json{{"format", "kda-bench dump"},
           {"format_version", m.format_version},
           {"row", m.info.row},
           {"scenario", m.info.scenario},
           {"decay", to_string(m.info.decay)},
           {"seed", m.info.seed},
           {"gate", to_string(m.info.gate)},
           {"l2n", to_string(m.info.l2n)},
           {"dims",
            {{"tokens", m.tokens},
             {"sequences", m.sequences},
             {"heads", m.heads},
             {"k_dim", m.k_dim},
             {"v_dim", m.v_dim}}},
           {"files", std::move(files)}};
}

void from_json(const json& j, dump_manifest& m) {
  m.format_version = field<int>(j, "format_version", "");
  if (m.format_version != k_dump_format_version) {
    throw dump_error(fmt::format("format_version {} is not supported (this kda-bench reads {})",
                                 m.format_version, k_dump_format_version));
  }
  m.info.row = field<std::string>(j, "row", "");
  m.info.scenario = field<std::string>(j, "scenario", "");
  m.info.decay = enum_field<decay_regime>(j, "decay", "", parse_decay_regime);
  m.info.seed = field<std::uint64_t>(j, "seed", "");
  m.info.gate = enum_field<gate_form>(j, "gate", "", parse_gate_form);
  m.info.l2n = enum_field<l2n_mode>(j, "l2n", "", parse_l2n_mode);
  const json dims = field<json>(j, "dims", "");
  m.tokens = field<std::int64_t>(dims, "tokens", "dims");
  m.sequences = field<int>(dims, "sequences", "dims");
  m.heads = field<int>(dims, "heads", "dims");
  m.k_dim = field<int>(dims, "k_dim", "dims");
  m.v_dim = field<int>(dims, "v_dim", "dims");
  const json files = field<json>(j, "files", "");
  if (!files.is_array()) throw dump_error("field 'files' is not an array");
  m.files.clear();
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string where = fmt::format("files[{}]", i);
    dump_file_entry f;
    f.name = field<std::string>(files[i], "name", where);
    f.file = field<std::string>(files[i], "file", where);
    f.role = enum_field<dump_role>(files[i], "role", where, parse_dump_role);
    f.dtype = field<std::string>(files[i], "dtype", where);
    f.shape = field<std::vector<std::int64_t>>(files[i], "shape", where);
    f.bf16_values = files[i].value("bf16_values", false);
    f.description = files[i].value("description", std::string());
    m.files.push_back(std::move(f));
  }
}

dump_manifest read_manifest(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw dump_error(fmt::format("{}: cannot open the dump manifest", file.string()));
  try {
    return json::parse(in).get<dump_manifest>();
  } catch (const json::parse_error& e) {
    throw dump_error(fmt::format("{}: not valid JSON: {}", file.string(), e.what()));
  } catch (const dump_error& e) {
    throw dump_error(fmt::format("{}: {}", file.string(), e.what()));
  }
}

void write_manifest(const std::filesystem::path& file, const dump_manifest& m) {
  const std::filesystem::path tmp = file.string() + fmt::format(".tmp.{}", ::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << json(m).dump(2) << '\n';
    out.close();
    if (!out) throw dump_error(fmt::format("{}: cannot write the dump manifest", tmp.string()));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);
  if (ec) {
    const std::string why = ec.message();
    std::filesystem::remove(tmp, ec);
    throw dump_error(
        fmt::format("{}: cannot move the manifest into place: {}", file.string(), why));
  }
}

} // namespace kda::io
