#include "report/merge.hpp"

#include <set>
#include <tuple>

#include <fmt/format.h>

namespace kda::report {
namespace {

// The first context field where b disagrees with a, or "" when they may be merged.
std::string disagreement(const run_context& a, const run_context& b) {
  if (a.gpu.name != b.gpu.name) return fmt::format("gpu.name ('{}' vs '{}')", a.gpu.name, b.gpu.name);
  if (a.gpu.arch != b.gpu.arch) return fmt::format("gpu.arch ('{}' vs '{}')", a.gpu.arch, b.gpu.arch);
  if (a.gpu.sm_count != b.gpu.sm_count) return fmt::format("gpu.sm_count ({} vs {})", a.gpu.sm_count, b.gpu.sm_count);
  if (a.gpu.driver != b.gpu.driver) return fmt::format("gpu.driver ('{}' vs '{}')", a.gpu.driver, b.gpu.driver);
  if (a.gpu.cuda_runtime != b.gpu.cuda_runtime) {
    return fmt::format("gpu.cuda_runtime ('{}' vs '{}')", a.gpu.cuda_runtime, b.gpu.cuda_runtime);
  }
  if (a.gpu.nvcc != b.gpu.nvcc) return fmt::format("gpu.nvcc ('{}' vs '{}')", a.gpu.nvcc, b.gpu.nvcc);
  if (a.kernel_library.build_id != b.kernel_library.build_id) {
    return fmt::format("kernel_library.build_id ('{}' vs '{}')", a.kernel_library.build_id,
                       b.kernel_library.build_id);
  }
  if (!(a.method == b.method)) return "method (samples, calls, warm-up, L2 or launch mode)";
  if (a.seed != b.seed) return fmt::format("seed ({} vs {})", a.seed, b.seed);
  return "";
}

using timing_key = std::tuple<std::string, op_kind, std::string>;
using accuracy_key = std::tuple<std::string, decay_regime, std::string>;
using determinism_key = std::tuple<std::string, op_kind>;

timing_key key_of(const timing_entry& e) { return {e.row, e.op, e.stage.value_or("")}; }
accuracy_key key_of(const accuracy_entry& e) { return {e.row, e.decay, e.tensor}; }
determinism_key key_of(const determinism_entry& e) { return {e.row, e.op}; }

std::string describe(const timing_entry& e) {
  return fmt::format("timing of {} {}{}", e.row, to_string(e.op), e.stage ? " stage " + *e.stage : "");
}
std::string describe(const accuracy_entry& e) {
  return fmt::format("accuracy of {} {} ({} decay)", e.row, e.tensor, to_string(e.decay));
}
std::string describe(const determinism_entry& e) { return fmt::format("determinism of {} {}", e.row, to_string(e.op)); }

// Appends `from` to `into`; an entry whose key an earlier file already had is an error.
template <typename Entry, typename Key>
void append_unique(std::vector<Entry>& into, const std::vector<Entry>& from, std::set<Key>& seen,
                   const std::string& file) {
  for (const Entry& e : from) {
    if (!seen.insert(key_of(e)).second) {
      throw report_error(fmt::format("{}: the {} is already in an earlier file", file, describe(e)));
    }
    into.push_back(e);
  }
}

} // namespace

results_doc merge_results(const std::vector<std::pair<std::string, results_doc>>& docs) {
  if (docs.empty()) throw report_error("merge: no results files");
  const auto& [first_file, first] = docs.front();
  results_doc out;
  out.context = first.context;
  std::string files;
  std::set<timing_key> timing_seen;
  std::set<accuracy_key> accuracy_seen;
  std::set<determinism_key> determinism_seen;
  for (const auto& [file, doc] : docs) {
    if (const std::string why = disagreement(first.context, doc.context); !why.empty()) {
      throw report_error(fmt::format("{} and {} cannot be merged: they differ in {}", first_file, file, why));
    }
    if (doc.context.gpu.clocks != out.context.gpu.clocks) out.context.gpu.clocks.reset();
    if (doc.context.ceilings != out.context.ceilings) out.context.ceilings.reset();
    append_unique(out.timing, doc.timing, timing_seen, file);
    append_unique(out.accuracy, doc.accuracy, accuracy_seen, file);
    append_unique(out.determinism, doc.determinism, determinism_seen, file);
    files += (files.empty() ? "" : ", ") + file;
  }
  out.context.command_line = "kda-bench merge of " + files;
  return out;
}

} // namespace kda::report
