// Where the GPU backward's gradient error comes from (docs/backward-design.md, "Where the
// gate-gradient error comes from"): the FP64 chunked reference with the GPU's bf16 storage
// emulated at one place at a time (chunked_options::bf16_*), against the FP64 recurrence on the
// same inputs. Prints rel-L2 per tensor; not a test (it asserts nothing) and not a benchmark.
//   rounding_analysis [T] [seeds] [per-tensor]
//     (default T = 1024, 3 seeds; K = V = 128, one head). "per-tensor": instead of the storage
//     classes, one tensor at a time: each of w, u, qg, kgC, Aqk, h, v_new raised to tf32 with the
//     rest in bf16, and lowered to bf16 with the rest in tf32 (dh, dv_new in bf16 throughout).
//     "raise=u,v_new;u,v_new,h;...": each ';'-separated set of those tensors raised to tf32 together,
//     the rest in bf16; "dstate" in a set raises dh and dv_new (bwd_dh's operands and outputs);
//     "pairs" runs stage 4's sub-block products on TF32 operands as bwd_grad does ("pairs-dP",
//     "pairs-ab": only dP, only the a/b side rounded); "grad-dv_new": bwd_grad reads dv_new at TF32
//     precision while bwd_dh's own product keeps its bf16 operand; "bwd-w", "bwd-qg", "bwd-kgC",
//     "bwd-Aqk": bwd_dh reads that intra tile at TF32 precision, the forward keeping bf16; a
//     set ending in "/bwd-bf16" has the gradient stages read h and v_new in bf16 (a saved set kept
//     narrow while the forward's products are raised).
//   rounding_analysis row=SCENARIO [seed] [raise=...] [gate=g|raw] [l2n=off|fused] [heads=N] [per-head]
//     The same variants on a harness row's own inputs (the counter-based generator, every
//     (sequence, head) pair of the scenario, both decays; seed default 1, the harness's; gate
//     default raw, l2n default off): rel-L2 per tensor over the row as `kda-bench --check` prints
//     it; raw gate: dA_log as the [H] vector summed over sequences, and its error over sum |dg g|.
//     Compares the emulation with a GPU check of the same row and seed (a GPU test's inputs:
//     the test's scenario name and seed, e.g. row=m2 7 for bwd_vs_reference.m2_all_heads).
//     heads=N: the first N heads only (a big row's sampled heads: the nightly checks head 0).
//     per-head (raw gate): also each head's dA_log error and its cancellation (sum |dg g| over
//     |dA_log|), since one ill-conditioned head can hold the whole [H] vector's error (session 25:
//     4doc's head 0 at fast decay cancels 12 053-fold, docs/backward-design.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include "core/inputs.hpp"
#include "core/scenario.hpp"
#include "kda_reference.hpp"
#include "kda_reference_inputs.hpp"
#include "kda_reference_chunked.hpp"
#include "../tests/reference/test_problems.hpp"

namespace {

using namespace kda::ref;
using kda::decay_regime;
using kda::gate_form;

double rel_l2(const mat& got, const mat& ref) { return (got - ref).norm() / ref.norm(); }
double rel_l2(const vec& got, const vec& ref) { return (got - ref).norm() / ref.norm(); }

struct variant {
  std::string name;
  chunked_options opt;
};

// Row mode: every (sequence, head) pair of one scenario.
void run_row(const std::string& scenario_name, std::uint64_t seed, gate_form gate, kda::l2n_mode l2n,
             const std::vector<variant>& variants, int max_heads, bool per_head) {
  kda::scenario_catalog catalog;
  catalog.add_directory(kda::default_scenario_dir());
  const kda::scenario* scen = catalog.find(scenario_name);
  if (!scen) throw std::runtime_error("rounding_analysis: no scenario '" + scenario_name + "'");
  const kda::problem_dims d = kda::dims_of(*scen);
  const int heads = max_heads > 0 ? std::min(max_heads, d.heads) : d.heads;
  const bool raw = gate == gate_form::raw;
  std::printf("row %s (%d sequences, %d of %d heads), seed %llu, %s gate, l2n %s; rel-L2 vs the FP64 recurrence\n",
              scenario_name.c_str(), d.sequences(), heads, d.heads, static_cast<unsigned long long>(seed),
              raw ? "raw" : "g", l2n == kda::l2n_mode::fused ? "fused" : "off");
  for (const auto decay : {decay_regime::normal, decay_regime::fast}) {
    const kda::input_spec spec{scenario_name, seed, decay, l2n};
    std::vector<head_problem> problems;
    std::vector<head_results> refs;
    for (int h = 0; h < heads; ++h) {
      for (int s = 0; s < d.sequences(); ++s) {
        problems.push_back(kda::ref::generate_head_problem(d, gate, spec, s, h));
        refs.push_back(forward_backward(problems.back()));
      }
    }
    std::printf("\n%s decay\n%-34s %10s %10s %10s %10s %10s %10s %10s %12s\n",
                decay == decay_regime::normal ? "normal" : "fast", "raised", "o", "dq", "dk", "dv", "dbeta",
                raw ? "dx" : "dg", "dA_log", "err/sum|dgg|");
    for (const variant& v : variants) {
      // sums of squares of error and reference per tensor (o, dq, dk, dv, dbeta, dx), over the row
      double err[6] = {}, nrm[6] = {};
      const auto add = [&](int t, const auto& got, const auto& ref) {
        err[t] += (got - ref).squaredNorm();
        nrm[t] += ref.squaredNorm();
      };
      const Eigen::Index K = d.k_dim;
      vec dA = vec::Zero(heads), dA_ref = vec::Zero(heads), abs_terms = vec::Zero(heads);
      vec dd = vec::Zero(heads * K), dd_ref = vec::Zero(heads * K);
      for (std::size_t i = 0; i < problems.size(); ++i) {
        const int h = static_cast<int>(i) / d.sequences();
        const head_results got = trace_chunked(problems[i], v.opt).results;
        const head_results& ref = refs[i];
        add(0, got.outputs.o, ref.outputs.o);
        add(1, got.gradients.dq, ref.gradients.dq);
        add(2, got.gradients.dk, ref.gradients.dk);
        add(3, got.gradients.dv, ref.gradients.dv);
        add(4, got.gradients.dbeta, ref.gradients.dbeta);
        add(5, got.gradients.dgate, ref.gradients.dgate);
        dA[h] += got.gradients.dA_log;
        dA_ref[h] += ref.gradients.dA_log;
        abs_terms[h] += ref.gradients.dA_log_abs_terms;
        dd.segment(h * K, K) += got.gradients.ddt_bias;
        dd_ref.segment(h * K, K) += ref.gradients.ddt_bias;
      }
      std::printf("%-34s", v.name.c_str());
      for (int t = 0; t < 6; ++t) std::printf(" %10.3e", std::sqrt(err[t] / nrm[t]));
      if (raw) {
        std::printf(" %10.3e %12.2e   ddt_bias %9.3e\n", rel_l2(dA, dA_ref), (dA - dA_ref).norm() / abs_terms.norm(),
                    rel_l2(dd, dd_ref));
      } else {
        std::printf(" %10s %12s\n", "-", "-");
      }
      if (raw && per_head) {
        for (int h = 0; h < heads; ++h) {
          std::printf("    head %3d: dA_log rel err %9.3e, cancellation x%.0f\n", h,
                      std::fabs(dA[h] - dA_ref[h]) / std::fabs(dA_ref[h]), abs_terms[h] / std::fabs(dA_ref[h]));
        }
      }
    }
  }
}

} // namespace

int main(int argc, char** argv) {
  const bool row_mode = argc > 1 && std::strncmp(argv[1], "row=", 4) == 0;
  const int T = argc > 1 && !row_mode ? std::atoi(argv[1]) : 1024;
  const int seeds = argc > 2 ? std::atoi(argv[2]) : 3;
  using st = chunked_options::storage;
  // name, then the storage of the intra tiles, of h and v_new, of dh and dv_new.
  const auto make = [](std::string name, st intra, st saved, st grad) {
    variant v{std::move(name), {}};
    v.opt.intra_tiles = intra;
    v.opt.saved_set = saved;
    v.opt.state_grad = grad;
    return v;
  };
  std::vector<variant> variants = {
      make("fp64", st::exact, st::exact, st::exact),
      make("intra bf16", st::bf16, st::exact, st::exact),
      make("h,v_new bf16", st::exact, st::bf16, st::exact),
      make("dh,dv_new bf16", st::exact, st::exact, st::bf16),
      make("all bf16 (GPU v2)", st::bf16, st::bf16, st::bf16),
      make("tf32,tf32,bf16", st::tf32, st::tf32, st::bf16),
      make("tf32,bf16,bf16", st::tf32, st::bf16, st::bf16),
      make("bf16,tf32,bf16", st::bf16, st::tf32, st::bf16),
      make("all tf32", st::tf32, st::tf32, st::tf32),
  };
  // The forward as the kernels run it (bf16 operands and intra tiles), the backward reading wider
  // copies: the intra tiles for bwd_dh, and h, v_new from the forward's FP32 state/accumulators.
  const auto wide_bwd = [&](const char* name, st tiles, st saved) {
    variant v = make(name, st::bf16, st::bf16, st::bf16);
    v.opt.bwd_intra_tiles = tiles;
    v.opt.bwd_saved_set = saved;
    return v;
  };
  variants.push_back(wide_bwd("fwd bf16|bwd tf32,fp32", st::tf32, st::fp32));
  variants.push_back(wide_bwd("fwd bf16|bwd bf16,fp32", st::bf16, st::fp32));
  variants.push_back(wide_bwd("fwd bf16|bwd tf32,bf16", st::tf32, st::bf16));

  using slot = std::optional<st> chunked_options::per_tensor::*;
  const struct {
    const char* name;
    slot member;
  } tensors[] = {{"w", &chunked_options::per_tensor::w},     {"u", &chunked_options::per_tensor::u},
                 {"qg", &chunked_options::per_tensor::qg},   {"kgC", &chunked_options::per_tensor::kgC},
                 {"Aqk", &chunked_options::per_tensor::Aqk}, {"h", &chunked_options::per_tensor::h},
                 {"v_new", &chunked_options::per_tensor::v_new}, {"dh", &chunked_options::per_tensor::dh},
                 {"dv_new", &chunked_options::per_tensor::dv_new}};
  if (argc > 3 && std::strcmp(argv[3], "per-tensor") == 0) {
    variants = {make("all bf16 (GPU v5)", st::bf16, st::bf16, st::bf16),
                make("tf32,tf32,bf16", st::tf32, st::tf32, st::bf16)};
    for (const auto& t : tensors) {
      variant up = make(std::string("bf16, ") + t.name + " tf32", st::bf16, st::bf16, st::bf16);
      up.opt.only.*(t.member) = st::tf32;
      variants.push_back(up);
    }
    for (const auto& t : tensors) {
      variant down = make(std::string("tf32, ") + t.name + " bf16", st::tf32, st::tf32, st::bf16);
      down.opt.only.*(t.member) = st::bf16;
      variants.push_back(down);
    }
  } else if (argc > 3 && std::strncmp(argv[3], "raise=", 6) == 0) {
    variants = {make("all bf16 (GPU v5)", st::bf16, st::bf16, st::bf16)};
    std::string sets = argv[3] + 6;
    for (std::size_t a = 0; a <= sets.size();) {
      const std::size_t b = std::min(sets.find(';', a), sets.size());
      std::string set = sets.substr(a, b - a);
      constexpr std::string_view narrow_saved = "/bwd-bf16";
      const bool bwd_bf16 = set.size() > narrow_saved.size() && set.ends_with(narrow_saved);
      if (bwd_bf16) set.resize(set.size() - narrow_saved.size());
      variant v = make("bf16, " + set + " tf32" + (bwd_bf16 ? ", bwd reads bf16" : ""), st::bf16, st::bf16, st::bf16);
      if (bwd_bf16) v.opt.bwd_saved_set = st::bf16;
      const std::string listed = "," + set + ",";
      const auto has = [&](const std::string& token) { return listed.find("," + token + ",") != std::string::npos; };
      using pr = chunked_options::pair_rounding;
      if (has("dstate")) v.opt.state_grad = st::tf32;
      if (has("grad-dv_new")) v.opt.grad_dv_new = st::tf32;
      if (has("pairs")) v.opt.tf32_pair_products = pr::tf32;
      if (has("pairs-dP")) v.opt.tf32_pair_products = pr::dP_only;
      if (has("pairs-ab")) v.opt.tf32_pair_products = pr::ab_only;
      for (const auto& t : tensors) {
        if (has(t.name)) v.opt.only.*(t.member) = st::tf32;
        if (has(std::string("bwd-") + t.name)) v.opt.bwd_only.*(t.member) = st::tf32;
      }
      variants.push_back(v);
      a = b + 1;
    }
  }

  if (row_mode) {
    gate_form gate = gate_form::raw;
    kda::l2n_mode l2n = kda::l2n_mode::off;
    int max_heads = 0; // all
    bool per_head = false;
    for (int i = 3; i < argc; ++i) {
      const std::string_view a = argv[i];
      if (a == "per-tensor" || a.starts_with("raise=")) continue; // the variants, read above
      if (a.starts_with("heads=") && std::atoi(argv[i] + 6) > 0) {
        max_heads = std::atoi(argv[i] + 6);
      } else if (a == "per-head") {
        per_head = true;
      } else if (a == "gate=g" || a == "gate=raw") {
        gate = a == "gate=g" ? gate_form::g : gate_form::raw;
      } else if (a == "l2n=off" || a == "l2n=fused") {
        l2n = a == "l2n=fused" ? kda::l2n_mode::fused : kda::l2n_mode::off;
      } else {
        std::fprintf(stderr, "rounding_analysis: unknown row option '%s' (gate=g|raw, l2n=off|fused, heads=N, per-head)\n",
                     argv[i]);
        return 2;
      }
    }
    run_row(argv[1] + 4, argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1, gate, l2n, variants, max_heads, per_head);
    return 0;
  }
  std::printf("T = %d, K = V = 128, %d seeds; rel-L2 vs the FP64 recurrence (root mean square over seeds)\n"
              "storage of: intra tiles (w, u, qg, kg, Aqk), h and v_new, dh and dv_new\n", T, seeds);
  for (const auto gate : {gate_form::g, gate_form::raw}) {
    for (const auto decay : {decay_regime::normal, decay_regime::fast}) {
      std::printf("\n%s gate, %s decay\n%-26s %10s %10s %10s %10s %10s %10s %10s %10s\n",
                  gate == gate_form::g ? "g" : "raw", decay == decay_regime::normal ? "normal" : "fast", "bf16 at", "o",
                  "dq", "dk", "dv", "dbeta", "dg/dx", "dA_log", "ddt_bias");
      for (const variant& v : variants) {
        double e[8] = {};
        for (int s = 0; s < seeds; ++s) {
          const head_problem p = testing::full_size_problem(gate, decay, T, 1000 + static_cast<std::uint64_t>(s));
          const head_results ref = forward_backward(p);
          const head_results got = trace_chunked(p, v.opt).results;
          const bool raw = gate == gate_form::raw;
          const double x[8] = {rel_l2(got.outputs.o, ref.outputs.o), rel_l2(got.gradients.dq, ref.gradients.dq),
                               rel_l2(got.gradients.dk, ref.gradients.dk), rel_l2(got.gradients.dv, ref.gradients.dv),
                               rel_l2(got.gradients.dbeta, ref.gradients.dbeta),
                               rel_l2(got.gradients.dgate, ref.gradients.dgate),
                               raw ? std::abs(got.gradients.dA_log - ref.gradients.dA_log) /
                                         std::abs(ref.gradients.dA_log)
                                   : 0.0,
                               raw ? rel_l2(got.gradients.ddt_bias, ref.gradients.ddt_bias) : 0.0};
          for (int i = 0; i < 8; ++i) e[i] += x[i] * x[i] / seeds;
        }
        std::printf("%-26s", v.name.c_str());
        for (double x : e) std::printf(" %10.2e", std::sqrt(x));
        std::printf("\n");
      }
    }
  }
  return 0;
}
