// Would a segment-parallel forward state pass (docs/segmented-state-pass.md) keep o as accurate as
// the serial pass the kernels run now? The FP64 reference with the GPU's storage emulated
// (forward_segmented, kda_reference_chunked.hpp): the serial pass as the kernels hold it (intra
// tiles and h, v_new in bf16), then the segmented pass with the same storage and the transition
// products (A = diag(exp(gamma_C)) - kgC^T w, P = A ... A, P h) as fp32, tf32 or bf16 operands,
// for several segment lengths; o rel-L2 against the FP64 recurrence, and against the serial pass
// with the same storage (what the segments add). Prints; asserts nothing.
//   segment_analysis [T] [seeds]     (default T = 4096 = 64 chunks, 2 seeds; K = V = 128, one head)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kda_reference.hpp"
#include "kda_reference_chunked.hpp"
#include "../tests/reference/test_problems.hpp"

namespace {

using namespace kda::ref;
using st = chunked_options::storage;

double rel_l2(const mat& got, const mat& ref) { return (got - ref).norm() / ref.norm(); }

const char* name(st s) {
  switch (s) {
  case st::exact: return "fp64";
  case st::fp32: return "fp32";
  case st::bf16: return "bf16";
  case st::tf32: return "tf32";
  }
  return "?";
}

} // namespace

int main(int argc, char** argv) {
  const int T = argc > 1 ? std::atoi(argv[1]) : 4096;
  const int seeds = argc > 2 ? std::atoi(argv[2]) : 2;
  const std::vector<Eigen::Index> lengths = {4, 8, 16};
  std::printf("T = %d (%d chunks), K = V = 128, %d seeds; o rel-L2 vs the FP64 recurrence (RMS over seeds)\n"
              "intra tiles and h, v_new in bf16 as the kernels hold them; transition operands as listed\n",
              T, (T + k_chunk - 1) / k_chunk, seeds);
  for (const auto gate : {kda::gate_form::g, kda::gate_form::raw}) {
    for (const auto decay : {kda::decay_regime::normal, kda::decay_regime::fast}) {
      std::printf("\n%s gate, %s decay\n%-28s", gate == kda::gate_form::g ? "g" : "raw",
                  decay == kda::decay_regime::normal ? "normal" : "fast", "pass");
      for (const auto L : lengths) std::printf("   L = %-3ld vs fp64/vs serial", static_cast<long>(L));
      std::printf("\n");
      std::vector<head_problem> problems;
      std::vector<mat> refs;
      for (int s = 0; s < seeds; ++s) {
        problems.push_back(testing::full_size_problem(gate, decay, T, 2000 + static_cast<std::uint64_t>(s)));
        refs.push_back(forward(problems.back()).o);
      }
      const auto rms = [&](auto&& err_of) {
        double e = 0;
        for (int s = 0; s < seeds; ++s) e += std::pow(err_of(s), 2);
        return std::sqrt(e / seeds);
      };
      chunked_options serial;
      serial.intra_tiles = st::bf16;
      serial.saved_set = st::bf16;
      std::vector<mat> serial_o;
      for (int s = 0; s < seeds; ++s) serial_o.push_back(trace_chunked(problems[s], serial).results.outputs.o);
      const double e_serial = rms([&](int s) { return rel_l2(serial_o[s], refs[s]); });
      std::printf("%-28s %12.3e (no segments)\n", "serial (the kernels now)", e_serial);
      for (const st t : {st::fp32, st::tf32, st::bf16}) {
        char label[64];
        std::snprintf(label, sizeof label, "segmented, transition %s", name(t));
        std::printf("%-28s", label);
        for (const auto L : lengths) {
          segmented_options o;
          o.segment_chunks = L;
          o.intra_tiles = st::bf16;
          o.saved_set = st::bf16;
          o.transition = t;
          double e = 0, d = 0;
          for (int s = 0; s < seeds; ++s) {
            const mat seg = forward_segmented(problems[s], o).o;
            e += std::pow(rel_l2(seg, refs[s]), 2);
            d += std::pow(rel_l2(seg, serial_o[s]), 2);
          }
          std::printf(" %9.3e/%8.1e", std::sqrt(e / seeds), std::sqrt(d / seeds));
        }
        std::printf("\n");
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
