// The main job: `kda-bench --rows KEYS [--ops ...] [--check] [--repeat-check N] [--dump DIR]
// [--before OLD/libkda.so]`. Per row key (row_job.hpp): inputs (generated or --inputs) -> GPU ->
// timing of each op -> optional accuracy against the FP64 reference and bitwise repeat. Then the
// results JSON (and BEFORE's beside it with --before, followed by the before/after table).
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/gpu_session.hpp"
#include "cli/row_job.hpp"
#include "cli/run_context.hpp"
#include "cli/run_parsing.hpp"
#include "cli/run_print.hpp"
#include "gpu/ceilings.hpp"
#include "report/results_paths.hpp"
#include "report/table.hpp"

namespace kda::cli {
namespace {

timing_method timing_method_of(const run_options& o) {
  return timing_method{o.samples, o.calls, o.warmup, o.cold_l2, o.graph, o.retake_throttled};
}

row_job_options row_options_of(const run_options& o, std::size_t key_count) {
  row_job_options r;
  r.ops = parse_ops(o.ops); // parsed (and so checked) even with --no-timing
  if (o.no_timing) r.ops.clear();
  r.stages = o.stages;
  r.decays = parse_decays(o.decay, o.check);
  r.check = o.check;
  r.check_heads = o.check_heads;
  r.repeat_check = o.repeat_check;
  r.same_bits = o.same_bits;
  r.dump_root = o.dump_dir;
  r.dump_per_row = key_count > 1;
  r.force = o.force;
  r.inputs_dir = o.inputs_dir;
  r.seed = o.seed;
  r.threads = o.threads;
  return r;
}

// Refuses to overwrite a results file unless --force: checked before spending GPU time.
bool may_write(const std::string& path, bool force) {
  if (std::filesystem::exists(path) && !force) {
    spdlog::error("{} exists; pass --force to overwrite it or choose another --out", path);
    return false;
  }
  return true;
}

report::ceilings_info measure(cudaStream_t stream) {
  spdlog::info("measuring the roofline ceilings (device copy, cuBLAS bf16 GEMM)");
  const device_ceilings d = measure_ceilings(stream);
  report::ceilings_info c{d.copy_bytes_per_s * 1e-9, d.gemm_flops_per_s * 1e-12, d.copy_bytes, d.gemm_size};
  print_ceilings(c);
  return c;
}

} // namespace

int cmd_run(const run_options& o, const std::string& command_line) {
  const scenario_catalog catalog = load_catalog(o.scenarios);
  const std::vector<row_key> keys = expand_row_keys(o.rows, catalog);
  const row_job_options ro = row_options_of(o, keys.size());
  const timing_method method = timing_method_of(o);
  const bool roofline = o.roofline && !o.no_timing;
  if (o.roofline && o.no_timing) spdlog::warn("--roofline needs timing; ignored with --no-timing");

  auto session = open_gpu_session(o.library, o.before, "the main job");
  if (!session) return k_exit_no_device;

  const std::string out_path = o.out.empty() ? default_out_path() : o.out;
  const std::string before_path = report::before_results_path(out_path);
  // With several keys, the finished rows are also kept in *.partial.json after each row (a run
  // stopped by a time limit loses only the row in progress); removed once the results are written.
  const bool keep_partial = keys.size() > 1;
  const std::string partial_path = report::partial_results_path(out_path);
  const std::string before_partial_path = report::partial_results_path(before_path);
  std::vector<std::string> targets{out_path};
  if (keep_partial) targets.push_back(partial_path);
  if (session->before) targets.push_back(before_path);
  if (session->before && keep_partial) targets.push_back(before_partial_path);
  for (const std::string& path : targets) {
    if (!may_write(path, o.force)) return k_exit_usage;
  }

  timing_engine engine(method, session->gpu.l2_bytes, session->clock.get());
  timing_setup timing{engine, std::nullopt, {}};
  if (roofline) timing.ceilings = measure(engine.stream());

  report::results_doc after_doc, before_doc;
  after_doc.context = make_context(session->gpu, *session->after, method, o.seed, command_line);
  after_doc.context.ceilings = timing.ceilings;
  if (session->before) {
    before_doc.context = make_context(session->gpu, *session->before, method, o.seed, command_line);
    before_doc.context.ceilings = timing.ceilings;
  }
  const row_libraries libs{*session->after, session->before.get()};
  row_docs docs{after_doc, session->before ? &before_doc : nullptr};

  bool failed = false;
  for (std::size_t ki = 0; ki < keys.size(); ++ki) {
    const row_key& key = keys[ki];
    const scenario& scen = *catalog.find(key.rows);
    spdlog::info("[{}/{}] {}: {} tokens in {} sequences, {} heads", ki + 1, keys.size(), key.str(), scen.total_tokens(),
                 scen.seq_lens.size(), scen.heads);
    if (!run_row(key, scen, ro, libs, timing, docs)) failed = true;
    if (keep_partial && ki + 1 < keys.size()) {
      report::write_results(partial_path, after_doc, true);
      if (session->before) report::write_results(before_partial_path, before_doc, true);
      spdlog::info("{} of {} row keys done; finished rows kept in {}", ki + 1, keys.size(), partial_path);
    }
  }

  record_clocks(after_doc.context, session->gpu, session->clock.get(), timing.clocks);
  report::write_results(out_path, after_doc, o.force);
  spdlog::info("results written to {}", out_path);
  if (session->before) {
    record_clocks(before_doc.context, session->gpu, session->clock.get(), timing.clocks);
    report::write_results(before_path, before_doc, o.force);
    spdlog::info("BEFORE's results written to {}", before_path);
    report::table_options t;
    t.verdicts = report::compare_all(before_doc, after_doc);
    std::printf("\n%s", report::render_markdown(before_doc, after_doc, t).c_str());
  }
  if (keep_partial) {
    std::error_code ec; // the complete results are written: the partial ones are redundant
    std::filesystem::remove(partial_path, ec);
    std::filesystem::remove(before_partial_path, ec);
  }
  if (failed) spdlog::error("a check failed (see above)");
  return failed ? k_exit_failure : k_exit_ok;
}

} // namespace kda::cli
