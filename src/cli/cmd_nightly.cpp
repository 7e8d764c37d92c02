// `kda-bench nightly [--baseline results/<gpu-class-slug>/baseline.json]`: runs the baseline's rows
// again with its timing method and seed (timing, accuracy on the heads the baseline checked,
// bitwise repeat), writes results/<gpu-class-slug>/<YYYY-MM-DD>.json (never overwriting: -2, -3,
// ...), prints the table against the baseline with verdicts, and exits 1 on a regression
// (report/regression.hpp).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "check/row_check.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/gpu_session.hpp"
#include "cli/row_job.hpp"
#include "cli/run_context.hpp"
#include "cli/run_parsing.hpp"
#include "report/baseline_plan.hpp"
#include "report/regression.hpp"
#include "report/results_paths.hpp"
#include "report/table.hpp"

namespace kda::cli {
namespace {

namespace fs = std::filesystem;

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

row_job_options row_options_of(const nightly_options& o, const report::baseline_plan& plan) {
  row_job_options r;
  r.ops = o.ops.empty() ? plan.ops : parse_ops(o.ops);
  r.stages = plan.stages;
  r.decays = plan.decays;
  r.check = true;
  r.check_heads = o.check_heads;
  // By default each row checks the heads its baseline entries were compared over: errors over
  // other heads are not comparable (dA_log, a per-head sum, differs 10x between heads).
  if (o.check_heads.empty()) r.check_heads_of_row = plan.heads_of_row;
  r.repeat_check = o.repeat_check;
  r.seed = plan.seed;
  r.threads = o.threads;
  return r;
}

timing_method timing_method_of(const report::method_info& m, bool retake) {
  return timing_method{
      m.samples, m.calls_per_sample, m.warmup, m.l2 == report::l2_state::cold, m.launch == report::launch_mode::graph,
      retake};
}

void print_findings(const report::regression_report& r, const report::regression_rule& rule) {
  for (const auto& n : r.notes) std::printf("note: %s\n", n.c_str());
  if (!r.failed()) {
    std::printf("nightly: no regression (threshold %.1f %% slower, accuracy factor %.2f, determinism)\n",
                100 * rule.threshold, rule.accuracy_factor);
    return;
  }
  std::printf("nightly: %zu regression(s)\n", r.failures.size());
  for (const auto& f : r.failures) {
    std::printf("  REGRESSION %-11s %s\n", std::string(to_string(f.kind)).c_str(), f.what.c_str());
  }
}

// Before any row runs: by default, the baseline's heads must exist in tonight's rows (a scenario
// with fewer heads now is a usage error, not a failure after the timing). With an explicit
// --check-heads, one warning naming the rows whose heads now differ from the baseline's: their
// accuracy ratios then compare errors over different heads.
void check_heads_against_baseline(const nightly_options& o, const report::baseline_plan& plan,
                                  const std::vector<row_key>& keys, const scenario_catalog& catalog) {
  std::string differing;
  for (const auto& key : keys) {
    const auto it = plan.heads_of_row.find(key.str());
    if (it == plan.heads_of_row.end()) continue; // the baseline did not check this row
    const int row_heads = catalog.find(key.rows)->heads;
    if (o.check_heads.empty()) {
      if (it->second.back() >= row_heads) { // sorted: the last is the largest
        throw std::invalid_argument(fmt::format("{}: the baseline checked head {}, but the row has {} heads now",
                                                key.str(), it->second.back(), row_heads));
      }
    } else if (select_heads(o.check_heads, row_heads) != it->second) {
      differing += (differing.empty() ? "" : ", ") + key.str();
    }
  }
  if (!differing.empty()) {
    spdlog::warn("--check-heads {} checks other heads than the baseline did on {}: accuracy is compared over "
                 "different heads there (leave --check-heads out to check the baseline's)",
                 o.check_heads, differing);
  }
}

// Only the slug goes to stdout, for `slug=$(kda-bench nightly --print-slug)`.
int print_slug() {
  std::string why;
  const auto gpu = describe_gpu(0, &why);
  if (!gpu) {
    spdlog::error("{}: no GPU, so no GPU class", why);
    return k_exit_no_device;
  }
  std::printf("%s\n", report::gpu_class_slug(gpu->gpu_class()).c_str());
  return k_exit_ok;
}

} // namespace

int cmd_nightly(const nightly_options& o, const std::string& command_line) {
  if (o.threshold < 0 || o.accuracy_factor < 1) {
    throw std::invalid_argument("nightly: --threshold must be >= 0 and --accuracy-factor >= 1");
  }
  if (o.repeat_check == 1) throw std::invalid_argument("--repeat-check needs N >= 2 runs to compare (0: none)");
  if (o.print_slug) return print_slug();
  const scenario_catalog catalog = load_catalog(o.scenarios);
  auto session = open_gpu_session(o.library, "", "nightly");
  if (!session) return k_exit_no_device;
  const std::string slug = report::gpu_class_slug(session->gpu.gpu_class());

  const fs::path baseline_path =
      o.baseline.empty() ? fs::path(o.results_dir) / slug / "baseline.json" : fs::path(o.baseline);
  if (!fs::exists(baseline_path)) {
    spdlog::error("no baseline at {}. Make one on this GPU class ({}) with e.g.\n  kda-bench --rows "
                  "'m2:*:*:saved,4doc:raw:off:saved' --ops fwd --check --check-heads 2 --repeat-check 3 --out {}",
                  baseline_path.string(), session->gpu.gpu_class(), baseline_path.string());
    return k_exit_usage;
  }
  const report::results_doc baseline = report::read_results(baseline_path);
  const std::string baseline_slug = report::gpu_class_slug(baseline.context.gpu.gpu_class);
  if (baseline_slug != slug) {
    spdlog::error("{} was measured on {} ({}), this GPU is {} ({}): compare within one GPU class",
                  baseline_path.string(), baseline.context.gpu.gpu_class, baseline_slug, session->gpu.gpu_class(),
                  slug);
    return k_exit_usage;
  }
  const report::baseline_plan plan = report::plan_from_baseline(baseline);
  const std::vector<row_key> keys = expand_row_keys(o.rows.empty() ? joined(plan.rows) : o.rows, catalog);
  const row_job_options ro = row_options_of(o, plan);
  check_heads_against_baseline(o, plan, keys, catalog);
  const timing_method method = timing_method_of(plan.method, o.retake_throttled);

  const fs::path out_dir = fs::path(o.results_dir) / slug;
  const fs::path out_path = report::dated_results_path(out_dir, report::utc_date_today());
  spdlog::info("nightly {}: {} rows against {} -> {}", slug, keys.size(), baseline_path.string(), out_path.string());

  timing_engine engine(method, session->gpu.l2_bytes, session->clock.get());
  timing_setup timing{engine, std::nullopt, {}};
  report::results_doc latest;
  latest.context = make_context(session->gpu, *session->after, method, plan.seed, command_line);
  const row_libraries libs{*session->after, nullptr};
  row_docs docs{latest, nullptr};
  for (std::size_t ki = 0; ki < keys.size(); ++ki) {
    const scenario& scen = *catalog.find(keys[ki].rows);
    spdlog::info("[{}/{}] {}", ki + 1, keys.size(), keys[ki].str());
    run_row(keys[ki], scen, ro, libs, timing, docs); // failures are judged against the baseline below
  }
  record_clocks(latest.context, session->gpu, session->clock.get(), timing.clocks);
  report::write_results(out_path, latest, false);
  spdlog::info("results written to {}", out_path.string());

  report::regression_rule rule;
  rule.threshold = o.threshold;
  rule.accuracy_factor = o.accuracy_factor;
  // A threshold below the verdict's own 2 % must still be able to fail.
  rule.verdicts.min_effect = std::min(rule.verdicts.min_effect, o.threshold);
  report::table_options t;
  t.verdicts = report::compare_all(baseline, latest, rule.verdicts);
  std::printf("\n%s\n", report::render_markdown(baseline, latest, t).c_str());
  const report::regression_report found = report::find_regressions(baseline, latest, rule);
  print_findings(found, rule);
  return found.failed() ? k_exit_failure : k_exit_ok;
}

} // namespace kda::cli
