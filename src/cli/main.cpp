// kda-bench: benchmark and accuracy harness for deterministic chunked KDA training kernels.
// This file only declares the command line (CLI11) and maps errors to exit codes.
#include <cstdio>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "core/row_key.hpp"
#include "core/scenario.hpp"
#include "gpu/cuda_check.hpp"

namespace {

using namespace kda::cli;

void add_scenario_options(CLI::App& app, scenario_options& s) {
  app.add_option("--scenarios", s.dir, "folder of scenario JSON files (default: $KDA_SCENARIOS or ./scenarios)");
  app.add_option("--scenario-file", s.files, "extra scenario JSON file, repeatable (adds rows)");
}

std::string joined_args(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i) s += ' ';
    s += argv[i];
  }
  return s;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "kda-bench: times and validates deterministic chunked KDA (Kimi Delta Attention) training kernels.\n"
      "Main job: kda-bench --rows 4doc:raw:off:saved [--ops bwd,fwd+bwd] [--check] [--before OLD/libkda.so]\n"
      "Nightly regression run per GPU class: kda-bench nightly (see `nightly --help`).\n"
      "Row keys are rows:gate:l2n:path (rows = a scenario, gate g|raw, l2n off|fused, path saved|replay);\n"
      "comma lists, '*' for any value of a field, and 'all' expand to several keys (see `list`).\n"
      "Exit codes: 0 ok, 1 a check failed or a run error, 2 bad command line, 3 no CUDA device or kernel library.\n"
      "Without a GPU these work: list, reference, table, compare."};
  app.option_defaults()->always_capture_default();
  app.require_subcommand(0, 1);
  app.get_formatter()->column_width(34);

  std::string log_level = "info";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error, critical or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));

  run_options run;
  app.add_option("--rows", run.rows, "row keys to run, e.g. 4doc:raw:off:saved or '4doc:*:off:*' or all");
  app.add_option("--ops", run.ops, "ops to time: fwd, bwd (backward only; replay includes the recompute), fwd+bwd");
  app.add_option("--decay", run.decay,
                 "decay regimes normal|fast (comma list); default: normal for timing, normal,fast with --check");
  app.add_option("--seed", run.seed, "seed of the counter-based input generator");
  app.add_option("--out", run.out, "results JSON path (default: results/<UTC date-time>.json); with several row keys the rows finished so far are kept in <out>.partial.json until the run ends");
  app.add_flag("--force", run.force, "overwrite an existing --out file or --dump folder");
  app.add_flag("--check", run.check, "compare every output with the FP64 CPU reference; fail above the thresholds");
  app.add_option("--check-heads", run.check_heads,
                 "heads the reference checks: a count N >= 1 (evenly spaced from head 0), a list "
                 "0,17,42, or 0 (head 0 alone); default: all heads on rows of <= 8 heads, else 4");
  app.add_option("--repeat-check", run.repeat_check, "run N times and compare every output bit for bit (N >= 2)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--samples", run.samples, "timing samples (the median is reported)")->check(CLI::PositiveNumber);
  app.add_option("--calls", run.calls, "back-to-back calls per sample (sample = event time / calls)")
      ->check(CLI::PositiveNumber);
  app.add_option("--warmup", run.warmup, "untimed calls before the first sample")->check(CLI::NonNegativeNumber);
  app.add_flag("--cold-l2", run.cold_l2,
               "flush L2 before each call (2x L2 written, not timed) and time each call alone; default: warm L2");
  app.add_flag("--graph", run.graph,
               "capture each sample's calls into a CUDA graph once and time graph replays; default: eager launches");
  app.add_flag("--retake-throttled", run.retake_throttled,
               "retake once each sample taken below 90 % of the max SM clock (read through NVML when present)");
  app.add_flag("--roofline", run.roofline,
               "measure copy bandwidth and cuBLAS bf16 GEMM rate; print GB/s, TFLOP/s and % of floor per op");
  app.add_option("--before", run.before,
                 "old build's libkda.so (scripts/build-rev.sh REV): time both interleaved A B A B, write "
                 "its results to <out>.before.json, print the before/after table with verdicts");
  app.add_flag("--same-bits", run.same_bits,
               "with --before: run both builds once on the same inputs and compare every output bit for bit "
               "(per tensor: identical, or how many elements differ and by how much); fail if any differs");
  app.add_flag("--no-timing", run.no_timing, "skip timing (accuracy / determinism / dump only)");
  app.add_flag("--stages", run.stages, "also time each kernel stage of fwd (and bwd) alone, same method (timing entries with a stage)");
  app.add_option("--dump", run.dump_dir, "write inputs, outputs and reference outputs as .npy + manifest.json (a sub-folder per row when "
                 "several rows run, and per decay when several decays do)");
  app.add_option("--inputs", run.inputs_dir, "load inputs from a dump folder instead of generating them");
  app.add_option("--library", run.library, "kernel library to load (default: libkda.so next to kda-bench)");
  app.add_option("--threads", run.threads, "CPU threads for input generation and the reference (0 = all)");
  add_scenario_options(app, run.scenarios);

  scenario_options list_scen;
  std::string list_rows = "all";
  bool list_scenarios = false;
  auto* list = app.add_subcommand("list", "print the row keys a pattern expands to, one per line");
  list->add_option("--rows", list_rows, "row key pattern");
  list->add_flag("--scenarios-only", list_scenarios, "list the scenarios with their shapes instead");
  add_scenario_options(*list, list_scen);

  reference_options ref;
  auto* refc = app.add_subcommand("reference", "run the FP64 CPU reference alone and dump inputs and outputs");
  refc->add_option("--rows", ref.rows, "one row key, e.g. m2:raw:fused:saved")->required();
  refc->add_option("--decay", ref.decay, "normal or fast");
  refc->add_option("--seed", ref.seed, "seed of the input generator");
  refc->add_option("--check-heads", ref.check_heads, "heads to compute: a count N >= 1, a list 0,17,42, or 0 (default: all)");
  refc->add_option("--dump", ref.dump_dir, "folder for the .npy dump");
  refc->add_flag("--force", ref.force, "overwrite an existing dump folder");
  refc->add_flag("--forward-only", ref.forward_only, "skip the backward");
  refc->add_option("--threads", ref.threads, "CPU threads (0 = all)");
  add_scenario_options(*refc, ref.scenarios);

  table_options table;
  auto* tablec = app.add_subcommand("table", "render BEFORE.json AFTER.json as the PR before/after tables");
  tablec->add_option("before", table.before, "results JSON of the old build")->required()->check(CLI::ExistingFile);
  tablec->add_option("after", table.after, "results JSON of the new build")->required()->check(CLI::ExistingFile);
  tablec->add_option("--format", table.format, "markdown or csv")->check(CLI::IsMember({"markdown", "csv"}));
  tablec->add_flag("--verdicts", table.verdicts, "add the faster/slower/same column (docs/comparison.md)");
  const char* common_help =
      "only the entries both files have: leave out every timing (row, op/stage) and accuracy (row, decay, "
      "tensor) entry of one side only (e.g. a subset run against a full baseline); the counts left out "
      "per side go to stderr";
  tablec->add_flag("--common", table.common, common_help);

  table_options cmp;
  merge_options merge;
  auto* mergec = app.add_subcommand("merge", "merge results files of one GPU, build and method (rows run separately) into one");
  mergec->add_option("inputs", merge.inputs, "results JSON files, in order")->required()->check(CLI::ExistingFile);
  mergec->add_option("--out", merge.out, "the merged results JSON")->required();
  mergec->add_flag("--force", merge.force, "overwrite an existing --out file");

  auto* cmpc = app.add_subcommand("compare", "table with verdicts of two results files; exit 1 if any row is slower");
  cmpc->add_option("a", cmp.before, "results JSON, before")->required()->check(CLI::ExistingFile);
  cmpc->add_option("b", cmp.after, "results JSON, after")->required()->check(CLI::ExistingFile);
  cmpc->add_option("--format", cmp.format, "markdown or csv")->check(CLI::IsMember({"markdown", "csv"}));
  cmpc->add_flag("--common", cmp.common, common_help);

  nightly_options night;
  auto* nightc = app.add_subcommand(
      "nightly", "rerun the GPU class's baseline rows, compare, exit 1 on a regression (docs/nightly.md)");
  nightc->add_option("--baseline", night.baseline,
                     "baseline results JSON (default: <results-dir>/<gpu-class-slug>/baseline.json)");
  nightc->add_option("--results-dir", night.results_dir,
                     "writes <results-dir>/<gpu-class-slug>/<YYYY-MM-DD>[-N].json");
  nightc->add_option("--rows", night.rows, "row keys to run (default: every row of the baseline)");
  nightc->add_option("--ops", night.ops, "ops to time (default: those the baseline timed)");
  nightc->add_option("--threshold", night.threshold,
                     "fail a 'slower' verdict whose median ratio is above 1 + threshold");
  nightc->add_option("--accuracy-factor", night.accuracy_factor, "fail a rel_l2 above this factor x the baseline's");
  nightc->add_option("--check-heads", night.check_heads,
                     "heads the FP64 reference checks, a count or a list as for the main job; default: per row "
                     "the heads the baseline checked (its heads_checked), so that errors compare over the same "
                     "heads; given, it overrides them with a warning where they differ");
  nightc->add_option("--repeat-check", night.repeat_check, "runs compared bit for bit (0: none, else >= 2)")
      ->check(CLI::NonNegativeNumber);
  nightc->add_flag("--retake-throttled", night.retake_throttled, "retake once each sample taken below 90 % of the max SM clock");
  nightc->add_flag("--print-slug", night.print_slug, "print this GPU's class slug (results folder name) and exit");
  nightc->add_option("--library", night.library, "kernel library to load (default: libkda.so next to kda-bench)");
  nightc->add_option("--threads", night.threads, "CPU threads for inputs and the reference (0 = all)");
  add_scenario_options(*nightc, night.scenarios);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? k_exit_ok : k_exit_usage;
  }
  spdlog::set_level(spdlog::level::from_str(log_level));
  spdlog::set_pattern("[%H:%M:%S] [%^%l%$] %v");

  try {
    if (*list) return cmd_list(list_rows, list_scen, list_scenarios);
    if (*refc) return cmd_reference(ref);
    if (*tablec) return cmd_table(table);
    if (*cmpc) return cmd_compare(cmp);
    if (*mergec) return cmd_merge(merge);
    if (*nightc) return cmd_nightly(night, joined_args(argc, argv));
    if (run.rows.empty()) {
      std::fprintf(stderr, "kda-bench: give --rows (e.g. --rows 4doc:raw:off:saved) or a subcommand; see --help\n");
      return k_exit_usage;
    }
    if (run.repeat_check == 1) throw std::invalid_argument("--repeat-check needs N >= 2 runs to compare");
    if (run.same_bits && run.before.empty()) {
      throw std::invalid_argument("--same-bits compares with the old build: give --before OLD/libkda.so");
    }
    return cmd_run(run, joined_args(argc, argv));
  } catch (const kda::row_key_error& e) {
    spdlog::error("{}", e.what());
    return k_exit_usage;
  } catch (const kda::scenario_error& e) {
    spdlog::error("{}", e.what());
    return k_exit_usage;
  } catch (const std::invalid_argument& e) {
    spdlog::error("{}", e.what());
    return k_exit_usage;
  } catch (const kda::cuda_error& e) {
    spdlog::error("CUDA: {}", e.what());
    return k_exit_failure;
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return k_exit_failure;
  }
}
