// The main job: `kda-bench --rows KEYS [--ops ...] [--check] [--repeat-check N] [--dump DIR]`.
// Per row key: inputs (generated or --inputs) -> GPU -> timing of each op -> optional accuracy
// against the FP64 reference and bitwise repeat -> results JSON and a printed summary.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include <spdlog/spdlog.h>
#include <unistd.h>

#include "check/row_check.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/run_parsing.hpp"
#include "core/row_key.hpp"
#include "gpu/device_info.hpp"
#include "gpu/device_row.hpp"
#include "gpu/timing.hpp"
#include "io/dump.hpp"
#include "report/results.hpp"

namespace kda::cli {
namespace {

bool uses_backward(op_kind op) { return op != op_kind::fwd; }

report::run_context make_context(const gpu_description& gpu, const kernel_library& lib, const run_options& o,
                                 const std::string& command_line) {
  report::run_context c;
  c.date = report::iso8601_utc(std::chrono::system_clock::now());
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  c.host = host;
  c.command_line = command_line;
  c.seed = o.seed;
  c.gpu.name = gpu.name;
  c.gpu.gpu_class = gpu.gpu_class();
  c.gpu.arch = "sm_" + std::to_string(gpu.cc_major) + std::to_string(gpu.cc_minor) + (gpu.cc_major == 9 ? "a" : "");
  c.gpu.sm_count = gpu.sm_count;
  c.gpu.driver = gpu.driver;
  c.gpu.cuda_runtime = gpu.cuda_runtime;
  c.gpu.nvcc = KDA_NVCC_VERSION;
  if (gpu.sm_clock_max_mhz > 0) c.gpu.clocks = report::gpu_clocks{static_cast<double>(gpu.sm_clock_max_mhz), {}, {}};
  c.kernel_library.path = lib.path();
  c.kernel_library.build_id = lib.build_id();
  const auto pos = c.kernel_library.build_id.find(" git ");
  if (pos != std::string::npos) {
    const auto end = c.kernel_library.build_id.find(' ', pos + 5);
    c.kernel_library.git_revision = c.kernel_library.build_id.substr(pos + 5, end - pos - 5);
  }
  c.harness.version = KDA_VERSION;
  c.harness.git_revision = KDA_GIT_REVISION;
  c.method.samples = o.samples;
  c.method.calls_per_sample = o.calls;
  c.method.warmup = o.warmup;
  return c;
}

std::string default_out_path() {
  const std::time_t now = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "results/%Y%m%d-%H%M%S.json", std::gmtime(&now));
  return buf;
}

host_inputs make_inputs(const run_options& o, const scenario& scen, const row_key& key, decay_regime decay) {
  if (!o.inputs_dir.empty()) {
    io::loaded_inputs li = io::load_dump_inputs(o.inputs_dir);
    if (li.inputs.gate != key.gate) {
      throw std::invalid_argument("--inputs " + o.inputs_dir + " holds the " + std::string(to_string(li.inputs.gate)) +
                                  " gate form but the row key asks for " + std::string(to_string(key.gate)));
    }
    li.inputs.l2n = key.l2n;
    return std::move(li.inputs);
  }
  return generate_inputs(dims_of(scen), key.gate, input_spec{scen.name, o.seed, decay, key.l2n}, o.threads);
}

// Runs what the build offers of fwd (+ bwd) once, on poisoned outputs, and brings them back.
host_outputs run_once(device_row& row, bool with_bwd) {
  row.poison_outputs();
  row.run(op_kind::fwd, nullptr);
  if (with_bwd) row.run(op_kind::bwd, nullptr);
  return row.download(with_bwd);
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::vector<std::pair<std::string, const std::vector<float>*>> named_outputs(const host_outputs& h,
                                                                             gate_form gate) {
  std::vector<std::pair<std::string, const std::vector<float>*>> v{{"o", &h.o}};
  if (h.has_backward) {
    v.insert(v.end(), {{"dq", &h.dq}, {"dk", &h.dk}, {"dv", &h.dv}, {"dbeta", &h.dbeta},
                       {gate == gate_form::raw ? "dx" : "dg", &h.dgate}});
    if (gate == gate_form::raw) v.insert(v.end(), {{"dA_log", &h.dA_log}, {"ddt_bias", &h.ddt_bias}});
  }
  return v;
}

void print_checks(const row_key& key, decay_regime decay, const std::vector<tensor_check>& checks) {
  std::printf("\naccuracy %s, %s decay (rel-L2 vs FP64)\n", key.str().c_str(), std::string(to_string(decay)).c_str());
  std::printf("  %-8s %10s %10s %9s %10s %9s  %s\n", "tensor", "rel_l2", "floor", "x floor", "threshold", "x FLA",
              "verdict");
  for (const auto& c : checks) {
    const double vs_fla = c.fla_level > 0 ? c.error.rel_l2 / c.fla_level : 0.0;
    std::printf("  %-8s %10.3e %10.3e %9.2f %10.2e %9.2f  %s%s%s\n", c.error.tensor.c_str(), c.error.rel_l2,
                c.error.floor_rel_l2, c.error.err_over_floor, c.threshold, vs_fla, c.pass ? "ok" : "FAIL",
                c.error.note.empty() ? "" : "  ", c.error.note.c_str());
  }
}

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

std::filesystem::path dump_dir_for(const run_options& o, const row_key& key, std::size_t key_count) {
  std::filesystem::path dir(o.dump_dir);
  if (key_count == 1) return dir;
  std::string name = key.str();
  for (char& ch : name) ch = ch == ':' ? '_' : ch;
  return dir / name;
}

} // namespace

int cmd_run(const run_options& o, const std::string& command_line) {
  const scenario_catalog catalog = load_catalog(o.scenarios);
  const std::vector<row_key> keys = expand_row_keys(o.rows, catalog);
  const std::vector<op_kind> ops = parse_ops(o.ops);
  const std::vector<decay_regime> decays = parse_decays(o.decay, o.check);
  const timing_method method{o.samples, o.calls, o.warmup};

  std::string why;
  const auto gpu = describe_gpu(0, &why);
  if (!gpu) {
    spdlog::error("{}: the main job needs an NVIDIA GPU. Without one these work: kda-bench list, "
                  "kda-bench reference, kda-bench table, kda-bench compare",
                  why);
    return k_exit_no_device;
  }
  const std::string lib_path = o.library.empty() ? default_kernel_library_path() : o.library;
  if (lib_path.empty()) {
    spdlog::error("no kernel library is built (libkda.so not found next to kda-bench or in $KDA_LIBRARY); "
                  "build the `kda` target or pass --library PATH");
    return k_exit_no_device;
  }
  const kernel_library lib(lib_path);
  spdlog::info("GPU {} | {}", gpu->gpu_class(), lib.build_id());

  // Never overwrite an existing results file unless asked: check before spending GPU time.
  const std::string out_path = o.out.empty() ? default_out_path() : o.out;
  if (std::filesystem::exists(out_path) && !o.force) {
    spdlog::error("{} exists; pass --force to overwrite it or choose another --out", out_path);
    return k_exit_usage;
  }

  report::results_doc doc;
  doc.context = make_context(*gpu, lib, o, command_line);
  bool failed = false;
  timing_stream ts;

  for (std::size_t ki = 0; ki < keys.size(); ++ki) {
    const row_key& key = keys[ki];
    const scenario& scen = *catalog.find(key.rows);
    spdlog::info("[{}/{}] {}: {} tokens in {} sequences, {} heads", ki + 1, keys.size(), key.str(),
                 scen.total_tokens(), scen.seq_lens.size(), scen.heads);
    const host_inputs inputs = make_inputs(o, scen, key, decays.front());
    device_row row(lib, inputs, key.path);
    const bool can_bwd = lib.has_bwd();

    if (!o.no_timing) {
      for (op_kind op : ops) {
        if (uses_backward(op) && !can_bwd) {
          spdlog::warn("{} {}: skipped, this kernel library has no backward", key.str(), to_string(op));
          continue;
        }
        if (op == op_kind::bwd) row.prepare_backward(ts.get());
        const auto samples = time_samples(ts, [&](cudaStream_t s) { row.run(op, s); }, method);
        doc.timing.push_back(report::make_timing_entry(key.str(), op, samples));
        const auto& t = doc.timing.back();
        std::printf("%-28s %-8s median %9.4f ms  (min %.4f, max %.4f, IQR %.4f; %d x %d calls)\n", key.str().c_str(),
                    std::string(to_string(op)).c_str(), t.median_ms, t.min_ms, t.max_ms, t.iqr_ms, o.samples, o.calls);
      }
    }

    if (o.stages) {
      for (const char* op : {"fwd", "bwd"}) {
        const int n = lib.stage_count(op);
        if (n == 0) continue;
        row.run(op_kind::fwd, ts.get()); // every stage reads what the earlier ones wrote
        const kda_bwd_args a = row.args();
        for (int s = 0; s < n; ++s) {
          const auto samples = time_samples(
              ts, [&](cudaStream_t st) { lib.run_stage(row.plan(), op, s, a, st); }, method);
          const auto t = report::make_timing_entry(key.str(), op_kind::fwd, samples);
          std::printf("%-28s   stage %-14s median %9.4f ms  (min %.4f, max %.4f)\n", key.str().c_str(),
                      lib.stage_name(op, s).c_str(), t.median_ms, t.min_ms, t.max_ms);
        }
      }
    }

    std::optional<io::dump_writer> dump;
    if (!o.dump_dir.empty()) {
      const input_spec spec{scen.name, o.seed, decays.front(), key.l2n};
      dump.emplace(dump_dir_for(o, key, keys.size()), io::make_dump_info(key, spec), o.force);
      dump->write_inputs(inputs);
    }

    if (o.check || dump) {
      for (std::size_t di = 0; di < decays.size(); ++di) {
        const decay_regime decay = decays[di];
        if (!o.check && di > 0) break;
        const bool reuse = di == 0;
        std::optional<host_inputs> other;
        if (!reuse) other = make_inputs(o, scen, key, decay);
        const host_inputs& in = reuse ? inputs : *other;
        std::optional<device_row> other_row;
        if (!reuse) other_row.emplace(lib, in, key.path);
        device_row& r = reuse ? row : *other_row;
        const host_outputs got = run_once(r, can_bwd);
        const std::string default_heads = in.dims.heads <= 8 ? "" : "4";
        const auto heads = select_heads(o.check_heads.empty() ? default_heads : o.check_heads, in.dims.heads);
        auto last = std::chrono::steady_clock::now();
        const auto ref = reference_for(in, heads, can_bwd, o.threads, [&](std::int64_t done, std::int64_t total) {
          const auto now = std::chrono::steady_clock::now();
          if (now - last > std::chrono::seconds(2) || done == total) {
            spdlog::info("  reference {} ({} decay): {}/{} (sequence, head) pairs", key.str(), to_string(decay), done,
                         total);
            last = now;
          }
        });
        const auto checks = check_outputs(in, got, ref, decay);
        print_checks(key, decay, checks);
        for (const auto& c : checks) {
          doc.accuracy.push_back(to_entry(key, decay, c, heads));
          if (o.check && !c.pass) failed = true;
        }
        if (dump && reuse) {
          const std::int64_t T = in.dims.tokens(), H = in.dims.heads, K = in.dims.k_dim, V = in.dims.v_dim;
          const std::int64_t Hs = static_cast<std::int64_t>(heads.size());
          dump->write_output("o", got.o, {T, H, V});
          dump->write_reference("o", ref.o, {T, Hs, V});
          if (got.has_backward) {
            dump->write_output("dq", got.dq, {T, H, K});
            dump->write_output("dk", got.dk, {T, H, K});
            dump->write_output("dv", got.dv, {T, H, V});
            dump->write_output("dbeta", got.dbeta, {T, H});
            const char* dg = in.gate == gate_form::raw ? "dx" : "dg";
            dump->write_output(dg, got.dgate, {T, H, K});
            dump->write_reference("dq", ref.dq, {T, Hs, K});
            dump->write_reference("dk", ref.dk, {T, Hs, K});
            dump->write_reference("dv", ref.dv, {T, Hs, V});
            dump->write_reference("dbeta", ref.dbeta, {T, Hs});
            dump->write_reference(dg, ref.dgate, {T, Hs, K});
            if (in.gate == gate_form::raw) {
              dump->write_output("dA_log", got.dA_log, {H});
              dump->write_output("ddt_bias", got.ddt_bias, {H, K});
              dump->write_reference("dA_log", ref.dA_log, {Hs});
              dump->write_reference("ddt_bias", ref.ddt_bias, {Hs, K});
            }
          }
          dump->write_reference_heads(heads);
        }
      }
    }

    if (o.repeat_check > 1) {
      const host_outputs first = run_once(row, can_bwd);
      report::determinism_entry d;
      d.row = key.str();
      d.op = can_bwd ? op_kind::fwd_bwd : op_kind::fwd;
      d.runs = o.repeat_check;
      for (const auto& [name, v] : named_outputs(first, inputs.gate)) d.tensors[name] = true;
      for (int r = 1; r < o.repeat_check; ++r) {
        const host_outputs again = run_once(row, can_bwd);
        const auto a = named_outputs(first, inputs.gate), b = named_outputs(again, inputs.gate);
        for (std::size_t i = 0; i < a.size(); ++i) {
          if (!same_bits(*a[i].second, *b[i].second)) d.tensors[a[i].first] = false;
        }
      }
      std::printf("\nrepeat-check %s: %d runs:", key.str().c_str(), o.repeat_check);
      for (const auto& [name, same] : d.tensors) {
        std::printf(" %s %s", name.c_str(), same ? "identical" : "DIFFERENT");
        d.identical = d.identical && same;
      }
      std::printf("\n");
      if (!d.identical) failed = true;
      doc.determinism.push_back(d);
    }
  }

  report::write_results(out_path, doc, o.force);
  spdlog::info("results written to {}", out_path);
  if (failed) spdlog::error("a check failed (see above)");
  return failed ? k_exit_failure : k_exit_ok;
}

} // namespace kda::cli
