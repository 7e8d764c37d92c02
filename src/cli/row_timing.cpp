#include "cli/row_timing.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include <spdlog/spdlog.h>

#include "cli/run_print.hpp"
#include "report/compare.hpp"
#include "report/roofline.hpp"

namespace kda::cli {
namespace {

// One side of a before/after pair: its device row and where its entries go.
struct side {
  device_row* row;
  report::results_doc* doc;
  const char* name; // "" (AFTER, the main library) or "BEFORE"
};

// BEFORE first, so that each round of samples is "A B" with A the old build.
std::vector<side> sides_of(const row_state& r, row_docs& docs) {
  std::vector<side> s;
  if (r.before) s.push_back({r.before, docs.before, "BEFORE"});
  s.push_back({&r.after, &docs.after, ""});
  return s;
}

report::timing_entry make_entry(const row_key& key, op_kind op, const std::optional<std::string>& stage,
                                const sample_set& s, bool retake) {
  report::timing_entry e = report::make_timing_entry(key.str(), op, s.ms);
  e.stage = stage;
  if (!s.sm_mhz.empty()) {
    e.sm_clock_mean_mhz = std::accumulate(s.sm_mhz.begin(), s.sm_mhz.end(), 0.0) / s.sm_mhz.size();
    e.sm_clock_min_mhz = *std::min_element(s.sm_mhz.begin(), s.sm_mhz.end());
    e.throttled_samples = s.throttled;
    if (retake) e.retaken_samples = s.retaken;
  }
  return e;
}

void warn_throttled(const report::timing_entry& e, const side& sd, bool retake) {
  if (e.throttled_samples.value_or(0) == 0) return;
  spdlog::warn("{} {}{}: {} of {} samples ran below {:.0f} % of the maximum SM clock (lowest {:.0f} MHz){}", e.row,
               report::op_label(e), *sd.name ? " [BEFORE]" : "", *e.throttled_samples, e.samples_ms.size(),
               100 * k_throttle_fraction, e.sm_clock_min_mhz.value_or(0),
               retake ? " even after a retake" : "; --retake-throttled retakes them once");
}

// Times `fns` (one per side) interleaved and records, prints and tallies each side's entry.
void time_and_record(const row_state& r, op_kind op, const std::optional<std::string>& stage,
                     const std::vector<side>& sides, const std::vector<call_fn>& fns, timing_setup& t) {
  std::vector<std::string> whats;
  for (const side& sd : sides) {
    whats.push_back(r.key.str() + " " + std::string(to_string(op)) + (stage ? " stage " + *stage : "") +
                    (*sd.name ? " of the BEFORE library" : ""));
  }
  const std::vector<sample_set> sets = t.engine.time_interleaved(fns, whats);
  const timing_method& m = t.engine.method();
  for (std::size_t i = 0; i < sides.size(); ++i) {
    const side& sd = sides[i];
    sd.doc->timing.push_back(make_entry(r.key, op, stage, sets[i], m.retake_throttled));
    const report::timing_entry& e = sd.doc->timing.back();
    print_timing(e, sd.doc->context.method, sd.name);
    if (t.ceilings && !stage) {
      const report::op_work w = report::count_work(op, r.inputs.dims, r.key.gate, r.key.path);
      print_roofline(w, report::place_on_roofline(w, *t.ceilings, e.median_ms));
    }
    warn_throttled(e, sd, m.retake_throttled);
    t.clocks.add(sets[i]);
  }
}

bool uses_backward(op_kind op) { return op != op_kind::fwd; }

} // namespace

void clock_tally::add(const sample_set& s) {
  for (const double mhz : s.sm_mhz) {
    sum += mhz;
    ++count;
    min = std::min(min, mhz);
  }
}

void time_ops(const row_state& r, const std::vector<op_kind>& ops, timing_setup& t, row_docs& docs) {
  for (const op_kind op : ops) {
    std::vector<side> sides;
    for (const side& sd : sides_of(r, docs)) {
      if (uses_backward(op) && !sd.row->library().has_bwd()) {
        spdlog::warn("{} {}: skipped{}, this kernel library has no backward yet (time the forward with --ops fwd)",
                     r.key.str(), to_string(op),
                     *sd.name ? " on BEFORE" : "");
        continue;
      }
      sides.push_back(sd);
    }
    if (sides.empty()) continue;
    std::vector<call_fn> fns;
    for (const side& sd : sides) {
      if (op == op_kind::bwd) sd.row->prepare_backward(t.engine.stream());
      device_row* row = sd.row;
      fns.push_back([row, op](cudaStream_t s) { row->run(op, s); });
    }
    time_and_record(r, op, std::nullopt, sides, fns, t);
  }
}

void time_stages(const row_state& r, timing_setup& t, row_docs& docs) {
  const std::vector<side> all = sides_of(r, docs);
  for (const char* op_name : {"fwd", "bwd"}) {
    const op_kind op = std::strcmp(op_name, "fwd") == 0 ? op_kind::fwd : op_kind::bwd;
    // Stage names in the main library's order, then those only the old build has.
    std::vector<std::string> names;
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
      const kernel_library& lib = it->row->library();
      for (int s = 0; s < lib.stage_count(op_name); ++s) {
        const std::string n = lib.stage_name(op_name, s);
        if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
      }
    }
    if (names.empty()) continue;
    // Every stage reads what the earlier ones wrote: run the whole op once first.
    for (const side& sd : all) {
      if (sd.row->library().stage_count(op_name) == 0) continue;
      sd.row->run(op_kind::fwd, t.engine.stream());
      if (op == op_kind::bwd) sd.row->run(op_kind::bwd, t.engine.stream());
    }
    for (const std::string& name : names) {
      std::vector<side> sides;
      std::vector<call_fn> fns;
      for (const side& sd : all) {
        const kernel_library& lib = sd.row->library();
        int index = -1;
        for (int s = 0; s < lib.stage_count(op_name); ++s) {
          if (lib.stage_name(op_name, s) == name) index = s;
        }
        if (index < 0) continue;
        sides.push_back(sd);
        device_row* row = sd.row;
        fns.push_back([row, op_name, index](cudaStream_t s) {
          row->library().run_stage(row->plan(), op_name, index, row->args(), s);
        });
      }
      time_and_record(r, op, name, sides, fns, t);
    }
  }
}

} // namespace kda::cli
