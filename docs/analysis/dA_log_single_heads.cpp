// dA_log of single heads of a row under the GPU storage emulation (rounding_analysis's options),
// v44 storage against v45 (kgC at TF32 precision).
// One-off analysis (session 25; docs/backward-design.md, "kg at TF32 precision"). Build from the
// repository root after the main build:
//   c++ -Ireference/include -Isrc -isystem /usr/include/eigen3 -O3 -std=gnu++20 -ffp-contract=off
//       docs/analysis/dA_log_single_heads.cpp build/reference/libkda_reference.a build/src/libkda_core.a -o /tmp/dA_log_single_heads
//   dA_log_single_heads SCENARIO FIRST_HEAD LAST_HEAD [fused] [normal]   (default off, fast)
#include <cmath>
#include <cstdio>
#include <string>
#include "core/inputs.hpp"
#include "core/scenario.hpp"
#include "kda_reference.hpp"
#include "kda_reference_chunked.hpp"
#include "kda_reference_inputs.hpp"
using namespace kda::ref;
int main(int argc, char** argv) {
  const char* scen_name = argv[1];
  const int h0 = atoi(argv[2]), h1 = atoi(argv[3]);
  const bool fused = argc > 4 && std::string(argv[4]) == "fused";
  const auto decay = argc > 5 && std::string(argv[5]) == "normal" ? kda::decay_regime::normal : kda::decay_regime::fast;
  kda::scenario_catalog catalog;
  catalog.add_directory(kda::default_scenario_dir());
  const kda::problem_dims d = kda::dims_of(*catalog.find(scen_name));
  using st = chunked_options::storage;
  chunked_options base;
  base.intra_tiles = base.saved_set = base.state_grad = st::bf16;
  base.only.u = st::tf32; base.only.v_new = st::tf32;
  base.tf32_pair_products = chunked_options::pair_rounding::dP_only;
  base.grad_dv_new = st::tf32; base.bwd_only.qg = st::tf32;
  chunked_options kg = base; kg.only.kgC = st::tf32;
  const kda::input_spec spec{scen_name, 1, decay, fused ? kda::l2n_mode::fused : kda::l2n_mode::off};
  for (int h = h0; h <= h1; ++h) {
    double ref = 0, abs = 0, a = 0, b = 0;
    for (int s = 0; s < d.sequences(); ++s) {
      head_problem p = generate_head_problem(d, kda::gate_form::raw, spec, s, h);
      head_results r = forward_backward(p);
      ref += r.gradients.dA_log; abs += r.gradients.dA_log_abs_terms;
      a += trace_chunked(p, base).results.gradients.dA_log;
      b += trace_chunked(p, kg).results.gradients.dA_log;
    }
    std::printf("%s head %d %s %s: cancellation x%.0f  dA_log rel err v44 storage %.3e, v45 (kgC) %.3e\n", scen_name, h,
                fused ? "fused" : "off", decay == kda::decay_regime::fast ? "fast" : "normal", abs / std::fabs(ref),
                std::fabs(a - ref) / std::fabs(ref), std::fabs(b - ref) / std::fabs(ref));
    std::fflush(stdout);
  }
}
