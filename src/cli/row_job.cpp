#include "cli/row_job.hpp"

#include <optional>

#include "cli/row_accuracy.hpp"
#include "cli/row_io.hpp"
#include "cli/row_repeat.hpp"
#include "cli/row_same_bits.hpp"

namespace kda::cli {

bool run_row(const row_key& key, const scenario& scen, const row_job_options& o, const row_libraries& libs,
             timing_setup& timing, row_docs& docs) {
  const host_inputs inputs = make_row_inputs(o, scen, key, o.decays.front());
  device_row after(libs.after, inputs, key.path);
  std::optional<device_row> before;
  if (libs.before) before.emplace(*libs.before, inputs, key.path);
  const row_state r{key, scen, inputs, after, before ? &*before : nullptr};

  bool passed = true;
  if (!o.ops.empty()) time_ops(r, o.ops, timing, docs);
  if (o.stages) time_stages(r, timing, docs);
  if (!check_and_dump(r, o, libs, docs)) passed = false;
  if (o.repeat_check > 1 && !repeat_check(r, o.repeat_check, docs)) passed = false;
  if (o.same_bits && r.before && !same_bits_as_before(r)) passed = false;
  return passed;
}

} // namespace kda::cli
