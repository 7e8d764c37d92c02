// How much of dA_log's error at fast decay can the GPU's FP32 summation order alone make?
// Exact dg, g (FP64 reference) rounded to fp32, summed as bwd_grad + bwd_reduce do, against the
// FP64 sum of the same fp32 values.
// One-off analysis (session 25; docs/backward-design.md, "kg at TF32 precision"). Build from the
// repository root after the main build:
//   c++ -Ireference/include -Isrc -isystem /usr/include/eigen3 -O3 -std=gnu++20 -ffp-contract=off
//       docs/analysis/dA_log_fp32_summation.cpp build/reference/libkda_reference.a build/src/libkda_core.a -o /tmp/dA_log_fp32_summation
//   dA_log_fp32_summation [SCENARIO [HEAD [fused]]]   (default 4doc 0 off; both decays)
#include <cmath>
#include <cstdio>
#include <vector>
#include "core/inputs.hpp"
#include "core/scenario.hpp"
#include "kda_reference.hpp"
#include "kda_reference_inputs.hpp"
using namespace kda::ref;
int main(int argc, char** argv) {
  const char* scen_name = argc > 1 ? argv[1] : "4doc";
  int head = argc > 2 ? atoi(argv[2]) : 0;
  bool fused = argc > 3 && std::string(argv[3]) == "fused";
  kda::scenario_catalog catalog;
  catalog.add_directory(kda::default_scenario_dir());
  const kda::scenario* scen = catalog.find(scen_name);
  const kda::problem_dims d = kda::dims_of(*scen);
  for (auto decay : {kda::decay_regime::fast, kda::decay_regime::normal}) {
    const kda::input_spec spec{scen_name, 1, decay, fused ? kda::l2n_mode::fused : kda::l2n_mode::off};
    std::vector<float> parts;
    double exact = 0, exact_ref = 0, absterms = 0;
    for (int s = 0; s < d.sequences(); ++s) {
      head_problem p = generate_head_problem(d, kda::gate_form::raw, spec, s, head);
      head_results r = forward_backward(p);
      mat g = log_gate(p);
      const long T = p.q.rows(), K = p.q.cols();
      const double negA = -std::exp(p.A_log);
      exact_ref += r.gradients.dA_log;
      absterms += r.gradients.dA_log_abs_terms;
      for (long c0 = 0; c0 < T; c0 += 64) {
        const long L = std::min<long>(64, T - c0);
        float red[128];
        for (int k = 0; k < K; ++k) {
          float dA = 0.f;
          for (long t = c0 + L - 1; t >= c0; --t) {
            const double sig = 1.0 / (1.0 + std::exp(-(p.gate_in(t, k) + p.dt_bias(k))));
            const double dg = r.gradients.dgate(t, k) / (negA * sig);
            const float dgf = (float)dg, gf = (float)g(t, k);
            dA = std::fmaf(dgf, gf, dA);
            exact += (double)dgf * (double)gf;
          }
          red[k] = dA;
        }
        for (int w = 64; w >= 1; w >>= 1)
          for (int t = 0; t < w; ++t) red[t] += red[t + w];
        parts.push_back(red[0]);
      }
    }
    float a = 0.f;
    for (float x : parts) a += x;
    double ad = 0; for (float x : parts) ad += x;
    std::printf("%s head %d %s %s: dA_log ref %.9e, fp32-valued exact %.9e, cancellation x%.0f\n", scen_name, head,
                fused ? "fused" : "off", decay == kda::decay_regime::fast ? "fast" : "normal", exact_ref, exact,
                absterms / std::fabs(exact_ref));
    std::printf("  GPU-order fp32 sum %.9e: rel err %.3e (tiles in fp32, chunks summed in fp64: %.3e)\n", a,
                std::fabs(a - exact) / std::fabs(exact), std::fabs(ad - exact) / std::fabs(exact));
  }
}
