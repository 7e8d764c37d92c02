// `kda-bench merge A.json B.json ... --out C.json`: one results document from several runs of the
// same build on the same GPU (report/merge.hpp says what must agree). Files that cannot be merged
// are a usage error (exit 2) with the reason; the output is written atomically, never over an
// existing file without --force.
#include <spdlog/spdlog.h>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "report/merge.hpp"

namespace kda::cli {

int cmd_merge(const merge_options& o) {
  std::vector<std::pair<std::string, report::results_doc>> docs;
  for (const auto& f : o.inputs) docs.emplace_back(f, report::read_results(f));
  report::results_doc merged;
  try {
    merged = report::merge_results(docs);
  } catch (const report::report_error& e) {
    spdlog::error("{}", e.what());
    return k_exit_usage;
  }
  report::write_results(o.out, merged, o.force);
  spdlog::info("merged {} files ({} timing, {} accuracy, {} determinism entries) into {}", docs.size(),
               merged.timing.size(), merged.accuracy.size(), merged.determinism.size(), o.out);
  return k_exit_ok;
}

} // namespace kda::cli
