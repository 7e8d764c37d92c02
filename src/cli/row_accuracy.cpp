#include "cli/row_accuracy.hpp"

#include <chrono>
#include <filesystem>
#include <optional>

#include <spdlog/spdlog.h>

#include "check/row_check.hpp"
#include "cli/row_io.hpp"
#include "cli/run_print.hpp"
#include "io/dump.hpp"

namespace kda::cli {
namespace {

report::accuracy_entry to_entry(const row_key& key, decay_regime decay, const tensor_check& c,
                                const std::vector<int>& heads) {
  report::accuracy_entry e;
  e.row = key.str();
  e.decay = decay;
  e.tensor = c.error.tensor;
  e.rel_l2 = c.error.rel_l2;
  e.max_abs_over_max_ref = c.error.max_abs_rel;
  e.floor_rel_l2 = c.error.floor_rel_l2;
  e.err_over_floor = c.error.err_over_floor;
  e.heads_checked = heads;
  e.status = !c.error.finite ? report::accuracy_status::non_finite
                             : (c.pass ? report::accuracy_status::ok : report::accuracy_status::failed_threshold);
  if (!c.error.note.empty()) e.note = c.error.note;
  return e;
}

// DIR, DIR/<row key with : as _> when several rows run, then /<decay> when several decays do:
// each folder holds one (row, decay), the unit `scripts/fla_peer.py --dump` reads.
std::filesystem::path dump_dir_for(const row_job_options& o, const row_key& key, decay_regime decay) {
  std::filesystem::path dir(o.dump_root);
  if (o.dump_per_row) {
    std::string name = key.str();
    for (char& ch : name) ch = ch == ':' ? '_' : ch;
    dir /= name;
  }
  if (o.decays.size() > 1) dir /= std::string(to_string(decay));
  return dir;
}

void dump_outputs(io::dump_writer& dump, const host_inputs& in, const host_outputs& got, const ref::row_result& ref,
                  const std::vector<int>& heads) {
  const std::int64_t T = in.dims.tokens(), H = in.dims.heads, K = in.dims.k_dim, V = in.dims.v_dim;
  const std::int64_t Hs = static_cast<std::int64_t>(heads.size());
  dump.write_output("o", got.o, {T, H, V});
  dump.write_reference("o", ref.o, {T, Hs, V});
  if (got.has_backward) {
    dump.write_output("dq", got.dq, {T, H, K});
    dump.write_output("dk", got.dk, {T, H, K});
    dump.write_output("dv", got.dv, {T, H, V});
    dump.write_output("dbeta", got.dbeta, {T, H});
    const char* dg = in.gate == gate_form::raw ? "dx" : "dg";
    dump.write_output(dg, got.dgate, {T, H, K});
    dump.write_reference("dq", ref.dq, {T, Hs, K});
    dump.write_reference("dk", ref.dk, {T, Hs, K});
    dump.write_reference("dv", ref.dv, {T, Hs, V});
    dump.write_reference("dbeta", ref.dbeta, {T, Hs});
    dump.write_reference(dg, ref.dgate, {T, Hs, K});
    if (in.gate == gate_form::raw) {
      dump.write_output("dA_log", got.dA_log, {H});
      dump.write_output("ddt_bias", got.ddt_bias, {H, K});
      dump.write_reference("dA_log", ref.dA_log, {Hs});
      dump.write_reference("ddt_bias", ref.ddt_bias, {Hs, K});
    }
  }
  dump.write_reference_heads(heads);
}

// The baseline's heads of this row when nightly gave them (nightly checked them against the row's
// head count before any row ran), else --check-heads; "" = all heads on rows of <= 8 heads, else 4.
std::vector<int> heads_to_check(const row_job_options& o, const row_key& key, int row_heads) {
  const auto it = o.check_heads_of_row.find(key.str());
  if (it != o.check_heads_of_row.end()) return it->second;
  const std::string default_heads = row_heads <= 8 ? "" : "4";
  return select_heads(o.check_heads.empty() ? default_heads : o.check_heads, row_heads);
}

} // namespace

bool check_and_dump(const row_state& r, const row_job_options& o, const row_libraries& libs, row_docs& docs) {
  const bool dumping = !o.dump_root.empty();
  if (!o.check && !dumping) return true;

  bool passed = true;
  const bool can_bwd = libs.after.has_bwd();
  for (std::size_t di = 0; di < o.decays.size(); ++di) {
    const decay_regime decay = o.decays[di];
    // The first decay reuses the timed row; the others get their own inputs and device rows.
    const bool reuse = di == 0;
    std::optional<host_inputs> other;
    if (!reuse) other = make_row_inputs(o, r.scen, r.key, decay);
    const host_inputs& in = reuse ? r.inputs : *other;
    std::optional<device_row> other_after, other_before;
    if (!reuse) {
      other_after.emplace(libs.after, in, r.key.path);
      if (libs.before) other_before.emplace(*libs.before, in, r.key.path);
    }
    std::optional<io::dump_writer> dump;
    if (dumping) {
      const input_spec spec{r.scen.name, o.seed, decay, r.key.l2n};
      dump.emplace(dump_dir_for(o, r.key, decay), io::make_dump_info(r.key, spec), o.force);
      dump->write_inputs(in);
    }
    device_row& after = reuse ? r.after : *other_after;
    device_row* before = reuse ? r.before : (other_before ? &*other_before : nullptr);

    const host_outputs got = run_once(after, can_bwd);
    const auto heads = heads_to_check(o, r.key, in.dims.heads);
    auto last = std::chrono::steady_clock::now();
    const auto ref = reference_for(in, heads, can_bwd, o.threads, [&](std::int64_t done, std::int64_t total) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last > std::chrono::seconds(2) || done == total) {
        spdlog::info("  reference {} ({} decay): {}/{} (sequence, head) pairs", r.key.str(), to_string(decay), done,
                     total);
        last = now;
      }
    });
    const auto checks = check_outputs(in, got, ref, decay);
    print_checks(r.key, decay, checks, "");
    for (const auto& c : checks) {
      docs.after.accuracy.push_back(to_entry(r.key, decay, c, heads));
      if (o.check && !c.pass) passed = false;
    }
    if (before && o.check) {
      // The old build on the same inputs, against the same reference. Its backward is compared
      // only when both builds have one (the reference has it only if the main library does).
      const bool before_bwd = can_bwd && before->library().has_bwd();
      const host_outputs old = run_once(*before, before_bwd);
      const auto old_checks = check_outputs(in, old, ref, decay);
      print_checks(r.key, decay, old_checks, "BEFORE");
      for (const auto& c : old_checks) docs.before->accuracy.push_back(to_entry(r.key, decay, c, heads));
    }
    if (dump) dump_outputs(*dump, in, got, ref, heads);
  }
  return passed;
}

} // namespace kda::cli
