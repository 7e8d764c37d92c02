#include "cli/row_same_bits.hpp"

#include <cstdio>

#include "check/bit_compare.hpp"
#include "cli/row_io.hpp"

namespace kda::cli {

bool same_bits_as_before(const row_state& r) {
  const bool with_bwd = r.after.library().has_bwd() && r.before->library().has_bwd();
  const host_outputs now = run_once(r.after, with_bwd);
  const host_outputs old = run_once(*r.before, with_bwd);
  const auto a = named_tensors(now, r.inputs.gate), b = named_tensors(old, r.inputs.gate);
  bool same = true;
  std::printf("\nsame-bits %s against BEFORE (%s):\n", r.key.str().c_str(), with_bwd ? "fwd + bwd" : "fwd");
  for (std::size_t t = 0; t < a.size(); ++t) {
    const bit_diff d = compare_bits(*a[t].second, *b[t].second);
    same = same && d.identical();
    std::printf("  %-9s %s\n", a[t].first.c_str(), describe(d).c_str());
  }
  return same;
}

} // namespace kda::cli
