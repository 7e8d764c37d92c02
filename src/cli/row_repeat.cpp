#include "cli/row_repeat.hpp"

#include <cstdio>
#include <map>
#include <string>

#include "check/bit_compare.hpp"
#include "cli/row_io.hpp"

namespace kda::cli {

bool repeat_check(const row_state& r, int runs, row_docs& docs) {
  const bool can_bwd = r.after.library().has_bwd();
  const host_outputs first = run_once(r.after, can_bwd);
  report::determinism_entry d;
  d.row = r.key.str();
  d.op = can_bwd ? op_kind::fwd_bwd : op_kind::fwd;
  d.runs = runs;
  for (const auto& [name, v] : named_tensors(first, r.inputs.gate)) d.tensors[name] = true;
  std::map<std::string, std::string> how; // the first difference seen per tensor
  for (int i = 1; i < runs; ++i) {
    const host_outputs again = run_once(r.after, can_bwd);
    const auto a = named_tensors(first, r.inputs.gate), b = named_tensors(again, r.inputs.gate);
    for (std::size_t t = 0; t < a.size(); ++t) {
      const bit_diff diff = compare_bits(*a[t].second, *b[t].second);
      if (!diff.identical() && d.tensors[a[t].first]) {
        d.tensors[a[t].first] = false;
        how[a[t].first] = describe(diff) + ", run " + std::to_string(i + 1) + " vs 1";
      }
    }
  }
  std::printf("\nrepeat-check %s: %d runs:", r.key.str().c_str(), runs);
  for (const auto& [name, same] : d.tensors) {
    std::printf(" %s %s", name.c_str(), same ? "identical" : "DIFFERENT");
    d.identical = d.identical && same;
  }
  std::printf("\n");
  for (const auto& [name, what] : how) std::printf("  %s: %s\n", name.c_str(), what.c_str());
  docs.after.determinism.push_back(d);
  return d.identical;
}

} // namespace kda::cli
