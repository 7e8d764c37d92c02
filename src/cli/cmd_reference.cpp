// `kda-bench reference --rows KEY --dump DIR`: the FP64 reference alone, on the CPU. Regenerates
// only the checked heads' inputs, runs forward and backward, refuses non-finite results, and
// dumps the inputs (whole row) and the float64 outputs of the checked heads.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "check/row_check.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/run_parsing.hpp"
#include "core/outputs.hpp"
#include "core/row_key.hpp"
#include "io/dump.hpp"
#include "kda_reference_inputs.hpp"

namespace kda::cli {
namespace {

// The first non-finite value of a reference tensor, or "".
std::string first_non_finite(const char* name, const std::vector<double>& v) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) return std::string(name) + "[" + std::to_string(i) + "] = " + std::to_string(v[i]);
  }
  return {};
}

} // namespace

int cmd_reference(const reference_options& o) {
  const scenario_catalog catalog = load_catalog(o.scenarios);
  const auto keys = expand_row_keys(o.rows, catalog);
  if (keys.size() != 1) throw std::invalid_argument("reference: --rows must name exactly one row key");
  const row_key key = keys.front();
  const auto decays = parse_decays(o.decay, false);
  if (decays.size() != 1) throw std::invalid_argument("reference: --decay takes one value");
  const scenario& scen = *catalog.find(key.rows);
  const problem_dims dims = dims_of(scen);
  const input_spec spec{scen.name, o.seed, decays.front(), key.l2n};
  const auto heads = select_heads(o.check_heads, dims.heads);

  std::optional<io::dump_writer> dump;
  if (!o.dump_dir.empty()) dump.emplace(o.dump_dir, io::make_dump_info(key, spec), o.force);

  ref::row_options opt;
  opt.backward = !o.forward_only;
  opt.threads = o.threads;
  const auto t0 = std::chrono::steady_clock::now();
  auto last = t0;
  opt.progress = [&](std::int64_t done, std::int64_t total) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last > std::chrono::seconds(2) || done == total) {
      spdlog::info("reference {}: {}/{} (sequence, head) pairs", key.str(), done, total);
      last = now;
    }
  };
  const ref::row_result r = ref::run_row(
      dims.cu_seqlens, heads, dims.k_dim, dims.v_dim,
      [&](int s, int h) { return ref::generate_head_problem(dims, key.gate, spec, s, h); }, opt);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  spdlog::info("reference {}: {} heads, {} in {:.2f} s", key.str(), heads.size(),
               o.forward_only ? "forward" : "forward + backward", secs);

  const auto tensors = named_tensors(r, key.gate);
  for (const auto& [name, v] : tensors) {
    const std::string bad = first_non_finite(name.c_str(), *v);
    if (!bad.empty()) {
      spdlog::error("reference result is not finite: {} (nothing dumped for it)", bad);
      return k_exit_failure;
    }
  }
  if (dump) {
    const host_inputs in = generate_inputs(dims, key.gate, spec, o.threads);
    dump->write_inputs(in);
    const std::int64_t T = dims.tokens(), Hs = static_cast<std::int64_t>(heads.size()), K = dims.k_dim,
                       V = dims.v_dim;
    for (const auto& [name, v] : tensors) {
      const std::string n = name;
      std::vector<std::int64_t> shape = n == "o" || n == "dv" ? std::vector<std::int64_t>{T, Hs, V}
                                        : n == "dbeta"       ? std::vector<std::int64_t>{T, Hs}
                                        : n == "dA_log"      ? std::vector<std::int64_t>{Hs}
                                        : n == "ddt_bias"    ? std::vector<std::int64_t>{Hs, K}
                                                             : std::vector<std::int64_t>{T, Hs, K};
      dump->write_reference(n, *v, shape);
    }
    dump->write_reference_heads(heads);
    spdlog::info("dumped to {}", o.dump_dir);
  }
  return k_exit_ok;
}

} // namespace kda::cli
