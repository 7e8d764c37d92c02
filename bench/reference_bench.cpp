// How long the FP64 reference takes on the host: the ground truth of a whole row (what an accuracy
// run waits for) and of one (sequence, head) pair (what the recurrence alone costs).
// Rows come from scenarios/ (m2, 4doc) with their inputs from the counter-based generator, variant
// g:off, normal decay.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/inputs.hpp"
#include "core/scenario.hpp"
#include "kda_reference.hpp"
#include "kda_reference_inputs.hpp"

namespace {

const kda::scenario& find_scenario(const std::string& name) {
  static const kda::scenario_catalog catalog = [] {
    kda::scenario_catalog c;
    c.add_directory(kda::default_scenario_dir());
    return c;
  }();
  const kda::scenario* s = catalog.find(name);
  if (!s) throw std::runtime_error("reference_bench: no scenario '" + name + "'");
  return *s;
}

kda::input_spec spec_of(const std::string& scenario) {
  return kda::input_spec{scenario, 0, kda::decay_regime::normal, kda::l2n_mode::off};
}

// Whole row, every head, forward and backward, on all hardware threads. The source regenerates
// each pair's inputs, so input generation is part of the measured time, as in an accuracy run.
// Memory: the head-compact results of 4doc alone are 5 GB (6 tensors of T x 64 x 128 doubles).
void row_fwd_bwd(benchmark::State& state, const std::string& scenario) {
  const kda::problem_dims d = kda::dims_of(find_scenario(scenario));
  const kda::input_spec spec = spec_of(scenario);
  std::vector<int> heads(d.heads);
  std::iota(heads.begin(), heads.end(), 0);
  const kda::ref::head_source source = [&](int seq, int head) {
    return kda::ref::generate_head_problem(d, kda::gate_form::g, spec, seq, head);
  };
  kda::ref::row_options options;
  options.threads = 0;
  options.head_count = d.heads;
  for (auto _ : state) {
    const kda::ref::row_result r =
        kda::ref::run_row(d.cu_seqlens, heads, d.k_dim, d.v_dim, source, options);
    benchmark::DoNotOptimize(r.o.data());
  }
  const double tokens = static_cast<double>(d.tokens()) * state.iterations();
  state.counters["tokens_per_s"] = benchmark::Counter(tokens, benchmark::Counter::kIsRate);
  state.counters["head_tokens_per_s"] =
      benchmark::Counter(tokens * d.heads, benchmark::Counter::kIsRate);
  state.counters["threads"] = std::thread::hardware_concurrency();
}

// One (sequence, head) pair of a row on one thread; inputs generated before the timing.
void head(benchmark::State& state, const std::string& scenario, int seq, bool with_backward) {
  const kda::problem_dims d = kda::dims_of(find_scenario(scenario));
  const kda::ref::head_problem p =
      kda::ref::generate_head_problem(d, kda::gate_form::g, spec_of(scenario), seq, 0);
  for (auto _ : state) {
    if (with_backward) {
      const kda::ref::head_results r = kda::ref::forward_backward(p);
      benchmark::DoNotOptimize(r.gradients.dq.data());
    } else {
      const kda::ref::head_outputs r = kda::ref::forward(p);
      benchmark::DoNotOptimize(r.o.data());
    }
  }
  state.counters["tokens_per_s"] = benchmark::Counter(
      static_cast<double>(d.seq_len(seq)) * state.iterations(), benchmark::Counter::kIsRate);
}

// The source side of a row: regenerating one pair's inputs (part of every row case above).
void generate_head(benchmark::State& state, const std::string& scenario, int seq) {
  const kda::problem_dims d = kda::dims_of(find_scenario(scenario));
  const kda::input_spec spec = spec_of(scenario);
  for (auto _ : state) {
    const kda::ref::head_problem p =
        kda::ref::generate_head_problem(d, kda::gate_form::g, spec, seq, 0);
    benchmark::DoNotOptimize(p.q.data());
  }
  state.counters["tokens_per_s"] = benchmark::Counter(
      static_cast<double>(d.seq_len(seq)) * state.iterations(), benchmark::Counter::kIsRate);
}

void row_settings(benchmark::internal::Benchmark* b) {
  b->UseRealTime()->Unit(benchmark::kSecond)->Iterations(1);
}

} // namespace

BENCHMARK_CAPTURE(row_fwd_bwd, m2, std::string("m2"))->Apply(row_settings);
BENCHMARK_CAPTURE(row_fwd_bwd, 4doc, std::string("4doc"))->Apply(row_settings);
BENCHMARK_CAPTURE(head, fwd_bwd_m2_seq0, std::string("m2"), 0, true)->Apply(row_settings);
BENCHMARK_CAPTURE(head, fwd_bwd_4doc_seq0, std::string("4doc"), 0, true)->Apply(row_settings);
BENCHMARK_CAPTURE(head, fwd_4doc_seq0, std::string("4doc"), 0, false)->Apply(row_settings);
BENCHMARK_CAPTURE(generate_head, m2_seq0, std::string("m2"), 0)->Apply(row_settings);

BENCHMARK_MAIN();
