// The results file on disk: atomic write, refusal to overwrite, and validated reading.
#include <fstream>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/results.hpp"

namespace kda::report {

namespace fs = std::filesystem;

void write_results(const fs::path& path, const results_doc& doc, bool force) {
  std::error_code ec;
  if (fs::exists(path, ec) && !force) {
    throw report_error(fmt::format(
        "{}: results file already exists; pass --force to overwrite it or choose another path",
        path.string()));
  }
  if (path.has_parent_path()) {
    fs::create_directories(path.parent_path(), ec);
    if (ec) {
      throw report_error(
          fmt::format("{}: cannot create its directory: {}", path.string(), ec.message()));
    }
  }
  // Written beside the target then renamed over it, so a reader never sees half a file and a
  // crash never destroys the previous results.
  const fs::path tmp = path.string() + fmt::format(".tmp.{}", ::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) throw report_error(fmt::format("{}: cannot open for writing", tmp.string()));
    out << results_json(doc).dump(2) << '\n';
    out.close();
    if (!out) {
      fs::remove(tmp, ec);
      throw report_error(fmt::format("{}: write failed", tmp.string()));
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    const std::string why = ec.message();
    fs::remove(tmp, ec);
    throw report_error(fmt::format("{}: cannot move {} into place: {}", path.string(),
                                   tmp.filename().string(), why));
  }
}

results_doc read_results(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw report_error(fmt::format("{}: cannot open the results file", path.string()));
  results_json j;
  try {
    j = results_json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw report_error(fmt::format("{}: not valid JSON: {}", path.string(), e.what()));
  }
  try {
    return j.get<results_doc>();
  } catch (const report_error& e) {
    throw report_error(fmt::format("{}: {}", path.string(), e.what()));
  }
}

} // namespace kda::report
